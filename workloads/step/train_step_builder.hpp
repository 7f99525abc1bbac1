#pragma once
// The training-step builder's internals, shared by its two source files: train_step.cpp (schedule
// steps, layers, heads and pipeline boundaries) and train_gradients.cpp (ZeRO-3 weight gathers,
// gradient buckets, the optimizer and static memory). Only build_train_step (train_step.hpp) is public.

#include <compare>
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "workloads/step/layer_stack.hpp"
#include "workloads/step/model_ops.hpp"
#include "workloads/step/pipeline_schedule.hpp"
#include "workloads/step/train_step.hpp"

namespace stepsim::work::detail {

using Handle = OpSink::Handle;
using Kind = PipeStep::Kind;

/// Where an activation (or its gradient) crosses a pipeline boundary.
struct BoundaryKey {
  int pipeline;  ///< global rank of the pipeline's stage-0 member
  int vstage;    ///< virtual stage that produced it
  int microbatch;
  Kind kind;
  auto operator<=>(const BoundaryKey&) const = default;
};

struct PendingSend {
  BoundaryKey key;
  Handle producer;
  int step = 0;  ///< the sender's schedule step that produced it
};

/// Where a boundary's data enters its consumer.
struct Entry {
  sim::OpId op = 0;
  int step = 0;  ///< the consumer's schedule step
};

/// The op that opens one schedule step of a rank; under lock-step pipelining also the zero-length op
/// that closes it on the compute stream (where its batched sends and receives are posted).
struct StepSpan {
  sim::OpId first = 0;
  sim::OpId end = 0;
};

/// Which part of the model a gradient source is. Sources are summed and bucketed in this order:
/// the embedding, the transformer layers, the LM head, each multi-token-prediction module, then the
/// embedding copy the MTP modules look up.
struct GradKey {
  enum class Part : std::uint8_t { embedding, layer, head, mtp_module, mtp_embedding };
  Part part = Part::layer;
  int index = 0;  ///< the layer (Part::layer) or the MTP module's depth (Part::mtp_module); else 0
  auto operator<=>(const GradKey&) const = default;

  static GradKey embedding() { return {Part::embedding, 0}; }
  static GradKey layer(int l) { return {Part::layer, l}; }
  static GradKey head() { return {Part::head, 0}; }
  static GradKey mtp_module(int depth) { return {Part::mtp_module, depth}; }
  static GradKey mtp_embedding() { return {Part::mtp_embedding, 0}; }
};

/// What one layer contributes to the gradient buckets: its final weight-gradient op and size.
struct GradSource {
  Handle ready;
  double params = 0.0;         ///< reduced over the data-parallel (x CP) group
  double expert_params = 0.0;  ///< routed experts: reduced over the expert-data-parallel group
  bool layer = false;          ///< a transformer layer (ZeRO-3 shards and reduces these per micro-batch)
};

/// What a backward part leaves: the gradient of its input and the activation bytes it freed.
struct GradOut {
  Handle grad;
  double freed = 0.0;
};

/// One layer's backward: as GradOut, plus the layer's first op (a later layer's prefetch point).
struct LayerGradOut {
  Handle grad;
  double freed = 0.0;
  Handle first;
};

/// The ZeRO-3 weight gathers of one backward chunk (layers `bottom` to `top`), issued in the order
/// FSDP issues them: a layer's own gather when nothing prefetched it, and once a layer's kernels are
/// queued the gathers of the prefetch_layers layers below it, ahead of that layer's gradient
/// reduce-scatter (FSDP's pre-backward prefetch; a collective channel runs in issue order, so a
/// prefetch issued after the reduce-scatter would wait for the layer's whole backward).
struct BackwardGathers {
  int bottom = 0;               ///< the chunk's lowest layer
  int next = 0;                 ///< the highest layer whose gather is not issued yet
  std::map<int, Handle> ready;  ///< issued gathers not yet taken, by layer
  std::map<int, Handle> first;  ///< each queued layer's first op (a prefetch point)
  BackwardGathers(int top_layer, int bottom_layer) : bottom(bottom_layer), next(top_layer) {}
};

/// One gradient bucket's reduction: the weights it carries and over which group.
struct GradBucket {
  double params = 0.0;
  CommScope scope = CommScope::dense;
};

/// The reductions of a run of buckets and the buckets themselves, in order.
struct GradReductions {
  std::vector<Handle> reduced;
  std::vector<GradBucket> buckets;
};

class TrainStepBuilder {
 public:
  TrainStepBuilder(const JobSpec& job, CommPlanner& planner, RankMode mode);
  StepPlan build();

 private:
  void build_rank(int sim_rank);
  void forward(RankSink& sink, int sim_rank, const PipeStep& step);
  void backward(RankSink& sink, int sim_rank, const PipeStep& step);
  /// FP8 delayed scaling (JobSpec::reduces_fp8_amax): the amax all-reduce over the stage and the
  /// scale update after a chunk of `layers` layers' forward or backward; `after` otherwise.
  Handle reduce_fp8_amax(RankSink& sink, Handle after, int layers, Pass pass, int microbatch);
  /// A steady-state forward and the backward after it as one overlapped pair (ep_overlap).
  void overlapped_pair(RankSink& sink, int sim_rank, const PipeStep& fwd, const PipeStep& bwd);
  /// DualPipe's W chunk: runs the weight gradients the oldest deferred backward left.
  void weight_step(RankSink& sink, int sim_rank);
  void gradients_and_optimizer(RankSink& sink, int sim_rank);
  /// The dense and expert gradient sources recorded so far that the step's bucketed reductions
  /// carry (ZeRO-3 reduced the layers' own per micro-batch), and what they hold in all.
  struct GradSources {
    std::vector<GradSource> dense, experts;
    RankParams params;
  };
  GradSources bucketed_sources(int sim_rank) const;
  /// Both bucketed reductions, the dense buckets first, then the experts' (numbered after them).
  GradReductions reduce_all_buckets(RankSink& sink, int sim_rank, const GradSources& sources);
  /// torch.distributed.pipelining, between two schedule.step() calls of one step (local_batch):
  /// each call ends by reducing the gradients of its chunks (the stage's last backward) and
  /// resharding the weights, so the next call gathers them again.
  void end_schedule(RankSink& sink, int sim_rank);
  /// The last virtual stage after its layers: the loss, then each multi-token-prediction module
  /// (glue, layer, the shared head's second loss). Returns the activation bytes they keep.
  double heads_forward(RankSink& sink, int sim_rank, int microbatch, Handle h);
  /// Their backward: the MTP modules' losses back through their layers, the main loss, summed into
  /// the gradient of the last layer's output. Returns that gradient and the bytes freed.
  GradOut heads_backward(RankSink& sink, int sim_rank, int microbatch);
  /// `g` plus the gradient an MTP module sends back (none: `g` as is).
  Handle join_mtp_grad(RankSink& sink, Handle g, Handle from_mtp);
  /// One layer's backward (with its recomputation under full recompute) after `g`: records its
  /// gradient source under `key`; its weights come from `gathers` (ZeRO-3), which it tells of its
  /// first op before its gradients are reduced. Returns its input gradient, the activation bytes
  /// it frees and its first op.
  LayerGradOut layer_backward(RankSink& sink, int sim_rank, int l, GradKey key, Handle g,
                              BackwardGathers& gathers);
  /// Layer `l`'s backward weights: the prefetched gather, or one issued now (after `input` when
  /// prefetch_layers = 0).
  Handle backward_weights(RankSink& sink, int sim_rank, BackwardGathers& gathers, int l, Handle input);
  /// Layer `l`'s kernels are queued from `first` on: issue the gathers of the layers down to
  /// l - prefetch_layers, each once the layer prefetch_layers above it starts.
  void prefetch_below(RankSink& sink, int sim_rank, BackwardGathers& gathers, int l, Handle first);
  void connect_pipeline();
  /// pp_p2p = lockstep: the exchange `send` of time step t (its op `transfer`) waits for the
  /// sender's step at t and the receiver's step at t (or its last one before) to end, and both
  /// ranks' steps after t wait for it.
  void lockstep_exchange(int sender_sim, const PendingSend& send, int receiver_sim, sim::OpId transfer);
  /// Receiving end of a boundary: with TP but no SP, Megatron sends 1/tp of the activation per
  /// rank and all-gathers it over NVLink on arrival (the scatter/gather optimisation).
  /// Returns the gather op, or an invalid handle when none is needed.
  Handle receive_gather(RankSink& sink);
  int pipeline_of(int rank) const;
  /// Where a chunk's arriving activation or gradient enters: its receive-side gather, else its
  /// first op, else (inside a DualPipe pair) the pair's gate.
  sim::OpId entry_op(Handle gather, sim::OpId first);
  int vstages() const { return pp_ * v_; }
  /// The model's virtual stage that chunk `chunk` of pipeline rank `stage` runs (PipeStep::chunk).
  int model_vstage(int chunk, int stage) const;
  /// The virtual stage that names that chunk's pipeline boundaries (BoundaryKey::vstage): the model
  /// stage, except that DualPipe's two directions get keys of their own (direction x pp + stage).
  int boundary_vstage(int chunk, int stage) const;
  /// The pipeline rank that runs the chunk of boundary key `key`.
  int stage_of_boundary(int key) const;
  std::pair<int, int> layers_of(int vstage) const;
  double boundary_bytes() const;
  sim::OpId next_id() { return static_cast<sim::OpId>(a_.graph().op_count()); }
  /// ZeRO-3: all-gathers layer `l`'s weights before it runs (issued once `prefetch_after` starts,
  /// over the HSDP shard group when there is one); returns an invalid handle without ZeRO-3. In the
  /// backward without reshard_after_forward it returns the forward's gather instead.
  Handle gather_layer(RankSink& sink, int sim_rank, int l, Handle prefetch_after, Pass pass);
  /// Where layer prefetch_layers ahead's gather may start: the first op of the layer that many
  /// before it in `starts` (the layers emitted so far), nothing (at once) when there are fewer, or
  /// `input` (the previous layer's end) when prefetch_layers = 0.
  Handle prefetch_point(const std::vector<Handle>& starts, Handle input) const;
  /// dp_overlap = false under ZeRO-3: the micro-batch's gradient reductions, after its backward.
  void flush_grad_reductions(RankSink& sink, int sim_rank, Handle after);
  /// ZeRO-3 gradient reduction of layer `l` after `last`: reduce-scatter over the shard group, then
  /// (HSDP) all-reduce of the shard over its replicas.
  void reduce_layer_grads(RankSink& sink, int l, Handle last);
  /// overlap_param_gather: the previous step's weight all-gathers, issued at the start of this one
  /// per layer in forward order (the embedding with the first, the LM head with the last); each
  /// layer's first forward waits for its own.
  void issue_param_gathers(RankSink& sink, int sim_rank);
  /// ZeRO-3: frees the gathered weights after `last` and reduce-scatters the layer's gradients.
  void release_layer(RankSink& sink, int sim_rank, int l, Handle gather, Handle last, Pass pass);
  /// Gradient buckets of one kind (dense over dp x cp, or experts over expert-dp), in the order the
  /// gradients become final, named from bucket `first_bucket` on; returns their reductions.
  GradReductions reduce_buckets(RankSink& sink, int sim_rank, std::vector<GradSource> sources,
                                CommScope scope, std::size_t first_bucket);
  /// ZeRO-3 shards these over their group: the layer's dense weights over dp x cp, its experts over
  /// the expert-data-parallel group.
  double layer_weight_bytes(int l) const;
  /// Weights, gradients and optimizer state of simulated rank `r`, sharded as ZeRO says.
  StaticMemory static_memory(std::size_t r) const;
  void memory(sim::OpId op, MemoryEvent::At at, int sim_rank, double bytes);
  /// `bytes` alive from the start of op `from` to the end of op `to` (nothing when not positive).
  void transient_memory(int sim_rank, sim::OpId from, sim::OpId to, double bytes);

  const JobSpec& job_;
  StepAssembler a_;
  LayerDims dims_;
  LayerStack layers_;
  Embedding embed_;
  LmHead head_;
  MtpGlue mtp_;
  int mtp_depth_ = 0;  ///< multi-token-prediction modules on the last stage (training)
  int pp_, v_, m_;
  std::vector<std::vector<PipeStep>> schedule_;
  std::vector<std::vector<int>> time_steps_;          ///< pp_p2p = lockstep: per stage, each step's time step
  std::vector<std::map<int, Handle>> param_gathers_;  ///< per simulated rank: layer -> its weights' gather
  std::vector<MemoryEvent> memory_;
  std::map<BoundaryKey, Entry> entries_;                      // consumer's first op per boundary
  std::vector<std::vector<StepSpan>> steps_;                  // per sim rank, per schedule step
  int step_index_ = 0;                                        // schedule step being built
  std::vector<std::vector<PendingSend>> sends_;               // per sim rank, in schedule order
  std::vector<std::map<int, Handle>> loss_;                   // per sim rank: micro-batch -> loss op
  std::vector<std::map<int, std::vector<Handle>>> mtp_loss_;  // per sim rank: micro-batch -> MTP losses
  std::vector<std::map<GradKey, GradSource>> grads_;          // per sim rank, in GradKey order
  std::vector<Handle> last_op_;  // per sim rank
  /// Per sim rank: the gradient reductions of schedules before the last (end_schedule).
  std::vector<std::vector<Handle>> schedule_reductions_;
  bool zero3_ = false;
  PipelineSchedule kind_ = PipelineSchedule::one_f_one_b;  ///< the schedule the step runs
  Handle pair_gate_;  ///< DualPipe: the gate of the pair being built, where both halves' data enter
  /// A zero-bubble backward's deferred weight gradients: the gate its weight step opens, the op
  /// after them, and the activation bytes they free when done.
  struct DeferredWeights {
    Handle gate, done;
    double freed = 0.0;
  };
  std::vector<std::deque<DeferredWeights>> deferred_;  // per sim rank, oldest first
  /// Without reshard_after_forward: per sim rank, layer -> the gather of its unsharded weights, one
  /// copy whichever micro-batch's forward gathered it, until a backward reshards it.
  std::vector<std::map<int, Handle>> kept_weights_;
  /// dp_overlap = false under ZeRO-3: per sim rank, layers whose gradients await reduction.
  std::vector<std::vector<int>> pending_grads_;
};

}  // namespace stepsim::work::detail
