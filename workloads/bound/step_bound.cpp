// Lower bounds on a training step without building its graph (see step_bound.hpp for why they hold).
// The walk mirrors train_step.cpp: the same emitters for the same ranks, in the same order, into a
// sink that only times kernels; step_bound_test checks it against built and simulated steps. This file
// walks the schedule (layers, pipeline, the relaxed stream); step_bound_gradients.cpp the data-parallel
// side of each stage.
#include "workloads/bound/step_bound.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/error.hpp"
#include "workloads/bound/bounder.hpp"

namespace stepsim::work {
namespace detail {

std::pair<int, int> Bounder::layers_of(int vs) const {
  // As TrainStepBuilder::layers_of: consecutive layers per model chunk, ParallelSpec::chunk_layers.
  int begin = 0;
  for (int s = 0; s < vs; ++s) begin += job_.parallel.chunk_layers(s, job_.model.layers);
  return {begin, begin + job_.parallel.chunk_layers(vs, job_.model.layers)};
}

int Bounder::dense_key(int l) const {
  if (layers_.is_moe(l)) return l;
  const bool local = layers_.is_local(l);
  switch (job_.model.layer_kind(l)) {
    case LayerKind::mamba: return -3;
    case LayerKind::gated_delta: return -7;
    case LayerKind::attention: return local ? -5 : -4;
    case LayerKind::mlp: return -6;
    case LayerKind::transformer:
    case LayerKind::moe: break;
  }
  return local ? -2 : -1;
}

const Segment& Bounder::layer_forward(int l, int rank) {
  const std::pair key{rank, dense_key(l)};
  auto it = forward_.find(key);
  if (it == forward_.end())
    it = forward_
             .emplace(key, sink_.segment(
                               rank, [&](OpSink& s, Handle in) { return layers_.forward(s, l, rank, in); }))
             .first;
  return it->second;
}

const Segment& Bounder::layer_backward(int l, int rank) {
  const std::pair key{rank, dense_key(l)};
  auto it = backward_.find(key);
  if (it == backward_.end())
    it = backward_
             .emplace(key, sink_.segment(rank,
                                         [&](OpSink& s, Handle in) {
                                           return layers_.backward(s, l, rank, in, job_.layer_recompute(l));
                                         }))
             .first;
  return it->second;
}

void Bounder::add_layer_backward(StepCost& c, int l, int rank) {
  if (job_.layer_recompute(l) == Recompute::full) c.then(layer_forward(l, rank), Feed::alone);
  c.then(layer_backward(l, rank));
}

StepCost Bounder::forward(int vs, int rank) {
  StepCost c;
  if (vs == 0) c.then(once(rank, [&](OpSink& s, Handle) { return embed_.forward(s); }), Feed::fresh);
  const auto [begin, end] = layers_of(vs);
  for (int l = begin; l < end; ++l) c.then(layer_forward(l, rank));
  if (vs == vstages() - 1) {
    // heads_forward: the loss, then per MTP depth the glue and its layer (which carry the running
    // output on) and that depth's loss.
    const Segment& loss = once(rank, [&](OpSink& s, Handle in) { return head_.forward(s, in); });
    c.then(loss, Feed::side);
    for (int d = 0; d < job_.model.mtp_layers; ++d) {
      c.then(once(rank, [&](OpSink& s, Handle in) { return mtp_.forward(s, embed_, in); }));
      c.then(layer_forward(job_.model.layers + d, rank));
      c.then(loss, Feed::side);
    }
  }
  return c;
}

StepCost Bounder::backward(int vs, int rank) {
  StepCost c;
  if (vs == vstages() - 1) {
    // heads_backward, without the MTP gradient adds (leaving kernels and waits out only lowers the
    // bound): each depth's loss gradient starts a chain through its layer and glue.
    const Segment& loss = once(rank, [&](OpSink& s, Handle in) { return head_.backward(s, in); });
    for (int d = job_.model.mtp_layers - 1; d >= 0; --d) {
      c.then(loss, Feed::fresh);
      add_layer_backward(c, job_.model.layers + d, rank);
      c.then(once(rank, [&](OpSink& s, Handle in) { return mtp_.backward(s, embed_, in); }));
    }
    c.then(loss, Feed::fresh);
  }
  const auto [begin, end] = layers_of(vs);
  for (int l = end - 1; l >= begin; --l) add_layer_backward(c, l, rank);
  if (vs == 0) c.then(once(rank, [&](OpSink& s, Handle in) { return embed_.backward(s, in); }));
  return c;
}

std::int64_t Bounder::send_bound(int from, int to) {
  if (comm_ == nullptr) return 0;
  const auto [it, inserted] = sends_.try_emplace({from, to}, 0);
  if (!inserted) return it->second;
  const double full = dims_.tokens * dims_.h * dims_.act_bytes;
  const double bytes = dims_.tp > 1 ? full / dims_.tp : full;
  const CommKey key = detail::comm_key(detail::grid_key(job_.parallel, layout_), CollectiveKind::send_recv,
                                       ParallelDim::pp, CommScope::dense, 1, from, to, bytes);
  it->second = comm_
                   ->at_least(key,
                              [&] {
                                CommRequest req;
                                req.kind = CollectiveKind::send_recv;
                                req.dim = ParallelDim::pp;
                                req.communicator_ranks = job_.parallel.pp;
                                req.bytes = bytes;
                                // The simulated pipeline's pair first, then every other pipeline's
                                // (its images), as connect_pipeline lists them.
                                const int own = layout_.rank({0, 0, 0, 0});
                                std::vector<int> pipelines{own};
                                for (int r = 0; r < layout_.world(); ++r)
                                  if (r != own && layout_.coords(r).pp == 0) pipelines.push_back(r);
                                for (int p : pipelines) {
                                  RankCoords c = layout_.coords(p);
                                  c.pp = from;
                                  const int src = layout_.rank(c);
                                  c.pp = to;
                                  req.groups.push_back({src, layout_.rank(c)});
                                }
                                return req;
                              })
                   .count();
  return it->second;
}

double Bounder::kept(int vs, int rank) {
  double bytes = 0.0;
  const auto [begin, end] = layers_of(vs);
  for (int l = begin; l < end; ++l)
    bytes += layers_.stored_activation_bytes(l, rank, job_.layer_recompute(l));
  if (vs == vstages() - 1) {
    bytes += head_.stored_activation_bytes();
    for (int d = 0; d < job_.model.mtp_layers; ++d)
      bytes += mtp_.stored_activation_bytes() +
               layers_.stored_activation_bytes(job_.model.layers + d, rank, job_.recompute) +
               head_.stored_activation_bytes();
  }
  return bytes;
}

RankParams Bounder::params(int stage) {
  // The builder's gradient sources of this stage, summed in its key order: the embedding (-1),
  // the layers, the head (L), the MTP modules (L + 1 + d) and their embedding copy.
  RankParams p;
  const int L = job_.model.layers, D = job_.model.mtp_layers;
  const auto add = [&](double dense, double experts, bool layer) {
    p.dense += dense;
    p.experts += experts;
    if (layer) p.layer_dense += dense;
    if (layer) p.linear += dense + experts;
  };
  // The model chunks the rank holds (DualPipe: both end ranks hold both ends; DualPipeV: rank 0).
  const std::vector<int> vstages_held = model_chunks(kind_, pp_, v_, stage);
  const bool first = std::find(vstages_held.begin(), vstages_held.end(), 0) != vstages_held.end();
  const bool last = std::find(vstages_held.begin(), vstages_held.end(), vstages() - 1) != vstages_held.end();
  if (first) add(embed_.params_per_rank(), 0.0, false);
  std::vector<int> own;
  for (int vs : vstages_held) {
    const auto [begin, end] = layers_of(vs);
    for (int l = begin; l < end; ++l) own.push_back(l);
  }
  std::sort(own.begin(), own.end());
  for (int l : own) add(layers_.dense_params(l), layers_.expert_params(l), true);
  if (last) {
    add(head_.params_per_rank(), 0.0, false);
    for (int d = 0; d < D; ++d)
      add(layers_.dense_params(L + d) + mtp_.params_per_rank(), layers_.expert_params(L + d), true);
    if (D > 0) add(embed_.params_per_rank(), 0.0, false);
  }
  return p;
}

int Bounder::check_and_count_microbatches() const {
  // The builder's own refusals, so that a layout it cannot build is not bounded either.
  const auto& w = job_.workload;
  const auto& par = job_.parallel;
  const int per_step = w.micro_batch * par.dp;
  if (per_step <= 0 || w.global_batch % per_step != 0)
    throw UserError("workload.global_batch = " + std::to_string(w.global_batch) +
                    " must be a multiple of micro_batch x dp = " + std::to_string(per_step));
  if (!par.uneven_split() && job_.model.layers % vstages() != 0)
    throw UserError("model.layers = " + std::to_string(job_.model.layers) + " must divide evenly over pp x " +
                    "virtual_stages = " + std::to_string(vstages()));
  if (par.cp > 1 && w.attention_impl != AttentionImpl::flash)
    throw UserError("context parallelism needs workload.attention_impl = \"flash\"");
  return w.global_batch / per_step;
}

Bounder::Relaxed Bounder::relax(const Schedule& schedule, int m, const std::vector<StepCost>& fwd,
                                const std::vector<StepCost>& bwd) {
  // Each stage runs its steps in order, a step starting once its stage's stream is free and what it
  // receives has arrived (the sender's output, then the transfer). Steps are taken in rounds so
  // that senders go first.
  const int V = vstages();
  const auto at = [&](int mb, int vs) { return static_cast<std::size_t>(mb) * V + vs; };
  std::vector<std::int64_t> fwd_out(static_cast<std::size_t>(m) * V, kNone), bwd_out = fwd_out;
  std::vector<std::size_t> next(static_cast<std::size_t>(pp_), 0);
  Relaxed r;
  r.clock.assign(static_cast<std::size_t>(pp_), 0);
  r.last_output = r.clock;
  r.kernels.assign(static_cast<std::size_t>(pp_), Time::zero());
  r.tensor = r.kernels;
  for (bool moved = true; moved;) {
    moved = false;
    for (int s = 0; s < pp_; ++s) {
      const auto si = static_cast<std::size_t>(s);
      for (auto& i = next[si]; i < schedule[si].size(); ++i) {
        const PipeStep& step = schedule[si][i];
        const int vs = step.chunk * pp_ + s;
        const bool is_fwd = step.kind == PipeStep::Kind::forward;
        const int from = is_fwd ? vs - 1 : vs + 1;  // the virtual stage it receives from
        std::int64_t arrival = kNone;
        if (from >= 0 && from < V) {
          const std::int64_t sent = (is_fwd ? fwd_out : bwd_out)[at(step.microbatch, from)];
          if (sent == kNone) break;  // not computed yet: another stage's turn
          arrival = sent + send_bound(from % pp_, s);
        }
        const StepCost& c = (is_fwd ? fwd : bwd)[static_cast<std::size_t>(vs)];
        // Its first kernel waits for what it receives (the boundary's dependency enters there).
        const State st = c.run(std::max(r.clock[si], arrival), arrival);
        const std::int64_t out = st.output == kNone ? 0 : st.output;
        (is_fwd ? fwd_out : bwd_out)[at(step.microbatch, vs)] = out;
        r.clock[si] = st.stream;
        r.last_output[si] = out;
        r.kernels[si] += c.kernels;
        r.tensor[si] += c.tensor;
        moved = true;
      }
    }
  }
  for (int s = 0; s < pp_; ++s)
    if (next[static_cast<std::size_t>(s)] < schedule[static_cast<std::size_t>(s)].size())
      throw std::logic_error("step bound: the pipeline schedule deadlocks");
  return r;
}

StepBound Bounder::run_dualpipe(int m, const Schedule& schedule) {
  // Rank s runs stages s and pp - 1 - s, m / 2 micro-batches each (DualPipeV: chunks s and
  // 2 pp - 1 - s, every micro-batch through both), with its pairs' halves taking turns
  // and its weight steps moving kernels, not adding any: the time bound is the
  // busiest rank's kernel time at full speed, as for ep_overlap. Memory: its forwards before the
  // first backward, each stage's activations kept until that micro-batch's backward (or later
  // weight step) on this rank.
  Fingerprint program;
  for (int v : {pp_, m, static_cast<int>(job_.parallel.schedule)}) program.add(v);
  const int per_chunk = kind_ == PipelineSchedule::dualpipev ? m : m / 2;
  StepBound b;
  for (int s = 0; s < pp_; ++s) {
    const auto si = static_cast<std::size_t>(s);
    const int rank = rank_of(s);
    Time kernels{}, tensor{};
    std::array<double, 2> kept_bytes{};
    for (int chunk = 0; chunk < 2; ++chunk) {
      const int vs = model_chunk(kind_, pp_, s, chunk);
      const StepCost f = forward(vs, rank), g = backward(vs, rank);
      kept_bytes[static_cast<std::size_t>(chunk)] = kept(vs, rank);
      for (int i = 0; i < per_chunk; ++i) {
        kernels += f.kernels + g.kernels;
        tensor += f.tensor + g.tensor;
      }
      program.add(f.program.value());
      program.add(g.program.value());
      program.add(kept_bytes[static_cast<std::size_t>(chunk)]);
    }
    const RankParams p = params(s);
    const Segment opt = sink_.segment(rank, [&](OpSink& sk, Handle in) {
      return emit_optimizer(sk, dims_, job_.precision, train_optimizer_shard(job_, p), std::span(&in, 1));
    });
    const StaticMemory st = train_static_memory(job_, p);
    program.add(opt.program);
    for (double v : {st.weights, st.gradients, st.optimizer, st.low_precision_weights}) program.add(v);
    kernels += opt.kernels;
    if (kernels > b.step) {
      b.step = kernels;
      b.busiest_stage = s;
    }
    if (kernels > b.kernels) {
      b.kernels = kernels;
      b.tensor = tensor + opt.tensor;
    }
    double live = 0.0;
    for (const PipeStep& step : schedule[si]) {
      // A pair's forward may start after its backward frees (two streams): stop before it.
      if (step.kind != PipeStep::Kind::forward || step.pair_with_next) break;
      live += kept_bytes[static_cast<std::size_t>(step.chunk)];
    }
    b.memory_bytes = std::max(b.memory_bytes, (st.total() + live) * (1.0 - 1e-9));
  }
  b.program = program.value();
  return b;
}

StepBound Bounder::run() {
  const int m = check_and_count_microbatches();
  const int flushes = job_.pipeline_flushes();
  const Schedule schedule = pipeline_schedule(kind_, pp_, m, v_, flushes);
  if (is_dualpipe(kind_)) return run_dualpipe(m, schedule);
  Fingerprint program;
  for (int v : {pp_, v_, m, static_cast<int>(kind_)}) program.add(v);
  if (flushes > 1) program.add(flushes);
  const int V = vstages();
  std::vector<StepCost> fwd(static_cast<std::size_t>(V)), bwd(static_cast<std::size_t>(V));
  std::vector<double> kept_bytes(static_cast<std::size_t>(V));
  for (int vs = 0; vs < V; ++vs) {
    const int rank = rank_of(vs % pp_);
    const auto i = static_cast<std::size_t>(vs);
    fwd[i] = forward(vs, rank);
    bwd[i] = backward(vs, rank);
    kept_bytes[i] = kept(vs, rank);
    program.add(fwd[i].program.value());
    program.add(bwd[i].program.value());
    program.add(kept_bytes[i]);
  }
  const Relaxed relaxed = relax(schedule, m, fwd, bwd);
  StepBound b;
  for (int s = 0; s < pp_; ++s) {
    const auto si = static_cast<std::size_t>(s);
    const RankParams p = params(s);
    const Segment opt = sink_.segment(rank_of(s), [&](OpSink& sk, Handle in) {
      return emit_optimizer(sk, dims_, job_.precision, train_optimizer_shard(job_, p), std::span(&in, 1));
    });
    const StaticMemory st = train_static_memory(job_, p);
    program.add(opt.program);
    for (double v : {st.weights, st.gradients, st.optimizer, st.low_precision_weights}) program.add(v);
    const Time end{with_gradients(s, schedule[si], relaxed.clock[si], relaxed.last_output[si], opt)};
    if (end > b.step) {
      b.step = end;
      b.busiest_stage = s;
    }
    if (relaxed.kernels[si] + opt.kernels > b.kernels) {
      b.kernels = relaxed.kernels[si] + opt.kernels;
      b.tensor = relaxed.tensor[si] + opt.tensor;
    }
    // Activations of the forwards before the first backward, all alive at once.
    double live = 0.0;
    for (const PipeStep& step : schedule[si]) {
      if (step.kind == PipeStep::Kind::backward) break;
      live += kept_bytes[static_cast<std::size_t>(step.chunk * pp_ + s)];
    }
    // Less a relative 1e-9: the simulation adds the same figures in another order.
    b.memory_bytes = std::max(b.memory_bytes, (st.total() + live) * (1.0 - 1e-9));
  }
  b.program = program.value();
  return b;
}

}  // namespace detail

StepBound bound_train_step(const JobSpec& job, CommBound* comm) {
  if (job.workload.kind != WorkloadKind::train)
    throw std::invalid_argument("bound_train_step: not a training job");
  StepBound b = detail::Bounder(job, comm).run();
  if (job.parallel.ep_overlap) {
    // Overlapped pairs run a forward and a backward in turns that the emitters' order does not give
    // (each half's program is emitted whole; RankSink::run_segments_in_turns interleaves them), so
    // the one-stream relaxation's order no longer holds. What stays true: the busiest rank does all
    // its kernels' work at no more than full speed. The pairing also changes the step without changing any
    // emitter's program.
    b.step = b.kernels;
    b.program = (b.program ^ 0x65705f6f7665726cull) * 1099511628211ull;
  }
  return b;
}

}  // namespace stepsim::work
