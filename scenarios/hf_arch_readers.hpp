#pragma once
// The architecture readers' shared pieces (scenarios/hf_architectures.cpp) and the readers of the
// hybrid architectures, which mix Mamba-2 or Gated DeltaNet layers with attention
// (scenarios/hf_hybrid_architectures.cpp).
#include <string_view>
#include <vector>

#include "scenarios/hf_fields.hpp"

namespace stepsim::scen::hf::arch_readers {

/// The keys every Llama-style decoder shares: gated MLP, RMSNorm, RoPE.
void read_decoder(Fields& f, work::ModelSpec& m, bool tied_by_default);
/// A token cannot use more experts than a layer has.
void check_top_k(Fields& f, const work::ModelSpec& m);
/// Every index of `layers` (the value of `key`) names one of the model's `n` layers.
void check_layer_indices(Fields& f, std::string_view key, const std::vector<int>& layers, int n);

/// NemotronHForCausalLM: the hybrid pattern of Mamba-2, attention, MLP and MoE layers.
void read_nemotron_h(Fields& f, Mapped& out);
/// Qwen3NextForCausalLM: Gated DeltaNet and gated attention mixers, each decoder layer two hybrid layers.
void read_qwen3_next(Fields& f, Mapped& out);
/// Qwen3.5 (dense and MoE), with or without the vision-language wrapper.
void read_qwen3_5(Fields& top, Mapped& out);

}  // namespace stepsim::scen::hf::arch_readers
