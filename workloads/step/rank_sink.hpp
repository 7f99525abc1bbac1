#pragma once
// Turns what layer emitters say (OpSink calls) into ops of the step graph, for one simulated rank.
//
// StepAssembler holds what all ranks of one build share: the graph builder, per-op info, the comm
// planner with a payload cache, and the streams of every simulated rank. RankSink is the OpSink of
// one rank; the step builder sets its context (pass, layer, micro-batch) before calling emitters.
//
// Representative mode simulates one rank per pipeline stage; each collective then carries every
// symmetric image of its group. Full mode simulates every rank; a collective becomes one op that
// occupies the streams of all its members, created by the first member that emits it and joined
// by the others (programs are SPMD, so the k-th collective a member emits on a dimension is the
// k-th collective of its group).

#include <array>
#include <compare>
#include <map>
#include <string>
#include <vector>

#include "sim/graph.hpp"
#include "workloads/layout/comm_planner.hpp"
#include "workloads/layout/rank_layout.hpp"
#include "workloads/step/step_plan.hpp"

namespace stepsim::work {

enum class RankMode : std::uint8_t {
  representative,  ///< one rank per pipeline stage; other replicas as images
  all,             ///< every rank (for checking the representative argument on small cases)
};

/// The streams of one simulated rank.
struct RankStreams {
  sim::StreamId compute = 0;
  std::array<sim::StreamId, 5> comm{};  ///< indexed by ParallelDim (tp, cp, ep, pp unused, dp)
  sim::StreamId send_next = 0, recv_prev = 0, send_prev = 0, recv_next = 0;
  /// MoE jobs: Megatron-Core's expert-TP and expert-DP communicators get their own channels, so that
  /// each channel carries one group's collectives in program order (as NCCL communicators do).
  sim::StreamId expert_tp = 0, expert_dp = 0;
  /// FP8 delayed scaling: the amax reductions' communicator over the stage (CommScope::stage).
  sim::StreamId stage = 0;
  /// Eager launches: the host CPU's stream of kernel launches (delay ops), when modelled.
  sim::StreamId host = 0;
  /// TP-communication overlap: the copy engines' peer-to-peer channel (userbuffers, AsyncTP).
  sim::StreamId tp_copy = 0;
  /// The channel of a collective along `d` in `scope`.
  sim::StreamId channel(ParallelDim d, CommScope scope) const {
    if (scope == CommScope::expert && d == ParallelDim::tp) return expert_tp;
    if (scope == CommScope::expert && d == ParallelDim::dp) return expert_dp;
    if (scope == CommScope::stage) return stage;
    return comm[static_cast<std::size_t>(d)];
  }
};

/// "fwd", "bwd", "recomp", "opt".
std::string_view pass_name(Pass p);

/// The full name of an op: "L12.fwd.qkv mb3", "dp.grad_allreduce bucket 4", "pp.send_act mb5".
std::string op_label(const StepPlan& plan, sim::OpId op);

class StepAssembler {
 public:
  StepAssembler(const JobSpec& job, CommPlanner& planner, RankMode mode);

  const JobSpec& job() const { return job_; }
  const RankLayout& layout() const { return layout_; }
  /// SMs the expert-parallel all-to-all kernels hold (moe.ep_comm_sms resolved); 0: the default share.
  int ep_kernel_sms() const { return ep_kernel_sms_; }
  RankMode mode() const { return mode_; }
  sim::StepGraphBuilder& graph() { return graph_; }
  const std::vector<SimRank>& ranks() const { return ranks_; }
  const RankStreams& streams(int sim_rank) const { return streams_[static_cast<std::size_t>(sim_rank)]; }
  /// The streams of `lane`: 0, or 1 for the backward of an overlapped forward-backward pair (its own
  /// compute stream and TP/CP/EP/DP channels, and in training its own host stream, which
  /// RankSink::run_segments_in_turns joins to lane 0's as one thread; the pipeline streams are
  /// shared).
  /// Lane 2 (DualPipe): the compute stream of deferred weight-gradient kernels (kWeightLane).
  const RankStreams& streams(int sim_rank, int lane) const {
    const auto r = static_cast<std::size_t>(sim_rank);
    return lane == 0 ? streams(sim_rank) : lane == 1 ? pair_streams_[r] : weight_streams_[r];
  }
  CommPlanner& planner() { return planner_; }
  /// Whether kernels are launched by a host timeline (eager PyTorch: no CUDA graphs and a host
  /// cost per op, host_costs()); each GPU op then waits for its launch on the rank's host stream.
  bool host_timeline() const { return host_timeline_; }
  /// Host seconds per launch, by what is launched.
  struct HostCosts {
    double op_s = 0.0;      ///< one simulated compute op: a framework call of several kernels in training
    double call_s = 0.0;    ///< one collective call
    double launch_s = 0.0;  ///< one bare kernel launch (a multi-tensor chunk), one host wake-up
  };
  const HostCosts& host_costs() const { return host_costs_; }
  /// The GPU op that `op` stands for: the op it launches if `op` is a host launch (launches come
  /// right before their GPU op), else `op`. Builders remember "the next op" before emitting; this
  /// turns that into the GPU's op once it exists.
  sim::OpId gpu_op(sim::OpId op) const {
    return op < info_.size() && info_[op].is_host && !host_sync_[op] ? op + 1 : op;
  }
  void mark_host_sync(sim::OpId op) { host_sync_[op] = true; }
  /// Adds a host op of `duration` labelled `label` on the host stream of `sim_rank`'s `lane`;
  /// returns its id.
  sim::OpId add_host_op(int sim_rank, int lane, Time duration, sim::LabelId label, const OpInfo& info);
  /// The label of kernel launches, "host.launch": looked up once, not for each of them (half of
  /// an eager step's ops). Interned at the first launch, so label ids are as they were.
  sim::LabelId launch_label() {
    if (launch_label_ == 0) launch_label_ = graph_.intern("host.launch");
    return launch_label_;
  }

  /// Adds an op with its info; returns its id.
  sim::OpId add(const sim::Op& op, std::span<const sim::StreamId> streams, const OpInfo& info);
  /// The groups a collective along `d` of global rank `rank` covers (own group first, then images).
  const std::vector<std::vector<int>>& groups(ParallelDim d, int rank, CommScope scope = CommScope::dense);
  /// Full mode: one collective of one group, as each of its members emits it: the `seq`-th on
  /// sequence channel `channel` (RankSink's per dimension x scope, or copy-engine, count) of the
  /// group whose first global rank is `leader`.
  struct CollectiveKey {
    int channel = 0;
    int leader = 0;
    int seq = 0;
    auto operator<=>(const CollectiveKey&) const = default;
  };
  /// The op an earlier member created for `key`, or StepGraph::kNoOp.
  sim::OpId shared_collective(const CollectiveKey& key) const;
  /// Records the op the first member created for `key`.
  void share_collective(const CollectiveKey& key, sim::OpId op);
  /// Simulated rank index of a global rank, or -1.
  int sim_index(int rank) const;
  /// Whether what `op` would cost with balanced MoE routing is recorded (see OpSink::balanced_kernel).
  bool has_balanced(sim::OpId op) const { return balanced_.count(op) > 0; }
  /// Records that cost for `b.op`; an op keeps its first record (full mode: every member records).
  void record_balanced(const BalancedOp& b) { balanced_.try_emplace(b.op, b); }
  /// Hands the per-op info, the simulated ranks and the balanced costs (in op order) over to the
  /// plan; the assembler is spent afterwards.
  std::vector<OpInfo> take_info() { return std::move(info_); }
  std::vector<SimRank> take_ranks() { return std::move(ranks_); }
  std::vector<BalancedOp> take_balanced();
  /// A pipeline-boundary transfer from simulated rank `from` to `to` (activations or gradients, as
  /// `pass` says), planned from `req` (its first group is the simulated pair, the rest its images);
  /// returns the op. It takes the sender's send_next and the receiver's recv_prev streams when it
  /// goes `downstream` (to the next pipeline rank, or from the last to the first), else send_prev
  /// and recv_next: each stream then carries one neighbour's transfers in that neighbour's order.
  sim::OpId add_pipeline_send(const CommRequest& req, int from, int to, Pass pass, int microbatch,
                              std::string_view label, bool downstream);
  /// Representative mode: the index of `groups` (the result of groups(), or a pipeline pair's
  /// groups keyed by its simulated ranks `pair`) in the plan's comm_groups, added on first use;
  /// OpInfo::kNoCommGroups in full mode.
  std::uint16_t comm_groups_id(const std::vector<std::vector<int>>& groups);
  std::uint16_t comm_groups_id(const std::vector<std::vector<int>>& groups, std::pair<int, int> pair);
  std::vector<std::vector<std::vector<int>>> take_comm_groups() { return std::move(comm_groups_); }

 private:
  const JobSpec& job_;
  CommPlanner& planner_;
  RankMode mode_;
  HostCosts host_costs_;
  bool host_timeline_ = false;
  RankLayout layout_;
  int ep_kernel_sms_ = 0;
  sim::StepGraphBuilder graph_;
  sim::LabelId launch_label_ = 0;  ///< 0 (the empty label) until the first launch
  std::vector<OpInfo> info_;
  std::vector<bool> host_sync_;  ///< per op: a host synchronisation (no GPU op follows it)
  std::vector<SimRank> ranks_;
  std::vector<RankStreams> streams_;
  std::vector<RankStreams> pair_streams_;    ///< lane 1 (ep_overlap), else empty
  std::vector<RankStreams> weight_streams_;  ///< lane 2 (the dualpipe schedule), else empty
  std::vector<int> sim_index_;             ///< per global rank
  /// The groups of a collective along `dim` in `scope`, for the ranks that share `key_rank`'s
  /// groups (see groups()).
  struct GroupKey {
    ParallelDim dim;
    CommScope scope;
    int key_rank;
    auto operator<=>(const GroupKey&) const = default;
  };
  std::map<GroupKey, std::vector<std::vector<int>>> group_cache_;
  std::map<sim::OpId, BalancedOp> balanced_;
  std::map<CollectiveKey, sim::OpId> shared_;
  std::vector<std::vector<std::vector<int>>> comm_groups_;
  std::map<const void*, std::uint16_t> comm_groups_by_address_;  ///< groups() results (stable)
  std::map<std::pair<int, int>, std::uint16_t> comm_groups_by_pair_;
  std::uint16_t add_comm_groups(const std::vector<std::vector<int>>& groups);
};

class RankSink : public OpSink {
 public:
  RankSink(StepAssembler& assembler, int sim_rank);

  /// Context for names and info of the ops emitted next: "L12.fwd.qkv mb3".
  void set_context(Pass pass, int layer, int microbatch);
  /// Ops emitted next carry no pass prefix ("dp.grad_allreduce bucket 4").
  void set_plain_context(Pass pass);
  int sim_rank() const { return sim_rank_; }
  /// Ops emitted next go to `lane`'s streams (StepAssembler::streams).
  void set_lane(int lane) { lane_ = lane; }
  /// A zero-length op named `name` on the current lane's compute stream after `after`: what
  /// follows on the lane waits for it.
  Handle barrier(Handle after, std::string_view name = "pair.join");
  /// The last op emitted on `lane`'s compute stream (invalid before the first).
  Handle last_on_lane(int lane) const { return last_[static_cast<std::size_t>(lane)]; }
  /// The last collective on each of lane 1's own data-parallel channels (dense and shard groups,
  /// experts, amaxes; invalid where none ran).
  const std::array<Handle, 3>& pair_dp_tails() const { return pair_dp_tails_; }

  /// Two micro-batches overlapped on one compute stream (SGLang's two-batch overlap, Megatron-Core's
  /// combined 1F1B, DeepSeek-V3's chunk pairs): from begin_segments() on, the kernels of lanes 0 and
  /// 1 are kept as segments, the runs between the collectives where a lane hands its data to
  /// another rank (the k-th segment of a lane: its kernels after its k-th such collective), and,
  /// with a host timeline, so are the lanes' host launches (host_index_). run_segments_in_turns() then orders
  /// them as the one stream runs them: `first` lane's segment 0, the other's 0, `first`'s 1, ... (empty ones
  /// skipped).
  enum class SegmentRule : std::uint8_t {
    any_collective,  ///< every collective ends a segment
    ep_all_to_all,   ///< only the expert-parallel all-to-alls (dispatch, combine and their gradients)
  };
  void begin_segments(SegmentRule rule);
  /// Orders the segments kept since begin_segments(): each segment's first kernel waits for the
  /// last kernel of the segment before it in turn order; with `host`, the launches likewise, as one
  /// host thread issues them (the lanes' host streams, joined to what the host ran before and
  /// after). Ends the tracking.
  void run_segments_in_turns(int first, bool host);

  /// Zero-bubble backward (DualPipe's WeightGradStore): from begin_deferral() to end_deferral(),
  /// weight-gradient kernels (KernelWork::weight_grad) and every kernel that depends on one go to
  /// the weight lane (kWeightLane), behind a gate op that nothing opens yet; the builder opens it
  /// at the weight step that runs them (first in, first out).
  static constexpr int kWeightLane = 2;
  struct Deferred {
    Handle gate;  ///< the zero-length op the deferred kernels wait behind (invalid: none deferred)
    Handle last;  ///< the last deferred kernel
  };
  void begin_deferral();
  Deferred end_deferral();
  int microbatch() const { return microbatch_; }
  int global_rank() const { return rank_; }

 protected:
  Handle emit_kernel(std::string_view name, const topo::KernelWork& work,
                     std::span<const Handle> deps) override;
  Handle emit_comm(std::string_view name, const CommOp& op, std::span<const Handle> deps) override;
  void on_balanced_kernel(Handle op, const topo::KernelWork& balanced) override;
  void on_balanced_comm(Handle op, const CommOp& balanced) override;
  void on_host_sync(Handle op, std::string_view name) override;
  bool weight_grads_deferred() const override { return deferring_; }

 private:
  sim::LabelId label(std::string_view name);
  /// emit_kernel on the current lane, without deferral.
  Handle emit_kernel_on_lane(std::string_view name, const topo::KernelWork& work,
                             std::span<const Handle> deps);
  OpInfo base_info() const;
  void add_deps(sim::OpId op, std::span<const Handle> deps);
  /// The host launch of the next GPU op (`seconds` of host time), or kNoOp without a host timeline.
  sim::OpId launch(double seconds);
  /// A host op on the current lane's host stream, kept in its host segment while tracking.
  sim::OpId host_op(Time duration, sim::LabelId label);
  struct Segment {
    sim::OpId first = sim::StepGraph::kNoOp, last = sim::StepGraph::kNoOp;
  };
  /// Adds `op` to segment `index` of `list` (one lane's kernels or host ops).
  static void keep_in_segment(std::vector<Segment>& list, int index, sim::OpId op);
  sim::OpId transfer(std::string_view name, const CommOp& op, const std::vector<std::vector<int>>& groups);
  std::uint32_t payload(const CommOp& op, const std::vector<std::vector<int>>& groups);
  /// Everything of a CommOp its planned payload depends on (the groups follow from dim, scope and
  /// this sink's rank). Bytes are whole: sizes within half a byte share one plan.
  struct PayloadKey {
    ParallelDim dim;
    CommScope scope;
    CollectiveKind kind;
    int peer_offset;
    long long bytes;
    int pattern;  ///< CommOp::pattern, or -1 without a per-pair matrix
    int sms;      ///< CommOp::sms
    auto operator<=>(const PayloadKey&) const = default;
  };

  StepAssembler& a_;
  int sim_rank_;
  int rank_;
  Pass pass_ = Pass::forward;
  bool plain_ = false;
  int layer_ = -1;
  int microbatch_ = -1;
  int lane_ = 0;
  std::array<Handle, 3> last_{};
  std::array<Handle, 3> pair_dp_tails_{};
  bool tracking_ = false;
  SegmentRule rule_ = SegmentRule::any_collective;
  std::array<std::vector<Segment>, 2> segments_;       ///< per lane: kernels
  std::array<std::vector<Segment>, 2> host_segments_;  ///< per lane: host launches and waits
  std::array<int, 2> boundaries_{};  ///< per lane: segment-ending collectives emitted while tracking
  /// Per lane: the host segment its host ops go to. A collective's launch closes the segment it is
  /// in, but a wait for the GPU opens the next one: the real schedules issue the other half's next
  /// kernels before the forward's dispatch waits for its token counts (DeepSeek's profile: the
  /// backward's experts, then the forward's dispatch), so the wait holds back only what follows it.
  std::array<int, 2> host_index_{};
  sim::OpId last_main_host_ = sim::StepGraph::kNoOp;  ///< the last host op on lane 0's host stream
  sim::OpId host_before_ = sim::StepGraph::kNoOp;     ///< last_main_host_ when tracking began
  /// The host op lane 0's next host op waits for (the end of an overlapped pair's launches).
  sim::OpId host_resume_after_ = sim::StepGraph::kNoOp;
  bool deferring_ = false;
  Deferred deferred_;
  std::vector<sim::OpId> deferred_ops_;  ///< this deferral's kernels, in id order
  std::string label_scratch_;
  /// Collectives emitted so far per dimension and scope, and copy-engine steps (full mode).
  std::array<int, 5 * kCommScopes + 1> comm_seq_{};
  std::map<PayloadKey, std::uint32_t> payload_cache_;
};

}  // namespace stepsim::work
