#!/bin/bash
# Llama 3 8B in FP8 on one H100 node, from NVIDIA's Megatron-LM example script
# https://github.com/NVIDIA/Megatron-LM/blob/779c5b748dbcf00ad9e36d539c576b404ab4abe9/examples/llama/train_llama3_8b_h100_fp8.sh
# as the command it runs with its defaults (DTYPE=fp8, mock data with NullTokenizer): its argument
# arrays written out, its $VARIABLES replaced by their values (stepsim reads a command line, not a
# script's variables).
#   stepsim import --megatron scenarios/megatron/llama3-8b-fp8.sh --gpu h100-sxm --nodes 1

export CUDA_DEVICE_MAX_CONNECTIONS=1

torchrun --nproc_per_node 8 --nnodes 1 --node_rank 0 --master_addr localhost --master_port 29500 \
    pretrain_gpt.py \
    --use-mcore-models \
    --num-layers 32 \
    --hidden-size 4096 \
    --ffn-hidden-size 14336 \
    --num-attention-heads 32 \
    --group-query-attention \
    --num-query-groups 8 \
    --kv-channels 128 \
    --seq-length 8192 \
    --max-position-embeddings 8192 \
    --position-embedding-type rope \
    --rotary-base 1000000 \
    --rotary-percent 1.0 \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --swiglu \
    --normalization RMSNorm \
    --init-method-std 0.0134 \
    --attention-backend fused \
    --apply-layernorm-1p \
    --untie-embeddings-and-output-weights \
    --disable-bias-linear \
    --micro-batch-size 1 \
    --global-batch-size 128 \
    --train-samples 1953125000 \
    --lr-decay-samples 1949218748 \
    --lr-warmup-samples 3906252 \
    --lr 0.00015 \
    --min-lr 0.00001 \
    --decoupled-lr 5.0e-4 \
    --decoupled-min-lr 4.5e-5 \
    --lr-decay-style cosine \
    --clip-grad 1.0 \
    --weight-decay 0.1 \
    --adam-beta1 0.9 \
    --adam-beta2 0.95 \
    --bf16 \
    --grad-reduce-in-bf16 \
    --cross-entropy-loss-fusion \
    --calculate-per-token-loss \
    --manual-gc \
    --empty-unused-memory-level 1 \
    --exit-duration-in-mins 235 \
    --use-distributed-optimizer \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --fp8-format hybrid \
    --fp8-amax-history-len 1024 \
    --fp8-amax-compute-algo max \
    --fp8-param-gather \
    --tensor-model-parallel-size 1 \
    --context-parallel-size 1 \
    --sequence-parallel \
    --mock-data \
    --tokenizer-type NullTokenizer \
    --vocab-size 128256 \
    --data-cache-path /workspace/benchmark_cache_llama3_8b_fp8 \
    --tiktoken-pattern v2 \
    --split 99,1,0 \
    --no-create-attention-mask-in-dataloader \
    --no-mmap-bin-files \
    --num-workers 1 \
    --log-interval 1 \
    --eval-iters 32 \
    --eval-interval 100 \
    --save-interval 1000 \
    --log-throughput \
    --profile \
    --profile-step-start 4 \
    --profile-step-end 6 \
    --ckpt-format torch_dist \
    --distributed-timeout-minutes 60 \
    --save checkpoints/llama3_8b_fp8 \
    --load checkpoints/llama3_8b_fp8 \
    --tensorboard-dir tensorboard_logs/llama3_8b_fp8
