#include "workloads/step/inference_step.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "sim/error.hpp"
#include "workloads/model/kv.hpp"
#include "workloads/step/layer_stack.hpp"
#include "workloads/step/model_ops.hpp"

namespace stepsim::work {
namespace {

using Handle = OpSink::Handle;

class InferenceStepBuilder {
 public:
  InferenceStepBuilder(const JobSpec& job, CommPlanner& planner, RankMode mode);
  StepPlan build();

 private:
  void build_rank(int sim_rank);
  /// Final norm, logits of each sequence's last position, and sampling (last stage) of a batch of
  /// `dims`.
  Handle sample(RankSink& sink, Handle h, const LayerDims& dims) const;
  /// Two-micro-batch overlap: each half's forward on its own lane (build_rank).
  void build_halves(RankSink& sink, int sim_rank);
  void connect_pipeline();
  std::pair<int, int> layers_of(int stage) const;
  /// Weights and KV cache of simulated rank `r`.
  StaticMemory static_memory(int r);
  KvCapacity kv_capacity(const std::vector<StaticMemory>& memory);
  /// Tokens each sequence has in the cache once the step is done.
  double cached_tokens() const;
  /// KV-cache bytes one token adds per layer on one GPU (workloads/model/kv.hpp).
  double kv_per_token_layer() const {
    return kv_bytes_per_token_layer_rank(job_.model, job_.precision.kv_bytes, job_.parallel.tp);
  }
  /// Decode-state bytes one sequence holds in the Mamba layers [begin, end) on one GPU (hybrid models).
  double state_per_sequence(int begin, int end) const {
    return state_bytes_per_sequence(job_.model, job_.precision.activation_bytes, job_.parallel.tp, begin,
                                    end);
  }
  sim::OpId next_id() { return static_cast<sim::OpId>(a_.graph().op_count()); }

  const JobSpec& job_;
  StepAssembler a_;
  LayerDims dims_;
  LayerStack layers_;
  Embedding embed_;
  LmHead head_;
  std::vector<sim::OpId> first_;  ///< per sim rank: where data from the previous stage enters
  std::vector<Handle> last_;      ///< per sim rank: its last op
  /// Two-micro-batch overlap (parallelism.ep_overlap): the batch's two halves, each with its own
  /// dimensions, layers (and routing of its tokens) and embedding; empty without it.
  struct Half {
    LayerDims dims;
    LayerStack layers;
    Embedding embed;
  };
  std::vector<std::unique_ptr<Half>> halves_;
};

InferenceStepBuilder::InferenceStepBuilder(const JobSpec& job, CommPlanner& planner, RankMode mode)
    : job_(job),
      a_(job, planner, mode),
      dims_(layer_dims(job, job.workload.batch)),
      layers_(job, dims_, a_.layout(), mode),
      embed_(dims_, job.model),
      head_(dims_, job.model) {
  if (job.workload.kind == WorkloadKind::train)
    throw std::logic_error("build_inference_step on a training job");
  if (job.workload.kind == WorkloadKind::decode && job.parallel.cp > 1)
    throw UserError("decode with context parallelism (cp = " + std::to_string(job.parallel.cp) +
                    ") is not simulated; set cp = 1");
  if (job.parallel.virtual_stages > 1)
    throw UserError("inference runs one model chunk per pipeline stage; set virtual_stages = 1");
  first_.resize(a_.ranks().size());
  last_.resize(a_.ranks().size());
  // SGLang's two-batch overlap and DeepSeek's inference system split the batch's sequences in two
  // and run each half's layers on its own stream, so that one half's expert all-to-alls hide under
  // the other's kernels. A batch of one sequence runs whole (SGLang cannot split it either).
  const double b = job.workload.batch;
  if (job.parallel.ep_overlap && job.parallel.pp > 1)  // the scenario checks say so first
    throw UserError(
        "parallelism.ep_overlap splits an inference batch in two on one pipeline stage only; set pp = 1");
  if (job.parallel.ep_overlap && b >= 2)
    for (double half : {std::ceil(b / 2), std::floor(b / 2)}) {
      const LayerDims d = layer_dims(job, half);
      halves_.push_back(
          std::make_unique<Half>(Half{d, LayerStack(job, d, a_.layout(), mode), Embedding(d, job.model)}));
    }
}

std::pair<int, int> InferenceStepBuilder::layers_of(int stage) const {
  int begin = 0;
  for (int s = 0; s < stage; ++s) begin += job_.parallel.stage_layers(s, job_.model.layers);
  return {begin, begin + job_.parallel.stage_layers(stage, job_.model.layers)};
}

double InferenceStepBuilder::cached_tokens() const {
  return job_.workload.kind == WorkloadKind::decode ? job_.workload.context_len + 1.0 : job_.workload.seq_len;
}

Handle InferenceStepBuilder::sample(RankSink& sink, Handle h, const LayerDims& dims) const {
  // Only each sequence's last position becomes logits (prefill) or its one position (decode).
  const double B = dims.b, E = dims.act_bytes, v = job_.model.vocab / static_cast<double>(dims.tp);
  h = sink.kernel("final_norm", elementwise(dims, 2 * B * dims.h * E, 8 * B * dims.h), h);
  h = sink.kernel("logits", weight_gemm(dims.high_precision(), B, v, dims.h), h);
  if (dims.tp > 1)
    h = sink.comm("tp.gather_logits",
                  CommOp{ParallelDim::tp, CollectiveKind::all_gather, B * job_.model.vocab * E, 0}, h);
  return sink.kernel("sample", elementwise(dims, B * job_.model.vocab * E, 2 * B * job_.model.vocab), h);
}

void InferenceStepBuilder::build_halves(RankSink& sink, int sim_rank) {
  // One stage (the scenario checks refuse pipeline parallelism with the overlap): each half's
  // embedding, layers and sampling on its own lane, with its own EP and TP channels. The halves'
  // kernels then take turns as SGLang's two-batch overlap runs them on one stream: each half's
  // kernels up to where it waits on its own collective (a dispatch, a combine) form a segment, and
  // the segments alternate, A1 B1 A2 B2 ..., so one half's all-to-all is in flight while the
  // other half computes.
  const int rank = sink.global_rank();
  sink.begin_segments(RankSink::SegmentRule::any_collective);
  const auto on_half = [&sink](std::size_t p, int layer) {
    sink.set_lane(static_cast<int>(p));
    sink.set_context(Pass::forward, layer, static_cast<int>(p));
  };
  std::array<Handle, 2> h;
  for (std::size_t p = 0; p < 2; ++p) {
    on_half(p, -1);
    h[p] = halves_[p]->embed.forward(sink);
  }
  for (int l = 0; l < job_.model.layers; ++l)
    for (std::size_t p = 0; p < 2; ++p) {
      on_half(p, l);
      h[p] = halves_[p]->layers.forward(sink, l, rank, h[p]);
    }
  for (std::size_t p = 0; p < 2; ++p) {
    on_half(p, -1);
    h[p] = sample(sink, h[p], halves_[p]->dims);
  }
  sink.run_segments_in_turns(0, false);
  sink.set_lane(0);
  last_[static_cast<std::size_t>(sim_rank)] = sink.barrier(h[1]);
}

void InferenceStepBuilder::build_rank(int sim_rank) {
  RankSink sink(a_, sim_rank);
  const auto r = static_cast<std::size_t>(sim_rank);
  const int stage = a_.ranks()[r].stage, rank = sink.global_rank();
  sink.set_context(Pass::forward, -1, 0);
  first_[r] = next_id();
  if (!halves_.empty()) return build_halves(sink, sim_rank);
  Handle h;
  if (stage == 0) {
    h = embed_.forward(sink);
  } else if (dims_.tp > 1) {
    // Megatron's scatter-gather: each TP rank receives 1/tp of the activation and gathers the rest.
    h = sink.comm(
        "pp.gather",
        CommOp{ParallelDim::tp, CollectiveKind::all_gather, dims_.tokens * dims_.h * dims_.act_bytes, 0},
        Handle{});
  }
  const auto [begin, end] = layers_of(stage);
  for (int l = begin; l < end; ++l) {
    sink.set_context(Pass::forward, l, 0);
    h = layers_.forward(sink, l, rank, h);
  }
  sink.set_context(Pass::forward, -1, 0);
  if (stage == job_.parallel.pp - 1) h = sample(sink, h, dims_);
  last_[r] = h;
}

void InferenceStepBuilder::connect_pipeline() {
  const RankLayout& layout = a_.layout();
  for (std::size_t s = 0; s < a_.ranks().size(); ++s) {
    const int from = a_.ranks()[s].rank;
    RankCoords c = layout.coords(from);
    if (c.pp + 1 >= job_.parallel.pp) continue;
    CommRequest req;
    req.kind = CollectiveKind::send_recv;
    req.dim = ParallelDim::pp;
    req.communicator_ranks = job_.parallel.pp;
    req.bytes = dims_.tokens * dims_.h * dims_.act_bytes / dims_.tp;
    const auto pair_of = [&](RankCoords x) {
      const int src = layout.rank(x);
      ++x.pp;
      return std::vector<int>{src, layout.rank(x)};
    };
    req.groups.push_back(pair_of(c));
    if (a_.mode() == RankMode::representative)  // every other pipeline sends at the same moment
      for (int r = 0; r < layout.world(); ++r)
        if (layout.coords(r).pp == c.pp && r != from) req.groups.push_back(pair_of(layout.coords(r)));
    const int to = a_.sim_index(req.groups.front()[1]);
    const sim::OpId id = a_.add_pipeline_send(req, static_cast<int>(s), to, Pass::forward, 0,
                                              "pp.send_act stage" + std::to_string(c.pp), true);
    a_.graph().add_dependency(last_[s].id, id);
    a_.graph().add_dependency(id, a_.gpu_op(first_[static_cast<std::size_t>(to)]));
  }
}

StaticMemory InferenceStepBuilder::static_memory(int r) {
  const int stage = a_.ranks()[static_cast<std::size_t>(r)].stage;
  const auto [begin, end] = layers_of(stage);
  double params = 0.0;
  for (int l = begin; l < end; ++l) params += layers_.dense_params(l) + layers_.expert_params(l);
  if (stage == 0) params += embed_.params_per_rank();
  if (stage == job_.parallel.pp - 1) params += head_.params_per_rank();
  StaticMemory m;
  m.weights = params * job_.precision.param_bytes;
  m.kv_cache =
      dims_.b * (cached_layer_tokens(job_.model, cached_tokens(), begin, end) * kv_per_token_layer() +
                 state_per_sequence(begin, end));
  return m;
}

KvCapacity InferenceStepBuilder::kv_capacity(const std::vector<StaticMemory>& memory) {
  // The binding GPU is the one whose free memory holds the fewest sequences at the context
  // (reference.md: largest batch at context T = floor((capacity - weights) / (T x KV bytes per token))).
  KvCapacity best;
  double fewest = std::numeric_limits<double>::infinity();
  const double context =
      job_.workload.kind == WorkloadKind::decode ? job_.workload.context_len : job_.workload.seq_len;
  for (std::size_t r = 0; r < memory.size(); ++r) {
    const auto [begin, end] = layers_of(a_.ranks()[r].stage);
    KvCapacity k;
    int attention_layers = 0;
    for (int l = begin; l < end; ++l) attention_layers += job_.model.has_attention(l) ? 1 : 0;
    k.bytes_per_token = kv_per_token_layer() * attention_layers;
    k.free_bytes = std::max(0.0, job_.cluster.gpu.usable_hbm().value() - memory[r].weights);
    // Each layer keeps the tokens its span leaves (attention_window.hpp), so count layer-tokens and
    // bind on the GPU that holds the fewest sequences at this context (with local attention a stage
    // of global layers fills before one of local layers).
    double tokens = fewest;
    // A hybrid model's Mamba layers hold a fixed state per sequence beside the attention layers' cache.
    const double state = state_per_sequence(begin, end);
    k.state_bytes_per_sequence = state;
    const double per_sequence =
        cached_layer_tokens(job_.model, context, begin, end) * kv_per_token_layer() + state;
    if (per_sequence > 0.0) {
      k.max_batch = static_cast<long long>(std::floor(k.free_bytes / per_sequence));
      tokens = k.free_bytes / per_sequence * context;
    }
    if (k.bytes_per_token > 0.0) {
      const double layer_tokens = std::max(0.0, k.free_bytes / dims_.b - state) / kv_per_token_layer();
      k.max_context =
          static_cast<long long>(std::floor(max_cached_context(job_.model, layer_tokens, begin, end)));
    }
    if (tokens < fewest) fewest = tokens, best = k;
  }
  return best;
}

StepPlan InferenceStepBuilder::build() {
  for (int r = 0; r < static_cast<int>(a_.ranks().size()); ++r) build_rank(r);
  connect_pipeline();
  StepPlan plan{
      std::move(a_.graph()).build(), {}, {}, {}, {}, a_.layout().world(), 1, 0.0, 0.0, {}, {}, {}, {}};
  if (!halves_.empty()) plan.microbatches = 2;  // the two halves of an overlapped batch
  for (int r = 0; r < static_cast<int>(a_.ranks().size()); ++r)
    plan.static_memory.push_back(static_memory(r));
  plan.kv = kv_capacity(plan.static_memory);
  const double per_sequence = job_.workload.kind == WorkloadKind::decode ? 1.0 : job_.workload.seq_len;
  plan.tokens_per_step = double(job_.parallel.dp) * job_.workload.batch * per_sequence;
  finish_plan(plan, a_, halves_.empty() ? layers_ : halves_.front()->layers);
  return plan;
}

}  // namespace

StepPlan build_inference_step(const JobSpec& job, CommPlanner& planner, const InferenceStepOptions& options) {
  return InferenceStepBuilder(job, planner, options.ranks).build();
}

}  // namespace stepsim::work
