#pragma once
// The test fixtures every folder shares: hardware, models, jobs and queries with round or published
// figures, so that tests can derive every expectation by hand. A fixture's comment gives the figures
// the tests derive from; change one and the tests that quote it change with it.

#include "sim/units.hpp"
#include "topology/cluster.hpp"
#include "workloads/model/job.hpp"
#include "workloads/model/kv.hpp"

namespace stepsim::test {

// --- Hardware ---------------------------------------------------------------------------------------

inline constexpr double kMiB = 1048576.0;
inline constexpr double kGiB = 1073741824.0;
inline constexpr double kNvLine = 450e9;       ///< H100 NVLink line rate per direction, B/s
inline constexpr double kNv = kNvLine * 0.82;  ///< at protocol efficiency

/// An H100 SXM as the catalog describes it (reference.md sections 3-4), so that the topology tests do
/// not depend on the scenario catalog: 989 TFLOP/s, 3.35 TB/s, NVLink 450 GB/s per direction at 0.82
/// (369 GB/s), NIC 400 Gb/s = 50 GB/s at 0.85 (42.5 GB/s), NVLS at 0.689 plus 4.8 us and its pipeline fill
/// (121.8 us on 8 ranks), launch 4 us.
inline topo::GpuSpec h100() {
  topo::GpuSpec g;
  g.id = "h100-sxm";
  g.name = "NVIDIA H100 SXM5 80GB";
  g.arch = topo::GpuArch::hopper;
  g.bf16_peak = units::tflops_per_s(989);
  g.hbm_bw = units::tb_per_s(3.35);
  g.nvlink_bw = units::gb_per_s(450);  // NVLink4: 900 GB/s bidirectional
  g.nvlink_domain = 8;
  g.pcie_bw = units::gb_per_s(64);
  g.nic_bw = units::gbit_per_s(400);  // NDR, 50 GB/s
  g.eff.nvlink = 0.82;
  g.eff.nic = 0.85;
  g.eff.nvls = 0.689;
  g.nvls_latency_s = 4.8e-6;
  g.kernel_gap_s = 4e-6;
  return g;
}

/// `nodes` x `gpn` H100s (h100() above), one NVLink domain per node, the given fabric kind.
inline topo::ClusterSpec cluster(int nodes, int gpn = 8,
                                 topo::FabricKind kind = topo::FabricKind::rail_optimized) {
  topo::ClusterSpec c;
  c.gpu = h100();
  c.nodes = nodes;
  c.gpus_per_node = gpn;
  c.nvlink_domain = gpn;
  c.fabric.kind = kind;
  return c;
}

/// A GPU with round figures: 1,000 TFLOP/s, 2 TB/s, 80 GB, NVLink 400 GB/s, NIC 400 Gb/s (50 GB/s),
/// $2/h; estimate efficiencies 0.5 (compute), 0.8 (memory), 0.5 (network) so each shows up.
inline topo::GpuSpec round_gpu() {
  topo::GpuSpec g;
  g.id = "round";
  g.bf16_peak = units::tflops_per_s(1000);
  g.hbm_bw = units::tb_per_s(2);
  g.hbm_capacity = units::gb(80);
  g.nvlink_bw = units::gb_per_s(400);
  g.nvlink_domain = 8;
  g.pcie_bw = units::gb_per_s(32);
  g.nic_bw = units::gb_per_s(50);
  g.price_per_hour = 2.0;
  g.eff.estimate_compute = 0.5;
  g.eff.estimate_memory = 0.8;
  g.eff.estimate_network = 0.5;
  return g;
}

/// An H200 as the KV sizing examples take it: 141 GB of HBM at 4.8 TB/s, estimate memory efficiency
/// 0.75 (3.6 TB/s usable); nothing else set.
inline topo::GpuSpec kv_h200() {
  topo::GpuSpec g;
  g.hbm_capacity = units::gb(141);
  g.hbm_bw = units::tb_per_s(4.8);
  g.eff.estimate_memory = 0.75;
  return g;
}

// --- Models -------------------------------------------------------------------------------------------

/// A 4-layer GPT-like model: h = 1024, 16 heads of 64, FFN 4096 (GELU), vocab 32,000, untied, RMSNorm.
/// Parameters: attention 4h^2 x 4 = 16,777,216; FFN 2 x h x 4h x 4 = 33,554,432; norms 9 x 1024 = 9,216;
/// embedding = head = 32,768,000; total 115,876,864.
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

/// Llama-2-7B dimensions: 32 layers, h 4096, 32 heads of 128 (MHA), SwiGLU 11,008, vocab 32,000;
/// RMSNorm, RoPE, no biases, untied (the defaults).
/// Parameters: attention 4 h^2 x 32 = 2,147,483,648; MLP 3 x 4096 x 11008 x 32 = 4,328,521,728;
/// norms 65 x 4096 = 266,240; embedding = head = 131,072,000; total 6,738,415,616.
inline work::ModelSpec llama2_7b() {
  work::ModelSpec m;
  m.id = "llama-2-7b";
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 32;
  m.head_dim = 128;
  m.ffn = 11008;
  m.vocab = 32000;
  return m;
}

/// Llama-3.1-8B dimensions: 32 layers, h 4096, 32 heads of 128, 8 KV heads (GQA), SwiGLU 14,336,
/// vocab 128,256; RMSNorm, RoPE (the defaults).
inline work::ModelSpec llama_8b() {
  work::ModelSpec m;
  m.id = "llama-3.1-8b";
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn = 14336;
  m.vocab = 128256;
  return m;
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

// --- Jobs ---------------------------------------------------------------------------------------------

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

/// The seed notebook's default example (reference.md section 1) on a GPU of `tflops` TFLOP/s,
/// `hbm_tb_s` TB/s, a `nic_gbps` Gb/s NIC and `price` $/h: N = 70e9, L = 80, d = 8192, b = 2, kappa 6,
/// gamma 1.2, alpha_opt 16, c_act 5, B_g = 512,000, b_grad 2, p = 8, target 200,000 tokens/s, e = 0.75
/// everywhere. The notebook's H100 row is notebook_job(900, 3.35, 200, 3.93).
inline work::JobSpec notebook_job(double tflops, double hbm_tb_s, double nic_gbps, double price) {
  work::JobSpec j;
  j.model = llama_70b();
  j.cluster.gpu.id = "nb";
  j.cluster.gpu.bf16_peak = units::tflops_per_s(tflops);
  j.cluster.gpu.hbm_bw = units::tb_per_s(hbm_tb_s);
  j.cluster.gpu.nic_bw = units::gbit_per_s(nic_gbps);
  j.cluster.gpu.price_per_hour = price;
  j.cluster.gpu.eff.estimate_compute = j.cluster.gpu.eff.estimate_memory =
      j.cluster.gpu.eff.estimate_network = 0.75;
  j.parallel.dp = 8;
  j.estimate.formulas = work::EstimateFormulas::notebook;
  j.estimate.notebook = {70e9, 6.0, 1.2, 16.0, 5.0, 512'000.0, 2.0, 8};
  j.estimate.target_tokens_per_s = 200'000.0;
  return j;
}

/// KV sizing of Llama-3.1-70B-like serving on 8 kv_h200(): 8,192 tokens of context, batch 32,
/// allocator overhead 1.2, 70e9 parameters in bf16 (140 GB); the KV heads are the model's.
inline work::KvQuery kv_70b_on_8_h200() {
  work::KvQuery q;
  q.context = 8192;
  q.batch = 32;
  q.overhead = 1.2;
  q.params = 70e9;
  q.gpu = kv_h200();
  q.gpus = 8;
  return q;
}

}  // namespace stepsim::test
