#pragma once
// Small jobs with round numbers, so that tests can derive every expectation by hand.

#include "workloads/model/job.hpp"

namespace stepsim::test {

/// A 4-layer GPT-like model: h = 1024, 16 heads of 64, FFN 4096 (GELU), vocab 32,000, untied, RMSNorm.
/// Parameters: attention 4h^2 x 4 = 16,777,216; FFN 2 x h x 4h x 4 = 33,554,432; norms 9 x 1024 = 9,216;
/// embedding = head = 32,768,000; total 115,876,864.
/// DeepSeek-V3's dimensions (config.json): 61 layers, h 7168, 128 heads with MLA (q_lora 1536,
/// kv_lora 512, nope 128, rope 64, v 128), 256 experts of 2048 + 1 shared, top-8, 3 dense layers,
/// and `mtp_layers` multi-token-prediction modules (the published model has one).
inline work::ModelSpec deepseek_v3(int mtp_layers = 1) {
  work::ModelSpec m;
  m.id = "deepseek-v3";
  m.layers = 61;
  m.hidden = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  m.ffn = 18432;
  m.vocab = 129280;
  m.attention = work::AttentionKind::mla;
  m.mla = work::MlaDims{1536, 512, 128, 64, 128};
  m.experts = 256;
  m.top_k = 8;
  m.shared_experts = 1;
  m.expert_ffn = 2048;
  m.dense_layers = 3;
  m.mtp_layers = mtp_layers;
  return m;
}

inline work::ModelSpec tiny_gpt() {
  work::ModelSpec m;
  m.id = "tiny-gpt";
  m.layers = 4;
  m.hidden = 1024;
  m.heads = 16;
  m.kv_heads = 16;
  m.head_dim = 64;
  m.ffn = 4096;
  m.vocab = 32000;
  m.activation = work::Activation::gelu;
  m.norm = work::NormKind::rmsnorm;
  return m;
}

/// A GPU with round figures: 1,000 TFLOP/s, 2 TB/s, 80 GB, NVLink 400 GB/s, NIC 400 Gb/s (50 GB/s),
/// $2/h; estimate efficiencies 0.5 (compute), 0.8 (memory), 0.5 (network) so each shows up.
inline topo::GpuSpec round_gpu() {
  topo::GpuSpec g;
  g.id = "round";
  g.bf16_peak = units::flops_per_s(1000e12);
  g.hbm_bw = units::bytes_per_s(2e12);
  g.hbm_capacity = units::bytes(80e9);
  g.nvlink_bw = units::bytes_per_s(400e9);
  g.nvlink_domain = 8;
  g.pcie_bw = units::bytes_per_s(32e9);
  g.nic_bw = units::bytes_per_s(50e9);
  g.price_per_hour = 2.0;
  g.eff.estimate_compute = 0.5;
  g.eff.estimate_memory = 0.8;
  g.eff.estimate_network = 0.5;
  return g;
}

/// tiny_gpt training on one node of 8 round GPUs: seq 2048, global batch 64, micro-batch 2, dp 4 x tp 2.
/// Micro-batches per rank m = 64 / (4 x 2) = 8; tokens per step 131,072; per GPU 16,384.
inline work::JobSpec tiny_training() {
  work::JobSpec j;
  j.model = tiny_gpt();
  j.cluster.gpu = round_gpu();
  j.cluster.nodes = 1;
  j.cluster.gpus_per_node = 8;
  j.cluster.nvlink_domain = 8;
  j.workload.kind = work::WorkloadKind::train;
  j.workload.seq_len = 2048;
  j.workload.global_batch = 64;
  j.workload.micro_batch = 2;
  j.parallel.dp = 4;
  j.parallel.tp = 2;
  return j;
}

/// tiny_gpt inference of `kind` on one round GPU, batch 8 (prompts of 512 tokens, or 1,000 cached).
inline work::JobSpec tiny_inference(work::WorkloadKind kind) {
  work::JobSpec j = tiny_training();
  j.cluster.gpus_per_node = 1;
  j.cluster.nvlink_domain = 1;
  j.parallel = {};
  j.workload.kind = kind;
  j.workload.batch = 8;
  j.workload.seq_len = 512;
  j.workload.context_len = 1000;
  return j;
}

/// Llama-3.1-70B dimensions (80 layers, h 8192, 64 heads, 8 KV heads of 128, SwiGLU 28,672, vocab 128,256).
inline work::ModelSpec llama_70b() {
  work::ModelSpec m;
  m.id = "llama-3.1-70b";
  m.layers = 80;
  m.hidden = 8192;
  m.heads = 64;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn = 28672;
  m.vocab = 128256;
  return m;
}

}  // namespace stepsim::test
