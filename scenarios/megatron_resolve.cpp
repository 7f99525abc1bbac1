// A Megatron-LM / NeMo run's cluster, layout, batch, recomputation, precision and overlap, as
// Megatron derives them: dp = GPUs / (tp x pp x cp), the global batch defaulting to micro-batch x
// dp, virtual stages from layers per virtual stage, gradients reduced in fp32.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "scenarios/megatron_detail.hpp"

namespace stepsim::scen::megatron {
namespace megatron_resolve {

int whole_or(const RunSettings& s, std::string_view name, int fallback) {
  const auto v = s.whole_of(name);
  return v ? static_cast<int>(*v) : fallback;
}

std::string word_or(const RunSettings& s, std::string_view name, std::string fallback) {
  const auto it = s.word.find(name);
  return it == s.word.end() ? fallback : it->second;
}

void note_unused(const RunSettings& s, ImportedRun& r, std::string_view name, const std::string& why) {
  r.not_used.push_back(s.given.at(std::string(name)).shown() + " (" + why + ")");
}

void cluster(const RunSettings& s, const ImportCluster& c, const Catalog& catalog, ImportedRun& r) {
  const std::string list_hint = "`stepsim catalog gpus` lists the GPU names";
  if (c.gpu.empty())
    throw UserError({}, "--gpu", "is required: the arguments do not say which GPU the run uses",
                    "e.g. --gpu h100-sxm; " + list_hint);
  r.gpu_id = catalog.gpu_for_option(c.gpu, "--gpu").id;
  const auto file_nodes = s.whole_of("num_nodes");
  if (c.nodes == 0 && !file_nodes)
    throw UserError({}, "--nodes", "is required: the arguments do not say how many nodes the run uses",
                    "e.g. --nodes 64 --gpus-per-node 8 for 512 GPUs");
  r.nodes = c.nodes > 0 ? c.nodes : static_cast<int>(*file_nodes);
  if (c.nodes > 0 && file_nodes && *file_nodes != c.nodes)
    r.derivations.push_back("nodes = " + std::to_string(c.nodes) + " from --nodes, not the file's " +
                            s.spelled("num_nodes") + " = " + std::to_string(*file_nodes));
  const auto file_devices = s.whole_of("devices");
  r.gpus_per_node = c.gpus_per_node > 0 ? c.gpus_per_node
                    : file_devices      ? static_cast<int>(*file_devices)
                                        : 8;
  if (c.gpus_per_node > 0 && file_devices && *file_devices != c.gpus_per_node)
    r.derivations.push_back("gpus_per_node = " + std::to_string(c.gpus_per_node) +
                            " from --gpus-per-node, not the file's " + s.spelled("devices") + " = " +
                            std::to_string(*file_devices));
}

void layout(const RunSettings& s, ImportedRun& r) {
  r.tp = whole_or(s, "tensor_model_parallel_size", 1);
  r.pp = whole_or(s, "pipeline_model_parallel_size", 1);
  r.cp = whole_or(s, "context_parallel_size", 1);
  r.ep = whole_or(s, "expert_model_parallel_size", 1);
  const long long gpus = static_cast<long long>(r.nodes) * r.gpus_per_node;
  const long long model_parallel = static_cast<long long>(r.tp) * r.pp * r.cp;
  const std::string product = "tp x pp x cp = " + std::to_string(r.tp) + " x " + std::to_string(r.pp) +
                              " x " + std::to_string(r.cp) + " = " + std::to_string(model_parallel);
  const std::string cluster = std::to_string(gpus) + " GPUs (" + std::to_string(r.nodes) +
                              (r.nodes == 1 ? " node x " : " nodes x ") + std::to_string(r.gpus_per_node) +
                              ")";
  if (gpus > (1 << 24))
    throw UserError({}, "--nodes", cluster + " are more than stepsim simulates (16,777,216)", "");
  if (gpus % model_parallel != 0)
    throw UserError(SourceLocation{s.source}, "", product + " does not divide the " + cluster,
                    "Megatron-LM takes data parallelism as GPUs / (tp x pp x cp): give --nodes and "
                    "--gpus-per-node for a multiple of " +
                        std::to_string(model_parallel) + " GPUs");
  r.dp = static_cast<int>(gpus / model_parallel);
  r.derivations.push_back("dp = " + cluster + " / (" + product + ") = " + std::to_string(r.dp));
  r.sequence_parallel = s.on("sequence_parallel");
  r.first_stage_layers = whole_or(s, "decoder_first_pipeline_num_layers", 0);
  r.last_stage_layers = whole_or(s, "decoder_last_pipeline_num_layers", 0);
  r.account_for_embedding = s.on("account_for_embedding_in_pipeline_split");
  r.account_for_loss = s.on("account_for_loss_in_pipeline_split");
}

void virtual_stages(const RunSettings& s, ImportedRun& r) {
  r.virtual_stages = whole_or(s, "virtual_pipeline_model_parallel_size",
                              whole_or(s, "num_virtual_stages_per_pipeline_rank", 1));
  const auto per_chunk = s.whole_of("num_layers_per_virtual_pipeline_stage");
  if (!per_chunk) return;
  const int slots = r.model.layers + (r.account_for_embedding ? 1 : 0) + (r.account_for_loss ? 1 : 0);
  const std::string what =
      std::to_string(slots) + " layers" + (slots > r.model.layers ? " (with the embedding and loss)" : "");
  if (slots % r.pp != 0)
    s.fail("num_layers_per_virtual_pipeline_stage",
           "needs the " + what + " to split evenly over pp " + std::to_string(r.pp), "Megatron needs it too");
  if ((slots / r.pp) % *per_chunk != 0)
    s.fail("num_layers_per_virtual_pipeline_stage",
           std::to_string(*per_chunk) + " does not divide the " + std::to_string(slots / r.pp) +
               " layers of each of the " + std::to_string(r.pp) + " pipeline stages",
           "Megatron needs it too");
  r.virtual_stages = slots / r.pp / static_cast<int>(*per_chunk);
  r.derivations.push_back("virtual_stages = " + std::to_string(slots) + " layers / pp " +
                          std::to_string(r.pp) + " / " + std::to_string(*per_chunk) +
                          " per virtual stage = " + std::to_string(r.virtual_stages));
}

void batch(const RunSettings& s, ImportedRun& r) {
  r.seq_len = static_cast<int>(s.whole_of("seq_length").value_or(0));
  if (r.seq_len == 0) s.fail("seq_length", "is missing (the sequence length)", "Megatron-LM needs it too");
  const auto micro = s.whole_of("micro_batch_size");
  if (!micro)
    s.fail("micro_batch_size", "is missing (sequences per micro-batch)", "Megatron-LM needs it too");
  r.micro_batch = static_cast<int>(*micro);
  const long long per_step = static_cast<long long>(r.micro_batch) * r.dp;
  const auto global = s.whole_of("global_batch_size");
  if (!global) {
    if (per_step > 1'000'000'000) s.fail("micro_batch_size", "times dp is past a billion sequences");
    r.global_batch = static_cast<int>(per_step);
    r.derivations.push_back("global_batch = micro-batch x dp = " + std::to_string(r.global_batch) +
                            " (Megatron's default)");
    return;
  }
  r.global_batch = static_cast<int>(*global);
  if (*global % per_step != 0)
    s.fail("global_batch_size",
           std::to_string(*global) +
               " is not a multiple of micro-batch x dp = " + std::to_string(r.micro_batch) + " x " +
               std::to_string(r.dp) + " = " + std::to_string(per_step),
           "Megatron-LM refuses it too");
}

void recompute(const RunSettings& s, ImportedRun& r) {
  std::string granularity =
      word_or(s, "recompute_granularity", s.on("recompute_activations") ? "selective" : "");
  const std::string method = word_or(s, "recompute_method", "");
  if (granularity.empty()) {
    for (const char* name : {"recompute_method", "recompute_num_layers", "recompute_modules"})
      if (s.has(name)) note_unused(s, r, name, "no recompute granularity");
    return;
  }
  r.recompute = granularity;
  if (granularity == "full") {
    const int chunk_layers = r.model.layers / std::max(1, r.pp * r.virtual_stages);
    const int n = whole_or(s, "recompute_num_layers", 1);
    if (method == "block" && n < chunk_layers) r.recompute_layers = n;  // the first n of each chunk
    if (method == "uniform" && n > 1)
      note_unused(s, r, "recompute_num_layers",
                  "stepsim recomputes each layer from its own input; groups of layers keep fewer inputs");
    if (s.has("recompute_modules"))
      note_unused(s, r, "recompute_modules", "only with selective recomputation");
    return;
  }
  for (const char* name : {"recompute_method", "recompute_num_layers"})
    if (s.has(name)) note_unused(s, r, name, "only with full recomputation");
  const auto listed = s.words.find("recompute_modules");
  if (listed == s.words.end()) return;
  for (const std::string& module : listed->second) {
    if (module == "core_attn" || module == "layernorm" || module == "mla_up_proj" || module == "moe_act")
      r.recompute_modules.push_back(module);
    else
      r.not_used.push_back(s.spelled("recompute_modules") + " " + module +
                           " (stepsim does not model recomputing " + module + ")");
  }
  if (r.recompute_modules.empty()) r.recompute = "none";
}

std::string nemo_base_precision(const RunSettings& s) {
  const std::string p = word_or(s, "precision", "");
  if (p.rfind("bf16", 0) == 0) return "bf16";
  if (p == "16" || p == "16-mixed" || p == "16-true" || p == "fp16") return "fp16";
  return p.empty() ? "" : "fp32";
}

int state_bytes(const std::string& dtype) {
  return dtype == "fp32" ? 4 : dtype == "fp8" ? 1 : 2;
}

void optimizer(const RunSettings& s, ImportedRun& r) {
  const std::string nemo = word_or(s, "nemo_optimizer", "");
  if (s.on("use_distributed_optimizer") || nemo == "distributed_fused_adam" ||
      nemo == "mcore_distributed_optim")
    r.zero_stage = 1;
  if (s.on("use_torch_fsdp2")) r.zero_stage = 3;
  if (word_or(s, "optimizer", "adam") == "sgd" || nemo == "sgd")
    r.optimizer = "sgd-momentum";
  else if (!nemo.empty() && r.zero_stage == 0 && nemo != "fused_adam" && nemo != "adam" && nemo != "adamw")
    note_unused(s, r, "nemo_optimizer", "stepsim counts Adam's state unless told otherwise");
  const bool aware = s.on("use_precision_aware_optimizer");
  for (const char* name : {"main_params_dtype", "exp_avg_dtype", "exp_avg_sq_dtype"})
    if (!aware && s.has(name)) note_unused(s, r, name, "only with --use-precision-aware-optimizer");
  if (!aware || r.optimizer != "adam") return;
  const int bytes = state_bytes(word_or(s, "main_params_dtype", "fp32")) +
                    state_bytes(word_or(s, "exp_avg_dtype", "fp32")) +
                    state_bytes(word_or(s, "exp_avg_sq_dtype", "fp32"));
  r.optimizer = bytes == 12                                                       ? "adam"
                : bytes == 8 && word_or(s, "main_params_dtype", "fp32") == "fp32" ? "adam-bf16-moments"
                                                                                  : std::to_string(bytes);
  r.derivations.push_back("optimizer state: " + std::to_string(bytes) +
                          " bytes per parameter (master weights and moments)");
}

void precision(const RunSettings& s, ImportedRun& r) {
  const std::string nemo = nemo_base_precision(s);
  const bool bf16 = s.on("bf16") || nemo == "bf16";
  const bool fp16 = s.on("fp16") || nemo == "fp16";
  if (bf16 && fp16) s.fail("fp16", "is given with bf16", "Megatron-LM takes one of --bf16 and --fp16");
  const std::string base = bf16 ? "bf16" : fp16 ? "fp16" : "fp32";
  r.compute = r.params = base;
  r.grads = bf16 && s.on("grad_reduce_in_bf16") ? "bf16" : "fp32";
  if (s.has("fp8_format") || s.on("fp8")) {
    r.compute = "fp8";
    r.recipe = word_or(s, "fp8_recipe", "delayed");
  } else if (s.has("fp4_format")) {
    r.compute = "fp4";
    r.recipe = word_or(s, "fp4_recipe", "nvfp4");
  } else if (s.has("fp8_recipe")) {
    note_unused(s, r, "fp8_recipe", "no FP8 format: the linears run " + base);
  }
  r.fp8_params = s.on("fp8_param_gather") && r.compute == "fp8";
  if (s.on("fp8_param_gather") && !r.fp8_params)
    note_unused(s, r, "fp8_param_gather", "only with FP8 linears");
  r.activation_fp8_input_store = s.on("activation_func_fp8_input_store");
  const std::string backend = word_or(s, "attention_backend", "auto");
  r.attention_impl = backend == "unfused" ? "unfused" : "flash";
  r.grad_accumulation_separate =
      s.on("no_gradient_accumulation_fusion") || !s.on("gradient_accumulation_fusion", true);
  // Megatron-Core's local layers (tensor_parallel/layers.py) sum a bias gradient with
  // grad_output.sum(dim=0); Transformer Engine's (the default) inside its GEMM and cast kernels.
  r.bias_grad_separate =
      r.model.linear_bias && word_or(s, "transformer_impl", "transformer_engine") == "local";
  // The loss (Megatron-Core language_module.py): vocab_parallel_cross_entropy op by op unless
  // --cross-entropy-loss-fusion, then its torch.compile'd functions ("native") or Transformer
  // Engine's Triton kernel ("te").
  const std::string ce_impl = word_or(s, "cross_entropy_fusion_impl", "native");
  if (s.on("cross_entropy_loss_fusion"))
    r.cross_entropy = ce_impl == "te" ? "fused" : "megatron_compiled";
  else if (s.has("cross_entropy_fusion_impl"))
    note_unused(s, r, "cross_entropy_fusion_impl", "only with --cross-entropy-loss-fusion");
  optimizer(s, r);
}

/// The flex dispatcher's backends (Megatron-Core token_dispatcher.py): DeepEP's kernels hold
/// --moe-deepep-num-sms SMs (default 20); DeepEP V2 sizes its own; the alltoall and allgather
/// dispatchers run NCCL, which takes the GPU's default share.
void ep_kernels(const RunSettings& s, ImportedRun& r) {
  std::string backend;
  if (s.on("moe_enable_deepep")) backend = "deepep";  // deprecated spelling of flex + deepep
  if (const auto it = s.word.find("moe_flex_dispatcher_backend"); it != s.word.end()) backend = it->second;
  const auto type = s.word.find("moe_token_dispatcher_type");
  const bool flex = s.on("moe_enable_deepep") || (type != s.word.end() && type->second == "flex");
  if (!flex) {
    if (s.has("moe_deepep_num_sms"))
      r.not_used.push_back(s.given.at("moe_deepep_num_sms").shown() +
                           " (DeepEP's SMs: only with --moe-token-dispatcher-type flex)");
    return;
  }
  if (backend.empty()) backend = "deepep";  // Megatron-Core's default flex backend
  if (backend == "hybridep") {
    r.not_used.push_back(
        s.given
            .at(s.has("moe_flex_dispatcher_backend") ? "moe_flex_dispatcher_backend"
                                                     : "moe_token_dispatcher_type")
            .shown() +
        " (HybridEP's kernels are not modelled: the EP all-to-all takes the GPU's default SM share)");
    return;
  }
  if (const auto n = s.whole_of("moe_deepep_num_sms")) {
    r.ep_comm_sms = *n;
  } else if (backend == "deepepv2") {
    r.ep_comm_sms_deepep_v2 = true;
    r.derivations.push_back("ep_comm_sms = \"deepep-v2\": DeepEP V2 sizes its SMs to the EP layout");
  } else {
    r.ep_comm_sms = 20;
    r.derivations.push_back("ep_comm_sms = 20 (Megatron's --moe-deepep-num-sms default)");
  }
}

/// --cp-comm-type (Megatron-Core's TEDotProductAttention passes it to Transformer Engine): the ring
/// (p2p, the default), allgather or a2a; the hierarchical a2a+p2p is not modelled.
void cp_comm(const RunSettings& s, ImportedRun& r) {
  const auto it = s.word.find("cp_comm_type");
  if (it == s.word.end()) return;
  const std::string& type = it->second;
  if (r.cp <= 1) {
    r.not_used.push_back(s.given.at("cp_comm_type").shown() + " (no context parallelism: cp = 1)");
    return;
  }
  if (type == "a2a+p2p") {
    r.not_used.push_back(
        s.given.at("cp_comm_type").shown() +
        " (hierarchical all-to-all and ring context parallelism is not modelled: the ring runs)");
    return;
  }
  r.cp_comm = type == "allgather" ? "all_gather" : type;
}

/// --tp-comm-overlap-cfg: the YAML file of Transformer Engine's per-GEMM userbuffers settings, as
/// Megatron-LM opens it (relative to the working directory), else beside the arguments' file.
void ub_cfg_file(const RunSettings& s, const std::string& path, ImportedRun& r) {
  namespace fs = std::filesystem;
  fs::path file = path;
  std::error_code ec;
  if (file.is_relative() && !fs::exists(file, ec)) {
    const fs::path beside = fs::path(s.source).parent_path() / file;
    if (fs::exists(beside, ec)) file = beside;
  }
  if (!fs::is_regular_file(file, ec)) {
    r.not_used.push_back(
        s.given.at("tp_comm_overlap_cfg").shown() +
        " (the file is not here: each GEMM takes Transformer Engine's default; give its path "
        "from the working directory or beside the arguments)");
    return;
  }
  const std::string text = read_run_file(file, "Transformer Engine's userbuffers configuration (YAML)");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    const SourceLocation where = e.mark.is_null()
                                     ? SourceLocation{file.string()}
                                     : SourceLocation{file.string(), e.mark.line + 1, e.mark.column + 1};
    throw UserError(where, "", "is not valid YAML: " + e.msg, "a mapping of GEMM names to their settings");
  }
  read_ub_cfg(root, file.string(), "--tp-comm-overlap-cfg " + path, r);
  r.tp_overlap_from = "--tp-comm-overlap-cfg " + path;
}

void overlap(const RunSettings& s, ImportedRun& r) {
  r.dp_overlap = s.on("overlap_grad_reduce");
  r.overlap_param_gather = s.on("overlap_param_gather");
  if (r.overlap_param_gather && r.zero_stage != 1)
    s.fail("overlap_param_gather", "needs the distributed optimizer (--use-distributed-optimizer)",
           "Megatron-LM asserts it too");
  r.tp_comm_overlap = s.on("tp_comm_overlap");
  if (const auto it = s.word.find("tp_comm_overlap_cfg"); it != s.word.end()) {
    if (r.tp_comm_overlap)
      ub_cfg_file(s, it->second, r);
    else
      r.not_used.push_back(s.given.at("tp_comm_overlap_cfg").shown() +
                           " (configures userbuffers, but --tp-comm-overlap is not given)");
  }
  r.ep_overlap = s.on("overlap_moe_expert_parallel_comm");
  r.pp_p2p_blocking = s.on("no_overlap_p2p_communication") || !s.on("overlap_p2p_comm", true);
  r.shared_expert_overlap = r.model.is_moe() && s.on("moe_shared_expert_overlap");
  if (r.model.is_moe()) ep_kernels(s, r);
  cp_comm(s, r);
  if (const auto it = s.number.find("bucket_cap_mb"); it != s.number.end()) r.dp_bucket_mb = it->second;
  if (r.model.is_moe()) {
    r.expert_tp = whole_or(s, "expert_tensor_parallel_size", r.tp);
    if (!s.has("expert_tensor_parallel_size") && r.tp > 1)
      r.derivations.push_back("expert_tp = tp = " + std::to_string(r.tp) + " (Megatron's default)");
  } else if (r.ep > 1 || s.has("expert_tensor_parallel_size")) {
    s.fail(r.ep > 1 ? "expert_model_parallel_size" : "expert_tensor_parallel_size", "needs an MoE model",
           "give --num-experts, or drop it");
  }
}

}  // namespace megatron_resolve

ImportedRun resolve_run(const RunSettings& s, const ImportCluster& c, const Catalog& catalog) {
  using namespace megatron_resolve;
  ImportedRun r;
  r.source = s.source;
  r.not_used = s.not_used;
  r.no_effect = s.no_effect;
  cluster(s, c, catalog, r);
  layout(s, r);
  resolve_model(s, c, catalog, r);
  virtual_stages(s, r);
  batch(s, r);
  recompute(s, r);
  precision(s, r);
  overlap(s, r);
  return r;
}

}  // namespace stepsim::scen::megatron
