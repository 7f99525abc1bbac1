#include "output/hdf5/hdf5_rows.hpp"

#include "output/run/step_sink.hpp"

#include "topology/resource.hpp"
#include "topology/topology.hpp"

namespace stepsim::out::h5 {
namespace {

const H5::PredType& f64() {
  return H5::PredType::NATIVE_DOUBLE;
}
const H5::PredType& i64() {
  return H5::PredType::NATIVE_INT64;
}
const H5::PredType& u64() {
  return H5::PredType::NATIVE_UINT64;
}
const H5::PredType& u8() {
  return H5::PredType::NATIVE_UINT8;
}
const H5::PredType& i32() {
  return H5::PredType::NATIVE_INT32;
}
const H5::PredType& u32() {
  return H5::PredType::NATIVE_UINT32;
}
const H5::PredType& i16() {
  return H5::PredType::NATIVE_INT16;
}
const H5::PredType& u16() {
  return H5::PredType::NATIVE_UINT16;
}

H5::EnumType resource_enum() {
  std::vector<std::string_view> names;
  for (std::size_t r = 0; r < static_cast<std::size_t>(topo::Resource::count); ++r)
    names.push_back(topo::name(static_cast<topo::Resource>(r)));
  return enum_type(names);
}

H5::EnumType link_kind_enum() {
  std::vector<std::string_view> names;
  for (std::size_t k = 0; k < topo::kLinkKindCount; ++k)
    names.push_back(topo::name(static_cast<topo::LinkKind>(k)));
  return enum_type(names);
}

H5::EnumType op_class_enum() {
  std::vector<std::string_view> names;
  for (std::size_t k = 0; k < static_cast<std::size_t>(OpCategory::count); ++k)
    names.push_back(name(static_cast<OpCategory>(k)));
  return enum_type(names);
}

}  // namespace

#define STEPSIM_MEMBER(T, field, type) t.insertMember(#field, HOFFSET(T, field), type)

H5::CompType figure_type() {
  H5::CompType t(sizeof(FigureRow));
  STEPSIM_MEMBER(FigureRow, name, vlen_string());
  STEPSIM_MEMBER(FigureRow, value, f64());
  return t;
}

H5::CompType text_type() {
  H5::CompType t(sizeof(TextRow));
  STEPSIM_MEMBER(TextRow, name, vlen_string());
  STEPSIM_MEMBER(TextRow, value, vlen_string());
  return t;
}

H5::CompType rank_type() {
  H5::CompType t(sizeof(RankRowH5));
  STEPSIM_MEMBER(RankRowH5, sim_rank, u16());
  STEPSIM_MEMBER(RankRowH5, gpu, i32());
  STEPSIM_MEMBER(RankRowH5, node, i32());
  STEPSIM_MEMBER(RankRowH5, stage, i32());
  STEPSIM_MEMBER(RankRowH5, compute_s, f64());
  STEPSIM_MEMBER(RankRowH5, memory_bound_s, f64());
  STEPSIM_MEMBER(RankRowH5, exposed_tp_s, f64());
  STEPSIM_MEMBER(RankRowH5, exposed_cp_s, f64());
  STEPSIM_MEMBER(RankRowH5, exposed_ep_s, f64());
  STEPSIM_MEMBER(RankRowH5, exposed_pp_s, f64());
  STEPSIM_MEMBER(RankRowH5, exposed_dp_s, f64());
  STEPSIM_MEMBER(RankRowH5, bubble_s, f64());
  STEPSIM_MEMBER(RankRowH5, host_bound_s, f64());
  STEPSIM_MEMBER(RankRowH5, static_bytes, f64());
  STEPSIM_MEMBER(RankRowH5, activation_bytes, f64());
  STEPSIM_MEMBER(RankRowH5, peak_bytes, f64());
  STEPSIM_MEMBER(RankRowH5, peak_time_s, f64());
  return t;
}

H5::CompType op_type() {
  H5::CompType t(sizeof(OpRowH5));
  STEPSIM_MEMBER(OpRowH5, op, u32());
  STEPSIM_MEMBER(OpRowH5, gpu, i32());
  STEPSIM_MEMBER(OpRowH5, sim_rank, u16());
  STEPSIM_MEMBER(OpRowH5, stage, i16());
  STEPSIM_MEMBER(OpRowH5, kind, enum_type({"compute", "memory", "transfer", "delay"}));
  STEPSIM_MEMBER(OpRowH5, pass, enum_type({"forward", "backward", "recompute", "optimizer"}));
  STEPSIM_MEMBER(OpRowH5, group, enum_type({"none", "tp", "cp", "ep", "pp", "dp"}));
  STEPSIM_MEMBER(OpRowH5, op_class, op_class_enum());
  STEPSIM_MEMBER(OpRowH5, bound, resource_enum());
  STEPSIM_MEMBER(OpRowH5, layer, i16());
  STEPSIM_MEMBER(OpRowH5, microbatch, i32());
  STEPSIM_MEMBER(OpRowH5, start_ps, i64());
  STEPSIM_MEMBER(OpRowH5, end_ps, i64());
  STEPSIM_MEMBER(OpRowH5, start_s, f64());
  STEPSIM_MEMBER(OpRowH5, end_s, f64());
  STEPSIM_MEMBER(OpRowH5, flops, f64());
  STEPSIM_MEMBER(OpRowH5, bytes, f64());
  STEPSIM_MEMBER(OpRowH5, stream, fixed_string(kStreamChars));
  STEPSIM_MEMBER(OpRowH5, label, fixed_string(kLabelChars));
  return t;
}

H5::CompType critical_type() {
  H5::CompType t(sizeof(CriticalRowH5));
  STEPSIM_MEMBER(CriticalRowH5, step, u32());
  STEPSIM_MEMBER(CriticalRowH5, op, u32());
  STEPSIM_MEMBER(CriticalRowH5, gpu, i32());
  STEPSIM_MEMBER(CriticalRowH5, sim_rank, u16());
  STEPSIM_MEMBER(CriticalRowH5, op_class, op_class_enum());
  STEPSIM_MEMBER(CriticalRowH5, bound, resource_enum());
  STEPSIM_MEMBER(CriticalRowH5, start_ps, i64());
  STEPSIM_MEMBER(CriticalRowH5, end_ps, i64());
  STEPSIM_MEMBER(CriticalRowH5, start_s, f64());
  STEPSIM_MEMBER(CriticalRowH5, end_s, f64());
  STEPSIM_MEMBER(CriticalRowH5, wait_s, f64());
  STEPSIM_MEMBER(CriticalRowH5, label, fixed_string(kLabelChars));
  return t;
}

H5::CompType memory_type() {
  H5::CompType t(sizeof(MemoryRowH5));
  STEPSIM_MEMBER(MemoryRowH5, gpu, i32());
  STEPSIM_MEMBER(MemoryRowH5, sim_rank, u16());
  STEPSIM_MEMBER(MemoryRowH5, time_s, f64());
  STEPSIM_MEMBER(MemoryRowH5, bytes, f64());
  return t;
}

H5::CompType link_type() {
  H5::CompType t(sizeof(LinkRowH5));
  STEPSIM_MEMBER(LinkRowH5, link, u32());
  STEPSIM_MEMBER(LinkRowH5, kind, link_kind_enum());
  STEPSIM_MEMBER(LinkRowH5, from, u32());
  STEPSIM_MEMBER(LinkRowH5, to, u32());
  STEPSIM_MEMBER(LinkRowH5, bw_Bps, f64());
  STEPSIM_MEMBER(LinkRowH5, latency_s, f64());
  STEPSIM_MEMBER(LinkRowH5, bytes, f64());
  STEPSIM_MEMBER(LinkRowH5, busy_s, f64());
  STEPSIM_MEMBER(LinkRowH5, mean_utilisation, f64());
  STEPSIM_MEMBER(LinkRowH5, peak_utilisation, f64());
  return t;
}

H5::CompType tier_type() {
  H5::CompType t(sizeof(TierRowH5));
  STEPSIM_MEMBER(TierRowH5, time_ps, i64());
  STEPSIM_MEMBER(TierRowH5, time_s, f64());
  STEPSIM_MEMBER(TierRowH5, tier, link_kind_enum());
  STEPSIM_MEMBER(TierRowH5, mean_utilisation, f64());
  STEPSIM_MEMBER(TierRowH5, in_use_utilisation, f64());
  return t;
}

H5::CompType link_load_type() {
  H5::CompType t(sizeof(LinkLoadRowH5));
  STEPSIM_MEMBER(LinkLoadRowH5, time_ps, i64());
  STEPSIM_MEMBER(LinkLoadRowH5, time_s, f64());
  STEPSIM_MEMBER(LinkLoadRowH5, link, u32());
  STEPSIM_MEMBER(LinkLoadRowH5, load_Bps, f64());
  STEPSIM_MEMBER(LinkLoadRowH5, utilisation, f64());
  return t;
}

H5::CompType step_type() {
  H5::CompType t(sizeof(StepRowH5));
  STEPSIM_MEMBER(StepRowH5, step, u32());
  STEPSIM_MEMBER(StepRowH5, seed, u64());
  STEPSIM_MEMBER(StepRowH5, time_s, f64());
  STEPSIM_MEMBER(StepRowH5, waited_on_gpu, i32());
  STEPSIM_MEMBER(StepRowH5, waited_on_s, f64());
  return t;
}

H5::CompType rank_slowness_type() {
  H5::CompType t(sizeof(RankSlownessRowH5));
  STEPSIM_MEMBER(RankSlownessRowH5, gpu, i32());
  STEPSIM_MEMBER(RankSlownessRowH5, node, i32());
  STEPSIM_MEMBER(RankSlownessRowH5, sim_rank, i32());
  STEPSIM_MEMBER(RankSlownessRowH5, time_factor, f64());
  STEPSIM_MEMBER(RankSlownessRowH5, busy_s, f64());
  STEPSIM_MEMBER(RankSlownessRowH5, waiting_s, f64());
  STEPSIM_MEMBER(RankSlownessRowH5, waiting_share, f64());
  return t;
}

H5::CompType failure_type(const std::vector<std::string_view>& components) {
  H5::CompType t(sizeof(FailureRowH5));
  STEPSIM_MEMBER(FailureRowH5, component, enum_type(components));
  STEPSIM_MEMBER(FailureRowH5, count, f64());
  STEPSIM_MEMBER(FailureRowH5, mtbf_hours, f64());
  STEPSIM_MEMBER(FailureRowH5, failures_per_hour, f64());
  return t;
}

H5::CompType goodput_type() {
  H5::CompType t(sizeof(GoodputRowH5));
  STEPSIM_MEMBER(GoodputRowH5, interval_steps, i64());
  STEPSIM_MEMBER(GoodputRowH5, interval_compute_s, f64());
  STEPSIM_MEMBER(GoodputRowH5, finishes, u8());
  STEPSIM_MEMBER(GoodputRowH5, best, u8());
  STEPSIM_MEMBER(GoodputRowH5, young_daly, u8());
  STEPSIM_MEMBER(GoodputRowH5, chosen, u8());
  STEPSIM_MEMBER(GoodputRowH5, goodput, f64());
  STEPSIM_MEMBER(GoodputRowH5, p10_goodput, f64());
  STEPSIM_MEMBER(GoodputRowH5, p50_goodput, f64());
  STEPSIM_MEMBER(GoodputRowH5, p90_goodput, f64());
  STEPSIM_MEMBER(GoodputRowH5, first_order_goodput, f64());
  STEPSIM_MEMBER(GoodputRowH5, mean_wall_s, f64());
  STEPSIM_MEMBER(GoodputRowH5, stddev_wall_s, f64());
  STEPSIM_MEMBER(GoodputRowH5, p10_wall_s, f64());
  STEPSIM_MEMBER(GoodputRowH5, p50_wall_s, f64());
  STEPSIM_MEMBER(GoodputRowH5, p90_wall_s, f64());
  STEPSIM_MEMBER(GoodputRowH5, mean_failures, f64());
  STEPSIM_MEMBER(GoodputRowH5, useful_s, f64());
  STEPSIM_MEMBER(GoodputRowH5, checkpoint_s, f64());
  STEPSIM_MEMBER(GoodputRowH5, rework_s, f64());
  STEPSIM_MEMBER(GoodputRowH5, restart_s, f64());
  return t;
}

#undef STEPSIM_MEMBER

}  // namespace stepsim::out::h5
