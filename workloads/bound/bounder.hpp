#pragma once
// The step bound's walk (workloads/bound/step_bound.hpp): the builder's emitters for the simulated
// ranks, in the builder's order, into a BoundSink. Internal to step_bound.cpp (the schedule: layers,
// pipeline, the relaxed stream) and step_bound_gradients.cpp (the data-parallel side of a stage).

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "workloads/bound/bound_sink.hpp"
#include "workloads/bound/step_bound.hpp"
#include "workloads/step/layer_stack.hpp"
#include "workloads/step/model_ops.hpp"
#include "workloads/step/pipeline_schedule.hpp"
#include "workloads/step/rank_sink.hpp"
#include "workloads/step/train_step.hpp"

namespace stepsim::work::detail {

class Bounder {
 public:
  Bounder(const JobSpec& job, CommBound* comm)
      : job_(job),
        layout_(job.parallel),
        dims_(layer_dims(job, job.workload.micro_batch)),
        layers_(job, dims_, layout_, RankMode::representative),
        embed_(dims_, job.model),
        head_(dims_, job.model),
        mtp_(dims_),
        groups_(job, planner_, RankMode::representative),
        sink_(job.cluster.gpu, groups_, comm, detail::grid_key(job.parallel, layout_)),
        comm_(comm),
        pp_(job.parallel.pp),
        v_(job.parallel.virtual_stages),
        kind_(run_schedule(job.parallel.schedule, v_)) {}

  StepBound run();

 private:
  using Schedule = std::vector<std::vector<PipeStep>>;
  /// Where each stage's relaxed schedule ends: its stream, its last step's output, its kernel time.
  struct Relaxed {
    std::vector<std::int64_t> clock, last_output;
    std::vector<Time> kernels, tensor;
  };
  /// Micro-batches per pipeline; throws the builder's UserErrors for layouts it refuses.
  int check_and_count_microbatches() const;
  Relaxed relax(const Schedule& schedule, int m, const std::vector<StepCost>& fwd,
                const std::vector<StepCost>& bwd);
  /// The dualpipe schedule's bound: kernel time and the memory before the first backward.
  StepBound run_dualpipe(int m, const Schedule& schedule);
  int vstages() const { return pp_ * v_; }
  int rank_of(int stage) const { return layout_.rank({0, 0, stage, 0}); }
  std::pair<int, int> layers_of(int vs) const;
  template <class Emit>
  const Segment& once(int rank, Emit emit) {
    return extra_.emplace_back(sink_.segment(rank, emit));
  }
  const Segment& layer_forward(int l, int rank);
  const Segment& layer_backward(int l, int rank);
  /// A layer's backward as the builder runs it: its recomputation first under full recompute.
  void add_layer_backward(StepCost& c, int l, int rank);
  StepCost forward(int vs, int rank);
  StepCost backward(int vs, int rank);
  double kept(int vs, int rank);
  RankParams params(int stage);
  /// The pipeline transfer from stage `from` to stage `to` (connect_pipeline's request).
  std::int64_t send_bound(int from, int to);
  /// A data-parallel collective of `bytes` in `scope` from `rank` (its CommBound; 0 without one).
  std::int64_t dp_bound(int rank, CollectiveKind kind, double bytes, CommScope scope);
  /// One gradient source of the builder's (train_gradients.cpp): its weights and, for a layer or
  /// MTP module, the layer index (else -1).
  struct GradSource {
    double params, experts;
    int layer;
  };
  /// The stage's gradient buckets: per channel (dense, expert) when the last reduction can end and
  /// the channel's busy time; the buckets' parameters in order.
  struct Buckets {
    std::array<std::int64_t, 2> reduced{kNone, kNone}, busy{0, 0};
    std::vector<std::pair<double, CommScope>> sizes;
  };
  static int channel_of(CommScope s) { return s == CommScope::expert ? 1 : 0; }
  std::vector<GradSource> gradient_sources(int stage, const std::vector<PipeStep>& steps);
  /// ZeRO-3's per-layer gathers and reductions over m micro-batches, per DP channel.
  std::array<std::int64_t, 2> zero3_busy(int stage, const std::vector<GradSource>& sources, std::int64_t m);
  Buckets buckets(int stage, const std::vector<GradSource>& sources, std::int64_t last_output);
  /// When the stage's step can end, its data-parallel work included, given when its stream is free
  /// after the schedule and when its last step's output is ready.
  std::int64_t with_gradients(int stage, const std::vector<PipeStep>& steps, std::int64_t stream,
                              std::int64_t last_output, const Segment& optimizer);

  const JobSpec& job_;
  RankLayout layout_;
  LayerDims dims_;
  LayerStack layers_;
  Embedding embed_;
  LmHead head_;
  MtpGlue mtp_;
  NoPlanner planner_;
  StepAssembler groups_;
  BoundSink sink_;
  CommBound* comm_;
  int pp_, v_;
  PipelineSchedule kind_;  ///< the schedule the step runs (run_schedule)
  // Dense layers emit the same kernels whatever their index (LayerStack ignores it for them), so
  // they are emitted once per rank: keys (rank, layer), layer -1 for every dense layer with global
  // attention and -2 for every dense layer with local attention; a hybrid model's Mamba layers -3,
  // attention layers -4 (-5 local), MLP layers -6 and Gated DeltaNet layers -7 (dense_key).
  int dense_key(int l) const;
  std::map<std::pair<int, int>, Segment> forward_, backward_;
  std::deque<Segment> extra_;  // embedding, heads, MTP glue: stable addresses
  std::map<std::pair<int, int>, std::int64_t> sends_;
};

}  // namespace stepsim::work::detail
