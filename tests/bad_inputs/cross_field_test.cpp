// Bad-input catalogue, one set of rules for check and run (issue 16): configurations that
// `stepsim check` accepted and `stepsim run` refused only deep in the simulator, without a
// location. Each rule is a row run through check, run and (where it covers the workload)
// estimate: all must refuse with exit code 2 and the same message, located at the key.
#include "tests/bad_inputs/bad_input.hpp"
#include "tests/support/small_inputs.hpp"

namespace cross_field_rows {

using stepsim::test::bad::BadInput;

// Line numbers in the rows count from the first line of these bases.
//  1 [model]                  6 nodes = 2             11 global_batch = 16
//  2 preset = "llama-3.1-8b"  7 gpus_per_node = 8     12 micro_batch = 1
//  3 layers = 4               8 [workload]            13 [parallelism]
//  4 [hardware]               9 kind = "train"        14 tp = 4
//  5 gpu = "h100-sxm"        10 seq_len = 1024        15 pp = 2
const std::string kDense = R"([model]
preset = "llama-3.1-8b"
layers = 4
[hardware]
gpu = "h100-sxm"
nodes = 2
gpus_per_node = 8
[workload]
kind = "train"
seq_len = 1024
global_batch = 16
micro_batch = 1
[parallelism]
tp = 4
pp = 2
)";

// Mixtral on one node, the lines as tests/support/small_inputs.hpp lists them (ep = 8 on 14,
// imbalance = 1.5 on 16).
const std::string kMoe = stepsim::test::small_moe_train();

// An inference step: lines 1-7 as kDense with nodes = 1, then 8 [workload], 9 kind = "decode",
// 10 batch = 4, 11 context = 1024, 12 [parallelism], 13 tp = 4.
const std::string kDecode = stepsim::test::small_llama_node() + R"([workload]
kind = "decode"
batch = 4
context = 1024
[parallelism]
tp = 4
)";

// Serving: lines 1-7 as kDecode, then 8 [workload], 9 kind = "serve", 10 [parallelism], 11 tp = 4,
// 12 [serving], 13 rate_per_s = 6, 14 requests = 20, 15 input_len = [512, 4096],
// 16 output_len = 16, 17 max_batch = 16, 18 max_num_tokens = 1024, 19 chunked_prefill = true.
const std::string kServe = kDecode.substr(0, kDecode.find("kind = \"decode\"")) + "kind = \"serve\"\n" +
                           kDecode.substr(kDecode.find("[parallelism]")) + R"([serving]
rate_per_s = 6
requests = 20
input_len = [512, 4096]
output_len = 16
max_batch = 16
max_num_tokens = 1024
chunked_prefill = true
)";

// Two single-GPU nodes without NVLink on a custom fabric: lines 1-5 as kDense, then 6 nodes = 2,
// 7 gpus_per_node = 1, 8 nvlink_domain = 1, 9 [workload] .. 13 micro_batch = 1, 14 [fabric],
// 15 kind = "custom", 16 switches = ["s0", "s1"], 17 [[fabric.link]], 18 a = "gpu0", 19 b = "s0",
// 20 bw_gb_s = 50, 21 [[fabric.link]], 22 a = "gpu1", 23 b = "s1", 24 bw_gb_s = 50.
const std::string kCustom = R"([model]
preset = "llama-3.1-8b"
layers = 4
[hardware]
gpu = "h100-sxm"
nodes = 2
gpus_per_node = 1
nvlink_domain = 1
[workload]
kind = "train"
seq_len = 1024
global_batch = 16
micro_batch = 1
[fabric]
kind = "custom"
switches = ["s0", "s1"]
[[fabric.link]]
a = "gpu0"
b = "s0"
bw_gb_s = 50
[[fabric.link]]
a = "gpu1"
b = "s1"
bw_gb_s = 50
)";

// Nemotron-H 8B (hybrid: M, * and - layers) on two nodes: 1 [model], 2 preset, 3 [model.mamba],
// 4 groups = 4, 5 [hardware] .. 8 gpus_per_node = 8, 9 [workload] .. 13 micro_batch = 1,
// 14 [parallelism], 15 tp = 8, 16 sequence_parallel = true.
const std::string kHybrid = R"([model]
preset = "nemotron-h-8b"
[model.mamba]
groups = 4
[hardware]
gpu = "h100-sxm"
nodes = 2
gpus_per_node = 8
[workload]
kind = "train"
seq_len = 1024
global_batch = 16
micro_batch = 1
[parallelism]
tp = 8
sequence_parallel = true
)";

/// `base` with the first occurrence of `from` replaced by `to`.
std::string with(std::string base, const std::string& from, const std::string& to) {
  const auto at = base.find(from);
  REQUIRE(at != std::string::npos);
  return base.replace(at, from.size(), to);
}

enum class Commands { check_run, check_run_estimate };

struct Rule {
  std::string name;      ///< the rule, as the audit found it
  std::string toml;      ///< a scenario breaking it
  std::string located;   ///< ":line:col: key:" after the file name
  std::string fragment;  ///< part of the problem or hint
  Commands commands = Commands::check_run_estimate;
};

std::vector<Rule> rules() {
  return {
      {"interleaved schedule with micro-batches not a multiple of pp",
       with(with(kDense, "pp = 2", "pp = 2\nvirtual_stages = 2"), "global_batch = 16", "global_batch = 6"),
       ":16:18: parallelism.virtual_stages:", "global_batch / (micro_batch x dp) = 6 / (1 x 2) = 3"},
      {"a chunk-by-chunk split that does not add up to the model's layers",
       with(kDense, "pp = 2", "pp = 2\npipeline_layers = [1, 2]"),
       ":16:19: parallelism.pipeline_layers:", "adds up to 3 layers, but the model has 4"},
      {"a chunk-by-chunk split with the wrong number of chunks",
       with(kDense, "pp = 2", "pp = 2\npipeline_layers = [4]"),
       ":16:19: parallelism.pipeline_layers:", "lists 1 model chunks, but pp x virtual_stages = 2 x 1 = 2"},
      {"a chunk-by-chunk split beside uneven end stages",
       with(kDense, "pp = 2", "pp = 2\nfirst_stage_layers = 1\npipeline_layers = [1, 3]"),
       ":17:19: parallelism.pipeline_layers:", "cannot be combined with first_stage_layers"},
      {"a local batch that does not divide the global batch over dp",
       with(kDense, "micro_batch = 1", "micro_batch = 1\nlocal_batch = 3"), ":13:15: workload.local_batch:",
       "= 3 must be a multiple of micro_batch = 1 and, times dp = 2, divide global_batch = 16"},
      {"interleaving with fewer micro-batches per schedule than pp",
       with(with(kDense, "pp = 2", "pp = 2\nvirtual_stages = 2"), "micro_batch = 1",
            "micro_batch = 1\nlocal_batch = 1"),
       ":17:18: parallelism.virtual_stages:", "local_batch / micro_batch = 1 / 1 = 1"},
      {"Gemma's output norms on an MoE model", with(kMoe, "[model]", "[model]\nsandwich_norms = true"),
       ":2:18: model.sandwich_norms:", "but the model has experts"},
      {"query and key norms on latent attention",
       with(kDense, "preset = \"llama-3.1-8b\"", "preset = \"deepseek-v3\"\nqk_norm = true"),
       ":3:11: model.qk_norm:", "norms query and key heads of standard attention, but attention = \"mla\""},
      {"torch's lock-step pipelining without model chunks",
       with(kDense, "pp = 2", "pp = 2\npp_p2p = \"lockstep\""),
       ":16:10: parallelism.pp_p2p:", "runs interleaved schedules, and this job runs \"1f1b\""},
      {"round-robin routing with an imbalance",
       with(kMoe, "imbalance = 1.5", "imbalance = 1.5\nrouting = \"round_robin\""),
       ":17:11: moe.routing:", "is a balanced gate"},
      {"dualpipe with an odd number of micro-batches, fewer than 2 x pp",
       with(with(kDense, "pp = 2", "pp = 2\nschedule = \"dualpipe\""), "global_batch = 16",
            "global_batch = 6"),
       ":16:12: parallelism.schedule:", "global_batch / (micro_batch x dp) = 6 / (1 x 2) = 3"},
      {"dualpipev with three model chunks per rank",
       with(kDense, "pp = 2", "pp = 2\nschedule = \"dualpipev\"\nvirtual_stages = 3"),
       ":17:18: parallelism.virtual_stages:", "runs the two halves of a V on each rank"},
      {"dualpipe with ZeRO-3", with(kDense, "pp = 2", "pp = 2\nschedule = \"dualpipe\"\nzero_stage = 3"),
       ":16:12: parallelism.schedule:", "with zero_stage = 3 is not modelled"},
      {"dualpipe for a decode step", with(kDecode, "tp = 4", "tp = 2\npp = 2\nschedule = \"dualpipe\""),
       ":15:12: parallelism.schedule:", "schedules training steps"},
      {"Mamba groups that tensor parallelism does not divide", kHybrid,
       ":15:6: parallelism.tp:", "heads = 128 and groups = 4 must both be divisible by tp = 8"},
      {"an unknown layer kind in hybrid_layers",
       with(kHybrid, "preset = \"nemotron-h-8b\"", "preset = \"nemotron-h-8b\"\nhybrid_layers = \"M-x\""),
       ":3:17: model.hybrid_layers:", "has 'x', which is no layer kind"},
      {"layers that disagree with hybrid_layers",
       with(kHybrid, "preset = \"nemotron-h-8b\"", "preset = \"nemotron-h-8b\"\nlayers = 4"),
       ":3:10: model.layers:", "hybrid_layers lists 52 layers"},
      {"Gated DeltaNet heads that tensor parallelism does not divide",
       with(with(kDense, "preset = \"llama-3.1-8b\"\nlayers = 4",
                 "preset = \"llama-3.1-8b\"\nhybrid_layers = \"G-*-\"\n[model.gated_delta]\nkey_heads = 2\n"
                 "value_heads = 6\nkey_dim = 128\nvalue_dim = 128"),
            "tp = 4", "tp = 4\nsequence_parallel = true"),
       ":19:6: parallelism.tp:", "key_heads = 2 and value_heads = 6 must both be divisible by tp = 4"},
      {"context parallelism with Mamba layers",
       with(with(kHybrid, "groups = 4", "groups = 8"), "tp = 8", "tp = 2\ncp = 2"),
       ":16:6: parallelism.cp:", "not modelled for Mamba or Gated DeltaNet layers"},
      {"moe.imbalance above experts / top_k", with(kMoe, "imbalance = 1.5", "imbalance = 5"),
       ":16:13: moe.imbalance:", "above experts / top_k = 8 / 2 = 4"},
      {"MoE training with tp > 1 and no sequence parallelism", with(kMoe, "ep = 8", "tp = 2\nep = 4"),
       ":14:6: parallelism.tp:", "set parallelism.sequence_parallel = true"},
      {"decode with context parallelism", with(kDecode, "tp = 4", "tp = 4\ncp = 2"),
       ":14:6: parallelism.cp:", "decode steps do not run with context parallelism"},
      {"inference with interleaved model chunks",
       with(kDecode, "tp = 4", "tp = 2\npp = 2\nvirtual_stages = 2"),
       ":15:18: parallelism.virtual_stages:", "inference runs one model chunk per pipeline stage"},
      {"NVLS without an NVLink domain",
       with(kDense, "gpus_per_node = 8", "gpus_per_node = 8\nnvlink_domain = 1\nnvls = true"),
       ":9:8: hardware.nvls:", "in-switch reduction needs an NVLink domain"},
      {"NVLS on a GPU whose switches cannot reduce",
       with(with(kDense, "gpu = \"h100-sxm\"", "gpu = \"a100-sxm-80gb\""), "gpus_per_node = 8",
            "gpus_per_node = 8\nnvls = true"),
       ":8:8: hardware.nvls:", "has no NVLS efficiency in the catalog"},
      {"prompt longer than max_num_tokens without chunked prefill",
       with(kServe, "chunked_prefill = true", "chunked_prefill = false"),
       ":19:19: serving.chunked_prefill:", "more than max_num_tokens = 1024", Commands::check_run},
      {"FlashAttention-3 on a GPU that has no figure for it",
       with(with(kDense, "gpu = \"h100-sxm\"", "gpu = \"b200\""), "micro_batch = 1",
            "micro_batch = 1\nattention_kernel = \"fa3\""),
       ":13:20: workload.attention_kernel:", "FlashAttention-3's kernels run on Hopper only"},
      {"FlexAttention on a GPU with no published rate for it",
       with(with(kDense, "gpu = \"h100-sxm\"", "gpu = \"b200\""), "micro_batch = 1",
            "micro_batch = 1\nattention_kernel = \"flex\""),
       ":13:20: workload.attention_kernel:", "no published rate for FlexAttention's kernels"},
      {"Triton FlashAttention on a GPU that has no figure for it",
       with(kDense, "micro_batch = 1", "micro_batch = 1\nattention_kernel = \"triton\""),
       ":13:20: workload.attention_kernel:", "no measurement of that kernel on this GPU"},
      {"Triton FlashAttention with heads wider than its kernels take",
       with(with(with(kDense, "gpu = \"h100-sxm\"", "gpu = \"a100-sxm-80gb\""), "layers = 4",
                 "layers = 4\nhead_dim = 160"),
            "micro_batch = 1", "micro_batch = 1\nattention_kernel = \"triton\""),
       ":14:20: workload.attention_kernel:", "takes heads of at most 128"},
      {"an FSDP version without FSDP", with(kDense, "pp = 2", "pp = 2\nfsdp_version = 1"),
       ":16:16: parallelism.fsdp_version:", "`fsdp` is not set"},
      {"a fused attention kernel named for unfused attention",
       with(kDense, "micro_batch = 1",
            "micro_batch = 1\nattention_impl = \"unfused\"\nattention_kernel = \"fa2\""),
       ":14:20: workload.attention_kernel:", "attention runs unfused"},
      {"unpadded attention for unfused attention",
       with(kDense, "micro_batch = 1",
            "micro_batch = 1\nattention_impl = \"unfused\"\nattention_unpad = true"),
       ":14:19: workload.attention_unpad:", "feeds FlashAttention's variable-length kernel"},
      {"packed documents with context parallelism",
       with(with(kDense, "micro_batch = 1", "micro_batch = 1\ndocument_tokens = 512"), "pp = 2",
            "pp = 2\ncp = 2"),
       ":13:19: workload.document_tokens:", "is not modelled with context parallelism"},
      {"packed documents as long as the sequence",
       with(kDense, "micro_batch = 1", "micro_batch = 1\ndocument_tokens = 1024"),
       ":13:19: workload.document_tokens:", "not shorter than the sequence"},
      {"packed documents in a decode step",
       with(kDecode, "context = 1024", "context = 1024\ndocument_tokens = 512"),
       ":12:19: workload.document_tokens:", "applies to training and prefill steps"},
      {"Megatron's cross-entropy with eager PyTorch's loss",
       with(kDense, "micro_batch = 1",
            "micro_batch = 1\npointwise = \"eager\"\ncross_entropy = \"megatron\""),
       ":14:17: workload.cross_entropy:", "runs PyTorch's cross_entropy on fp32 logits"},
      {"a training loss's kernels in a decode step",
       with(kDecode, "context = 1024", "context = 1024\ncross_entropy = \"megatron_compiled\""),
       ":12:17: workload.cross_entropy:", "does not apply to kind = \"decode\""},
      {"unpadded attention in a decode step",
       with(kDecode, "context = 1024", "context = 1024\nattention_unpad = true"),
       ":12:19: workload.attention_unpad:", "applies to training and prefill steps"},
      {"forced tree all-reduce on a tensor-parallel group inside one host",
       kDense + "[collective]\nalgorithm = \"tree\"\n",
       ":17:13: collective.algorithm:", "needs ranks on at least two hosts"},
      {"custom fabric whose GPUs cannot reach each other", kCustom,
       ":17:1: fabric.link:", "gpu1 cannot reach gpu0 over the custom links"},
      {"custom fabric link joining an endpoint to itself", with(kCustom, "b = \"s1\"", "b = \"gpu1\""),
       ":23:5: fabric.link[1].b:", "the endpoint `a` names too"},
      {"torchtitan's per-op checkpointing with tensor parallelism but no sequence parallelism",
       with(kDense, "micro_batch = 1",
            "micro_batch = 1\nrecompute = \"selective\"\nrecompute_modules = [\"alternate_mm\"]"),
       ":14:21: workload.recompute_modules:", "set sequence_parallel = true"},
      {"torchtitan's per-op checkpointing on an MoE model",
       with(kMoe, "micro_batch = 1",
            "micro_batch = 1\nrecompute = \"selective\"\nrecompute_modules = [\"alternate_mm\"]"),
       ":14:21: workload.recompute_modules:", "(the model has experts)"},
      {"some layers' full recomputation without full recomputation",
       with(kDense, "micro_batch = 1", "micro_batch = 1\nrecompute = \"selective\"\nrecompute_layers = 2"),
       ":14:20: workload.recompute_layers:", "but recompute is \"selective\""},
      {"recomputed layers chosen two ways",
       with(kDense, "micro_batch = 1",
            "micro_batch = 1\nrecompute = \"full\"\nrecompute_layers = 2\nrecompute_every = 2"),
       ":15:19: workload.recompute_every:", "keep one"},
      {"custom fabric naming a switch twice", with(kCustom, "[\"s0\", \"s1\"]", "[\"s0\", \"s1\", \"s0\"]"),
       ":16:12: fabric.switches:", "lists switch `s0` twice"},
  };
}

/// The message after the scenario's file name: the same whichever command refused it.
std::string after_file(const std::string& err) {
  const auto at = err.find("s.toml:");
  return at == std::string::npos ? err : err.substr(at + 6);
}

TEST_CASE("bad inputs: check, run and estimate refuse each cross-field rule alike, at the key") {
  for (const Rule& rule : rules()) {
    std::vector<std::string> commands{"check", "run"};
    if (rule.commands == Commands::check_run_estimate) commands.emplace_back("estimate");
    std::string first;
    for (const std::string& command : commands) {
      const BadInput row{rule.name + " (" + command + ")",
                         {{"s.toml", rule.toml}},
                         command + " {dir}/s.toml",
                         2,
                         {"s.toml" + rule.located, rule.fragment}};
      const std::string message = after_file(check_bad_input(row).err);
      if (first.empty()) first = message;
      INFO(rule.name << ": `" << command << "` differs from `check`");
      CHECK(message == first);
    }
  }
}

}  // namespace cross_field_rows
