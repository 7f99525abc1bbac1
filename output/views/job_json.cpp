#include "output/views/job_json.hpp"

#include "output/common/format.hpp"

#include "workloads/layout/deepep.hpp"
#include "workloads/layout/rank_layout.hpp"
#include "workloads/model/names.hpp"
#include "workloads/model/params.hpp"

namespace stepsim::out {
namespace {

using nlohmann::json;

std::string_view norm_name(work::NormKind n) {
  return n == work::NormKind::layernorm ? "layernorm" : "rmsnorm";
}
std::string_view position_name(work::PositionEmbedding p) {
  return p == work::PositionEmbedding::learned ? "learned" : "rope";
}
std::string_view fabric_name(topo::FabricKind k) {
  switch (k) {
    case topo::FabricKind::fat_tree: return "fat-tree";
    case topo::FabricKind::rail_optimized: return "rail-optimized";
    case topo::FabricKind::custom: return "custom";
  }
  return "unknown";
}

json efficiency_json(const topo::Efficiency& e) {
  json j;
  const auto curve = [](const topo::GemmCurve& g) {
    return json{{"peak", g.peak}, {"mn_half", g.mn_half}, {"k_half", g.k_half}};
  };
  j["gemm_bf16"] = curve(e.gemm16);
  j["gemm_fp8"] = curve(e.gemm8);
  j["attention"] = e.attention;
  j["attention_fa2"] = e.attention_fa2;
  j["attention_fa3"] = e.attention_fa3;
  j["attention_flex"] = e.attention_flex;
  j["attention_triton"] = e.attention_triton;
  j["attention_seq_half"] = e.attention_seq_half;
  j["attention_tiles_half"] = e.attention_tiles_half;
  j["elementwise"] = e.elementwise;
  j["fp8_split_accumulation"] = e.fp8_split_accumulation;
  j["fp8_blockwise"] = e.fp8_blockwise;
  j["fp8_blockwise_wgrad"] = e.fp8_blockwise_wgrad;
  j["hbm"] = e.hbm;
  j["gemm_hbm"] = e.gemm_hbm;
  j["attention_hbm"] = e.attention_hbm;
  j["grouped_m_half"] = e.grouped_m_half;
  for (std::size_t k = 0; k < topo::kKernelKindCount; ++k)
    if (e.hbm_kind[k] > 0.0)
      j["hbm_" + std::string(topo::name(static_cast<topo::KernelKind>(k)))] = e.hbm_kind[k];
  j["nvlink"] = e.nvlink;
  j["nic"] = e.nic;
  j["estimate_compute"] = e.estimate_compute;
  j["estimate_memory"] = e.estimate_memory;
  j["estimate_network"] = e.estimate_network;
  return j;
}

json params_json(const work::ParamBreakdown& b) {
  json j{{"embedding", b.embedding},
         {"position", b.position},
         {"lm_head", b.lm_head},
         {"attention", b.attention},
         {"dense_mlp", b.dense_mlp},
         {"routed_experts", b.routed_experts},
         {"shared_experts", b.shared_experts},
         {"routers", b.routers},
         {"norms", b.norms},
         {"mtp", b.mtp},
         {"total", b.total},
         {"active", b.active},
         {"main_total", b.main_total()},
         {"main_active", b.main_active()}};
  if (b.mamba > 0.0) j["mamba"] = b.mamba;  // hybrid models only
  if (b.linear_attention > 0.0) j["linear_attention"] = b.linear_attention;
  return j;
}

json parallel_json(const work::ParallelSpec& p) {
  json order = json::array();
  for (auto d : p.order) order.push_back(work::name(d));
  json j{{"dp", p.dp},
         {"tp", p.tp},
         {"pp", p.pp},
         {"cp", p.cp},
         {"cp_comm", work::name(p.cp_comm)},
         {"ep", p.ep},
         {"expert_tp", p.expert_tp},
         {"virtual_stages", p.virtual_stages},
         {"sequence_parallel", p.sequence_parallel},
         {"zero_stage", p.zero_stage},
         {"schedule", work::name(p.schedule)},
         {"pp_p2p", work::name(p.pp_p2p)},
         {"order", order},
         {"dp_bucket_bytes", p.dp_bucket_bytes},
         {"dp_overlap", p.dp_overlap},
         {"overlap_param_gather", p.overlap_param_gather},
         {"tp_comm_overlap", work::name(p.tp_comm_overlap)},
         {"tp_overlap_rs_splits", p.tp_overlap_rs_splits},
         {"first_stage_layers", p.first_stage_layers},
         {"last_stage_layers", p.last_stage_layers},
         {"account_for_embedding_in_pipeline_split", p.embedding_in_split},
         {"account_for_loss_in_pipeline_split", p.loss_in_split},
         {"pipeline_layers", p.pipeline_layers}};
  // Userbuffers' configuration per GEMM, only where it applies.
  if (p.tp_comm_overlap == work::TpCommOverlap::userbuffers) j["tp_overlap"] = ub_overlap_json(p.ub_overlap);
  return j;
}

}  // namespace

json ub_overlap_json(const std::array<work::UbOverlap, work::kUbGemms>& gemms) {
  json out = json::object();
  for (std::size_t i = 0; i < work::kUbGemms; ++i) {
    const work::UbOverlap& c = gemms[i];
    out[std::string(work::name(static_cast<work::UbGemm>(i)))] = {
        {"method", work::name(c.method)}, {"num_sm", c.num_sm},       {"set_sm_margin", c.set_sm_margin},
        {"num_splits", c.num_splits},     {"aggregate", c.aggregate}, {"fp8_buf", c.fp8_buf}};
  }
  return out;
}

json gpu_json(const topo::GpuSpec& g) {
  return json{{"id", g.id},
              {"name", g.name},
              {"bf16_flops_per_s", g.bf16_peak.value()},
              {"fp8_flops_per_s", g.fp8_peak.value()},
              {"fp4_flops_per_s", g.fp4_peak.value()},
              {"fp32_flops_per_s", g.fp32_peak.value()},
              {"hbm_capacity_bytes", g.hbm_capacity.value()},
              {"hbm_bw_Bps", g.hbm_bw.value()},
              {"nvlink_bw_Bps", g.nvlink_bw.value()},
              {"nvlink_domain", g.nvlink_domain},
              {"pcie_bw_Bps", g.pcie_bw.value()},
              {"nic_bw_Bps", g.nic_bw.value()},
              {"price_per_hour", g.price_per_hour},
              {"price_note", g.price_note},
              {"comm_sm_fraction", g.comm_sm_fraction},
              {"sms", g.sms},
              {"kernel_gap_s", g.kernel_gap_s},
              {"host_launch_s", g.host_launch_s},
              {"host_framework_s", g.host_framework_s},
              {"gemm_fixed_s", g.gemm_fixed_s},
              {"attention_fixed_s", g.attention_fixed_s},
              {"sustained_clock", g.sustained_clock},
              {"clock_duty", json{{"duty", g.clock_duty.duty}, {"clock", g.clock_duty.clock}}},
              {"comm_interference", g.comm_interference},
              {"hbm_reserved_bytes", g.hbm_reserved.value()},
              {"hbm_fragmentation", g.hbm_fragmentation},
              {"efficiency", efficiency_json(g.eff)}};
}

json model_json(const work::ModelSpec& m) {
  json j{{"id", m.id},
         {"name", m.name},
         {"layers", m.layers},
         {"hidden", m.hidden},
         {"heads", m.heads},
         {"kv_heads", m.kv_heads},
         {"head_dim", m.head_dim},
         {"ffn", m.ffn},
         {"vocab", m.vocab},
         {"activation", work::name(m.activation)},
         {"norm", norm_name(m.norm)},
         {"position", position_name(m.position)},
         {"max_positions", m.max_positions},
         {"linear_bias", m.linear_bias},
         {"tied_embeddings", m.tied_embeddings},
         {"attention", m.attention == work::AttentionKind::mla ? "mla" : "standard"},
         {"experts", m.experts},
         {"top_k", m.top_k},
         {"shared_experts", m.shared_experts},
         {"expert_ffn", m.expert_ffn},
         {"dense_layers", m.dense_layers},
         {"moe_layer_freq", m.moe_layer_freq},
         {"moe_layer_pattern", m.moe_layer_pattern},
         {"mtp_layers", m.mtp_layers},
         {"params", params_json(work::count_params(m))},
         {"published_params", m.published_params},
         {"published_active_params", m.published_active_params}};
  if (m.attention == work::AttentionKind::mla)
    j["mla"] = json{{"q_lora_rank", m.mla.q_lora_rank},
                    {"kv_lora_rank", m.mla.kv_lora_rank},
                    {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                    {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                    {"v_head_dim", m.mla.v_head_dim}};
  return j;
}

json cluster_json(const topo::ClusterSpec& c) {
  const topo::FabricSpec& f = c.fabric;
  json links = json::array();
  for (const auto& l : f.custom_links)
    links.push_back(json{{"a", l.a}, {"b", l.b}, {"bw_Bps", l.bw.value()}, {"latency_s", l.latency_s}});
  json fabric{{"kind", fabric_name(f.kind)},        {"tiers", f.tiers},
              {"nic_bw_Bps", c.nic_bw().value()},   {"oversubscription", f.oversubscription},
              {"hosts_per_leaf", f.hosts_per_leaf}, {"leaves_per_pod", f.leaves_per_pod},
              {"hop_latency_s", f.hop_latency_s}};
  if (f.kind == topo::FabricKind::custom) {
    fabric["switches"] = f.custom_switches;
    fabric["links"] = links;
  }
  return json{{"gpu", gpu_json(c.gpu)},
              {"nodes", c.nodes},
              {"gpus_per_node", c.gpus_per_node},
              {"total_gpus", c.total_gpus()},
              {"nvlink_domain", c.nvlink_domain},
              {"rack_gpus", c.rack_gpus},
              {"nvls", c.nvls},
              {"nvlink_latency_s", c.nvlink_latency_s},
              {"fabric", fabric}};
}

json job_json(const work::JobSpec& job) {
  const auto& w = job.workload;
  const auto& p = job.precision;
  json j{
      {"model", model_json(job.model)},
      {"cluster", cluster_json(job.cluster)},
      {"workload",
       {{"kind", work::name(w.kind)},
        {"seq_len", w.seq_len},
        {"global_batch", w.global_batch},
        {"micro_batch", w.micro_batch},
        {"local_batch", w.local_batch > 0 ? json(w.local_batch) : json()},
        {"pipeline_schedules", job.pipeline_flushes()},
        {"batch", w.batch},
        {"context_len", w.context_len},
        {"cuda_graphs", w.cuda_graphs},
        {"recompute", work::name(job.recompute)},
        {"recompute_modules", job.recompute == work::Recompute::selective ? work::names(job.recompute_modules)
                                                                          : std::vector<std::string_view>{}},
        {"recompute_layers", job.recompute_layers > 0 ? json(job.recompute_layers) : json()},
        {"recompute_every", job.recompute_every > 0 ? json(job.recompute_every) : json()},
        {"attention_impl", work::name(w.attention_impl)},
        {"attention_kernel", topo::name(w.attention_kernel)},
        {"pointwise", work::name(w.pointwise)},
        {"attention_unpad", w.attention_unpad},
        {"cross_entropy", work::name(w.cross_entropy)},
        {"bias_grad", work::name(w.bias_grad)},
        {"qkv_grad_concat", w.qkv_grad_concat},
        {"document_tokens", w.document_tokens > 0.0 ? json(w.document_tokens) : json()},
        {"attention_note", w.attention_note},
        {"transformer_engine", w.transformer_engine.stated() ? json(w.transformer_engine.str()) : json()}}},
      {"parallel", parallel_json(job.parallel)},
      {"precision",
       {{"compute", topo::name(p.compute)},
        {"param_bytes", p.param_bytes},
        {"grad_bytes", p.grad_bytes},
        {"optimizer_bytes", p.optimizer_bytes},
        {"activation_bytes", p.activation_bytes},
        {"kv_bytes", p.kv_bytes}}},
      {"estimate",
       {{"formulas", job.estimate.formulas == work::EstimateFormulas::notebook ? "notebook" : "stepsim"}}}};
  if (job.model.is_moe())
    j["moe"] = json{{"capacity_factor", job.moe.capacity_factor},
                    {"max_nodes_per_token", job.moe.max_nodes_per_token},
                    {"imbalance", job.moe.imbalance},
                    {"routing", work::name(job.moe.routing)},
                    {"seed", job.moe.seed}};
  if (job.model.is_moe() && (job.moe.ep_comm_sms > 0 || job.moe.ep_comm_sms_deepep_v2)) {
    j["moe"]["ep_comm_sms"] = work::ep_comm_sms(job, work::RankLayout(job.parallel));
    j["moe"]["ep_comm_sms_from"] = job.moe.ep_comm_sms_deepep_v2 ? "deepep-v2" : "set";
  }
  if (job.estimate.target_tokens_per_s)
    j["estimate"]["target_tokens_per_s"] = *job.estimate.target_tokens_per_s;
  if (job.estimate.formulas == work::EstimateFormulas::notebook) {
    const auto& n = job.estimate.notebook;
    j["estimate"]["notebook"] =
        json{{"n_params", n.n_params},     {"kappa", n.kappa}, {"gamma", n.gamma},
             {"alpha_opt", n.alpha_opt},   {"c_act", n.c_act}, {"tokens_per_step", n.tokens_per_step},
             {"grad_bytes", n.grad_bytes}, {"dp", n.dp}};
  }
  return j;
}

std::string ep_kernels_text(const work::JobSpec& job) {
  if (!job.model.is_moe() || (job.moe.ep_comm_sms <= 0 && !job.moe.ep_comm_sms_deepep_v2)) return {};
  const work::RankLayout layout(job.parallel);
  const int sms = work::ep_comm_sms(job, layout);
  std::string text =
      std::to_string(sms) + " of " + std::to_string(job.cluster.gpu.sms) + " SMs" +
      (job.moe.ep_comm_sms_deepep_v2 ? " (DeepEP V2's count for this EP layout)" : " (moe.ep_comm_sms)") +
      (job.parallel.reserve_comm_sms ? ", reserved for the whole step" : " while it runs");
  // A count below what DeepEP's traffic model needs to keep the link busy paces the all-to-all
  // by its SMs (the planner slows it on the simulated topology; the figure here is the job's).
  const work::DeepEpV2Group g = work::deepep_v2_group(job, layout);
  const double need = work::deepep_link_need(g).sms;
  if (const double f = work::deepep_rate_fraction(g, sms, job.cluster.gpu); f > 0.0)
    text += "; fewer than the " + format_number(need, 1) +
            " SMs DeepEP's traffic model needs to keep the link busy: the all-to-all runs at " +
            format_number(100.0 * f, 0) + "% of the rate its links allow";
  return text;
}

}  // namespace stepsim::out
