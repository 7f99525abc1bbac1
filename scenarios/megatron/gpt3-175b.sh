#!/bin/bash
# GPT-3 175B on Megatron-LM, from NVIDIA's example script
# https://github.com/NVIDIA/Megatron-LM/blob/779c5b748dbcf00ad9e36d539c576b404ab4abe9/examples/gpt3/train_gpt3_175b_distributed.sh
# as the command it runs: its argument arrays written out, its $VARIABLES replaced by example paths
# (stepsim reads a command line, not a script's variables). TP 8 x PP 16 needs 128 GPUs:
#   stepsim import --megatron scenarios/megatron/gpt3-175b.sh --gpu a100 --nodes 16
# The vocabulary is GPT-2's BPE (gpt2-vocab.json, 50257 tokens), padded by Megatron to 51200.

export CUDA_DEVICE_MAX_CONNECTIONS=1

torchrun --nproc_per_node 8 --nnodes 16 --master_addr localhost --master_port 29500 pretrain_gpt.py \
    --num-layers 96 \
    --hidden-size 12288 \
    --num-attention-heads 96 \
    --seq-length 2048 \
    --max-position-embeddings 2048 \
    --attention-backend auto \
    --micro-batch-size 1 \
    --global-batch-size 1536 \
    --step-batch-size-schedule "0:16 2.4B:320 4.8B:624 7.2B:928 9.6B:1232 12B:1536" \
    --train-iters 500000 \
    --weight-decay 0.1 \
    --adam-beta1 0.9 \
    --adam-beta2 0.95 \
    --init-method-std 0.006 \
    --clip-grad 1.0 \
    --fp16 \
    --lr 6.0e-5 \
    --lr-decay-style cosine \
    --min-lr 6.0e-6 \
    --lr-warmup-fraction .001 \
    --lr-decay-iters 430000 \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 16 \
    --data-path /data/gpt3/my-gpt3_00_text_document \
    --vocab-file /data/gpt3/gpt2-vocab.json \
    --merge-file /data/gpt3/gpt2-merges.txt \
    --split 949,50,1 \
    --log-interval 100 \
    --save-interval 10000 \
    --eval-interval 1000 \
    --save /checkpoints/gpt3-175b \
    --load /checkpoints/gpt3-175b \
    --eval-iters 10 \
    --tensorboard-dir /logs/gpt3-175b
