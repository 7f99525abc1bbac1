#include "workloads/train_step.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "sim/error.hpp"
#include "workloads/layer_ops.hpp"
#include "workloads/model_ops.hpp"
#include "workloads/pipeline_schedule.hpp"

namespace stepsim::work {
namespace {

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

/// The op that opens one schedule step of a rank.
struct StepSpan {
  sim::OpId first = 0;
};

/// What one layer contributes to the gradient buckets: its final weight-gradient op and size.
struct GradSource {
  Handle ready;
  double params = 0.0;
  bool layer = false;  ///< a transformer layer (ZeRO-3 shards and reduces these per micro-batch)
};

class TrainStepBuilder {
 public:
  TrainStepBuilder(const JobSpec& job, CommPlanner& planner, RankMode mode);
  StepPlan build();

 private:
  void build_rank(int sim_rank);
  void forward(RankSink& sink, int sim_rank, const PipeStep& step);
  void backward(RankSink& sink, int sim_rank, const PipeStep& step);
  void gradients_and_optimizer(RankSink& sink, int sim_rank);
  void connect_pipeline();
  /// Receiving end of a boundary: with TP but no SP, Megatron sends 1/tp of the activation per
  /// rank and all-gathers it over NVLink on arrival (the scatter/gather optimisation).
  /// Returns the gather op, or an invalid handle when none is needed.
  Handle receive_gather(RankSink& sink);
  int pipeline_of(int rank) const;
  int vstages() const { return pp_ * v_; }
  std::pair<int, int> layers_of(int vstage) const;
  double boundary_bytes() const;
  sim::OpId next_id() { return static_cast<sim::OpId>(a_.graph().op_count()); }
  /// ZeRO-3: all-gathers one layer's weights before it runs, at most one layer ahead (issued once
  /// `prefetch_after` starts); returns an invalid handle without ZeRO-3.
  Handle gather_layer(RankSink& sink, int sim_rank, Handle prefetch_after);
  /// ZeRO-3: frees the gathered weights after `last` and reduce-scatters the layer's gradients.
  void release_layer(RankSink& sink, int sim_rank, Handle gather, Handle last, Pass pass);
  void memory(sim::OpId op, MemoryEvent::At at, int sim_rank, double bytes);

  const JobSpec& job_;
  StepAssembler a_;
  LayerDims dims_;
  DenseLayer layer_;
  Embedding embed_;
  LmHead head_;
  int pp_, v_, m_;
  std::vector<std::vector<PipeStep>> schedule_;
  std::vector<MemoryEvent> memory_;
  std::map<BoundaryKey, Entry> entries_;                    // consumer's first op per boundary
  std::vector<std::vector<StepSpan>> steps_;                // per sim rank, per schedule step
  int step_index_ = 0;                                      // schedule step being built
  std::vector<std::vector<PendingSend>> sends_;             // per sim rank, in schedule order
  std::vector<std::map<int, Handle>> loss_;                 // per sim rank: micro-batch -> loss op
  std::vector<std::map<int, GradSource>> grads_;            // per sim rank: layer (-1 embed, L head)
  std::vector<Handle> last_op_;                             // per sim rank
  bool zero3_ = false;
};

TrainStepBuilder::TrainStepBuilder(const JobSpec& job, CommPlanner& planner, RankMode mode)
    : job_(job),
      a_(job, planner, mode),
      dims_(layer_dims(job, job.workload.micro_batch)),
      layer_(dims_),
      embed_(dims_, job.model),
      head_(dims_, job.model),
      pp_(job.parallel.pp),
      v_(job.parallel.virtual_stages) {
  const auto& w = job.workload;
  const int per_step = w.micro_batch * job.parallel.dp;
  if (per_step <= 0 || w.global_batch % per_step != 0)
    throw UserError("workload.global_batch = " + std::to_string(w.global_batch) +
                    " must be a multiple of micro_batch x dp = " + std::to_string(per_step));
  m_ = w.global_batch / per_step;
  const bool uneven = job.parallel.first_stage_layers > 0 || job.parallel.last_stage_layers > 0;
  if ((v_ > 1 || !uneven) && job.model.layers % vstages() != 0)
    throw UserError("model.layers = " + std::to_string(job.model.layers) + " must divide evenly over pp x " +
                    "virtual_stages = " + std::to_string(vstages()));
  if (job.parallel.cp > 1 && job.workload.attention_impl != AttentionImpl::flash)
    throw UserError("context parallelism needs workload.attention_impl = \"flash\"");
  const PipelineSchedule kind = v_ > 1 ? PipelineSchedule::interleaved : job.parallel.schedule;
  schedule_ = pipeline_schedule(kind, pp_, m_, v_);
  zero3_ = job.parallel.zero_stage >= 3 && job.parallel.dp * job.parallel.cp > 1;
  const std::size_t n = a_.ranks().size();
  sends_.resize(n);
  steps_.resize(n);
  loss_.resize(n);
  grads_.resize(n);
  last_op_.resize(n);
}

int TrainStepBuilder::pipeline_of(int rank) const {
  RankCoords c = a_.layout().coords(rank);
  c.pp = 0;
  return a_.layout().rank(c);
}

std::pair<int, int> TrainStepBuilder::layers_of(int vstage) const {
  const auto& par = job_.parallel;
  if (v_ > 1) {
    const int per = job_.model.layers / vstages();
    return {vstage * per, (vstage + 1) * per};
  }
  // Without interleaving, the first and last stages may hold fewer layers (Llama 3 405B: 7 + 14 x 8 + 7).
  int begin = 0;
  for (int s = 0; s < vstage; ++s) begin += par.stage_layers(s, job_.model.layers);
  return {begin, begin + par.stage_layers(vstage, job_.model.layers)};
}

double TrainStepBuilder::boundary_bytes() const {
  const double full = dims_.tokens * dims_.h * dims_.act_bytes;
  return dims_.tp > 1 ? full / dims_.tp : full;
}

void TrainStepBuilder::memory(sim::OpId op, MemoryEvent::At at, int sim_rank, double bytes) {
  memory_.push_back(MemoryEvent{op, at, static_cast<std::uint16_t>(sim_rank), bytes});
}

Handle TrainStepBuilder::receive_gather(RankSink& sink) {
  if (dims_.tp <= 1 || dims_.sp) return Handle{};
  return sink.comm("pp.gather", CommOp{ParallelDim::tp, CollectiveKind::all_gather,
                                       dims_.tokens * dims_.h * dims_.act_bytes, 0},
                   Handle{});
}

Handle TrainStepBuilder::gather_layer(RankSink& sink, int sim_rank, Handle prefetch_after) {
  if (!zero3_) return Handle{};
  const double bytes = layer_.params_per_rank() * job_.precision.param_bytes;
  const Handle g = sink.comm("dp.param_gather", CommOp{ParallelDim::dp, CollectiveKind::all_gather, bytes, 0},
                             prefetch_after);
  memory(g.id, MemoryEvent::At::start, sim_rank, bytes);
  return g;
}

void TrainStepBuilder::release_layer(RankSink& sink, int sim_rank, Handle gather, Handle last, Pass pass) {
  if (!gather.valid()) return;
  memory(last.id, MemoryEvent::At::end, sim_rank, -layer_.params_per_rank() * job_.precision.param_bytes);
  if (pass == Pass::backward)
    sink.comm("dp.grad_reduce_scatter",
              CommOp{ParallelDim::dp, CollectiveKind::reduce_scatter,
                     layer_.params_per_rank() * job_.precision.grad_bytes, 0},
              last);
}

void TrainStepBuilder::forward(RankSink& sink, int sim_rank, const PipeStep& step) {
  const int stage = a_.ranks()[static_cast<std::size_t>(sim_rank)].stage;
  const int vs = step.chunk * pp_ + stage;
  const sim::OpId first = next_id();
  Handle h;
  if (vs == 0) {
    sink.set_context(Pass::forward, -1, step.microbatch);
    h = embed_.forward(sink);
  } else {
    sink.set_context(Pass::forward, -1, step.microbatch);
    h = receive_gather(sink);
    // In full mode the gather may be a collective another TP rank already created: the arriving
    // activation must feed that op, not this rank's first kernel.
    entries_[{pipeline_of(sink.global_rank()), vs - 1, step.microbatch, Kind::forward}] = {
        h.valid() ? h.id : first, step_index_};
  }
  const auto [begin, end] = layers_of(vs);
  Handle previous_start;
  for (int l = begin; l < end; ++l) {
    sink.set_context(Pass::forward, l, step.microbatch);
    const Handle weights = gather_layer(sink, sim_rank, previous_start);
    previous_start = Handle{next_id()};
    h = layer_.forward(sink, {h, weights});
    release_layer(sink, sim_rank, weights, h, Pass::forward);
  }
  double kept = layer_.stored_activation_bytes(job_.recompute) * (end - begin);
  if (vs == vstages() - 1) {
    sink.set_context(Pass::forward, -1, step.microbatch);
    loss_[static_cast<std::size_t>(sim_rank)][step.microbatch] = head_.forward(sink, h);
    kept += head_.stored_activation_bytes();
  } else {
    sends_[static_cast<std::size_t>(sim_rank)].push_back(
        {{pipeline_of(sink.global_rank()), vs, step.microbatch, Kind::forward}, h, step_index_});
  }
  memory(first, MemoryEvent::At::start, sim_rank, kept);
}

void TrainStepBuilder::backward(RankSink& sink, int sim_rank, const PipeStep& step) {
  const int stage = a_.ranks()[static_cast<std::size_t>(sim_rank)].stage;
  const int vs = step.chunk * pp_ + stage;
  const sim::OpId first = next_id();
  Handle g;
  double freed = 0.0;
  sink.set_context(Pass::backward, -1, step.microbatch);
  if (vs == vstages() - 1) {
    g = head_.backward(sink, loss_[static_cast<std::size_t>(sim_rank)][step.microbatch]);
    grads_[static_cast<std::size_t>(sim_rank)][job_.model.layers] = {g, head_.params_per_rank()};
    freed += head_.stored_activation_bytes();
  } else {
    g = receive_gather(sink);
    entries_[{pipeline_of(sink.global_rank()), vs + 1, step.microbatch, Kind::backward}] = {
        g.valid() ? g.id : first, step_index_};
  }
  const auto [begin, end] = layers_of(vs);
  const double transient = layer_.stored_activation_bytes(Recompute::none);
  Handle previous_start;
  for (int l = end - 1; l >= begin; --l) {
    sink.set_context(Pass::backward, l, step.microbatch);
    const Handle weights = gather_layer(sink, sim_rank, previous_start);
    const sim::OpId layer_first = next_id();
    previous_start = Handle{layer_first};
    if (job_.recompute == Recompute::full) {
      sink.set_context(Pass::recompute, l, step.microbatch);
      layer_.forward(sink, weights);
    }
    sink.set_context(Pass::backward, l, step.microbatch);
    g = layer_.backward(sink, {g, weights}, job_.recompute);
    release_layer(sink, sim_rank, weights, g, Pass::backward);
    grads_[static_cast<std::size_t>(sim_rank)][l] = {g, layer_.params_per_rank(), true};
    if (job_.recompute == Recompute::full) {
      // The recomputed layer's activations live from its recomputation to the end of its backward.
      memory(layer_first, MemoryEvent::At::start, sim_rank, transient);
      memory(g.id, MemoryEvent::At::end, sim_rank, -transient);
    }
  }
  freed += layer_.stored_activation_bytes(job_.recompute) * (end - begin);
  if (vs == 0) {
    sink.set_context(Pass::backward, -1, step.microbatch);
    g = embed_.backward(sink, g);
    grads_[static_cast<std::size_t>(sim_rank)][-1] = {g, embed_.params_per_rank()};
  } else {
    sends_[static_cast<std::size_t>(sim_rank)].push_back(
        {{pipeline_of(sink.global_rank()), vs, step.microbatch, Kind::backward}, g, step_index_});
  }
  memory(g.id, MemoryEvent::At::end, sim_rank, -freed);
  last_op_[static_cast<std::size_t>(sim_rank)] = g;
}

void TrainStepBuilder::gradients_and_optimizer(RankSink& sink, int sim_rank) {
  const auto& par = job_.parallel;
  const auto& prec = job_.precision;
  const int replicas = par.dp * par.cp;
  // Buckets fill in the order gradients become final, as PyTorch DDP and Megatron fill them.
  std::vector<GradSource> sources;
  double params = 0.0;
  for (const auto& [layer, src] : grads_[static_cast<std::size_t>(sim_rank)]) {
    params += src.params;
    // ZeRO-3 reduced the layers' gradients after each micro-batch; only the embedding and the head,
    // kept whole, still need a reduction here.
    if (!(zero3_ && src.layer)) sources.push_back(src);
  }
  std::sort(sources.begin(), sources.end(), [](const GradSource& x, const GradSource& y) {
    return x.ready.id < y.ready.id;
  });
  sink.set_plain_context(Pass::optimizer);
  std::vector<Handle> reduced;
  std::vector<double> bucket_params;
  const bool zero = par.zero_stage >= 1;
  if (replicas > 1) {
    const double bucket_target = par.dp_bucket_bytes / prec.grad_bytes;
    double in_bucket = 0.0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      in_bucket += sources[i].params;
      if (in_bucket < bucket_target && i + 1 < sources.size()) continue;
      const Handle ready = par.dp_overlap ? sources[i].ready : last_op_[static_cast<std::size_t>(sim_rank)];
      const std::string name = std::string(zero ? "dp.grad_reduce_scatter" : "dp.grad_allreduce") + " bucket " +
                               std::to_string(reduced.size());
      reduced.push_back(sink.comm(name,
                                  CommOp{ParallelDim::dp, zero ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce,
                                         in_bucket * prec.grad_bytes, 0},
                                  ready));
      bucket_params.push_back(in_bucket);
      in_bucket = 0.0;
    }
  }
  if (reduced.empty()) reduced.push_back(last_op_[static_cast<std::size_t>(sim_rank)]);
  const OptimizerShard shard{params, zero ? params / replicas : params};
  const Handle updated = emit_optimizer(sink, dims_, prec, shard, reduced);
  if (zero && replicas > 1) {
    for (std::size_t b = 0; b < bucket_params.size(); ++b)
      sink.comm("dp.param_allgather bucket " + std::to_string(b),
                CommOp{ParallelDim::dp, CollectiveKind::all_gather, bucket_params[b] * prec.param_bytes, 0}, updated);
  }
}

void TrainStepBuilder::build_rank(int sim_rank) {
  RankSink sink(a_, sim_rank);
  const int stage = a_.ranks()[static_cast<std::size_t>(sim_rank)].stage;
  auto& spans = steps_[static_cast<std::size_t>(sim_rank)];
  step_index_ = 0;
  for (const PipeStep& step : schedule_[static_cast<std::size_t>(stage)]) {
    const sim::OpId first = next_id();
    if (step.kind == Kind::forward)
      forward(sink, sim_rank, step);
    else
      backward(sink, sim_rank, step);
    spans.push_back({first});
    ++step_index_;
  }
  gradients_and_optimizer(sink, sim_rank);
}

void TrainStepBuilder::connect_pipeline() {
  const RankLayout& layout = a_.layout();
  // Every pipeline's first-stage rank: the images of a representative boundary.
  std::vector<int> pipelines;
  for (int r = 0; r < layout.world(); ++r)
    if (layout.coords(r).pp == 0) pipelines.push_back(r);
  for (std::size_t s = 0; s < sends_.size(); ++s) {
    for (const PendingSend& send : sends_[s]) {
      const bool fwd = send.key.kind == Kind::forward;
      const int to_vs = send.key.vstage + (fwd ? 1 : -1);
      const auto entry = entries_.find(send.key);  // receivers file their entry under the producer's key
      if (entry == entries_.end()) throw std::logic_error("pipeline boundary without a receiver");
      const int from_stage = send.key.vstage % pp_, to_stage = to_vs % pp_;
      // Every replica's copy of this boundary crosses the fabric at the same moment.
      CommRequest req;
      req.kind = CollectiveKind::send_recv;
      req.dim = ParallelDim::pp;
      req.bytes = boundary_bytes();
      const RankCoords own = layout.coords(send.key.pipeline);
      const auto add_pair = [&](RankCoords c) {
        c.pp = from_stage;
        const int src = layout.rank(c);
        c.pp = to_stage;
        req.groups.push_back({src, layout.rank(c)});
      };
      add_pair(own);
      if (a_.mode() == RankMode::representative)
        for (int r : pipelines)
          if (r != send.key.pipeline) add_pair(layout.coords(r));
      const int dst_sim = a_.sim_index(req.groups.front()[1]);
      const RankStreams& from = a_.streams(static_cast<int>(s));
      const RankStreams& to = a_.streams(dst_sim);
      const std::array<sim::StreamId, 2> streams{fwd ? from.send_next : from.send_prev,
                                                 fwd ? to.recv_prev : to.recv_next};
      sim::Op op;
      op.kind = sim::OpKind::transfer;
      op.payload = a_.planner().plan(req);
      op.bytes = req.bytes;
      op.label = a_.graph().intern(fwd ? "pp.send_act" : "pp.send_grad");
      OpInfo info;
      info.pass = fwd ? Pass::forward : Pass::backward;
      info.is_comm = true;
      info.comm_dim = ParallelDim::pp;
      info.microbatch = send.key.microbatch;
      info.rank = static_cast<std::uint16_t>(s);
      const sim::OpId id = a_.add(op, streams, info);
      a_.graph().add_dependency(send.producer.id, id);
      a_.graph().add_dependency(id, entry->second.op);
      if (job_.parallel.pp_p2p == P2pMode::blocking) {
        // The sender's next step waits for the exchange (Megatron's batch_isend_irecv followed by a
        // synchronize). Receives are taken as posted in advance, as Megatron's paired calls post them.
        const auto& sender = steps_[s];
        if (send.step + 1 < static_cast<int>(sender.size())) a_.graph().add_dependency(id, sender[send.step + 1].first);
      }
    }
  }
}

StepPlan TrainStepBuilder::build() {
  for (int r = 0; r < static_cast<int>(a_.ranks().size()); ++r) build_rank(r);
  connect_pipeline();
  StepPlan plan{std::move(a_.graph()).build(), {}, {}, {}, {}, a_.layout().world(), m_, 0.0, 0.0};
  plan.info = std::move(a_.info());
  plan.ranks = std::move(a_.ranks());
  plan.memory_events = std::move(memory_);
  const auto& par = job_.parallel;
  const auto& prec = job_.precision;
  const double per_sim_rank = a_.mode() == RankMode::representative ? double(par.tp) * par.cp * par.dp : 1.0;
  for (sim::OpId op = 0; op < plan.graph.op_count(); ++op)
    plan.hardware_flops_per_step += plan.graph.info(op).flops * per_sim_rank;
  for (std::size_t r = 0; r < plan.ranks.size(); ++r) {
    double params = 0.0;
    for (const auto& [layer, src] : grads_[r]) params += src.params;
    const double replicas = double(par.dp) * par.cp;
    double layer_params = 0.0;
    for (const auto& [layer, src] : grads_[r]) layer_params += src.layer ? src.params : 0.0;
    StaticMemory m;
    // ZeRO-3 shards the transformer layers' weights; the embedding and head stay whole.
    m.weights = (params - (zero3_ ? layer_params * (1.0 - 1.0 / replicas) : 0.0)) * prec.param_bytes;
    m.gradients = params * prec.grad_bytes / (par.zero_stage >= 2 ? replicas : 1.0);
    m.optimizer = params * prec.optimizer_bytes / (par.zero_stage >= 1 ? replicas : 1.0);
    plan.static_memory.push_back(m);
  }
  plan.tokens_per_step = double(job_.workload.global_batch) * job_.workload.seq_len;
  return plan;
}

}  // namespace

StepPlan build_train_step(const JobSpec& job, CommPlanner& planner, const TrainStepOptions& options) {
  return TrainStepBuilder(job, planner, options.ranks).build();
}

}  // namespace stepsim::work
