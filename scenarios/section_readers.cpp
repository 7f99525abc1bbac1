// Readers of the [model], [workload], [parallelism], [precision], [moe], [collective] and [estimate]
// tables ([variability]: scenarios/variability_reader.cpp).
#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "scenarios/choices.hpp"
#include "scenarios/hf_config.hpp"
#include "scenarios/scenario_sections.hpp"
#include "scenarios/spec_readers.hpp"
#include "scenarios/suggest.hpp"
#include "sim/units.hpp"
#include "workloads/model/attention_backend.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::scen::detail {
namespace {

/// Reads `key` as a storage precision and stores its bytes per element.
void read_bytes(TableReader& r, std::string_view key, double& bytes) {
  topo::Precision p{};
  if (r.read(key, p, choices::kPrecision)) bytes = topo::bytes_per_element(p);
}

/// `params` is a float precision, or int8 / int4 for weight-only quantisation (w8a16, w4a16): int8
/// keeps a 16-bit scale per output channel (negligible), int4 one per group of 128 weights,
/// 0.5 + 2 / 128 = 0.515625 bytes per weight.
void read_params(TableReader& r, work::PrecisionSpec& p) {
  static constexpr std::array<Choice<work::WeightQuant>, 2> kInt{
      {{"int8", work::WeightQuant::int8}, {"int4", work::WeightQuant::int4}}};
  const toml::node* n = r.node("params");
  if (n == nullptr) return;
  if (const auto* v = n->as_string(); v && (v->get() == "int8" || v->get() == "int4")) {
    r.read("params", p.weight_quant, kInt);
    p.param_bytes = p.weight_quant == work::WeightQuant::int8 ? 1.0 : 0.5 + 2.0 / 128.0;
    return;
  }
  read_bytes(r, "params", p.param_bytes);
}

/// `optimizer` is a name (adam, ...) or a number of bytes per parameter.
void read_optimizer(TableReader& r, double& bytes) {
  const toml::node* n = r.node("optimizer");
  if (n == nullptr) return;
  if (n->is_number()) {
    r.read("optimizer", bytes, kNonNegative);
    return;
  }
  r.read("optimizer", bytes, choices::kOptimizerBytes);
}

std::vector<work::ParallelDim> read_order(TableReader r, const std::vector<std::string>& names) {
  std::vector<std::string> valid;
  for (const auto& c : choices::kParallelDim) valid.emplace_back(c.name);
  std::vector<work::ParallelDim> order;
  std::vector<std::string> seen;
  for (const auto& n : names) {
    const auto it = std::find_if(choices::kParallelDim.begin(), choices::kParallelDim.end(),
                                 [&](const auto& c) { return c.name == n; });
    if (it == choices::kParallelDim.end())
      r.fail("order", "unknown dimension \"" + n + "\"; expected tp, cp, ep, pp, dp", did_you_mean(n, valid));
    if (std::find(seen.begin(), seen.end(), n) != seen.end())
      r.fail("order", "lists \"" + n + "\" twice", "name each dimension once, innermost first");
    seen.push_back(n);
    order.push_back(it->value);
  }
  for (std::string_view required : {"tp", "cp", "pp", "dp"})
    if (std::find(seen.begin(), seen.end(), required) == seen.end())
      r.fail("order", "is missing \"" + std::string(required) + "\"",
             "list tp, cp, pp and dp (ep optional), innermost first, e.g. [\"tp\", \"cp\", \"pp\", \"dp\"]");
  return order;
}

}  // namespace

void read_model_section(TableReader r, const Catalog& catalog, Scenario& s,
                        const std::filesystem::path& base_dir) {
  work::ModelSpec& m = s.job.model;
  std::string preset;
  std::string hf_config;
  if (r.has("preset") && r.has("hf_config"))
    r.fail("hf_config", "give one of preset or hf_config",
           "preset names a catalog model, hf_config a Hugging Face config.json; keep one");
  if (r.read("hf_config", hf_config)) {
    if (hf_config.empty())
      r.fail("hf_config", "is empty",
             "give the path of a model's config.json, relative to the scenario file");
    const std::filesystem::path file = (base_dir / hf_config).lexically_normal();
    HfModel h = load_hf_config(file, HfReference{r.where("hf_config"), r.path("hf_config")});
    m = std::move(h.model);
    s.model_hf_config = file.string() + " (" + h.architecture + ")";
    for (auto& n : h.notes) s.notes.push_back(file.string() + ": " + std::move(n));
    mark_derived_model_fields(m);
  } else if (r.read("preset", preset)) {
    const work::ModelSpec* found = catalog.find_model(preset);
    if (found == nullptr) {
      std::string hint = did_you_mean(preset, catalog.model_names());
      r.fail("preset", "unknown model `" + preset + "`",
             (hint.empty() ? "" : hint + " ") + "`stepsim catalog models` lists them");
    }
    m = *found;
    s.model_preset = found->id;
    mark_derived_model_fields(m);
  } else {
    m = work::ModelSpec{};
    m.id = "custom";
    m.name = "custom model";
  }
  read_model_fields(r, m, FieldSet::scenario);
  r.finish();
  finalize_model(m, r);
}

/// Megatron-Core's `recompute_modules` names stepsim models, and those it knows but does not.
work::RecomputeModules read_recompute_modules(TableReader& r, const std::vector<std::string>& names) {
  const std::vector<std::string> valid{"core_attn", "layernorm", "mla_up_proj", "moe_act", "alternate_mm"};
  work::RecomputeModules m{false, false, false, false, false};
  for (const auto& n : names) {
    if (n == "core_attn")
      m.core_attn = true;
    else if (n == "layernorm")
      m.layernorm = true;
    else if (n == "mla_up_proj")
      m.mla_up_proj = true;
    else if (n == "moe_act")
      m.moe_act = true;
    else if (n == "alternate_mm")
      m.alternate_mm = true;
    else if (n == "mlp" || n == "moe" || n == "shared_experts")
      r.fail("recompute_modules", "module \"" + n + "\" is not modelled",
             "stepsim recomputes core_attn, layernorm, mla_up_proj and moe_act (and torchtitan's "
             "alternate_mm); use "
             "recompute = \"full\" for "
             "whole layers");
    else
      r.fail(
          "recompute_modules",
          "unknown module \"" + n + "\"; expected core_attn, layernorm, mla_up_proj, moe_act or alternate_mm",
          did_you_mean(n, valid));
  }
  if (m.alternate_mm && names.size() > 1)
    r.fail("recompute_modules", "alternate_mm is torchtitan's whole per-op policy and is listed alone",
           "it already replays the norms and keeps the attention kernel's output: recompute_modules = "
           "[\"alternate_mm\"]");
  return m;
}

void read_workload_section(TableReader r, Scenario& s) {
  work::WorkloadSpec& w = s.job.workload;
  r.read("kind", w.kind, choices::kWorkloadKind);
  r.read("seq_len", w.seq_len, kPositiveInt);
  r.read("global_batch", w.global_batch, kPositiveInt);
  r.read("micro_batch", w.micro_batch, kPositiveInt);
  r.read("local_batch", w.local_batch, kPositiveInt);
  r.read("batch", w.batch, kPositiveInt);
  r.read("context", w.context_len, kPositiveInt);
  r.read("input_len", w.seq_len, kPositiveInt);
  r.read("output_len", w.output_len, kPositiveInt);
  r.read("recompute", s.job.recompute, choices::kRecompute);
  r.read("recompute_layers", s.job.recompute_layers, kPositiveInt);
  r.read("recompute_every", s.job.recompute_every, kPositiveInt);
  std::vector<std::string> modules;
  if (r.read("recompute_modules", modules)) s.job.recompute_modules = read_recompute_modules(r, modules);
  r.read("attention_impl", w.attention_impl, choices::kAttentionImpl);
  r.read("attention_kernel", w.attention_kernel, choices::kAttentionKernel);
  r.read("pointwise", w.pointwise, choices::kPointwise);
  r.read("attention_unpad", w.attention_unpad);
  r.read(
      "document_tokens", w.document_tokens,
      RealRange{1.0, 1e9, false, "tokens, the length of a token's document averaged over tokens, e.g. 2048"});
  std::string te;
  if (r.read("transformer_engine", te)) {
    const auto version = work::parse_version(te);
    if (!version)
      r.fail("transformer_engine", "\"" + te + "\" is not a release number",
             "write the Transformer Engine release the run used, as \"2.2\"");
    w.transformer_engine = *version;
  }
  r.read("grad_accumulation", w.grad_accumulation, choices::kGradAccumulation);
  r.read("bias_grad", w.bias_grad, choices::kBiasGrad);
  r.read("cross_entropy", w.cross_entropy, choices::kCrossEntropy);
  r.read("qkv_grad_concat", w.qkv_grad_concat);
  r.read("cuda_graphs", w.cuda_graphs);
  r.read("decode_attention", w.decode_attention, choices::kDecodeAttention);
  r.finish();
}

/// ZeRO-3 / FSDP flavours: PyTorch FSDP's sharding strategy, FSDP2's reshard_after_forward, HSDP's
/// shard group, the prefetch depth, and DeepSpeed ZeRO-3's prefetch bucket and live-parameter limit
/// (converted to whole layers of prefetch in resolve_sharding).
void read_sharding(TableReader& r, Scenario& s) {
  work::ParallelSpec& p = s.job.parallel;
  choices::FsdpStrategy fsdp{};
  if (r.read("fsdp", fsdp, choices::kFsdpStrategy)) {
    if (r.has("zero_stage") && p.zero_stage != 3)
      r.fail("fsdp", "shards the weights (ZeRO-3), but zero_stage = " + std::to_string(p.zero_stage),
             "remove zero_stage, or set it to 3");
    p.zero_stage = 3;
    using F = choices::FsdpStrategy;
    p.reshard_after_forward = fsdp == F::full_shard || fsdp == F::hybrid_shard;
    s.fsdp_hybrid = fsdp == F::hybrid_shard || fsdp == F::hybrid_shard_zero2;
    int version = 2;
    r.read("fsdp_version", version, IntRange{1, 2});
    p.fsdp_copies = version == 2;
    // FSDP2 reduces fp32 and bf16 gradients with ReduceOp.AVG (_get_gradient_divide_factors);
    // FSDP1 divides before and after a sum.
    p.average_in_collective = version == 2;
  } else if (r.has("fsdp_version")) {
    r.fail("fsdp_version", "applies to PyTorch FSDP, and `fsdp` is not set",
           "set fsdp = \"full_shard\" (or another strategy), or remove fsdp_version");
  }
  r.read("reshard_after_forward", p.reshard_after_forward);
  r.read("shard_group", p.shard_group, kPositiveInt);
  r.read("prefetch_layers", p.prefetch_layers, IntRange{0, 16});
  r.read("defer_grad_sync", p.defer_grad_sync);
  r.read("average_in_collective", p.average_in_collective);
  r.read("prefetch_bucket_mparams", s.prefetch_bucket_params, kPositive, 1e6);
  r.read("max_live_mparams", s.max_live_params, kPositive, 1e6);
}

/// parallelism.tp_overlap_defaults / tp_overlap_config and the [parallelism.tp_overlap.<gemm>]
/// tables: Transformer Engine's ub_cfgs, as NeMo's and Megatron's configs write them. The defaults
/// or a catalog configuration (NeMo 2's named ones, scenarios/catalog/tp_overlap.toml) first; each
/// table then changes the settings it lists.
void read_ub_overlap(TableReader& r, const Catalog& catalog, Scenario& s) {
  work::ParallelSpec& p = s.job.parallel;
  bool te1 = false;
  const bool defaults = r.read("tp_overlap_defaults", te1, choices::kUbDefaults);
  p.ub_overlap = work::default_ub_overlap(te1);
  std::string preset;
  if (r.read("tp_overlap_config", preset)) {
    if (defaults)
      r.fail("tp_overlap_config",
             "names a configuration that sets each GEMM itself, so tp_overlap_defaults "
             "has nothing to set",
             "remove tp_overlap_defaults (the configuration carries its own defaults)");
    const TpOverlapConfig* c = catalog.find_tp_overlap(preset);
    if (c == nullptr) {
      const std::string hint = did_you_mean(preset, catalog.tp_overlap_names());
      r.fail("tp_overlap_config", "unknown userbuffers configuration `" + preset + "`",
             (hint.empty() ? "" : hint + " ") +
                 "`stepsim catalog tp-overlap` lists NeMo's named configurations");
    }
    p.ub_overlap = c->gemms;
  }
  auto t = r.table("tp_overlap");
  if ((t || !preset.empty()) && p.tp_comm_overlap != work::TpCommOverlap::userbuffers)
    r.fail(t ? "tp_overlap" : "tp_overlap_config",
           "configures Transformer Engine's userbuffers, but tp_comm_overlap is not userbuffers",
           "set tp_comm_overlap = true (or \"userbuffers\"), or remove it");
  const int sms = s.job.cluster.gpu.sms;
  const auto too_many = [&](const work::UbOverlap& u) { return sms > 0 && u.num_sm >= sms; };
  const auto problem = [&](const work::UbOverlap& u, work::UbGemm g) {
    return std::string(work::name(g)) + "'s " + std::to_string(u.num_sm) + " SMs leave none of the " +
           std::to_string(sms) + " of `" + s.job.cluster.gpu.id + "` for the GEMM";
  };
  if (t) {
    for (std::size_t i = 0; i < work::kUbGemms; ++i) {
      const auto g = static_cast<work::UbGemm>(i);
      auto c = t->table(work::name(g));
      if (!c) continue;
      work::UbOverlap& u = p.ub_overlap[i];
      read_ub_gemm_fields(*c, g, u);
      if (too_many(u)) c->fail("num_sm", problem(u, g), "NeMo's configs give userbuffers 1-32");
      c->finish();
    }
    t->finish();
  }
  // A named configuration's own SMs (the tables' were checked where they are written).
  if (p.tp_comm_overlap == work::TpCommOverlap::userbuffers)
    for (std::size_t i = 0; i < work::kUbGemms; ++i)
      if (too_many(p.ub_overlap[i]))
        r.fail(preset.empty() ? "tp_comm_overlap" : "tp_overlap_config",
               problem(p.ub_overlap[i], static_cast<work::UbGemm>(i)),
               "set that GEMM's num_sm below the GPU's SMs in [parallelism.tp_overlap." +
                   std::string(work::name(static_cast<work::UbGemm>(i))) + "]");
}

void read_parallelism_section(TableReader r, const Catalog& catalog, Scenario& s) {
  work::ParallelSpec& p = s.job.parallel;
  r.read("dp", p.dp, kPositiveInt);
  r.read("tp", p.tp, kPositiveInt);
  r.read("pp", p.pp, kPositiveInt);
  r.read("cp", p.cp, kPositiveInt);
  r.read("cp_comm", p.cp_comm, choices::kCpComm);
  r.read("ep", p.ep, kPositiveInt);
  r.read("expert_tp", p.expert_tp, kPositiveInt);
  r.read("virtual_stages", p.virtual_stages, kPositiveInt);
  r.read("first_stage_layers", p.first_stage_layers, kPositiveInt);
  r.read("last_stage_layers", p.last_stage_layers, kPositiveInt);
  r.read("account_for_embedding_in_pipeline_split", p.embedding_in_split);
  r.read("account_for_loss_in_pipeline_split", p.loss_in_split);
  std::vector<double> chunk_layers;
  if (r.read("pipeline_layers", chunk_layers, kPositive)) {
    if (chunk_layers.empty())
      r.fail("pipeline_layers", "is empty; expected the layers of each model chunk, e.g. [2, 2, 2, 1]",
             "list one whole number per model chunk (pp x virtual_stages of them), or remove the key");
    for (const double n : chunk_layers) {
      if (n != std::floor(n) || n > 1e6)
        r.fail("pipeline_layers",
               "holds a value that is not a whole number of layers; expected integers >= 1",
               "list each model chunk's transformer layers, e.g. [2, 2, 2, 1]");
      p.pipeline_layers.push_back(static_cast<int>(n));
    }
  }
  r.read("sequence_parallel", p.sequence_parallel);
  r.read("zero_stage", p.zero_stage, IntRange{0, 3});
  r.read("schedule", p.schedule, choices::kSchedule);
  std::vector<std::string> order;
  if (r.read("order", order)) p.order = read_order(r, order);
  r.read("dp_bucket_mb", p.dp_bucket_bytes, kPositive, units::kMB);
  r.read("dp_overlap", p.dp_overlap);
  r.read("overlap_param_gather", p.overlap_param_gather);
  // Megatron's --tp-comm-overlap is a switch: true means Transformer Engine's userbuffers.
  if (const toml::node* n = r.node("tp_comm_overlap"); n != nullptr && n->is_boolean())
    p.tp_comm_overlap =
        n->value<bool>().value_or(false) ? work::TpCommOverlap::userbuffers : work::TpCommOverlap::off;
  else
    r.read("tp_comm_overlap", p.tp_comm_overlap, choices::kTpCommOverlap);
  r.read("tp_overlap_rs_splits", p.tp_overlap_rs_splits, IntRange{1, 64});
  read_ub_overlap(r, catalog, s);
  r.read("ep_overlap", p.ep_overlap);
  r.read("reserve_comm_sms", p.reserve_comm_sms);
  read_sharding(r, s);
  r.read("pp_p2p", p.pp_p2p, choices::kP2pMode);
  r.finish();
}

void read_precision_section(TableReader r, Scenario& s) {
  work::PrecisionSpec& p = s.job.precision;
  r.read("compute", p.compute, choices::kPrecision);
  r.read("recipe", p.recipe, choices::kRecipe);
  r.read("fp8_attention", p.fp8_attention);
  r.read("fp8_params", p.fp8_params);
  r.read("activation_fp8_input_store", p.activation_fp8_input_store);
  read_params(r, p);
  read_bytes(r, "grads", p.grad_bytes);
  read_optimizer(r, p.optimizer_bytes);
  read_bytes(r, "activations", p.activation_bytes);
  read_bytes(r, "kv_cache", p.kv_bytes);
  r.finish();
}

void read_moe_section(TableReader r, Scenario& s) {
  work::MoeSpec& m = s.job.moe;
  r.read("capacity_factor", m.capacity_factor, RealRange{0.0, 64.0, false, "0 = dropless, else e.g. 1.25"});
  r.read("max_nodes_per_token", m.max_nodes_per_token, kNonNegativeInt);
  r.read("imbalance", m.imbalance, RealRange{1.0, 1e6, false, "max / mean expert load; 1 = balanced"});
  int seed = 1;
  if (r.read("seed", seed, kNonNegativeInt)) m.seed = static_cast<std::uint64_t>(seed);
  r.read("shared_expert_overlap", m.shared_expert_overlap);
  r.read("fp8_dispatch", m.fp8_dispatch);
  r.read("dispatcher", m.dispatcher, choices::kMoeDispatcher);
  r.read("probs", m.probs, choices::kMoeProbs);
  r.read("routing", m.routing, choices::kMoeRouting);
  if (const toml::node* n = r.node("ep_comm_sms"); n != nullptr && n->is_string()) {
    std::string v;
    r.read("ep_comm_sms", v);
    if (v != "deepep-v2")
      r.fail("ep_comm_sms", "expected a count of SMs or \"deepep-v2\", got \"" + v + "\"",
             "e.g. ep_comm_sms = 20 (DeepEP V1's default), or \"deepep-v2\" for V2's own count");
    m.ep_comm_sms_deepep_v2 = true;
  } else {
    r.read("ep_comm_sms", m.ep_comm_sms, IntRange{1, 4096});
  }
  r.finish();
  const topo::GpuSpec& gpu = s.job.cluster.gpu;
  if ((m.ep_comm_sms > 0 || m.ep_comm_sms_deepep_v2) && s.job.parallel.ep <= 1)
    r.fail("ep_comm_sms", "applies to the expert-parallel all-to-alls, but ep = 1",
           "set parallelism.ep > 1, or remove ep_comm_sms");
  if ((m.ep_comm_sms > 0 || m.ep_comm_sms_deepep_v2) && gpu.sms <= 0)
    r.fail("ep_comm_sms", "GPU `" + gpu.id + "` has no SM count in the catalog",
           "set hardware.gpu.sms (e.g. 132 for an H100)");
  if (m.ep_comm_sms >= gpu.sms && gpu.sms > 0)
    r.fail("ep_comm_sms",
           std::to_string(m.ep_comm_sms) + " SMs leave none of the " + std::to_string(gpu.sms) + " of `" +
               gpu.id + "` for compute",
           "DeepEP V1 takes 20-24 by default, V2 4-12 when it prefers to overlap with compute");
}

void read_collective_section(TableReader r, Scenario& s) {
  using topo::CollectiveAlgorithm;
  topo::CommConfig& c = s.job.collective;
  r.read("algorithm", c.algorithm, choices::kForcedAlgorithm);
  r.read("protocol", c.protocol, choices::kProtocol);
  r.read("collnet", c.collnet);
  r.read("pat", c.pat);
  r.finish();
  // [hardware] and [fabric] are read before this table, so what the algorithm needs is known.
  const topo::ClusterSpec& cluster = s.job.cluster;
  if ((c.algorithm == CollectiveAlgorithm::nvls || c.algorithm == CollectiveAlgorithm::nvls_tree) &&
      !cluster.nvls)
    r.fail("algorithm", "NVLS needs the NVSwitches' in-switch reduction", "set hardware.nvls = true");
  if (topo::is_collnet(c.algorithm) && !cluster.fabric.sharp)
    r.fail("algorithm", "CollNet needs switches that reduce in the network",
           "set fabric.sharp = true (InfiniBand SHARP)");
  if (c.algorithm == CollectiveAlgorithm::pat && !c.pat)
    r.fail("algorithm", "PAT is forced, but pat = false turns NCCL's PAT off",
           "drop pat = false, or force another algorithm");
  if (c.collnet && !cluster.fabric.sharp)
    r.fail("collnet", "NCCL's CollNet runs only on switches that reduce in the network",
           "set fabric.sharp = true (InfiniBand SHARP), or drop collnet");
  if (c.protocol == topo::CollectiveProtocol::ll128 && !(cluster.gpu.nvlink_bw.value() > 0.0))
    r.fail("protocol", "NCCL runs LL128 only over NVLink, and this GPU has none", "use \"ll\" or \"simple\"");
}

void read_estimate_section(TableReader r, Scenario& s) {
  work::EstimateOptions& e = s.job.estimate;
  r.read("formulas", e.formulas, choices::kFormulas);
  if (auto nb = r.table("notebook")) {
    work::NotebookInputs& n = e.notebook;
    nb->read("n_params", n.n_params, kPositive);
    nb->read("kappa", n.kappa, kPositive);
    nb->read("gamma", n.gamma, RealRange{1.0, 4.0, false, "recompute multiplier: 1 none, ~1.33 full"});
    nb->read("alpha_opt", n.alpha_opt, kNonNegative);
    nb->read("c_act", n.c_act, kNonNegative);
    nb->read("tokens_per_step", n.tokens_per_step, kPositive);
    nb->read("grad_bytes", n.grad_bytes, kPositive);
    nb->read("dp", n.dp, kPositiveInt);
    nb->finish();
    if (e.formulas != work::EstimateFormulas::notebook)
      nb->fail("", "is used only with formulas = \"notebook\"", "add formulas = \"notebook\" to [estimate]");
    if (!(n.n_params > 0.0)) nb->fail("", "missing `n_params` (the notebook's N)", "e.g. n_params = 70e9");
    if (!(n.tokens_per_step > 0.0))
      nb->fail("", "missing `tokens_per_step` (the notebook's B_g)", "e.g. tokens_per_step = 512000");
  } else if (e.formulas == work::EstimateFormulas::notebook) {
    r.fail("formulas", "\"notebook\" needs an [estimate.notebook] table with the notebook's inputs",
           "add [estimate.notebook] with n_params and tokens_per_step");
  }
  r.finish();
}

}  // namespace stepsim::scen::detail
