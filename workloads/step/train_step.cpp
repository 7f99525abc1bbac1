#include "workloads/step/train_step.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "sim/error.hpp"
#include "workloads/step/train_step_builder.hpp"

namespace stepsim::work {
namespace detail {

TrainStepBuilder::TrainStepBuilder(const JobSpec& job, CommPlanner& planner, RankMode mode)
    : job_(job),
      a_(job, planner, mode),
      dims_(layer_dims(job, job.workload.micro_batch)),
      layers_(job, dims_, a_.layout(), mode),
      embed_(dims_, job.model),
      head_(dims_, job.model),
      mtp_(dims_),
      mtp_depth_(job.model.mtp_layers),
      pp_(job.parallel.pp),
      v_(job.parallel.virtual_stages) {
  const auto& w = job.workload;
  const int per_step = w.micro_batch * job.parallel.dp;
  if (per_step <= 0 || w.global_batch % per_step != 0)
    throw UserError("workload.global_batch = " + std::to_string(w.global_batch) +
                    " must be a multiple of micro_batch x dp = " + std::to_string(per_step));
  m_ = w.global_batch / per_step;
  if (!job.parallel.uneven_split() && job.model.layers % vstages() != 0)
    throw UserError("model.layers = " + std::to_string(job.model.layers) + " must divide evenly over pp x " +
                    "virtual_stages = " + std::to_string(vstages()));
  if (job.parallel.cp > 1 && job.workload.attention_impl != AttentionImpl::flash)
    throw UserError("context parallelism needs workload.attention_impl = \"flash\"");
  kind_ = run_schedule(job.parallel.schedule, v_);
  schedule_ = pipeline_schedule(kind_, pp_, m_, v_, job.pipeline_flushes());
  if (job.parallel.pp_p2p == P2pMode::lockstep) {
    if (kind_ != PipelineSchedule::interleaved || job.parallel.ep_overlap)
      throw UserError("parallelism.pp_p2p = \"lockstep\" runs interleaved schedules without ep_overlap");
    time_steps_ = lockstep_time_steps(pp_, m_, v_, job.pipeline_flushes());
  }
  zero3_ = job.parallel.zero_stage >= 3 && job.parallel.dp * job.parallel.cp > 1;
  const std::size_t n = a_.ranks().size();
  sends_.resize(n);
  steps_.resize(n);
  loss_.resize(n);
  mtp_loss_.resize(n);
  grads_.resize(n);
  last_op_.resize(n);
  schedule_reductions_.resize(n);
  param_gathers_.resize(n);
  kept_weights_.resize(n);
  pending_grads_.resize(n);
  deferred_.resize(n);
}

sim::OpId TrainStepBuilder::entry_op(Handle gather, sim::OpId first) {
  if (!pair_gate_.valid()) return gather.valid() ? gather.id : first;
  // A DualPipe pair: both halves' data enter at the pair's gate, which everything of the pair
  // follows (a receive-side gather through an explicit dependency).
  if (gather.valid()) a_.graph().add_dependency(pair_gate_.id, gather.id);
  return pair_gate_.id;
}

int TrainStepBuilder::model_vstage(int chunk, int stage) const {
  return model_chunk(kind_, pp_, stage, chunk);
}

int TrainStepBuilder::boundary_vstage(int chunk, int stage) const {
  // DualPipe's two directions cross the same stage boundaries on different ranks: keep them apart.
  return kind_ == PipelineSchedule::dualpipe ? chunk * pp_ + model_vstage(chunk, stage)
                                             : model_vstage(chunk, stage);
}

int TrainStepBuilder::stage_of_boundary(int key) const {
  if (kind_ == PipelineSchedule::dualpipev) return key < pp_ ? key : 2 * pp_ - 1 - key;
  return is_dualpipe(kind_) ? model_chunk(kind_, pp_, key % pp_, key / pp_) : key % pp_;
}

int TrainStepBuilder::pipeline_of(int rank) const {
  RankCoords c = a_.layout().coords(rank);
  c.pp = 0;
  return a_.layout().rank(c);
}

std::pair<int, int> TrainStepBuilder::layers_of(int vstage) const {
  // Model chunks in order hold consecutive layers (uneven ends: Llama 3 405B's 7 + 14 x 8 + 7, or
  // the embedding and loss counted as layers: 1 + 2 x 62 + 1 over PP 8 x VP 8).
  const auto& par = job_.parallel;
  int begin = 0;
  for (int s = 0; s < vstage; ++s) begin += par.chunk_layers(s, job_.model.layers);
  return {begin, begin + par.chunk_layers(vstage, job_.model.layers)};
}

double TrainStepBuilder::boundary_bytes() const {
  const double full = dims_.tokens * dims_.h * dims_.act_bytes;
  return dims_.tp > 1 ? full / dims_.tp : full;
}

void TrainStepBuilder::transient_memory(int sim_rank, sim::OpId from, sim::OpId to, double bytes) {
  if (bytes <= 0.0) return;
  memory(from, MemoryEvent::At::start, sim_rank, bytes);
  memory(to, MemoryEvent::At::end, sim_rank, -bytes);
}

void TrainStepBuilder::memory(sim::OpId op, MemoryEvent::At at, int sim_rank, double bytes) {
  // Memory follows the GPU: an allocation remembered as "the next op" is the kernel's, not its launch's.
  memory_.push_back(MemoryEvent{a_.gpu_op(op), at, static_cast<std::uint16_t>(sim_rank), bytes});
}

Handle TrainStepBuilder::receive_gather(RankSink& sink) {
  if (dims_.tp <= 1 || dims_.sp) return Handle{};
  return sink.comm(
      "pp.gather",
      CommOp{ParallelDim::tp, CollectiveKind::all_gather, dims_.tokens * dims_.h * dims_.act_bytes, 0},
      Handle{});
}

void TrainStepBuilder::forward(RankSink& sink, int sim_rank, const PipeStep& step) {
  const int stage = a_.ranks()[static_cast<std::size_t>(sim_rank)].stage;
  const int vs = model_vstage(step.chunk, stage);
  const int key = boundary_vstage(step.chunk, stage);
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
    entries_[{pipeline_of(sink.global_rank()), key - 1, step.microbatch, Kind::forward}] = {
        entry_op(h, first), step_index_};
  }
  const auto [begin, end] = layers_of(vs);
  const int rank = sink.global_rank();
  std::vector<Handle> starts;  // first op of each layer emitted so far (ZeRO-3 prefetch points)
  double kept = 0.0;
  for (int l = begin; l < end; ++l) {
    sink.set_context(Pass::forward, l, step.microbatch);
    // ZeRO-3 gathers the layer's weights into a buffer of their own, released after the layer.
    const Handle gathered = gather_layer(sink, sim_rank, l, prefetch_point(starts, h), Pass::forward);
    Handle weights = gathered;
    auto& pending = param_gathers_[static_cast<std::size_t>(sim_rank)];
    if (const auto it = pending.find(l); it != pending.end()) {  // the layer's first forward this step
      // ZeRO-1/2's overlapped parameter all-gather writes into the weights the rank always holds
      // (static memory): the layer waits for it, and nothing is released after it.
      weights = it->second;
      pending.erase(it);
    }
    starts.push_back(Handle{next_id()});
    h = layers_.forward(sink, l, rank, {h, weights});
    release_layer(sink, sim_rank, l, gathered, h, Pass::forward);
    kept += layers_.stored_activation_bytes(l, rank, job_.layer_recompute(l));
  }
  h = reduce_fp8_amax(sink, h, end - begin, Pass::forward, step.microbatch);
  if (vs == vstages() - 1) {
    kept += heads_forward(sink, sim_rank, step.microbatch, h);
  } else {
    sends_[static_cast<std::size_t>(sim_rank)].push_back(
        {{pipeline_of(sink.global_rank()), key, step.microbatch, Kind::forward}, h, step_index_});
  }
  memory(first, MemoryEvent::At::start, sim_rank, kept);
}

Handle TrainStepBuilder::reduce_fp8_amax(RankSink& sink, Handle after, int layers, Pass pass,
                                         int microbatch) {
  if (!job_.reduces_fp8_amax() || layers <= 0) return after;
  sink.set_context(pass, -1, microbatch);
  // Transformer Engine keeps scaling metadata per FP8 GEMM: three amaxes in the forward (input,
  // weight, output), two in the backward (output and input gradients); four GEMMs a layer (QKV,
  // projection, FC1, FC2). Megatron-Core wraps each model chunk in one fp8_autocast, whose exit
  // all-reduces the forward amaxes (MAX) over the stage's ranks, and the chunk's first FP8 module
  // does the same with the backward's at the end of its backward (TE 1.x and 2.x,
  // FP8GlobalStateManager.reduce_and_update_fp8_tensors; torch.distributed.all_reduce with
  // async_op=False, so the compute stream waits for it).
  const double amaxes = (pass == Pass::forward ? 3.0 : 2.0) * 4.0 * layers;
  const CommOp op{ParallelDim::dp, CollectiveKind::all_reduce, 4.0 * amaxes, 0, CommScope::stage};
  const Handle reduced =
      sink.comm(pass == Pass::forward ? "fp8.amax_reduce" : "fp8.amax_reduce.bwd", op, after);
  // Then one fused kernel rolls every amax history (1,024 entries: TE's default length, and the
  // dgxc recipes' fp8_amax_history_len) and computes the new scales.
  constexpr double kAmaxHistory = 1024.0;
  return sink.kernel(pass == Pass::forward ? "fp8.amax_update" : "fp8.amax_update.bwd",
                     elementwise(dims_, 2.0 * 4.0 * kAmaxHistory * amaxes), reduced);
}

void TrainStepBuilder::backward(RankSink& sink, int sim_rank, const PipeStep& step) {
  const int stage = a_.ranks()[static_cast<std::size_t>(sim_rank)].stage;
  const int vs = model_vstage(step.chunk, stage);
  const int key = boundary_vstage(step.chunk, stage);
  const sim::OpId first = next_id();
  Handle g;
  double freed = 0.0;
  if (step.defer_weights) sink.begin_deferral();
  sink.set_context(Pass::backward, -1, step.microbatch);
  if (vs == vstages() - 1) {
    const GradOut heads = heads_backward(sink, sim_rank, step.microbatch);
    g = heads.grad;
    freed += heads.freed;
  } else {
    g = receive_gather(sink);
    entries_[{pipeline_of(sink.global_rank()), key + 1, step.microbatch, Kind::backward}] = {
        entry_op(g, first), step_index_};
  }
  const auto [begin, end] = layers_of(vs);
  BackwardGathers gathers(end - 1, begin);
  for (int l = end - 1; l >= begin; --l) {
    sink.set_context(Pass::backward, l, step.microbatch);
    const LayerGradOut layer = layer_backward(sink, sim_rank, l, GradKey::layer(l), g, gathers);
    g = layer.grad;
    // A layer's activations go when its backward ends, unless a weight step still reads them.
    if (step.defer_weights)
      freed += layer.freed;
    else
      memory(g.id, MemoryEvent::At::end, sim_rank, -layer.freed);
  }
  g = reduce_fp8_amax(sink, g, end - begin, Pass::backward, step.microbatch);
  flush_grad_reductions(sink, sim_rank, g);
  if (vs == 0) {
    sink.set_context(Pass::backward, -1, step.microbatch);
    g = embed_.backward(sink, g);
    const auto r = static_cast<std::size_t>(sim_rank);
    grads_[r][GradKey::embedding()] = {g, embed_.params_per_rank(), 0.0, false};
  } else {
    sends_[static_cast<std::size_t>(sim_rank)].push_back(
        {{pipeline_of(sink.global_rank()), key, step.microbatch, Kind::backward}, g, step_index_});
  }
  last_op_[static_cast<std::size_t>(sim_rank)] = g;
  // Zero bubble: the chunk's weight gradients wait for a weight step, and so do the activations
  // they read and the gradient reductions of the weights this chunk holds.
  const RankSink::Deferred d = step.defer_weights ? sink.end_deferral() : RankSink::Deferred{};
  if (!d.gate.valid()) {
    memory(g.id, MemoryEvent::At::end, sim_rank, -freed);
    return;
  }
  sink.set_lane(RankSink::kWeightLane);
  const Handle done = sink.barrier(d.last, "weights.done");
  sink.set_lane(0);
  const auto r = static_cast<std::size_t>(sim_rank);
  // The gradient sources this chunk recorded are the ones whose op it emitted.
  for (auto& [source, grad] : grads_[r])
    if (grad.ready.valid() && grad.ready.id >= first) grad.ready = done;
  deferred_[r].push_back({d.gate, done, freed});
}

void TrainStepBuilder::weight_step(RankSink& sink, int sim_rank) {
  auto& queue = deferred_[static_cast<std::size_t>(sim_rank)];
  if (queue.empty()) throw std::logic_error("a weight step without a deferred backward");
  const DeferredWeights w = queue.front();
  queue.pop_front();
  // The stream reaches the weight step, opens the oldest deferred chunk's gate, and goes on when
  // its weight gradients are done (WeightGradStore.pop(), first in, first out).
  const Handle open = sink.barrier(Handle{}, "weights.open");
  a_.graph().add_dependency(open.id, w.gate.id);
  const Handle joined = sink.barrier(w.done, "weights.join");
  memory(w.done.id, MemoryEvent::At::end, sim_rank, -w.freed);
  last_op_[static_cast<std::size_t>(sim_rank)] = joined;
}

LayerGradOut TrainStepBuilder::layer_backward(RankSink& sink, int sim_rank, int l, GradKey key, Handle g,
                                              BackwardGathers& gathers) {
  const int rank = sink.global_rank();
  const int microbatch = sink.microbatch();
  const Handle weights = backward_weights(sink, sim_rank, gathers, l, g);
  sink.set_context(Pass::backward, l, microbatch);
  const sim::OpId layer_first = next_id();
  const Recompute recompute = job_.layer_recompute(l);
  if (recompute == Recompute::full) {
    sink.set_context(Pass::recompute, l, microbatch);
    layers_.forward(sink, l, rank, weights);
  }
  sink.set_context(Pass::backward, l, microbatch);
  g = layers_.backward(sink, l, rank, {g, weights}, recompute);
  prefetch_below(sink, sim_rank, gathers, l, Handle{layer_first});
  sink.set_context(Pass::backward, l, microbatch);
  release_layer(sink, sim_rank, l, weights, g, Pass::backward);
  grads_[static_cast<std::size_t>(sim_rank)][key] = {g, layers_.dense_params(l), layers_.expert_params(l),
                                                     true};
  const double kept = layers_.stored_activation_bytes(l, rank, recompute);
  if (recompute == Recompute::full) {
    // The recomputed layer's activations live from its recomputation to the end of its backward.
    transient_memory(sim_rank, layer_first, g.id, layers_.stored_activation_bytes(l, rank, Recompute::none));
  } else if (recompute == Recompute::selective && job_.recompute_modules.alternate_mm) {
    // torchtitan's per-op policy replays the rest of the layer's activations first (layer_op_sac.cpp).
    transient_memory(sim_rank, layer_first, g.id,
                     layers_.stored_activation_bytes(l, rank, Recompute::none) - kept);
  }
  return {g, kept, Handle{layer_first}};
}

double TrainStepBuilder::heads_forward(RankSink& sink, int sim_rank, int microbatch, Handle h) {
  const auto r = static_cast<std::size_t>(sim_rank);
  sink.set_context(Pass::forward, -1, microbatch);
  const sim::OpId head_first = next_id();
  loss_[r][microbatch] = head_.forward(sink, h);
  transient_memory(sim_rank, head_first, loss_[r][microbatch].id, head_.loss_transient_bytes(false));
  double kept = head_.stored_activation_bytes();
  auto& losses = mtp_loss_[r][microbatch];
  for (int d = 0; d < mtp_depth_; ++d) {
    // Module d reads the previous depth's output (the main model's for d = 0) and the embedding of
    // the token d + 1 ahead; its layer has index L + d in routing and names.
    const int l = job_.model.layers + d;
    sink.set_context(Pass::forward, l, microbatch);
    h = mtp_.forward(sink, embed_, h);
    const Handle weights = gather_layer(sink, sim_rank, l, Handle{}, Pass::forward);
    h = layers_.forward(sink, l, sink.global_rank(), {h, weights});
    release_layer(sink, sim_rank, l, weights, h, Pass::forward);
    sink.set_context(Pass::forward, l, microbatch);
    losses.push_back(head_.forward(sink, h));
    kept += mtp_.stored_activation_bytes() +
            layers_.stored_activation_bytes(l, sink.global_rank(), job_.recompute) +
            head_.stored_activation_bytes();
  }
  return kept;
}

Handle TrainStepBuilder::join_mtp_grad(RankSink& sink, Handle g, Handle from_mtp) {
  if (!from_mtp.valid()) return g;
  // Read both gradients and write their sum, on the rank's (sequence-parallel) share of the tokens.
  const double tokens = dims_.sp ? dims_.tokens / dims_.tp : dims_.tokens;
  return sink.kernel_after("mtp.add_grad", elementwise(dims_, 3 * tokens * dims_.h * dims_.act_bytes),
                           std::array<Handle, 2>{g, from_mtp});
}

GradOut TrainStepBuilder::heads_backward(RankSink& sink, int sim_rank, int microbatch) {
  const auto r = static_cast<std::size_t>(sim_rank);
  const int L = job_.model.layers;
  Handle from_mtp;
  double freed = 0.0;
  BackwardGathers gathers(L + mtp_depth_ - 1, L);
  const auto& losses = mtp_loss_[r][microbatch];
  for (int d = mtp_depth_ - 1; d >= 0; --d) {
    const int l = L + d;
    sink.set_context(Pass::backward, l, microbatch);
    Handle g = head_.backward(sink, losses[static_cast<std::size_t>(d)]);
    g = join_mtp_grad(sink, g, from_mtp);  // a deeper module's gradient joins this module's output's
    const LayerGradOut layer = layer_backward(sink, sim_rank, l, GradKey::mtp_module(d), g, gathers);
    g = layer.grad;
    freed += layer.freed;
    grads_[r][GradKey::mtp_module(d)].params += mtp_.params_per_rank();
    sink.set_context(Pass::backward, l, microbatch);
    from_mtp = mtp_.backward(sink, embed_, g);
    freed += mtp_.stored_activation_bytes() + head_.stored_activation_bytes();
  }
  // The embedding copy the MTP modules look up (tied to stage 0's in Megatron-Core; the all-reduce
  // that keeps the two equal is not modelled, as for tied embeddings).
  if (mtp_depth_ > 0) grads_[r][GradKey::mtp_embedding()] = {from_mtp, embed_.params_per_rank(), 0.0, false};
  sink.set_context(Pass::backward, -1, microbatch);
  const sim::OpId loss_bwd = next_id();  // the head's backward starts with the loss's
  Handle g = head_.backward(sink, loss_[r][microbatch]);
  transient_memory(sim_rank, loss_bwd, loss_bwd, head_.loss_transient_bytes(true));
  grads_[r][GradKey::head()] = {g, head_.params_per_rank(), 0.0, false};
  freed += head_.stored_activation_bytes();
  return {join_mtp_grad(sink, g, from_mtp), freed};
}

void TrainStepBuilder::build_rank(int sim_rank) {
  RankSink sink(a_, sim_rank);
  const int stage = a_.ranks()[static_cast<std::size_t>(sim_rank)].stage;
  auto& spans = steps_[static_cast<std::size_t>(sim_rank)];
  step_index_ = 0;
  if (job_.parallel.overlap_param_gather) issue_param_gathers(sink, sim_rank);
  const auto& order = schedule_[static_cast<std::size_t>(stage)];
  // torch.distributed.pipelining's schedule.step() calls (local_batch): each ends with its own
  // gradient reduction (end_schedule) unless the step has one.
  const std::size_t per_schedule = order.size() / static_cast<std::size_t>(job_.pipeline_flushes());
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && i % per_schedule == 0) end_schedule(sink, sim_rank);
    const PipeStep& step = order[i];
    const sim::OpId first = next_id();
    // Steady state: a backward and the forward after it (of a later micro-batch, independent of it
    // on every stage, the last one included) become one pair. DualPipe names its pairs: a forward
    // and the backward after it (of the other direction).
    const bool pair = i + 1 < order.size() && (i + 1) % per_schedule != 0 &&
                      (is_dualpipe(kind_) ? step.pair_with_next
                                          : job_.parallel.ep_overlap && step.kind == Kind::backward &&
                                                order[i + 1].kind == Kind::forward);
    if (pair) {
      spans.push_back({first});
      ++step_index_;  // both halves count as the second step: blocking sends wait before the next
      const PipeStep& fwd = step.kind == Kind::forward ? step : order[i + 1];
      const PipeStep& bwd = step.kind == Kind::forward ? order[i + 1] : step;
      // DualPipe waits for both halves' data before either runs (_forward_backward_chunk), and
      // without ep_overlap runs the forward, then the backward.
      if (is_dualpipe(kind_)) pair_gate_ = sink.barrier(Handle{}, "pair.recv");
      if (job_.parallel.ep_overlap) {
        overlapped_pair(sink, sim_rank, fwd, bwd);
      } else {
        forward(sink, sim_rank, fwd);
        backward(sink, sim_rank, bwd);
      }
      pair_gate_ = Handle{};
      spans.push_back({first});
      ++step_index_;
      ++i;
      continue;
    }
    if (step.kind == Kind::forward)
      forward(sink, sim_rank, step);
    else if (step.kind == Kind::backward)
      backward(sink, sim_rank, step);
    else
      weight_step(sink, sim_rank);
    // Lock-step pipelining posts the step's sends and receives once its kernels are queued.
    const sim::OpId end = time_steps_.empty() ? sim::OpId{0} : sink.barrier(Handle{}, "pp.step_end").id;
    spans.push_back({first, end});
    ++step_index_;
  }
  gradients_and_optimizer(sink, sim_rank);
}

void TrainStepBuilder::overlapped_pair(RankSink& sink, int sim_rank, const PipeStep& fwd,
                                       const PipeStep& bwd) {
  // Combined 1F1B (Megatron-Core) / DeepSeek-V3's overlapped chunk pair: a backward and the next
  // forward, of different micro-batches, take turns on one compute stream while each one's
  // all-to-alls run beside the other's kernels. Megatron-Core's TransformerLayerSchedulePlan.run
  // issues, layer by layer, the backward's combine gradient (comm), the forward's attention up to
  // its dispatch, the backward's experts, the forward's dispatch, the backward's dispatch
  // gradient, the forward's experts, its combine, the backward's attention; DeepSeek's profile
  // shows its DualPipe pair in that order. Here each half is emitted on its own lane (the
  // backward's its own stream and channels) and its kernels are cut into segments at its
  // expert-parallel all-to-alls; the segments then run in turns, the backward's first: B0 F0 B1 F1
  // ..., and with eager launches the host issues them in that order too. A segment whose
  // all-to-all has not returned holds the stream (exposed communication), as in the real
  // schedules. The pair ends when both halves have, and the next step waits for it.
  const Handle start = sink.barrier(sink.last_on_lane(1));  // after what came before, on either stream
  sink.set_lane(1);
  sink.barrier(start);
  sink.begin_segments(RankSink::SegmentRule::ep_all_to_all);
  backward(sink, sim_rank, bwd);
  sink.set_lane(0);
  forward(sink, sim_rank, fwd);
  sink.run_segments_in_turns(1, true);
  const Handle joined = sink.barrier(sink.last_on_lane(1));
  sink.set_lane(1);
  sink.barrier(joined);
  sink.set_lane(0);
}

StepPlan TrainStepBuilder::build() {
  for (int r = 0; r < static_cast<int>(a_.ranks().size()); ++r) build_rank(r);
  connect_pipeline();
  StepPlan plan{
      std::move(a_.graph()).build(), {}, {}, {}, {}, a_.layout().world(), m_, 0.0, 0.0, {}, {}, {}, {}};
  plan.memory_events = std::move(memory_);
  for (std::size_t r = 0; r < a_.ranks().size(); ++r) plan.static_memory.push_back(static_memory(r));
  plan.tokens_per_step = double(job_.workload.global_batch) * job_.workload.seq_len;
  finish_plan(plan, a_, layers_);
  return plan;
}

}  // namespace detail

StepPlan build_train_step(const JobSpec& job, CommPlanner& planner, const TrainStepOptions& options) {
  return detail::TrainStepBuilder(job, planner, options.ranks).build();
}

}  // namespace stepsim::work
