#pragma once
// Training runs kept as Megatron-LM command lines or NeMo (1.x, Megatron-style) YAML configs, read
// into a whole scenario: `stepsim import --megatron FILE` and `stepsim import --nemo FILE.yaml`.
// Every argument is mapped to a scenario key, listed as not used by stepsim (with why), or known
// to have no effect on a step (learning rates, paths, logging) and listed apart; none is dropped.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/catalog.hpp"
#include "sim/error.hpp"
#include "workloads/model/model.hpp"

namespace stepsim::scen {

/// What the arguments do not say: the hardware they run on, and the tokenizer's vocabulary when
/// they name a tokenizer file instead of a size. 0 = not given on the command line.
struct ImportCluster {
  std::string gpu;          ///< catalog GPU id or alias (required)
  int nodes = 0;            ///< Megatron: required; NeMo: trainer.num_nodes unless given
  int gpus_per_node = 0;    ///< default 8 (NeMo: trainer.devices)
  int tokenizer_vocab = 0;  ///< the tokenizer's vocabulary before Megatron pads it
};

/// A training run as stepsim's scenario keys, with how each derived value came about.
struct ImportedRun {
  std::string source;  ///< the file, as given
  std::string format;  ///< "Megatron-LM arguments" or "NeMo config"
  work::ModelSpec model;
  std::string gpu_id;  ///< the catalog id --gpu resolved to
  int nodes = 0;
  int gpus_per_node = 8;
  int tp = 1, pp = 1, cp = 1, dp = 1, ep = 1;
  int expert_tp = 0;                                  ///< 0: not written (dense models)
  int virtual_stages = 1;                             ///< interleaved model chunks per pipeline rank
  int first_stage_layers = 0, last_stage_layers = 0;  ///< 0: even split
  bool account_for_embedding = false, account_for_loss = false;
  bool sequence_parallel = false;
  int zero_stage = 0;
  bool dp_overlap = false;  ///< Megatron reduces gradients after the backward unless told to overlap
  bool overlap_param_gather = false;
  bool tp_comm_overlap = false;
  /// Transformer Engine userbuffers' configuration of one GEMM (TE's ub_cfgs entry), as scenario
  /// keys and TOML values, from --tp-comm-overlap-cfg's YAML file or NeMo's
  /// model.ub_tp_comm_overlap_cfg; written as [parallelism.tp_overlap.<gemm>].
  struct UbGemmConfig {
    std::string gemm;
    std::vector<std::pair<std::string, std::string>> keys;
  };
  std::vector<UbGemmConfig> tp_overlap;
  std::string tp_overlap_from;  ///< where the per-GEMM configuration came from, for a comment
  bool ep_overlap = false;
  std::string cp_comm;  ///< "" (stepsim's default, the ring), "p2p", "all_gather" or "a2a"
  bool pp_p2p_blocking = false;
  double dp_bucket_mb = 0.0;  ///< 0: stepsim's default
  int seq_len = 0, micro_batch = 1, global_batch = 0;
  std::string recompute = "none";              ///< none, selective, full
  std::vector<std::string> recompute_modules;  ///< selective only; empty: stepsim's default
  int recompute_layers = 0;                    ///< full, block method: the first n of each chunk (0: all)
  std::string attention_impl = "flash";
  bool grad_accumulation_separate = false;  ///< --no-gradient-accumulation-fusion
  bool bias_grad_separate = false;          ///< --transformer-impl local with biases: grad_output.sum(dim=0)
  /// workload.cross_entropy: "megatron" (the default), "megatron_compiled" (--cross-entropy-loss-fusion)
  /// or "fused" (with --cross-entropy-fusion-impl te).
  std::string cross_entropy = "megatron";
  std::string compute = "bf16", params = "bf16", grads = "fp32";
  std::string recipe;  ///< FP8/FP4 scaling recipe; "" with 16/32-bit linears
  bool fp8_params = false;
  bool activation_fp8_input_store = false;  ///< --activation-func-fp8-input-store
  std::string optimizer = "adam";           ///< "adam", "sgd-momentum" or a number of bytes per parameter
  bool shared_expert_overlap = false;
  /// [moe] ep_comm_sms from the flex dispatcher's DeepEP backends and --moe-deepep-num-sms: a count,
  /// or DeepEP V2's own; neither (0, false) leaves the GPU's default share.
  long long ep_comm_sms = 0;
  bool ep_comm_sms_deepep_v2 = false;
  /// How derived values came about ("dp = 1024 GPUs / (tp 4 x pp 4 x cp 2) = 32"): comments.
  std::vector<std::string> derivations;
  /// Arguments stepsim does not use: "--flag value (why)", each a `# not used:` comment.
  std::vector<std::string> not_used;
  /// Arguments without effect on a step's time or memory (learning rate, paths, logging).
  std::vector<std::string> no_effect;
  /// What was passed over around the arguments: the launcher, other commands, other sections.
  std::vector<std::string> skipped;
};

/// Reads a Megatron-LM command line (a shell script with backslash continuations, or `--flag
/// value` tokens) from `file`. Throws UserError (file:line:column where the file has one) for a
/// missing file, a `$VAR` or `$(...)` token, a malformed value, a missing dimension, tp x pp x cp
/// not dividing the GPUs, an unknown GPU.
ImportedRun import_megatron_args(const std::filesystem::path& file, const ImportCluster& cluster,
                                 const Catalog& catalog);

/// As import_megatron_args, from text; `file_name` names it in messages.
ImportedRun import_megatron_text(std::string_view text, const std::string& file_name,
                                 const ImportCluster& cluster, const Catalog& catalog);

/// Reads a NeMo YAML config (model.*, trainer.*). `${a.b}` interpolations resolve to another key
/// of the file; one naming a key the file does not have is a UserError naming it, as is
/// malformed YAML (with its line and column).
ImportedRun import_nemo_config(const std::filesystem::path& file, const ImportCluster& cluster,
                               const Catalog& catalog);

/// As import_nemo_config, from text.
ImportedRun import_nemo_text(std::string_view text, const std::string& file_name,
                             const ImportCluster& cluster, const Catalog& catalog);

/// The whole scenario (meta, model, hardware, workload, parallelism, precision; moe when set),
/// the derivations, skipped parts and unused arguments as comments.
std::string imported_scenario_toml(const ImportedRun& run);

}  // namespace stepsim::scen
