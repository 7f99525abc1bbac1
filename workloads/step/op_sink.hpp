#pragma once
// The seam between "what a transformer step does" and "how it becomes a graph".
//
// Layer emitters (workloads/step/layer_ops.hpp) describe kernels and communication in program order by
// calling an OpSink. The step builder's sink turns them into sim ops on streams; a counting sink in
// tests adds up FLOPs and bytes so the hand derivations can be checked without running anything.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "topology/compute_model.hpp"
#include "workloads/model/collective_kind.hpp"
#include "workloads/model/job.hpp"

namespace stepsim::work {

/// Which training pass an op belongs to (for names, traces and the breakdown).
enum class Pass : std::uint8_t { forward, backward, recompute, optimizer };

/// Which communicator of a dimension a collective uses: the dense layout's, or Megatron-Core's
/// expert layout (tp: expert tensor parallel; dp: ranks holding the same experts; ep is always
/// the expert-parallel group).
/// shard / replica: hybrid sharded data parallelism's groups of the dp x cp ranks (the ranks
/// sharding one copy of the weights, and the ranks holding the same shard).
/// stage: every rank of the pipeline stage (tp x cp x dp), whatever the dimension.
enum class CommScope : std::uint8_t { dense, expert, shard, replica, stage };
inline constexpr int kCommScopes = 5;

/// A communication op as the layer sees it: a collective over one parallel dimension's group.
struct CommOp {
  ParallelDim dim = ParallelDim::tp;
  CollectiveKind kind = CollectiveKind::all_reduce;
  double bytes = 0.0;
  /// Send/recv along a dimension: the peer is `offset` positions away (+1 next stage, -1 previous).
  int peer_offset = 0;
  CommScope scope = CommScope::dense;
  /// all_to_all only, optional: p x p row-major bytes from member i to member j of the group (MoE
  /// routing); replaces `bytes`. Not owned: it must outlive the sink's use of the op.
  std::span<const double> pair_bytes{};
  /// Identifies pair_bytes' contents for caching: equal ids promise equal matrices (-1: none).
  int pattern = -1;
  /// Moved by the GPUs' copy engines (userbuffers' and AsyncTP's peer-to-peer steps) on a channel
  /// of their own: it takes no SMs from the kernels it overlaps.
  bool copy_engine = false;
  /// Launched by a loop inside one framework call (the splits of a comm-GEMM overlap): a bare
  /// launch on the host, not a collective call of its own.
  bool inner_launch = false;
  /// SMs its kernels hold where the library fixes them (userbuffers' num_sm); 0: NCCL's channels.
  int sms = 0;
};

class OpSink {
 public:
  /// A handle to an emitted op; handles are only meaningful to the sink that issued them.
  struct Handle {
    std::uint32_t id = kNone;
    static constexpr std::uint32_t kNone = 0xffffffffu;
    bool valid() const { return id != kNone; }
  };

  /// Up to four ops something waits for; invalid handles are dropped. Converts from one Handle.
  class Deps {
   public:
    Deps() = default;
    Deps(Handle h) { add(h); }  // NOLINT(google-explicit-constructor): a single dependency reads naturally
    Deps(std::initializer_list<Handle> hs) {
      for (Handle h : hs) add(h);
    }
    void add(Handle h) {
      if (h.valid() && n_ < h_.size()) h_[n_++] = h;
    }
    std::span<const Handle> span() const { return {h_.data(), n_}; }

   private:
    std::array<Handle, 4> h_{};
    std::size_t n_ = 0;
  };

  virtual ~OpSink() = default;

  /// A kernel on the compute stream, after every kernel emitted before it, and after `deps`.
  Handle kernel_after(std::string_view name, const topo::KernelWork& work, std::span<const Handle> deps) {
    return emit_kernel(name, work, deps);
  }
  Handle kernel(std::string_view name, const topo::KernelWork& work) { return emit_kernel(name, work, {}); }
  Handle kernel(std::string_view name, const topo::KernelWork& work, Handle dep) {
    return dep.valid() ? emit_kernel(name, work, std::span<const Handle>(&dep, 1))
                       : emit_kernel(name, work, {});
  }
  /// A communication op on its dimension's channel, after `deps` (and earlier ops on that channel).
  Handle comm_after(std::string_view name, const CommOp& op, std::span<const Handle> deps) {
    return emit_comm(name, op, deps);
  }
  Handle comm(std::string_view name, const CommOp& op, Handle dep) {
    return dep.valid() ? emit_comm(name, op, std::span<const Handle>(&dep, 1)) : emit_comm(name, op, {});
  }
  /// Records what `op` (a kernel or collective this sink emitted) would have cost with perfectly
  /// balanced MoE routing, so that reports can price the imbalance. Sinks may ignore it.
  void balanced_kernel(Handle op, const topo::KernelWork& balanced) { on_balanced_kernel(op, balanced); }
  void balanced_comm(Handle op, const CommOp& balanced) { on_balanced_comm(op, balanced); }
  /// The host waits for `op` before it launches anything else (a `.item()` on the gradient norm,
  /// a dropless MoE layer's token counts). Sinks without a host timeline ignore it.
  void host_sync(Handle op, std::string_view name) { on_host_sync(op, name); }
  /// Whether weight-gradient kernels emitted now run later, at a weight step (DualPipe's
  /// zero-bubble backward): then nothing emitted now may wait for them.
  bool defers_weight_grads() const { return weight_grads_deferred(); }

 protected:
  virtual Handle emit_kernel(std::string_view name, const topo::KernelWork& work,
                             std::span<const Handle> deps) = 0;
  virtual Handle emit_comm(std::string_view name, const CommOp& op, std::span<const Handle> deps) = 0;
  virtual void on_balanced_kernel(Handle, const topo::KernelWork&) {}
  virtual void on_balanced_comm(Handle, const CommOp&) {}
  virtual void on_host_sync(Handle, std::string_view) {}
  virtual bool weight_grads_deferred() const { return false; }
};

}  // namespace stepsim::work
