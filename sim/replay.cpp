#include "sim/replay.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <string>

#include "sim/error.hpp"
#include "sim/memory.hpp"

namespace stepsim::sim {
namespace replay_detail {

/// ceil(base x f) picoseconds for a non-negative product below 2^63: truncation and a compare, which
/// cost a fraction of a call to std::ceil in the replay's inner loop; exact for f = 1 (base is a
/// whole number of picoseconds below 2^53).
inline Time::rep scaled_ps(double base, double f) {
  const double x = base * f;
  const auto t = static_cast<Time::rep>(x);
  return t + (static_cast<double>(t) < x ? 1 : 0);
}

/// Throws std::invalid_argument when `layout` does not fit `graph` or `run` is not of it.
void check_layout(const StepGraph& graph, const RunResult& run, const ReplayLayout& layout) {
  const std::size_t n = graph.op_count();
  if (layout.width == 0) throw std::invalid_argument("replay: a width of 0 copies");
  if (run.ops.size() != n) throw std::invalid_argument("replay: the run is not of this graph");
  if (layout.op_partition.size() != n)
    throw std::invalid_argument("replay: the layout names " + std::to_string(layout.op_partition.size()) +
                                " ops, the graph has " + std::to_string(n));
  for (const auto& p : layout.partitions) {
    if (p.offsets.empty() || p.offsets.back() != p.members.size())
      throw std::invalid_argument("replay: a partition's offsets do not cover its members");
    for (const std::uint32_t m : p.members)
      if (m >= layout.width)
        throw std::invalid_argument("replay: a partition names copy " + std::to_string(m));
  }
  for (const std::uint32_t p : layout.op_partition)
    if (p != ReplayLayout::kNoPartition && p >= layout.partitions.size())
      throw std::invalid_argument("replay: an op names partition " + std::to_string(p));
  if (layout.scale_begin.empty()) return;
  if (layout.scale_begin.size() != n + 1 || layout.scale_begin.back() != layout.scales.size() ||
      !std::is_sorted(layout.scale_begin.begin(), layout.scale_begin.end()))
    throw std::invalid_argument("replay: the scale offsets do not cover the graph's ops and their scales");
  for (const ReplayLayout::CopyScale& c : layout.scales)
    if (c.copy >= layout.width || !(c.factor > 0.0) || !std::isfinite(c.factor))
      throw std::invalid_argument("replay: a scale names copy " + std::to_string(c.copy) + " at factor " +
                                  std::to_string(c.factor));
}

}  // namespace replay_detail
using replay_detail::scaled_ps;
static_assert(sizeof(Time) == sizeof(Time::rep), "ends_ is read as raw picosecond counts");

Replay::Replay(const StepGraph& graph, const RunResult& run, const ReplayLayout& layout)
    : graph_(graph), layout_(layout), width_(layout.width) {
  replay_detail::check_layout(graph, run, layout);
  collect_predecessors();
  std::vector<std::uint32_t> succ_begin;
  std::vector<OpId> succ;
  order_ops(succ_begin, succ);
  const std::size_t n = graph.op_count();
  nominal_.resize(n);
  nominal_start_.resize(n);
  varies_.resize(n);
  sink_.resize(n);
  for (OpId id = 0; id < n; ++id) {
    nominal_[id] = run.ops[id].end - run.ops[id].start;
    nominal_start_[id] = run.ops[id].start;
    const OpKind k = graph.exec(id).kind;
    varies_[id] = k == OpKind::compute || k == OpKind::memory;
    sink_[id] = succ_begin[id + 1] == succ_begin[id];
  }
  assign_slots(succ_begin, succ);
  index_groups();
  reserve_huge(ends_, slot_count_ * static_cast<std::size_t>(width_));
  ends_.resize(slot_count_ * static_cast<std::size_t>(width_));
}

void Replay::collect_predecessors() {
  // Explicit dependencies and the op before on each stream, deduplicated.
  const std::size_t n = graph_.op_count();
  const StreamPredecessors previous(graph_);
  pred_begin_.assign(n + 1, 0);
  preds_.reserve(n * 2);
  std::vector<OpId> scratch;
  for (OpId id = 0; id < n; ++id) {
    scratch.clear();
    graph_.for_each_dependency(id, [&](OpId d) { scratch.push_back(d); });
    for (const OpId p : previous.of(id))
      if (p != StepGraph::kNoOp) scratch.push_back(p);
    std::sort(scratch.begin(), scratch.end());
    scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
    preds_.insert(preds_.end(), scratch.begin(), scratch.end());
    pred_begin_[id + 1] = static_cast<std::uint32_t>(preds_.size());
  }
}

void Replay::order_ops(std::vector<std::uint32_t>& succ_begin, std::vector<OpId>& succ) {
  // The successor lists (from the predecessor lists), then a topological order: Kahn's, first in
  // first out from the lowest id. Ids are mostly in order, but a gate made early and opened late
  // points backwards.
  const std::size_t n = graph_.op_count();
  std::vector<std::uint32_t> waiting(n);
  succ_begin.assign(n + 1, 0);
  for (OpId id = 0; id < n; ++id) {
    waiting[id] = pred_begin_[id + 1] - pred_begin_[id];
    for (std::uint32_t i = pred_begin_[id]; i < pred_begin_[id + 1]; ++i) ++succ_begin[preds_[i] + 1];
  }
  for (std::size_t i = 0; i < n; ++i) succ_begin[i + 1] += succ_begin[i];
  succ.assign(preds_.size(), 0);
  std::vector<std::uint32_t> fill(succ_begin.begin(), succ_begin.end() - 1);
  for (OpId id = 0; id < n; ++id)
    for (std::uint32_t i = pred_begin_[id]; i < pred_begin_[id + 1]; ++i) succ[fill[preds_[i]]++] = id;
  order_.reserve(n);
  std::deque<OpId> ready;
  for (OpId id = 0; id < n; ++id)
    if (waiting[id] == 0) ready.push_back(id);
  while (!ready.empty()) {
    const OpId id = ready.front();
    ready.pop_front();
    order_.push_back(id);
    for (std::uint32_t i = succ_begin[id]; i < succ_begin[id + 1]; ++i)
      if (--waiting[succ[i]] == 0) ready.push_back(succ[i]);
  }
  if (order_.size() != n) throw std::logic_error("replay: the graph has a cycle");
}

void Replay::assign_slots(const std::vector<std::uint32_t>& succ_begin, const std::vector<OpId>& succ) {
  // An op's ends live from its own position in the order to its last successor's (a sink's only
  // until the makespan has seen them); a slot freed at position i serves ops after i.
  const std::size_t n = graph_.op_count();
  std::vector<std::uint32_t> position(n), last_use(n);
  for (std::uint32_t i = 0; i < n; ++i) position[order_[i]] = i;
  for (OpId id = 0; id < n; ++id) {
    last_use[id] = position[id];
    for (std::uint32_t i = succ_begin[id]; i < succ_begin[id + 1]; ++i)
      last_use[id] = std::max(last_use[id], position[succ[i]]);
  }
  // The ops whose last use is position i: dying[dying_begin[i] .. dying_begin[i + 1]).
  std::vector<std::uint32_t> dying_begin(n + 1, 0);
  for (OpId id = 0; id < n; ++id) ++dying_begin[last_use[id] + 1];
  for (std::size_t i = 0; i < n; ++i) dying_begin[i + 1] += dying_begin[i];
  std::vector<OpId> dying(n);
  std::vector<std::uint32_t> fill(dying_begin.begin(), dying_begin.end() - 1);
  for (const OpId id : order_) dying[fill[last_use[id]]++] = id;
  slot_.assign(n, 0);
  std::vector<std::uint32_t> free_slots;
  for (std::uint32_t i = 0; i < n; ++i) {
    const OpId id = order_[i];
    if (free_slots.empty()) {
      slot_[id] = static_cast<std::uint32_t>(slot_count_++);
    } else {
      slot_[id] = free_slots.back();
      free_slots.pop_back();
    }
    for (std::uint32_t k = dying_begin[i]; k < dying_begin[i + 1]; ++k) free_slots.push_back(slot_[dying[k]]);
  }
}

void Replay::index_groups() {
  // Per synchronised op, one entry per group (its start and latest member, filled by run()); per
  // partition, the group of each copy.
  const std::size_t n = graph_.op_count();
  sync_begin_.assign(n + 1, 0);
  for (OpId id = 0; id < n; ++id) {
    const std::uint32_t pi = layout_.op_partition[id];
    sync_begin_[id + 1] =
        sync_begin_[id] + (pi == ReplayLayout::kNoPartition
                               ? 0u
                               : static_cast<std::uint32_t>(layout_.partitions[pi].group_count()));
  }
  sync_start_.resize(sync_begin_.back());
  sync_member_.resize(sync_begin_.back());
  group_of_copy_.resize(layout_.partitions.size());
  for (std::size_t pi = 0; pi < layout_.partitions.size(); ++pi) {
    const ReplayLayout::Partition& part = layout_.partitions[pi];
    auto& of = group_of_copy_[pi];
    of.assign(width_, kNoGroup);
    for (std::size_t g = 0; g + 1 < part.offsets.size(); ++g)
      for (std::uint32_t k = part.offsets[g]; k < part.offsets[g + 1]; ++k)
        of[part.members[k]] = static_cast<std::uint32_t>(g);
  }
}

void Replay::prepare_jitter(double sigma) {
  if (sigma == jitter_sigma_ && !jitter_table_.empty()) return;
  jitter_sigma_ = sigma;
  jitter_table_.resize(kJitterTable);
  const double n = static_cast<double>(kJitterTable);
  for (std::size_t i = 0; i < kJitterTable; ++i) {
    const double z = normal_quantile((static_cast<double>(i) + 0.5) / n);
    jitter_table_[i] = std::exp(sigma * z - 0.5 * sigma * sigma);
  }
  // A fixed shuffle (Fisher-Yates on SplitMix64 draws): neighbouring entries are independent.
  for (std::size_t i = kJitterTable - 1; i > 0; --i) {
    const std::size_t k = static_cast<std::size_t>(mix_seed(0x5eed5eedull, i) % (i + 1));
    std::swap(jitter_table_[i], jitter_table_[k]);
  }
}

double Replay::jitter(OpId op, std::uint32_t copy, std::uint64_t seed, double sigma) {
  if (sigma <= 0.0) return 1.0;
  prepare_jitter(sigma);
  return jitter_table_[(jitter_offset(op, seed) + copy) & (kJitterTable - 1)];
}

Time Replay::scaled_nominal(OpId op, std::uint32_t copy) const {
  if (layout_.scale_begin.empty()) return nominal_[op];
  for (std::uint32_t k = layout_.scale_begin[op]; k < layout_.scale_begin[op + 1]; ++k)
    if (layout_.scales[k].copy == copy)
      return Time{scaled_ps(static_cast<double>(nominal_[op].count()), layout_.scales[k].factor)};
  return nominal_[op];
}

Time Replay::duration(OpId op, std::uint32_t copy, const Variation* variation) {
  if (variation == nullptr || !varies_[op]) return scaled_nominal(op, copy);
  const std::size_t row = static_cast<std::size_t>(graph_.exec(op).aux) * width_ + copy;
  double f =
      jitter(op, copy, variation->seed, variation->jitter_sigma) * variation->wander(row, nominal_start_[op]);
  if (row < variation->processor_factor.size()) f *= variation->processor_factor[row];
  Time t = f == 1.0 ? nominal_[op] : Time{scaled_ps(static_cast<double>(nominal_[op].count()), f)};
  if (variation->stalls_of(key(op, copy), row)) t = saturating_add(t, variation->stall);
  return t;
}

void Replay::ready_times(OpId op, Time::rep* e, std::uint8_t* crit) const {
  // The latest end among the predecessors, copy by copy (0 without any); with `crit`, which one.
  const std::size_t w = width_;
  const std::uint32_t first = pred_begin_[op], last = pred_begin_[op + 1];
  if (first == last) {
    std::fill(e, e + w, Time::rep{0});
    return;
  }
  const Time::rep* p = ends_of(preds_[first]);
  std::copy(p, p + w, e);
  if (crit == nullptr) {
    for (std::uint32_t k = first + 1; k < last; ++k) {
      p = ends_of(preds_[k]);
      for (std::size_t j = 0; j < w; ++j) e[j] = std::max(e[j], p[j]);
    }
    return;
  }
  std::fill(crit, crit + w, std::uint8_t{0});
  for (std::uint32_t k = first + 1; k < last; ++k) {
    p = ends_of(preds_[k]);
    const auto index = static_cast<std::uint8_t>(std::min<std::uint32_t>(k - first, kCritFar));
    for (std::size_t j = 0; j < w; ++j) {
      const bool later = p[j] > e[j];
      e[j] = later ? p[j] : e[j];
      crit[j] = later ? index : crit[j];
    }
  }
}

void Replay::synchronise(OpId op, Time::rep* e) {
  // Each group starts at its latest member's readiness.
  const std::uint32_t pi = layout_.op_partition[op];
  if (pi == ReplayLayout::kNoPartition) return;
  const ReplayLayout::Partition& part = layout_.partitions[pi];
  for (std::size_t g = 0; g + 1 < part.offsets.size(); ++g) {
    std::uint32_t latest = part.members[part.offsets[g]];
    for (std::uint32_t k = part.offsets[g] + 1; k < part.offsets[g + 1]; ++k)
      if (e[part.members[k]] > e[latest]) latest = part.members[k];
    const Time::rep m = e[latest];
    for (std::uint32_t k = part.offsets[g]; k < part.offsets[g + 1]; ++k) e[part.members[k]] = m;
    sync_start_[sync_begin_[op] + g] = Time{m};
    sync_member_[sync_begin_[op] + g] = latest;
  }
}

double Replay::wander(const Variation& v, std::size_t row, Time at) {
  if (row >= wander_cache_.size()) return v.wander(row, at);
  const std::uint64_t window = v.window_of(at);
  WanderDraw& d = wander_cache_[row];
  if (d.window != window) d = {window, v.wander(row, at)};
  return d.factor;
}

void Replay::add_durations(OpId op, Time::rep* e, const Variation* variation, bool stalls) {
  // Copy by copy, the same arithmetic as duration().
  const std::size_t w = width_;
  if (variation == nullptr || !varies_[op]) {
    const Time::rep d = nominal_[op].count();
    for (std::size_t j = 0; j < w; ++j) e[j] += d;
    if (layout_.scale_begin.empty()) return;
    // Scaled copies (transfers only: variation never touches them): the rest of their duration.
    for (std::uint32_t k = layout_.scale_begin[op]; k < layout_.scale_begin[op + 1]; ++k)
      e[layout_.scales[k].copy] += scaled_ps(static_cast<double>(d), layout_.scales[k].factor) - d;
    return;
  }
  const std::size_t row = static_cast<std::size_t>(graph_.exec(op).aux) * w;
  const double base = static_cast<double>(nominal_[op].count());
  const double* factor =
      variation->processor_factor.size() >= row + w ? variation->processor_factor.data() + row : nullptr;
  const double* table = variation->jitter_sigma > 0.0 ? jitter_table_.data() : nullptr;
  const std::size_t offset = table != nullptr ? jitter_offset(op, variation->seed) : 0;
  const bool wanders = variation->wanders();
  const Time start = nominal_start_[op];
  for (std::size_t j = 0; j < w; ++j) {
    double f = table != nullptr ? table[(offset + j) & (kJitterTable - 1)] : 1.0;
    if (factor != nullptr) f *= factor[j];
    if (wanders) f *= wander(*variation, row + j, start);
    e[j] += scaled_ps(base, f);
  }
  if (stalls)
    for (std::size_t j = 0; j < w; ++j)
      if (variation->stalls_of(key(op, static_cast<std::uint32_t>(j)), row + j))
        e[j] += variation->stall.count();
}

ReplayResult Replay::run(const Variation* variation, bool critical_path) {
  const std::size_t w = width_;
  if (variation != nullptr && variation->jitter_sigma > 0.0) prepare_jitter(variation->jitter_sigma);
  if (variation != nullptr && variation->wanders())
    wander_cache_.assign(graph_.processor_count() * static_cast<std::size_t>(w), WanderDraw{});
  const bool stalls = variation != nullptr && variation->stall.count() > 0 &&
                      std::any_of(variation->stall_probability.begin(), variation->stall_probability.end(),
                                  [](double p) { return p > 0.0; });
  if (critical_path && crit_.empty()) {
    reserve_huge(crit_, order_.size() * w);
    crit_.resize(order_.size() * w);
  }
  ReplayResult out;
  out.instances = static_cast<std::uint64_t>(order_.size()) * w;
  OpId last_op = StepGraph::kNoOp;
  std::uint32_t last_copy = 0;
  for (const OpId op : order_) {
    Time::rep* const e = ends_of(op);
    ready_times(op, e, critical_path ? crit_.data() + static_cast<std::size_t>(op) * w : nullptr);
    synchronise(op, e);
    add_durations(op, e, variation, stalls);
    if (sink_[op])
      for (std::size_t j = 0; j < w; ++j)
        if (e[j] > out.makespan.count() || last_op == StepGraph::kNoOp) {
          out.makespan = Time{e[j]};
          last_op = op;
          last_copy = static_cast<std::uint32_t>(j);
        }
  }
  if (out.makespan >= kTimeRangeEnd)
    throw time_range_error(graph_.describe(last_op) + ", replayed, would end past it");
  if (critical_path && last_op != StepGraph::kNoOp)
    out.critical = walk_back(last_op, last_copy, out.makespan, variation);
  return out;
}

std::vector<ReplayLink> Replay::walk_back(OpId op, std::uint32_t copy, Time end, const Variation* variation) {
  // To the member of the op's group that was ready last (a synchronised op), then to that copy's
  // predecessor that ended last (ties to the lowest id); each start is the end of the step before
  // it. Past a 255th predecessor, the copy's times are computed again alone.
  std::vector<ReplayLink> chain;
  std::vector<Time> ends_of_copy;
  std::uint32_t computed = kNoGroup;  // the copy ends_of_copy holds
  for (;;) {
    const Time start = end - duration(op, copy, variation);
    chain.push_back({op, copy, start, end, nominal_[op]});
    if (const std::uint32_t pi = layout_.op_partition[op]; pi != ReplayLayout::kNoPartition) {
      const std::uint32_t g = group_of_copy_[pi][copy];
      if (g != kNoGroup) copy = sync_member_[sync_begin_[op] + g];
    }
    if (pred_begin_[op] == pred_begin_[op + 1] || start == Time::zero()) break;
    OpId next = StepGraph::kNoOp;
    if (const std::uint8_t c = crit_[static_cast<std::size_t>(op) * width_ + copy]; c != kCritFar) {
      next = preds_[pred_begin_[op] + c];
    } else {
      if (computed != copy) {
        copy_ends(copy, variation, ends_of_copy);
        computed = copy;
      }
      for (std::uint32_t k = pred_begin_[op]; k < pred_begin_[op + 1] && next == StepGraph::kNoOp; ++k)
        if (ends_of_copy[preds_[k]] == start) next = preds_[k];
    }
    if (next == StepGraph::kNoOp) throw std::logic_error("replay: the critical path lost its predecessor");
    op = next;
    end = start;
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

void Replay::copy_ends(std::uint32_t copy, const Variation* variation, std::vector<Time>& out) {
  out.assign(order_.size(), Time{});
  for (const OpId op : order_) {
    Time start{};
    if (const std::uint32_t pi = layout_.op_partition[op];
        pi != ReplayLayout::kNoPartition && group_of_copy_[pi][copy] != kNoGroup) {
      start = sync_start_[sync_begin_[op] + group_of_copy_[pi][copy]];
    } else {
      for (std::uint32_t k = pred_begin_[op]; k < pred_begin_[op + 1]; ++k)
        start = std::max(start, out[preds_[k]]);
    }
    out[op] = variation != nullptr && varies_[op] ? saturating_add(start, duration(op, copy, variation))
                                                  : start + scaled_nominal(op, copy);
  }
}

std::size_t Replay::memory_bytes() const {
  return ends_.capacity() * sizeof(Time) + sync_start_.capacity() * sizeof(Time) + crit_.capacity() +
         order_.capacity() * sizeof(OpId) + pred_begin_.capacity() * sizeof(std::uint32_t) +
         preds_.capacity() * sizeof(OpId) + nominal_.capacity() * sizeof(Time) +
         nominal_start_.capacity() * sizeof(Time) + wander_cache_.capacity() * sizeof(WanderDraw) +
         varies_.capacity() + sink_.capacity() + slot_.capacity() * sizeof(std::uint32_t) +
         sync_begin_.capacity() * sizeof(std::uint32_t) + sync_member_.capacity() * sizeof(std::uint32_t) +
         layout_.scale_begin.capacity() * sizeof(std::uint32_t) +
         layout_.scales.capacity() * sizeof(ReplayLayout::CopyScale);
}

}  // namespace stepsim::sim
