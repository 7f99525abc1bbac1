// NCCL's PAT ("parallel aggregated trees", NCCL 2.23+): reduce-scatter and all-gather for
// communicators of one rank per node, in log2(n) dimensions instead of a ring's n-1 steps.
//
// What moves where (src/include/collectives.h PatRSAlgorithm / PatAGAlgorithm, src/device/
// prims_simple.h): rank r connects in dimension d to the ranks 2^d away, sending to r - 2^d in an
// all-gather (r + 2^d in a reduce-scatter) and receiving from the other side. The chunk of the rank
// s positions away travels as a binomial tree: it arrives over dimension firstBitSet(s), the lowest
// set bit of s, from the rank that holds it one dimension earlier. Over every offset s = 1 .. n-1,
// dimension d carries the chunks whose s has lowest set bit d: n / 2^(d+1) of them when n is a power
// of two (half the data to the nearest peer, a quarter to the next, ...), n - 1 in all, so each rank
// sends and receives (n-1)/n of the buffer, as in a ring, spread over log2(n) peers. Aggregation
// (several offsets per network step when a chunk is smaller than NCCL's step) changes how the
// steps are posted, not the bytes, so the time beyond NCCL's latency formula is the flow model's.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "topology/collective_plan.hpp"

namespace stepsim::topo {

namespace {

int lowest_set_bit(std::size_t s) {
  int d = 0;
  while ((s & 1u) == 0u) s >>= 1, ++d;
  return d;
}

}  // namespace

std::vector<double> pat_chunks_per_dimension(std::size_t n) {
  std::vector<double> chunks;
  for (std::size_t s = 1; s < n; ++s) {
    const auto d = static_cast<std::size_t>(lowest_set_bit(s));
    if (chunks.size() <= d) chunks.resize(d + 1, 0.0);
    chunks[d] += 1.0;
  }
  return chunks;
}

// One unit flow = one request byte S (all-gather: the whole output; reduce-scatter: the whole
// input); a chunk is S / n. Each channel carries 1/k of every dimension's chunks.
Plan build_pat(AlgoContext& ctx) {
  const std::size_t n = ctx.request.groups.front().size();
  const std::vector<double> chunks = pat_chunks_per_dimension(n);
  const bool gather = ctx.request.op == CollectiveOp::all_gather;
  const double k = ctx.channels;
  std::vector<double> step_latency(chunks.size(), 0.0);  // the slowest route of each dimension
  for (std::uint32_t c = 0; c < ctx.channels; ++c)
    for (const auto& group : ctx.request.groups)
      for (std::size_t d = 0; d < chunks.size(); ++d) {
        const std::size_t delta = std::size_t{1} << d;
        const double w = chunks[d] / (static_cast<double>(n) * k);
        for (std::size_t r = 0; r < n; ++r) {
          const std::size_t peer = gather ? (r + n - delta % n) % n : (r + delta) % n;
          step_latency[d] = std::max(step_latency[d], ctx.builder.add_flow(group[r], group[peer], c, w));
        }
      }
  PlanPhase phase;
  phase.channels = ctx.channels;
  for (const double l : step_latency) phase.latency_s += l;  // one network step per dimension
  phase.vars.push_back(PlanVariable{ctx.pool.add(ctx.builder.take()), 1.0});
  return Plan{CollectiveAlgorithm::pat, {std::move(phase)}};
}

}  // namespace stepsim::topo
