#include "output/views/check_view.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "output/common/format.hpp"
#include "output/views/job_json.hpp"
#include "sim/units.hpp"
#include "workloads/model/attention_backend.hpp"
#include "workloads/model/names.hpp"
#include "workloads/model/params.hpp"
#include "workloads/step/layer_ops.hpp"

namespace stepsim::out {
namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string model_line(const scen::Scenario& s) {
  const work::ModelSpec& m = s.job.model;
  const work::ParamBreakdown b = work::count_params(m);
  const std::string source = !s.model_preset.empty()      ? s.model_preset + " (" + m.name + ")"
                             : !s.model_hf_config.empty() ? m.name + " from hf_config " + s.model_hf_config
                                                          : "inline (" + m.name + ")";
  std::string out = source + ": " + std::to_string(m.layers) + " layers, hidden " + std::to_string(m.hidden) +
                    ", " + std::to_string(m.heads) + " heads (" + std::to_string(m.kv_heads) + " KV), ";
  if (m.is_moe())
    out += std::to_string(m.experts) + " experts top-" + std::to_string(m.top_k) + ", expert ffn " +
           std::to_string(m.expert_ffn) + ", ";
  else
    out += "ffn " + std::to_string(m.ffn) + ", ";
  out += "vocab " + std::to_string(m.vocab) + "; ";
  if (m.is_hybrid()) {
    // A hybrid stack: how many layers of each kind, and the mixers' shapes.
    const int mlp = m.ffn_layers() - m.moe_layers();
    const auto count = [](int n, const char* what) {
      return n > 0 ? std::to_string(n) + " " + what + ", " : std::string();
    };
    const std::string kinds =
        count(m.mamba_layers(), "Mamba-2") + count(m.gated_delta_layers(), "Gated DeltaNet") +
        count(m.attention_layers(), "attention") + count(mlp, "MLP") + count(m.moe_layers(), "MoE");
    out += "hybrid: " + kinds.substr(0, kinds.size() - 2) + " layers";
    if (m.mamba_layers() > 0)
      out += " (Mamba " + std::to_string(m.mamba.heads) + " heads x " + std::to_string(m.mamba.head_dim) +
             ", state " + std::to_string(m.mamba.state) + ", " + std::to_string(m.mamba.groups) + " groups)";
    if (m.gated_delta_layers() > 0)
      out += " (Gated DeltaNet " + std::to_string(m.gated_delta.key_heads) + " key heads x " +
             std::to_string(m.gated_delta.key_dim) + ", " + std::to_string(m.gated_delta.value_heads) +
             " value heads x " + std::to_string(m.gated_delta.value_dim) + ")";
    out += "; ";
  }
  if (m.attention_output_gate) out += "gated attention output; ";
  if (m.qk_norm) out += "query and key norms; ";
  if (m.sandwich_norms) out += "norms after attention and MLP; ";
  if (m.has_local_attention())
    out +=
        std::string(m.window_kind == work::AttentionWindowKind::sliding ? "sliding window " : "chunks of ") +
        std::to_string(m.attention_window) + " on " + std::to_string(m.local_attention_layers()) + " of " +
        std::to_string(m.layers) + " layers; ";
  out += format_number(b.total / 1e9, 2) + "B params";
  if (m.is_moe()) out += " (" + format_number(b.active / 1e9, 2) + "B active)";
  return out;
}

std::string gpu_line(const topo::GpuSpec& g) {
  return g.id + " (" + g.name + "): " + num(units::in_tflops_per_s(g.bf16_peak)) + " TFLOP/s bf16, " +
         num(units::in_gb(g.hbm_capacity)) + " GB at " + num(units::in_tb_per_s(g.hbm_bw)) +
         " TB/s, NVLink " + num(units::in_gb_per_s(g.nvlink_bw)) + " GB/s, $" + num(g.price_per_hour) + "/h";
}

std::string cluster_line(const topo::ClusterSpec& c) {
  const char* kind = c.fabric.kind == topo::FabricKind::custom     ? "custom"
                     : c.fabric.kind == topo::FabricKind::fat_tree ? "fat-tree"
                                                                   : "rail-optimized";
  return std::to_string(c.nodes) + " nodes x " + std::to_string(c.gpus_per_node) + " = " +
         std::to_string(c.total_gpus()) + " GPUs, NVLink domain " + std::to_string(c.nvlink_domain) +
         (c.rack_gpus > 0 ? " of each " + std::to_string(c.rack_gpus) + "-GPU rack" : "") +
         (c.nvls ? " (NVLS)" : "") + ", NIC " + num(units::in_gbit_per_s(c.nic_bw())) + " Gb/s, " + kind +
         " " + std::to_string(c.fabric.tiers) + "-tier fabric" + (c.fabric.sharp ? " with SHARP" : "");
}

/// ", collectives forced to tree / ll" when [collective] forces NCCL's algorithm or protocol.
std::string forced_collectives(const topo::CommConfig& c) {
  std::string out;
  if (c.algorithm != topo::CollectiveAlgorithm::automatic ||
      c.protocol != topo::CollectiveProtocol::automatic)
    out = ", collectives forced to " + std::string(topo::name(c.algorithm)) + " / " +
          std::string(topo::name(c.protocol));
  if (c.collnet) out += ", NCCL's CollNet on";
  if (!c.pat) out += ", NCCL's PAT off";
  return out;
}

/// " (layernorm, mla_up_proj)": what selective recomputation covers; " (the first 2 layers of each
/// chunk)": which layers full recomputation does.
std::string selective_modules(const work::JobSpec& j) {
  if (j.recompute == work::Recompute::full && j.recompute_layers > 0)
    return " (the first " + std::to_string(j.recompute_layers) + " layers of each model chunk)";
  if (j.recompute == work::Recompute::full && j.recompute_every > 0)
    return " (one layer in " + std::to_string(j.recompute_every) + " of each pipeline rank)";
  if (j.recompute != work::Recompute::selective) return "";
  std::string out;
  for (std::string_view n : work::names(j.recompute_modules))
    out += (out.empty() ? "" : ", ") + std::string(n);
  return " (" + out + ")";
}

/// ", 2000 requests (Poisson 6/s, 512-4096 in, 128-1024 out), max batch 128, 8192 tokens per iteration".
std::string serving_words(const work::ServeSpec& s) {
  long long in_lo = LLONG_MAX, in_hi = 0, out_lo = LLONG_MAX, out_hi = 0;
  for (const work::Request& r : s.requests) {
    in_lo = std::min<long long>(in_lo, r.input_len), in_hi = std::max<long long>(in_hi, r.input_len);
    out_lo = std::min<long long>(out_lo, r.output_len), out_hi = std::max<long long>(out_hi, r.output_len);
  }
  const auto range = [](long long lo, long long hi) {
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  };
  const std::string source =
      s.poisson ? "Poisson " + format_number(s.poisson->rate_per_s, 2) + "/s" : std::string("trace");
  return ", " + std::to_string(s.requests.size()) + " requests (" + source + "; lengths " +
         range(in_lo, in_hi) + " in, " + range(out_lo, out_hi) + " out), max batch " +
         std::to_string(s.config.max_batch) + ", " + std::to_string(s.config.max_num_tokens) +
         " tokens per iteration";
}

std::string workload_line(const scen::Scenario& s) {
  const work::JobSpec& j = s.job;
  const work::WorkloadSpec& w = j.workload;
  std::string out(work::name(w.kind));
  if (w.kind == work::WorkloadKind::train)
    out += ", seq " + std::to_string(w.seq_len) + ", global batch " + std::to_string(w.global_batch) +
           ", micro-batch " + std::to_string(w.micro_batch) +
           (w.local_batch > 0 ? ", local batch " + std::to_string(w.local_batch) + " (" +
                                    std::to_string(j.pipeline_flushes()) + " pipeline schedules per step)"
                              : std::string()) +
           ", recompute " + std::string(work::name(j.recompute)) + selective_modules(j);
  else if (w.kind == work::WorkloadKind::prefill)
    out += ", seq " + std::to_string(w.seq_len) + ", batch " + std::to_string(w.batch);
  else if (w.kind == work::WorkloadKind::serve && s.serve)
    out += serving_words(*s.serve);
  else if (w.kind == work::WorkloadKind::generate)
    out += ", " + std::to_string(w.seq_len) + " in / " + std::to_string(w.output_len) + " out, batch " +
           std::to_string(w.batch);
  else
    out += ", context " + std::to_string(w.context_len) + ", batch " + std::to_string(w.batch);
  if (w.document_tokens > 0.0)
    out += ", packed documents of " + format_number(w.document_tokens, 0) + " tokens";
  if (w.cuda_graphs) out += ", CUDA graphs";
  if (w.pointwise == work::Pointwise::eager) out += ", eager kernels";
  if (w.kind == work::WorkloadKind::train || w.kind == work::WorkloadKind::prefill) {
    if (w.attention_impl == work::AttentionImpl::unfused) out += ", unfused attention";
    if (w.attention_impl == work::AttentionImpl::flash && w.attention_kernel != topo::AttentionKernel::cudnn)
      out += ", " + std::string(topo::published_name(w.attention_kernel));
    if (w.transformer_engine.stated()) out += ", Transformer Engine " + w.transformer_engine.str();
  }
  return out;
}

std::string layout_line(const scen::Scenario& s) {
  const work::ParallelSpec& p = s.job.parallel;
  std::string out = "TP " + std::to_string(p.tp) + " x PP " + std::to_string(p.pp) + " x DP " +
                    std::to_string(p.dp) + (s.dp_derived ? " (derived)" : "") + " x CP " +
                    std::to_string(p.cp);
  if (p.cp > 1) out += " (" + std::string(work::name(p.cp_comm)) + ")";
  if (s.job.model.is_moe())
    out += ", EP " + std::to_string(p.ep) + ", expert TP " + std::to_string(p.expert_tp);
  out += ", " + std::string(work::name(p.schedule));
  if (p.virtual_stages > 1) out += " (" + std::to_string(p.virtual_stages) + " virtual stages)";
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0) {
    const int layers = s.job.model.layers;
    out += " (layers per stage: first " + std::to_string(p.stage_layers(0, layers)) + ", middle " +
           std::to_string(p.stage_layers(p.pp / 2, layers)) + ", last " +
           std::to_string(p.stage_layers(p.pp - 1, layers)) + ")";
  }
  if (!p.pipeline_layers.empty()) {
    const int layers = s.job.model.layers;
    out += " (layers per pipeline rank, pipeline_layers:";
    for (int r = 0; r < p.pp; ++r) out += (r > 0 ? ", " : " ") + std::to_string(p.stage_layers(r, layers));
    out += ")";
  }
  if (p.pp > 1 && p.pp_p2p != work::P2pMode::overlapped)
    out += p.pp_p2p == work::P2pMode::lockstep
               ? ", pipeline sends in lock step (torch.distributed.pipelining up to 2.8)"
               : ", blocking pipeline sends";
  if (p.sequence_parallel) out += ", sequence parallel";
  if (p.tp_comm_overlap == work::TpCommOverlap::async_tp && p.tp > 1) out += ", TP overlap AsyncTP";
  if (p.tp_comm_overlap == work::TpCommOverlap::userbuffers && p.tp > 1) {
    // Each GEMM's userbuffers method, its kernels' SMs and, where set, the GEMM's SM margin.
    out += ", TP overlap userbuffers (";
    for (std::size_t i = 0; i < work::kUbGemms; ++i) {
      const work::UbOverlap& c = p.ub_overlap[i];
      out += (i > 0 ? ", " : "") + std::string(work::name(static_cast<work::UbGemm>(i))) + " " +
             std::string(work::name(c.method));
      if (c.method != work::UbMethod::ring_exchange) out += " " + std::to_string(c.num_sm) + " SMs";
      if (c.method == work::UbMethod::pipeline)
        out += " x" + std::to_string(c.num_splits > 0 ? c.num_splits : p.tp_overlap_rs_splits);
      if (c.aggregate) out += " aggregated";
      if (c.fp8_buf) out += " fp8";
      if (c.set_sm_margin) out += " +margin";
    }
    out += ")";
  }
  out += ", ZeRO " + std::to_string(p.zero_stage);
  if (p.average_in_collective && p.dp * p.cp > 1)
    out += ", gradients averaged inside NCCL (ReduceOp.AVG: no PAT for their reduce-scatters)";
  return out;
}

std::string precision_line(const work::PrecisionSpec& p) {
  std::string linears = "linear GEMMs " + std::string(topo::name(p.compute));
  if (p.low_precision_linears())
    linears += " (recipe " + std::string(work::name(p.recipe)) + (p.fp8_params ? ", FP8 params" : "") +
               "; attention " + (p.fp8_attention ? "fp8" : "bf16") + ", the rest bf16)";
  return linears + "; bytes per weight " + num(p.param_bytes) + ", gradient " + num(p.grad_bytes) +
         ", optimizer state " + num(p.optimizer_bytes) + ", activation " + num(p.activation_bytes) + ", KV " +
         num(p.kv_bytes);
}

/// Training and prefill: the fused attention kernel the step runs and the share of its figure its
/// shape reaches (docs/simulation.md, *Attention by shape*); "" where attention is unfused or decoded.
std::string attention_line(const work::JobSpec& job) {
  const work::WorkloadKind k = job.workload.kind;
  if (k != work::WorkloadKind::train && k != work::WorkloadKind::prefill) return "";
  if (job.model.heads <= 0 || job.workload.attention_impl != work::AttentionImpl::flash) return "";
  const double b = k == work::WorkloadKind::train ? job.workload.micro_batch : job.workload.batch;
  const work::AttentionShape shape = work::fused_attention_shape(work::layer_dims(job, b));
  const topo::Efficiency& e = job.cluster.gpu.eff;
  const topo::AttentionKernel kernel = job.workload.attention_kernel;
  const double limit = e.attention_of(kernel);
  const double factor = e.attention_shape(shape.keys, shape.tiles);
  std::string padded;
  if (shape.width < 1.0) {
    const work::HeadDims dims = work::attention_head_dims(job.model);
    padded = " x " + format_number(shape.width, 3) + " for heads of " + format_number(dims.qk, 0) +
             (dims.v != dims.qk ? "/" + format_number(dims.v, 0) : std::string()) + " run at the kernel's " +
             format_number(topo::attention_head_tile(kernel, dims.qk), 0) +
             (dims.v != dims.qk ? "/" + format_number(topo::attention_head_tile(kernel, dims.v), 0)
                                : std::string());
  }
  return std::string(topo::name(kernel)) + " fused, " +
         format_number(e.attention_at(kernel, shape.keys, shape.tiles, shape.width), 3) +
         " of peak at its shape (" + format_number(limit, 3) + " for long rows and many query tiles x " +
         format_number(factor, 3) + ": " + format_number(shape.keys, 0) + " keys a row, " +
         format_number(shape.tiles, 0) + " query tiles a kernel" +
         (job.parallel.cp > 1 ? ", before context parallelism's split" : "") + padded + ")";
}

std::string table(const scen::Scenario& s) {
  std::string out;
  auto row = [&](const char* label, const std::string& value) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%-11s", label);
    out += buf + value + "\n";
  };
  row("scenario", s.display_name + (s.meta.name.empty() ? "" : " (" + s.meta.name + ")"));
  if (!s.meta.id.empty()) row("id", s.meta.id + (s.meta.group.empty() ? "" : " [" + s.meta.group + "]"));
  row("model", model_line(s));
  for (const auto& n : s.notes) row("note", n);
  row("gpu", gpu_line(s.job.cluster.gpu));
  row("cluster", cluster_line(s.job.cluster) + forced_collectives(s.job.collective));
  row("workload", workload_line(s));
  row("layout", layout_line(s));
  if (const std::string ep = ep_kernels_text(s.job); !ep.empty()) row("ep kernels", ep);
  row("precision", precision_line(s.job.precision));
  if (const std::string a = attention_line(s.job); !a.empty()) row("attention", a);
  if (s.target.tokens_per_s) row("target", format_number(*s.target.tokens_per_s, 0) + " tokens/s");
  if (s.validation)
    row("validation", "measured step " + format_seconds(s.validation->measured_step_s) +
                          (s.validation->metric.empty()
                               ? ""
                               : " (" + s.validation->metric + " = " + num(s.validation->value) + ")"));
  out += "ok\n";
  return out;
}

}  // namespace

std::string render_check(const scen::Scenario& s, RenderFormat format) {
  if (format == RenderFormat::table) return table(s);
  nlohmann::json j{{"scenario",
                    {{"name", s.meta.name},
                     {"description", s.meta.description},
                     {"id", s.meta.id},
                     {"group", s.meta.group},
                     {"file", s.display_name},
                     {"model_preset", s.model_preset},
                     {"model_hf_config", s.model_hf_config},
                     {"notes", s.notes},
                     {"gpu_preset", s.gpu_preset},
                     {"dp_derived", s.dp_derived}}},
                   {"job", job_json(s.job)}};
  if (s.validation)
    j["validation"] = {{"measured_step_s", s.validation->measured_step_s},
                       {"metric", s.validation->metric},
                       {"value", s.validation->value},
                       {"source", s.validation->source},
                       {"note", s.validation->note}};
  if (s.target.tokens_per_s) j["target"] = {{"tokens_per_s", *s.target.tokens_per_s}};
  return j.dump(2) + "\n";
}

}  // namespace stepsim::out
