// The Megatron-LM options stepsim reads (one row each, after megatron/training/arguments.py), the
// ones it knows but does not use (with why), and the ones without effect on a step.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>

#include "scenarios/megatron_detail.hpp"
#include "scenarios/suggest.hpp"

namespace stepsim::scen::megatron {
namespace megatron_flags {

enum class Kind {
  whole,   ///< a whole number >= 1
  count,   ///< a whole number >= 0
  number,  ///< a finite number >= 0
  flag,    ///< a switch, or true/false
  word,    ///< one word; one of `choices` when they are given
  words,   ///< one or more words
};

struct Row {
  std::string_view name;
  Kind kind;
  std::string_view choices = {};  ///< "a|b|c", compared without case
};

// Sorted by name: find_row searches it by halves (the static_assert below keeps the order).
constexpr std::array kRows = std::to_array<Row>({
    {"account_for_embedding_in_pipeline_split", Kind::flag},
    {"account_for_loss_in_pipeline_split", Kind::flag},
    {"activation", Kind::word,
     "gelu|fast-gelu|openai-gelu|swiglu|fast-swiglu|geglu|fast-geglu|reglu|fast-reglu|squared-relu|relu"},
    {"activation_func_fp8_input_store", Kind::flag},
    {"add_bias_linear", Kind::flag},
    {"add_qkv_bias", Kind::flag},
    {"attention_backend", Kind::word, "auto|flash|fused|unfused|local"},
    {"attention_dropout", Kind::number},
    {"bf16", Kind::flag},
    {"bucket_cap_mb", Kind::number},
    {"context_parallel_size", Kind::whole},
    {"cp_comm_type", Kind::word, "p2p|a2a|allgather|a2a+p2p"},
    {"cross_entropy_fusion_impl", Kind::word, "native|te"},
    {"cross_entropy_loss_fusion", Kind::flag},
    {"decoder_first_pipeline_num_layers", Kind::whole},
    {"decoder_last_pipeline_num_layers", Kind::whole},
    {"devices", Kind::whole},
    {"disable_bias_linear", Kind::flag},
    {"exp_avg_dtype", Kind::word, "fp32|fp16|bf16|fp8"},
    {"exp_avg_sq_dtype", Kind::word, "fp32|fp16|bf16|fp8"},
    {"expert_model_parallel_size", Kind::whole},
    {"expert_tensor_parallel_size", Kind::whole},
    {"ffn_dropout", Kind::number},
    {"ffn_hidden_size", Kind::whole},
    {"fp16", Kind::flag},
    {"fp4_format", Kind::word, "e2m1"},
    {"fp4_recipe", Kind::word, "nvfp4"},
    {"fp8", Kind::flag},
    {"fp8_e4m3", Kind::flag},
    {"fp8_format", Kind::word, "e4m3|hybrid"},
    {"fp8_hybrid", Kind::flag},
    {"fp8_param_gather", Kind::flag},
    {"fp8_recipe", Kind::word, "delayed|tensorwise|blockwise|mxfp8"},
    {"global_batch_size", Kind::whole},
    {"grad_reduce_in_bf16", Kind::flag},
    {"gradient_accumulation_fusion", Kind::flag},
    {"group_query_attention", Kind::flag},
    {"hidden_dropout", Kind::number},
    {"hidden_size", Kind::whole},
    {"hybrid_attention_ratio", Kind::number},
    {"hybrid_mlp_ratio", Kind::number},
    {"hybrid_override_pattern", Kind::word},
    {"kv_channels", Kind::whole},
    {"kv_lora_rank", Kind::whole},
    {"main_params_dtype", Kind::word, "fp32|fp16|bf16"},
    {"make_vocab_size_divisible_by", Kind::whole},
    {"mamba_head_dim", Kind::whole},
    {"mamba_num_groups", Kind::whole},
    {"mamba_num_heads", Kind::whole},
    {"mamba_state_dim", Kind::whole},
    {"max_position_embeddings", Kind::whole},
    {"micro_batch_size", Kind::whole},
    {"moe_deepep_num_sms", Kind::whole},
    {"moe_enable_deepep", Kind::flag},
    {"moe_ffn_hidden_size", Kind::whole},
    {"moe_flex_dispatcher_backend", Kind::word, "deepep|deepepv2|hybridep"},
    {"moe_layer_freq", Kind::word},
    {"moe_router_topk", Kind::whole},
    {"moe_shared_expert_intermediate_size", Kind::whole},
    {"moe_shared_expert_overlap", Kind::flag},
    {"moe_token_dispatcher_type", Kind::word, "allgather|alltoall|flex"},
    {"mtp_num_layers", Kind::count},
    {"multi_latent_attention", Kind::flag},
    {"nemo_optimizer", Kind::word},
    {"no_gradient_accumulation_fusion", Kind::flag},
    {"no_overlap_p2p_communication", Kind::flag},
    {"no_position_embedding", Kind::flag},
    {"normalization", Kind::word, "LayerNorm|RMSNorm|layernorm1p"},
    {"num_attention_heads", Kind::whole},
    {"num_experts", Kind::whole},
    {"num_layers", Kind::whole},
    {"num_layers_per_virtual_pipeline_stage", Kind::whole},
    {"num_nodes", Kind::whole},
    {"num_query_groups", Kind::whole},
    {"num_virtual_stages_per_pipeline_rank", Kind::whole},
    {"optimizer", Kind::word, "adam|sgd"},
    {"overlap_grad_reduce", Kind::flag},
    {"overlap_moe_expert_parallel_comm", Kind::flag},
    {"overlap_p2p_comm", Kind::flag},
    {"overlap_param_gather", Kind::flag},
    {"pipeline_model_parallel_size", Kind::whole},
    {"position_embedding_type", Kind::word, "learned_absolute|rope|yarn|mrope|relative|none"},
    {"precision", Kind::word, "bf16|bf16-mixed|bf16-true|16|16-mixed|16-true|fp16|32|32-true|fp32"},
    {"q_lora_rank", Kind::count},
    {"qk_head_dim", Kind::whole},
    {"qk_pos_emb_head_dim", Kind::whole},
    {"recompute_activations", Kind::flag},
    {"recompute_granularity", Kind::word, "full|selective"},
    {"recompute_method", Kind::word, "uniform|block"},
    {"recompute_modules", Kind::words},
    {"recompute_num_layers", Kind::whole},
    {"rotary_percent", Kind::number},
    {"seq_length", Kind::whole},
    {"sequence_parallel", Kind::flag},
    {"share_embeddings_and_output_weights", Kind::flag},
    {"squared_relu", Kind::flag},
    {"swiglu", Kind::flag},
    {"tensor_model_parallel_size", Kind::whole},
    {"tokenizer_model", Kind::word},
    {"tokenizer_type", Kind::word},
    {"tp_comm_overlap", Kind::flag},
    {"tp_comm_overlap_cfg", Kind::word},
    {"transformer_impl", Kind::word, "transformer_engine|local|inference_optimized"},
    {"untie_embeddings_and_output_weights", Kind::flag},
    {"use_distributed_optimizer", Kind::flag},
    {"use_flash_attn", Kind::flag},
    {"use_precision_aware_optimizer", Kind::flag},
    {"use_rotary_position_embeddings", Kind::flag},
    {"use_torch_fsdp2", Kind::flag},
    {"v_head_dim", Kind::whole},
    {"virtual_pipeline_model_parallel_size", Kind::whole},
    {"vocab_file", Kind::word},
    {"vocab_size", Kind::whole},
    {"window_attn_skip_freq", Kind::word},
    {"window_size", Kind::word},
});

constexpr bool rows_sorted() {
  for (std::size_t i = 1; i < kRows.size(); ++i)
    if (!(kRows[i - 1].name < kRows[i].name)) return false;
  return true;
}
static_assert(rows_sorted(), "kRows must stay sorted by name");

const Row* find_row(std::string_view name) {
  const auto it = std::lower_bound(kRows.begin(), kRows.end(), name,
                                   [](const Row& r, std::string_view n) { return r.name < n; });
  return it != kRows.end() && it->name == name ? &*it : nullptr;
}

struct Reason {
  std::string_view name;
  std::string_view why;
};

/// Options stepsim knows and cannot represent, with what to do instead.
constexpr std::array kNotUsed = std::to_array<Reason>({
    {"accumulate_grad_batches", "NeMo takes the micro-batches from the global batch"},
    {"cuda_graph_impl", "set workload.cuda_graphs for kernels replayed from CUDA graphs"},
    {"data_parallel_sharding_strategy", "Megatron FSDP: set parallelism.zero_stage"},
    {"decoder_seq_length", "encoder-decoder models are not simulated"},
    {"distribute_saved_activations", "stepsim keeps each rank's saved activations whole"},
    {"enable_cuda_graph", "set workload.cuda_graphs for kernels replayed from CUDA graphs"},
    {"encoder_num_layers", "encoder-decoder models are not simulated"},
    {"hierarchical_context_parallel_sizes", "stepsim's context parallelism is one ring"},
    {"moe_expert_capacity_factor", "set [moe] capacity_factor"},
    {"moe_router_group_topk", "group-limited routing: set [moe] max_nodes_per_token"},
    {"moe_router_num_groups", "group-limited routing: set [moe] max_nodes_per_token"},
    {"num_distributed_optimizer_instances", "stepsim shards the optimizer over all data-parallel ranks"},
    {"optimizer_cpu_offload", "stepsim keeps the optimizer state on the GPU"},
    {"qk_layernorm", "QK-norm weights are not simulated"},
    {"rampup_batch_size", "stepsim simulates a step at the full global batch"},
    {"step_batch_size_schedule", "stepsim simulates a step at the full global batch"},
    {"use_custom_fsdp", "Megatron FSDP: set parallelism.zero_stage"},
    {"use_megatron_fsdp", "Megatron FSDP: set parallelism.zero_stage"},
});

/// Options without effect on a step's time or memory: learning rates, initialisation, data, paths,
/// logging, checkpoints, seeds, epsilons, kernel fusions stepsim assumes anyway.
// clang-format off
constexpr auto kNoEffect = std::to_array<std::string_view>({
    "accumulate_allreduce_grads_in_fp32", "adam_beta1", "adam_beta2", "adam_eps", "apex_transformer_log_level",
    "apply_layernorm_1p", "apply_query_key_layer_scaling", "apply_rope_fusion", "async_save",
    "attention_softmax_in_fp32", "attention_type", "batch_p2p_comm", "bias_activation_fusion",
    "bias_dropout_add_fusion", "calculate_per_token_loss", "clip_grad",
    "decoupled_lr", "decoupled_min_lr", "defer_embedding_wgrad_compute", "deterministic_mode",
    "distributed_backend", "distributed_timeout_minutes", "do_layer_norm_weight_decay",
    "empty_unused_memory_level", "eod_mask_loss", "finetune", "fp16_lm_cross_entropy",
    "fp32_residual_connection", "fp8_interval", "fp8_margin", "gc_interval", "grad_allreduce_chunk_size_mb",
    "grad_div_ar_fusion", "gradient_as_bucket_view", "gradient_clip_val", "headscale", "hysteresis",
    "init_method_std", "initial_loss_scale", "layernorm_epsilon", "loss_scale", "loss_scale_window",
    "manual_gc", "manual_gc_interval", "masked_softmax_fusion", "max_epochs", "max_steps", "max_time",
    "mcore_gpt", "megatron_amp_O2", "merge_file", "min_loss_scale", "min_lr",
    "no_async_tensor_model_parallel_allreduce", "norm_epsilon", "normalize_attention_scores", "num_workers",
    "onnx_safe", "openai_gelu", "override_opt_param_scheduler", "persist_layer_norm", "post_process",
    "pre_process", "reset_attention_mask", "reset_position_ids", "resume_from_checkpoint", "rotary_base",
    "scale_positional_embedding", "seed", "sgd_momentum", "split", "sync_batch_comm", "transformer_block_type",
    "transformer_engine", "use_checkpoint_args", "use_checkpoint_opt_param_scheduler",
    "use_cpu_initialization", "use_flash_attention", "use_mcore_models", "use_scaled_init_method",
    "weight_decay", "wgrad_deferral_limit",
});
// clang-format on

/// Name prefixes of the same kind (schedules, logging, checkpoints, data, profiling).
// clang-format off
constexpr auto kNoEffectPrefixes = std::to_array<std::string_view>({
    "accelerator", "adam_", "ckpt_", "data_", "dataloader", "dist_ckpt", "enable_checkpointing", "eval_",
    "exit_", "fp8_amax_", "iterations_to_skip", "limit_", "load", "log", "lr", "mock_data", "native_amp_",
    "no_create_attention_mask", "no_load_", "no_mmap", "no_save_", "profile", "rotary_scaling", "save",
    "tensorboard", "test_", "tiktoken_", "timing_", "train_", "use_distributed_sampler", "use_rope_scaling",
    "val_", "valid_", "wandb",
});
// clang-format on

bool no_effect(std::string_view name) {
  if (std::find(kNoEffect.begin(), kNoEffect.end(), name) != kNoEffect.end()) return true;
  return std::any_of(kNoEffectPrefixes.begin(), kNoEffectPrefixes.end(),
                     [&](std::string_view p) { return name.substr(0, p.size()) == p; });
}

std::string_view not_used_reason(std::string_view name) {
  for (const auto& r : kNotUsed)
    if (r.name == name) return r.why;
  return {};
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> split_choices(std::string_view choices) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at <= choices.size();) {
    const std::size_t bar = std::min(choices.find('|', at), choices.size());
    out.emplace_back(choices.substr(at, bar - at));
    at = bar + 1;
  }
  return out;
}

std::string one_value(const RunArgument& a, const RunSettings& s) {
  if (a.values.size() == 1) return a.values[0];
  if (a.values.empty()) s.fail(a.name, "is missing its value");
  s.fail(a.name, "takes one value, got " + std::to_string(a.values.size()) + ": `" + a.shown() + "`");
}

long long parse_whole(const RunArgument& a, const RunSettings& s, long long min) {
  const std::string v = one_value(a, s);
  long long n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc{} || end != v.data() + v.size() || n > INT_MAX)
    s.fail(a.name, "expected a whole number, got `" + v + "`");
  if (n < min) s.fail(a.name, "must be at least " + std::to_string(min) + ", got " + v);
  return n;
}

double parse_number(const RunArgument& a, const RunSettings& s) {
  const std::string v = one_value(a, s);
  double x = 0.0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc{} || end != v.data() + v.size() || !std::isfinite(x) || x < 0)
    s.fail(a.name, "expected a number of at least 0, got `" + v + "`");
  return x;
}

bool parse_flag(const RunArgument& a, const RunSettings& s) {
  if (a.values.empty()) return true;
  const std::string v = lower(one_value(a, s));
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  s.fail(a.name, "expected true or false, got `" + a.values[0] + "`");
}

std::string parse_word(const Row& row, const RunArgument& a, const RunSettings& s) {
  const std::string v = one_value(a, s);
  if (row.choices.empty()) return v;
  const auto choices = split_choices(row.choices);
  for (const auto& c : choices)
    if (lower(c) == lower(v)) return lower(c);
  s.fail(a.name, "expected one of " + join_names(choices) + ", got `" + v + "`", did_you_mean(v, choices));
}

void store(const Row& row, const RunArgument& a, RunSettings& s) {
  switch (row.kind) {
    case Kind::whole: s.whole[a.name] = parse_whole(a, s, 1); break;
    case Kind::count: s.whole[a.name] = parse_whole(a, s, 0); break;
    case Kind::number: s.number[a.name] = parse_number(a, s); break;
    case Kind::flag: s.flag[a.name] = parse_flag(a, s); break;
    case Kind::word: s.word[a.name] = parse_word(row, a, s); break;
    case Kind::words:
      if (a.values.empty()) s.fail(a.name, "is missing its values");
      s.words[a.name] = a.values;
      break;
  }
}

}  // namespace megatron_flags

std::string RunArgument::shown() const {
  std::string out = spelled;
  if (spelled.rfind("--", 0) != 0 && !values.empty()) out += " =";
  for (const auto& v : values) out += " " + v;
  return out;
}

bool RunSettings::on(std::string_view name, bool fallback) const {
  const auto it = flag.find(name);
  return it == flag.end() ? fallback : it->second;
}

std::optional<long long> RunSettings::whole_of(std::string_view name) const {
  const auto it = whole.find(name);
  if (it == whole.end()) return std::nullopt;
  return it->second;
}

void RunSettings::fail(std::string_view name, const std::string& problem, const std::string& hint) const {
  const auto it = given.find(name);
  if (it == given.end()) throw UserError(SourceLocation{source}, spelled(name), problem, hint);
  throw UserError(it->second.where, it->second.spelled, problem, hint);
}

std::string RunSettings::spelled(std::string_view name) const {
  const auto it = given.find(name);
  if (it != given.end()) return it->second.spelled;
  std::string flag = "--" + std::string(name);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

Arity arity_of(std::string_view name) {
  using namespace megatron_flags;
  const Row* row = find_row(name);
  if (row == nullptr) return Arity::unknown;
  if (row->kind == Kind::flag) return Arity::none;
  return row->kind == Kind::words ? Arity::many : Arity::one;
}

RunSettings read_settings(const std::vector<RunArgument>& args, Dialect dialect, const std::string& source) {
  using namespace megatron_flags;
  RunSettings s;
  s.dialect = dialect;
  s.source = source;
  for (const RunArgument& a : args) {
    const Row* row = find_row(a.name);
    if (row == nullptr) {
      if (const auto why = not_used_reason(a.name); !why.empty()) {
        s.not_used.push_back(a.shown() + " (" + std::string(why) + ")");
      } else if (no_effect(a.name)) {
        if (std::find(s.no_effect.begin(), s.no_effect.end(), a.spelled) == s.no_effect.end())
          s.no_effect.push_back(a.spelled);
      } else {
        s.not_used.push_back(a.shown() + " (not an argument stepsim knows)");
      }
      continue;
    }
    if (const auto it = s.given.find(a.name); it != s.given.end())
      s.not_used.push_back(it->second.shown() +
                           " (given again later: the last value counts, as in argparse)");
    s.given[a.name] = a;
    store(*row, a, s);
  }
  return s;
}

}  // namespace stepsim::scen::megatron
