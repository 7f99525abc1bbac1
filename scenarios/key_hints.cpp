// Hints for keys written in the wrong table, or spelled as Megatron-LM / Hugging Face spell them.
#include <algorithm>
#include <array>

#include "scenarios/scenario_sections.hpp"

namespace stepsim::scen::detail {
namespace {

struct KeyHome {
  std::string_view key;
  std::string_view table;
};

/// Every scenario key and the table it belongs to (the first table listed wins for duplicates).
constexpr KeyHome kHomes[] = {
    {"preset", "model"},
    {"hf_config", "model"},
    {"layers", "model"},
    {"hidden", "model"},
    {"heads", "model"},
    {"kv_heads", "model"},
    {"head_dim", "model"},
    {"ffn", "model"},
    {"vocab", "model"},
    {"activation", "model"},
    {"norm", "model"},
    {"position", "model"},
    {"max_positions", "model"},
    {"linear_bias", "model"},
    {"attention_sinks", "model"},
    {"tied_embeddings", "model"},
    {"dropout", "model"},
    {"parallel_block", "model"},
    {"attention", "model"},
    {"experts", "model"},
    {"top_k", "model"},
    {"shared_experts", "model"},
    {"expert_ffn", "model"},
    {"dense_layers", "model"},
    {"moe_layer_freq", "model"},
    {"mtp_layers", "model"},
    {"attention_window", "model"},
    {"attention_window_kind", "model"},
    {"global_attention_every", "model"},
    {"local_attention_layers", "model"},
    {"mla", "model"},
    {"gpu", "hardware"},
    {"nodes", "hardware"},
    {"gpus", "hardware"},
    {"gpus_per_node", "hardware"},
    {"nvlink_domain", "hardware"},
    {"gpus_per_domain", "hardware"},
    {"nvls", "hardware"},
    {"sharp", "fabric"},
    {"protocol", "collective"},
    {"collnet", "collective"},
    {"pat", "collective"},
    {"dispatcher", "moe"},
    {"probs", "moe"},
    {"routing", "moe"},
    {"activation_fp8_input_store", "precision"},
    {"nic_gbps", "hardware"},
    {"nvlink_latency_us", "hardware"},
    {"efficiency", "hardware"},
    {"bf16_tflops", "hardware.gpu"},
    {"fp8_tflops", "hardware.gpu"},
    {"fp4_tflops", "hardware.gpu"},
    {"fp32_tflops", "hardware.gpu"},
    {"hbm_gb", "hardware.gpu"},
    {"hbm_tb_s", "hardware.gpu"},
    {"nvlink_gb_s", "hardware.gpu"},
    {"pcie_gb_s", "hardware.gpu"},
    {"price_per_hour", "hardware.gpu"},
    {"comm_sm_fraction", "hardware.gpu"},
    {"sms", "hardware.gpu"},
    {"kernel_launch_us", "hardware.gpu"},
    {"graph_launch_us", "hardware.gpu"},
    {"cuda_graphs", "workload"},
    {"kind", "workload"},
    {"tiers", "fabric"},
    {"oversubscription", "fabric"},
    {"hosts_per_leaf", "fabric"},
    {"leaves_per_pod", "fabric"},
    {"hop_latency_us", "fabric"},
    {"switches", "fabric"},
    {"link", "fabric"},
    {"seq_len", "workload"},
    {"global_batch", "workload"},
    {"micro_batch", "workload"},
    {"batch", "workload"},
    {"context", "workload"},
    {"recompute", "workload"},
    {"recompute_modules", "workload"},
    {"recompute_layers", "workload"},
    {"recompute_every", "workload"},
    {"attention_impl", "workload"},
    {"attention_kernel", "workload"},
    {"pointwise", "workload"},
    {"attention_unpad", "workload"},
    {"document_tokens", "workload"},
    {"transformer_engine", "workload"},
    {"grad_accumulation", "workload"},
    {"bias_grad", "workload"},
    {"cross_entropy", "workload"},
    {"qkv_grad_concat", "workload"},
    {"dp", "parallelism"},
    {"tp", "parallelism"},
    {"pp", "parallelism"},
    {"cp", "parallelism"},
    {"first_stage_layers", "parallelism"},
    {"pipeline_layers", "parallelism"},
    {"local_batch", "workload"},
    {"last_stage_layers", "parallelism"},
    {"account_for_embedding_in_pipeline_split", "parallelism"},
    {"account_for_loss_in_pipeline_split", "parallelism"},
    {"ep", "parallelism"},
    {"expert_tp", "parallelism"},
    {"virtual_stages", "parallelism"},
    {"sequence_parallel", "parallelism"},
    {"dp_overlap", "parallelism"},
    {"overlap_param_gather", "parallelism"},
    {"tp_comm_overlap", "parallelism"},
    {"ep_overlap", "parallelism"},
    {"fsdp", "parallelism"},
    {"fsdp_version", "parallelism"},
    {"reshard_after_forward", "parallelism"},
    {"shard_group", "parallelism"},
    {"prefetch_layers", "parallelism"},
    {"prefetch_bucket_mparams", "parallelism"},
    {"max_live_mparams", "parallelism"},
    {"tp_overlap_rs_splits", "parallelism"},
    {"tp_overlap_defaults", "parallelism"},
    {"tp_overlap_config", "parallelism"},
    {"tp_overlap", "parallelism"},
    {"pp_p2p", "parallelism"},
    {"average_in_collective", "parallelism"},
    {"zero_stage", "parallelism"},
    {"schedule", "parallelism"},
    {"order", "parallelism"},
    {"dp_bucket_mb", "parallelism"},
    {"compute", "precision"},
    {"params", "precision"},
    {"grads", "precision"},
    {"optimizer", "precision"},
    {"activations", "precision"},
    {"kv_cache", "precision"},
    {"capacity_factor", "moe"},
    {"fp8_dispatch", "moe"},
    {"ep_comm_sms", "moe"},
    {"max_nodes_per_token", "moe"},
    {"imbalance", "moe"},
    {"shared_expert_overlap", "moe"},
    {"formulas", "estimate"},
    {"tokens_per_s", "target"},
    {"measured_step_s", "validation"},
    {"metric", "validation"},
    {"source", "validation"},
    {"not_simulated", "validation"},
    {"description", "meta"},
    {"group", "meta"},
};

struct ForeignName {
  std::string_view foreign;
  std::string_view ours;
};

/// Megatron-LM arguments and Hugging Face config names people paste in.
constexpr ForeignName kForeign[] = {
    {"num_layers", "layers"},
    {"num_hidden_layers", "layers"},
    {"hidden_size", "hidden"},
    {"d_model", "hidden"},
    {"num_attention_heads", "heads"},
    {"num_key_value_heads", "kv_heads"},
    {"num_query_groups", "kv_heads"},
    {"kv_channels", "head_dim"},
    {"ffn_hidden_size", "ffn"},
    {"intermediate_size", "ffn"},
    {"vocab_size", "vocab"},
    {"padded_vocab_size", "vocab"},
    {"max_position_embeddings", "max_positions"},
    {"num_experts", "experts"},
    {"n_routed_experts", "experts"},
    {"moe_router_topk", "top_k"},
    {"num_experts_per_tok", "top_k"},
    {"moe_intermediate_size", "expert_ffn"},
    {"seq_length", "seq_len"},
    {"global_batch_size", "global_batch"},
    {"micro_batch_size", "micro_batch"},
    {"tensor_model_parallel_size", "tp"},
    {"pipeline_model_parallel_size", "pp"},
    {"context_parallel_size", "cp"},
    {"expert_model_parallel_size", "ep"},
    {"data_parallel_size", "dp"},
    {"num_layers_per_virtual_pipeline_stage", "virtual_stages"},
};

std::string_view home_of(std::string_view key) {
  for (const auto& h : kHomes)
    if (h.key == key) return h.table;
  return {};
}

}  // namespace

std::string elsewhere_hint(std::string_view table_path, std::string_view key) {
  for (const auto& f : kForeign) {
    if (f.foreign != key) continue;
    const std::string_view home = home_of(f.ours);
    return "stepsim calls this `" + std::string(f.ours) + "`" +
           (home.empty() ? "" : " in [" + std::string(home) + "]");
  }
  const std::string_view home = home_of(key);
  if (home.empty() || home == table_path) return {};
  return "`" + std::string(key) + "` belongs in [" + std::string(home) + "]";
}

}  // namespace stepsim::scen::detail
