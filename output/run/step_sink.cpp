#include "output/run/step_sink.hpp"

#include <charconv>

#include "sim/error.hpp"

namespace stepsim::out {

static_assert(static_cast<int>(OpCategory::gemm) == static_cast<int>(topo::OpClass::gemm) &&
                  static_cast<int>(OpCategory::elementwise) == static_cast<int>(topo::OpClass::elementwise) &&
                  static_cast<std::size_t>(OpCategory::copy) == topo::kOpClassCount,
              "kernel categories mirror topo::OpClass");

std::string_view name(OpCategory c) {
  switch (c) {
    case OpCategory::gemm:
    case OpCategory::attention:
    case OpCategory::elementwise: return topo::name(static_cast<topo::OpClass>(c));
    case OpCategory::copy: return "copy";
    case OpCategory::collective: return "collective";
    case OpCategory::p2p: return "p2p";
    case OpCategory::host: return "host";
    case OpCategory::count: break;
  }
  return "unknown";
}

OpCategory category_of(const work::OpInfo& i, sim::OpKind kind) {
  if (i.is_comm) return i.comm_dim == work::ParallelDim::pp ? OpCategory::p2p : OpCategory::collective;
  if (i.is_host || kind == sim::OpKind::delay) return OpCategory::host;
  if (kind == sim::OpKind::memory || kind == sim::OpKind::transfer) return OpCategory::copy;
  return static_cast<OpCategory>(i.op_class);
}
namespace {

int parse_int(std::string_view text, std::string_view option, std::string_view whole) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0)
    throw UserError(std::string(option) + ": expected GPU ranks like `0-15` or `0,8,16-31`, got `" +
                    std::string(whole) + "`");
  return v;
}

/// "gpu3.comm.tp" -> "comm.tp"; labels without a "gpuN." prefix stay whole.
std::string_view lane_name(std::string_view label) {
  const auto dot = label.find('.');
  return label.substr(0, 3) == "gpu" && dot != std::string_view::npos ? label.substr(dot + 1) : label;
}

/// The stream of `op` that belongs to `owner` (the rank that emitted it), else its first.
sim::StreamId owner_stream(const sim::StepGraph& g, sim::OpId op, sim::ProcessorId owner) {
  for (const sim::StreamId st : g.streams_of(op))
    if (g.stream(st).processor == owner) return st;
  return g.streams_of(op).front();
}

using LaneOf = std::pair<const RankRow*, const LaneRow*>;

void peers(const sim::StepGraph& g, sim::OpId op, sim::StreamId own, const std::vector<LaneOf>& lanes,
           OpRow& row) {
  row.also_on.clear();
  row.peer_lanes.clear();
  for (const sim::StreamId st : g.streams_of(op)) {
    if (st == own) continue;
    row.also_on.push_back(g.label_text(g.stream(st).label));
    if (lanes[st].second) row.peer_lanes.push_back(lanes[st]);
  }
}

}  // namespace

RankSelection RankSelection::parse(std::string_view text, std::string_view option) {
  RankSelection sel;
  std::size_t pos = 0;
  while (pos <= text.size() && !text.empty()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    const std::size_t dash = item.find('-');
    const int first = parse_int(item.substr(0, dash), option, text);
    const int last = dash == std::string_view::npos ? first : parse_int(item.substr(dash + 1), option, text);
    if (last < first)
      throw UserError(std::string(option) + ": range `" + std::string(item) + "` ends before it starts");
    sel.ranges.emplace_back(first, last);
    pos = comma + 1;
  }
  return sel;
}

bool RankSelection::contains(int gpu) const {
  for (const auto& [a, b] : ranges)
    if (gpu >= a && gpu <= b) return true;
  return false;
}

namespace {

/// The simulated ranks the selection keeps, in simulated order, with their ops counted.
void pick_ranks(const work::Simulation& s, const RankSelection& selection, StepLayout& layout) {
  const auto& plan = s.plan;
  std::vector<std::size_t> ops_of(plan.ranks.size(), 0);
  for (const auto& i : plan.info) ++ops_of[i.rank];
  std::size_t budget_used = 0;
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    const work::SimRank& r = plan.ranks[i];
    if (selection.ranges.empty()) {
      const bool room = layout.ranks.empty() || (layout.ranks.size() < selection.max_ranks &&
                                                 budget_used + ops_of[i] <= selection.max_ops);
      if (!room) break;
      budget_used += ops_of[i];
    } else if (!selection.contains(r.rank)) {
      continue;
    }
    const int node = static_cast<int>(s.topology->host_of(static_cast<topo::GpuId>(r.rank)));
    layout.ranks.push_back(RankRow{static_cast<std::uint16_t>(i), r.rank, node, r.stage, {}});
    layout.ops_selected += ops_of[i];
  }
  if (!layout.ranks.empty()) return;
  std::string sim;
  for (std::size_t i = 0; i < plan.ranks.size() && i < 32; ++i)
    sim += (i ? ", " : "") + std::to_string(plan.ranks[i].rank);
  throw UserError("--trace-ranks selects none of the simulated ranks (" + sim +
                  (plan.ranks.size() > 32 ? ", ..." : "") +
                  "); representative runs simulate one rank per stage");
}

/// Each selected rank's streams, in stream-id order.
void add_lanes(const work::StepPlan& plan, StepLayout& layout) {
  std::vector<int> proc_slot(plan.graph.processor_count(), -1);
  for (std::size_t k = 0; k < layout.ranks.size(); ++k)
    proc_slot[plan.ranks[layout.ranks[k].sim_rank].processor] = static_cast<int>(k);
  for (sim::StreamId st = 0; st < plan.graph.stream_count(); ++st) {
    const int k = proc_slot[plan.graph.stream(st).processor];
    if (k < 0) continue;
    auto& lanes = layout.ranks[static_cast<std::size_t>(k)].lanes;
    lanes.push_back(LaneRow{st, static_cast<std::uint16_t>(lanes.size()),
                            lane_name(plan.graph.label_text(plan.graph.stream(st).label))});
  }
}

}  // namespace

StepLayout select_ranks(const work::Simulation& s, const RankSelection& selection) {
  StepLayout layout;
  layout.simulated_ranks = s.plan.ranks.size();
  layout.ops_total = s.plan.graph.op_count();
  pick_ranks(s, selection, layout);
  add_lanes(s.plan, layout);
  return layout;
}

void emit_step(const work::Simulation& s, const StepLayout& layout, StepSink& sink) {
  const auto& plan = s.plan;
  const auto& g = plan.graph;
  sink.begin(layout);
  std::vector<const RankRow*> by_sim(plan.ranks.size(), nullptr);
  std::vector<LaneOf> by_stream(g.stream_count(), {nullptr, nullptr});
  for (const RankRow& r : layout.ranks) {
    by_sim[r.sim_rank] = &r;
    for (const LaneRow& l : r.lanes) by_stream[l.stream] = {&r, &l};
  }
  std::vector<CriticalStep> path;
  path.reserve(s.critical.ops.size());
  Time last{};
  for (const sim::OpId op : s.critical.ops) {
    const work::OpInfo& info = plan.info[op];
    const sim::OpRecord& rec = s.run.ops[op];
    path.push_back(CriticalStep{op, plan.ranks[info.rank].rank, info.rank, by_sim[info.rank] != nullptr,
                                category_of(info, g.exec(op).kind), topo::resource_of(rec.bound), rec.start,
                                rec.end, rec.start > last ? rec.start - last : Time{},
                                work::op_label(plan, op)});
    last = rec.end;
  }
  sink.critical_path(path);
  OpRow row;
  for (sim::OpId op = 0; op < plan.info.size(); ++op) {
    const work::OpInfo& info = plan.info[op];
    if (!by_sim[info.rank]) continue;
    const sim::OpExec& ex = g.exec(op);
    const sim::OpRecord& rec = s.run.ops[op];
    row.op = op;
    row.rank = by_sim[info.rank];
    const sim::StreamId own = owner_stream(g, op, plan.ranks[info.rank].processor);
    row.lane = by_stream[own].second;
    row.info = &info;
    row.kind = ex.kind;
    row.bound = topo::resource_of(rec.bound);
    row.start = rec.start;
    row.end = rec.end;
    row.flops = g.info(op).flops;
    row.bytes = g.info(op).bytes;
    row.label = work::op_label(plan, op);
    peers(g, op, own, by_stream, row);
    sink.op(row);
  }
  for (const RankRow& r : layout.ranks)
    for (const auto& [t, bytes] : s.report.ranks[r.sim_rank].memory.timeline)
      sink.memory(MemoryRow{&r, t, bytes});
  if (!s.link_timeline.stats.empty()) {
    for (const TierLoad& t : tier_loads(*s.topology, s.link_timeline.tiers)) sink.tier_load(t);
    for (const auto& c : s.link_timeline.watched) sink.link_load(c);
  }
  sink.end();
}

}  // namespace stepsim::out
