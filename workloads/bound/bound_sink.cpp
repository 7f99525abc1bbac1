#include "workloads/bound/bound_sink.hpp"

#include "workloads/model/names.hpp"

namespace stepsim::work::detail {

CommKey grid_key(const ParallelSpec& p, const RankLayout& layout) {
  CommKey k;
  const std::array<int, 10> grid{p.tp,
                                 p.cp,
                                 p.pp,
                                 p.dp,
                                 p.ep,
                                 p.expert_tp,
                                 layout.stride(ParallelDim::tp),
                                 layout.stride(ParallelDim::cp),
                                 layout.stride(ParallelDim::pp),
                                 layout.stride(ParallelDim::dp)};
  std::copy(grid.begin(), grid.end(), k.shape.begin() + 6);
  k.shape[16] = p.average_in_collective ? 1 : 0;  // a reduce-scatter's reduction (NCCL's PAT or not)
  return k;
}

CommKey comm_key(CommKey k, CollectiveKind kind, ParallelDim dim, CommScope scope, int peer_offset, int rank,
                 int to, double bytes, std::span<const double> pair_bytes) {
  const std::array<int, 6> head{
      static_cast<int>(kind), static_cast<int>(dim), static_cast<int>(scope), peer_offset, rank, to};
  std::copy(head.begin(), head.end(), k.shape.begin());
  k.bytes = bytes;
  k.pair_bytes.assign(pair_bytes.begin(), pair_bytes.end());
  return k;
}

Handle BoundSink::emit_kernel(std::string_view name, const topo::KernelWork& w,
                              std::span<const Handle> deps) {
  const topo::KernelTime t = named_kernel_time(gpu_, name, w);
  const Time d = t.duration;
  kernels_ += d;
  if (topo::tensor_bound(w.op_class, t.bound)) tensor_ += d;
  fp_.add(1);
  fp_.add(static_cast<int>(w.op_class));
  fp_.add(static_cast<int>(w.precision));
  for (double v : {w.flops.value(), w.hbm_bytes.value(), w.gemm_m, w.gemm_n, w.gemm_k, w.launches})
    fp_.add(v);
  fp_.add(static_cast<int>(w.accumulation));
  fp_.add(static_cast<int>(w.scaling));
  fp_.add(w.inner_launch ? 1 : 0);                 // its host cost
  fp_.add(static_cast<std::uint64_t>(d.count()));  // the kernel's kind, where it prices by kind
  // It starts once the stream is free and its dependencies have ended.
  cursor_ = cursor_.max(after(deps)).plus(d.count());
  return push(cursor_);
}
Handle BoundSink::emit_comm(std::string_view, const CommOp& c, std::span<const Handle> deps) {
  fp_.add(2);
  fp_.add(static_cast<int>(c.dim));
  fp_.add(static_cast<int>(c.kind));
  fp_.add(c.bytes);
  fp_.add(c.peer_offset);
  fp_.add(static_cast<int>(c.scope));
  fp_.add(c.inner_launch ? 1 : 0);
  fp_.add(static_cast<std::uint64_t>(c.pair_bytes.size()));
  for (double v : c.pair_bytes) fp_.add(v);
  Time t{};
  if (comm_ != nullptr) {
    t = comm_->at_least(
        comm_key(grid_, c.kind, c.dim, c.scope, c.peer_offset, rank_, 0, c.bytes, c.pair_bytes), [&] {
          // The request RankSink::payload plans for this op.
          CommRequest req;
          req.kind = c.kind;
          req.dim = c.dim;
          req.bytes = c.bytes;
          req.groups = groups_.groups(c.dim, rank_, c.scope);
          req.peer_offset = c.peer_offset;
          req.pair_bytes.assign(c.pair_bytes.begin(), c.pair_bytes.end());
          req.average = averages_in_collective(groups_.job(), c.dim, c.kind);
          return req;
        });
  }
  return push(after(deps).plus(t.count()));
}
}  // namespace stepsim::work::detail
