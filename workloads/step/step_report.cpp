#include "workloads/step/step_report.hpp"

#include <algorithm>
#include <numeric>

namespace stepsim::work {
namespace {

/// The length of the union of `spans` (sorted in place).
double union_s(std::vector<std::pair<Time, Time>>& spans) {
  std::sort(spans.begin(), spans.end());
  Time covered{}, reach{};
  for (auto [a, e] : spans) {
    if (e <= reach) continue;
    covered += e - std::max(a, reach);
    reach = e;
  }
  return to_seconds(covered);
}

constexpr std::size_t dim_index(ParallelDim d) {
  return static_cast<std::size_t>(d);
}

/// The predecessor whose end gated `op`'s start: the latest-ending explicit dependency or stream
/// predecessor (lowest id on ties); kNone if the op had none.
sim::OpId gating(const sim::StepGraph& g, const sim::StreamPredecessors& preds, const sim::RunResult& run,
                 sim::OpId op) {
  sim::OpId best = sim::StepGraph::kNoOp;
  Time best_end{-1};
  auto consider = [&](sim::OpId p) {
    if (p == sim::StepGraph::kNoOp) return;
    const Time e = run.ops[p].end;
    if (e > best_end || (e == best_end && p < best)) {
      best = p;
      best_end = e;
    }
  };
  g.for_each_dependency(op, consider);
  for (sim::OpId p : preds.of(op)) consider(p);
  return best;
}

class RankAnalyser {
 public:
  /// `comm_ops` lists the rank's communication ops in id order.
  RankAnalyser(const StepPlan& plan, const sim::StreamPredecessors& preds, const sim::RunResult& run,
               std::uint16_t rank, const std::vector<sim::OpId>& comm_ops)
      : plan_(plan), preds_(preds), run_(run), rank_(rank), comm_ops_(comm_ops) {}

  Breakdown breakdown() {
    Breakdown b;
    const auto& g = plan_.graph;
    const SimRank& r = plan_.ranks[rank_];
    // The GPU's kernels in start order; with overlapped pairs or deferred weight gradients, those
    // of every compute stream.
    std::vector<sim::OpId> kernels = g.ops_on(r.compute);
    bool merged = false;
    for (sim::StreamId extra : {r.compute_pair, r.compute_weights}) {
      if (extra == SimRank::kNoStream) continue;
      const std::vector<sim::OpId> more = g.ops_on(extra);
      kernels.insert(kernels.end(), more.begin(), more.end());
      merged = true;
    }
    if (merged) {
      std::stable_sort(kernels.begin(), kernels.end(), [&](sim::OpId x, sim::OpId y) {
        return run_.ops[x].start != run_.ops[y].start ? run_.ops[x].start < run_.ops[y].start : x < y;
      });
    }
    // Busy time is the union of the kernels' intervals, each instant charged once.
    Time cursor{};
    for (sim::OpId k : kernels) {
      const auto& rec = run_.ops[k];
      if (rec.start > cursor) explain_wait(k, cursor, rec.start, b);
      if (rec.end <= cursor) continue;
      const double d = to_seconds(rec.end - std::max(rec.start, cursor));
      (topo::resource_of(rec.bound) == topo::Resource::hbm ? b.memory_bound_s : b.compute_s) += d;
      cursor = rec.end;
    }
    explain_tail(cursor, b);
    return b;
  }

  CommOverlap overlap(const Breakdown& b) const {
    CommOverlap o;
    std::array<std::vector<std::pair<Time, Time>>, kDimCount> spans;
    for (sim::OpId op : comm_ops_)
      spans[dim_index(plan_.info[op].comm_dim)].push_back({run_.ops[op].start, run_.ops[op].end});
    for (std::size_t d = 0; d < kDimCount; ++d) {
      o.busy_s[d] = union_s(spans[d]);
      o.exposed_s[d] = b.exposed_comm_s[d];
    }
    return o;
  }

 private:
  /// Charges the compute stream's idle [from, to) before kernel `k` to what it waited on.
  void explain_wait(sim::OpId k, Time from, Time to, Breakdown& b) {
    sim::OpId x = gating(plan_.graph, preds_, run_, k);
    if (x != sim::StepGraph::kNoOp && plan_.info[x].is_host) {
      b.host_bound_s += to_seconds(to - from);  // the host had not launched the kernel yet
      return;
    }
    // Follow the chain of communication that gated the kernel, charging each op's running time
    // inside the window to its group; whatever came before the chain began is the bubble.
    while (to > from && x != sim::StepGraph::kNoOp) {
      const OpInfo& i = plan_.info[x];
      const auto& rec = run_.ops[x];
      if (!i.is_comm) break;  // a kernel (here or on another rank) gated the chain
      const Time lo = std::max(from, rec.start);
      if (to > lo) b.exposed_comm_s[dim_index(i.comm_dim)] += to_seconds(to - lo);
      to = std::min(to, lo);
      x = gating(plan_.graph, preds_, run_, x);
    }
    if (to > from) b.bubble_s += to_seconds(to - from);
  }

  /// After the rank's last kernel: its own trailing communication, then idle until the step ends.
  void explain_tail(Time from, Breakdown& b) {
    const Time end = run_.makespan;
    for (sim::OpId op : comm_ops_) {
      if (from >= end) break;
      const OpInfo& i = plan_.info[op];
      const auto& rec = run_.ops[op];
      if (rec.end <= from) continue;
      const Time lo = std::max(from, rec.start);
      if (lo > from) b.bubble_s += to_seconds(lo - from);
      b.exposed_comm_s[dim_index(i.comm_dim)] += to_seconds(rec.end - lo);
      from = rec.end;
    }
    if (end > from) b.bubble_s += to_seconds(end - from);
  }

  const StepPlan& plan_;
  const sim::StreamPredecessors& preds_;
  const sim::RunResult& run_;
  std::uint16_t rank_;
  const std::vector<sim::OpId>& comm_ops_;
};

MemoryPeak memory_of(const StepPlan& plan, const sim::RunResult& run, std::uint16_t rank) {
  MemoryPeak m;
  m.static_state = units::bytes(plan.static_memory[rank].total());
  std::vector<std::pair<Time, double>> changes;
  for (const MemoryEvent& e : plan.memory_events) {
    if (e.rank != rank) continue;
    const auto& rec = run.ops[e.op];
    changes.push_back({e.at == MemoryEvent::At::start ? rec.start : rec.end, e.bytes});
  }
  // Frees before allocations at the same instant: memory released by one op is reusable by the next.
  std::stable_sort(changes.begin(), changes.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : x.second < y.second;
  });
  double live = 0.0;
  m.timeline.push_back({0.0, m.static_state.value()});
  for (const auto& [t, bytes] : changes) {
    live += bytes;
    m.timeline.push_back({to_seconds(t), m.static_state.value() + live});
    if (live > m.activations.value()) {
      m.activations = units::bytes(live);
      m.peak_time_s = to_seconds(t);
    }
  }
  m.peak = m.static_state + m.activations;
  return m;
}

/// The union of the intervals in which `streams`' host ops ran (a rank's host busy time).
double host_busy_s(const StepPlan& plan, const sim::RunResult& run,
                   const std::vector<sim::StreamId>& streams) {
  std::vector<std::pair<Time, Time>> spans;
  for (sim::StreamId st : streams)
    for (sim::OpId op = plan.graph.first_on(st); op != sim::StepGraph::kNoOp; op = plan.graph.next_on(op, st))
      if (plan.info[op].is_host) spans.push_back({run.ops[op].start, run.ops[op].end});
  return union_s(spans);
}

}  // namespace

double Breakdown::total() const {
  return compute_s + memory_bound_s + bubble_s + host_bound_s +
         std::accumulate(exposed_comm_s.begin(), exposed_comm_s.end(), 0.0);
}

StepReport analyse_step(const StepPlan& plan, const sim::RunResult& run, const sim::CriticalPath& path) {
  StepReport r;
  r.step_time_s = to_seconds(run.makespan);
  const double n = static_cast<double>(plan.ranks.size());
  const sim::StreamPredecessors preds(plan.graph);
  // A collective belongs to every simulated rank whose streams it occupies (all of a group's
  // members in full mode), not only to the rank that created it.
  std::vector<int> rank_of_processor(plan.graph.processor_count(), -1);
  for (std::size_t r = 0; r < plan.ranks.size(); ++r)
    rank_of_processor[plan.ranks[r].processor] = static_cast<int>(r);
  std::vector<std::vector<sim::OpId>> comm_ops(plan.ranks.size());
  for (sim::OpId op = 0; op < plan.info.size(); ++op) {
    if (!plan.info[op].is_comm) continue;
    for (sim::StreamId st : plan.graph.streams_of(op)) {
      auto& list = comm_ops[static_cast<std::size_t>(rank_of_processor[plan.graph.stream(st).processor])];
      if (list.empty() || list.back() != op) list.push_back(op);
    }
  }
  // Each rank's host streams (its host thread's launches; a training pair's second lane): the
  // streams whose ops are host ops.
  std::vector<std::vector<sim::StreamId>> host_streams(plan.ranks.size());
  for (sim::StreamId st = 0; st < plan.graph.stream_count(); ++st) {
    const sim::OpId first = plan.graph.first_on(st);
    const int owner = rank_of_processor[plan.graph.stream(st).processor];
    if (first != sim::StepGraph::kNoOp && plan.info[first].is_host && owner >= 0)
      host_streams[static_cast<std::size_t>(owner)].push_back(st);
  }
  for (std::uint16_t i = 0; i < plan.ranks.size(); ++i) {
    RankAnalyser a(plan, preds, run, i, comm_ops[i]);
    RankReport rr;
    rr.rank = plan.ranks[i].rank;
    rr.stage = plan.ranks[i].stage;
    rr.breakdown = a.breakdown();
    rr.overlap = a.overlap(rr.breakdown);
    rr.memory = memory_of(plan, run, i);
    rr.host_busy_s = host_busy_s(plan, run, host_streams[i]);
    r.host_busy_s = std::max(r.host_busy_s, rr.host_busy_s);
    r.mean.compute_s += rr.breakdown.compute_s / n;
    r.mean.memory_bound_s += rr.breakdown.memory_bound_s / n;
    r.mean.bubble_s += rr.breakdown.bubble_s / n;
    r.mean.host_bound_s += rr.breakdown.host_bound_s / n;
    for (std::size_t d = 0; d < kDimCount; ++d) {
      r.mean.exposed_comm_s[d] += rr.breakdown.exposed_comm_s[d] / n;
      r.mean_overlap.busy_s[d] += rr.overlap.busy_s[d] / n;
      r.mean_overlap.exposed_s[d] += rr.overlap.exposed_s[d] / n;
    }
    if (r.ranks.empty() || rr.memory.peak > r.ranks[r.peak_rank].memory.peak) r.peak_rank = i;
    r.ranks.push_back(std::move(rr));
  }
  for (const auto& share : path.by_bound) {
    const auto res = static_cast<std::size_t>(share.bound);
    if (res < r.critical_s.size()) r.critical_s[res] += to_seconds(share.duration);
  }
  return r;
}

}  // namespace stepsim::work
