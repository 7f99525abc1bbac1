#pragma once
// Small inputs several CLI tests share: quick to check and to simulate.

#include <string>
#include <string_view>

namespace stepsim::test {

/// A two-point sweep (TP 1 and 2) of a 1.7B GPT on one 8-GPU H100 node, named `name`.
inline std::string tiny_sweep(std::string_view name) {
  return "[sweep]\nname = \"" + std::string(name) + R"("
[base.model]
preset = "megatron-gpt-1.7b"
[base.hardware]
gpu = "h100-sxm"
nodes = 1
[base.workload]
kind = "train"
seq_len = 1024
global_batch = 16
[[axis]]
key = "parallelism.tp"
values = [1, 2]
)";
}

/// A 1.7B GPT training step on one 8-GPU H100 node: 9 lines, [workload] last (tests append tables).
inline std::string small_gpt_train() {
  return R"([model]
preset = "megatron-gpt-1.7b"
[hardware]
gpu = "h100-sxm"
nodes = 1
[workload]
kind = "train"
seq_len = 1024
global_batch = 16
)";
}

/// Lines 1-7 of several small scenarios: Llama 3.1 8B cut to 4 layers on one 8-GPU H100 node
/// (1 [model], 2 preset, 3 layers = 4, 4 [hardware], 5 gpu, 6 nodes = 1, 7 gpus_per_node = 8).
inline std::string small_llama_node() {
  return R"([model]
preset = "llama-3.1-8b"
layers = 4
[hardware]
gpu = "h100-sxm"
nodes = 1
gpus_per_node = 8
)";
}

/// `model_table` (a [model] table, ending in a newline) then one H100 node running a 2,048-token
/// prefill: the smallest scenario around a model.
inline std::string with_small_prefill(const std::string& model_table) {
  return model_table + R"([hardware]
gpu = "h100-sxm"
nodes = 1
[workload]
kind = "prefill"
seq_len = 2048
batch = 1
)";
}

/// Mixtral (8 experts, top-2, 4 layers) training with EP 8 on one 8-GPU H100 node. Tests locate
/// errors by its lines:
///  1 [model]                  6 nodes = 1             11 global_batch = 16
///  2 preset = "mixtral-8x7b"  7 gpus_per_node = 8     12 micro_batch = 1
///  3 layers = 4               8 [workload]            13 [parallelism]
///  4 [hardware]               9 kind = "train"        14 ep = 8
///  5 gpu = "h100-sxm"        10 seq_len = 1024        15 [moe]  16 imbalance = 1.5
inline std::string small_moe_train() {
  return R"([model]
preset = "mixtral-8x7b"
layers = 4
[hardware]
gpu = "h100-sxm"
nodes = 1
gpus_per_node = 8
[workload]
kind = "train"
seq_len = 1024
global_batch = 16
micro_batch = 1
[parallelism]
ep = 8
[moe]
imbalance = 1.5
)";
}

}  // namespace stepsim::test
