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

}  // namespace stepsim::test
