// RankSink's overlapped pairs: two micro-batches' kernels (and, with eager launches, their host
// launches) kept as segments cut at their collectives, then ordered in turns on one compute stream
// (RankSink::begin_segments, RankSink::run_segments_in_turns; docs/model.md, "Overlapped
// backward-forward pairs").
#include <algorithm>
#include <utility>

#include "workloads/step/rank_sink.hpp"

namespace stepsim::work {

void RankSink::keep_in_segment(std::vector<Segment>& list, int index, sim::OpId op) {
  const auto k = static_cast<std::size_t>(index);
  if (list.size() <= k) list.resize(k + 1);
  Segment& s = list[k];
  if (s.first == sim::StepGraph::kNoOp) s.first = op;
  s.last = op;
}

void RankSink::begin_segments(SegmentRule rule) {
  tracking_ = true;
  rule_ = rule;
  for (std::size_t l = 0; l < 2; ++l) {
    segments_[l].clear();
    host_segments_[l].clear();
    boundaries_[l] = 0;
    host_index_[l] = 0;
  }
  host_before_ = last_main_host_;
}

void RankSink::run_segments_in_turns(int first, bool host) {
  tracking_ = false;
  const auto a = static_cast<std::size_t>(first), b = 1 - a;
  // Each list in turn order; consecutive segments of one lane are already in its stream's order.
  // `prev` ran on `prev_lane` before the first segment in turn.
  const auto chain = [&](const std::array<std::vector<Segment>, 2>& lists, sim::OpId prev,
                         std::size_t prev_lane) {
    const std::size_t n = std::max(lists[0].size(), lists[1].size());
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t l : {a, b}) {
        if (k >= lists[l].size() || lists[l][k].first == sim::StepGraph::kNoOp) continue;
        if (prev != sim::StepGraph::kNoOp && prev_lane != l)
          a_.graph().add_dependency(prev, lists[l][k].first);
        prev = lists[l][k].last;
        prev_lane = l;
      }
    return std::pair{prev, prev_lane};
  };
  chain(segments_, sim::StepGraph::kNoOp, a);
  if (host && a_.host_timeline()) {
    const auto [last, lane] = chain(host_segments_, host_before_, 0);
    // What lane 0 launches next waits for the pair's last launch on lane 1.
    if (lane == 1) host_resume_after_ = last;
  }
  for (std::size_t l = 0; l < 2; ++l) {
    segments_[l].clear();
    host_segments_[l].clear();
  }
}

}  // namespace stepsim::work
