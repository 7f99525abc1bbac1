#include "workloads/rank_sink.hpp"

#include <cmath>
#include <cstdio>

#include "topology/compute_model.hpp"
#include "workloads/names.hpp"

namespace stepsim::work {
namespace {

constexpr std::size_t idx(ParallelDim d) { return static_cast<std::size_t>(d); }

std::string stream_label(int rank, std::string_view what) {
  return "gpu" + std::to_string(rank) + "." + std::string(what);
}

}  // namespace

std::string_view pass_name(Pass p) {
  switch (p) {
    case Pass::forward: return "fwd";
    case Pass::backward: return "bwd";
    case Pass::recompute: return "recomp";
    case Pass::optimizer: return "opt";
  }
  return "?";
}

std::string op_label(const StepPlan& plan, sim::OpId op) {
  const OpInfo& i = plan.info[op];
  std::string out;
  if (i.layer >= 0) out = "L" + std::to_string(i.layer) + ".";
  out += plan.graph.label(op);
  if (i.microbatch >= 0) out += " mb" + std::to_string(i.microbatch);
  return out;
}

StepAssembler::StepAssembler(const JobSpec& job, CommPlanner& planner, RankMode mode)
    : job_(job), planner_(planner), mode_(mode), layout_(job.parallel) {
  sim_index_.assign(static_cast<std::size_t>(layout_.world()), -1);
  std::vector<int> simulated;
  if (mode == RankMode::all) {
    for (int r = 0; r < layout_.world(); ++r) simulated.push_back(r);
  } else {
    for (int s = 0; s < job.parallel.pp; ++s) simulated.push_back(layout_.rank({0, 0, s, 0}));
  }
  const sim::Processor proc{job.cluster.gpu.comm_sm_fraction};
  for (int r : simulated) {
    sim_index_[static_cast<std::size_t>(r)] = static_cast<int>(ranks_.size());
    const sim::ProcessorId p = graph_.add_processor(proc);
    RankStreams s;
    s.compute = graph_.add_stream(p, sim::StreamRole::compute, stream_label(r, "compute"));
    for (ParallelDim d : {ParallelDim::tp, ParallelDim::cp, ParallelDim::ep, ParallelDim::dp})
      s.comm[idx(d)] = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "comm." + std::string(name(d))));
    s.send_next = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "pp.send_next"));
    s.recv_prev = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "pp.recv_prev"));
    s.send_prev = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "pp.send_prev"));
    s.recv_next = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "pp.recv_next"));
    streams_.push_back(s);
    ranks_.push_back(SimRank{r, layout_.coords(r).pp, p, s.compute});
  }
}

int StepAssembler::sim_index(int rank) const { return sim_index_[static_cast<std::size_t>(rank)]; }

sim::OpId StepAssembler::add(const sim::Op& op, std::span<const sim::StreamId> streams, const OpInfo& info) {
  const sim::OpId id = graph_.add_op(op, streams);
  info_.push_back(info);
  return id;
}

namespace {
/// The communicator of `rank` along `d`. Data-parallel traffic (gradients, ZeRO shards) spans the
/// context-parallel ranks too, since they hold the same weights.
std::vector<int> group_of(const RankLayout& layout, int rank, ParallelDim d) {
  return d == ParallelDim::dp ? layout.grad_group(rank) : layout.group(rank, d);
}
}  // namespace

const std::vector<std::vector<int>>& StepAssembler::groups(ParallelDim d, int rank) {
  // Representative mode: every group along d at this rank's pipeline stage (they run in lock step).
  // Full mode: the rank's own group only.
  const int key = mode_ == RankMode::all ? rank : layout_.coords(rank).pp;
  auto [it, inserted] = group_cache_.try_emplace({static_cast<int>(d), key});
  if (!inserted) return it->second;
  auto& out = it->second;
  out.push_back(group_of(layout_, rank, d));
  if (mode_ == RankMode::representative) {
    for (int r = 0; r < layout_.world(); ++r) {
      if (layout_.coords(r).pp != key || r == out.front().front()) continue;
      auto g = group_of(layout_, r, d);
      if (g.front() == r) out.push_back(std::move(g));
    }
  }
  return out;
}

RankSink::RankSink(StepAssembler& a, int sim_rank)
    : a_(a), sim_rank_(sim_rank), rank_(a.ranks()[static_cast<std::size_t>(sim_rank)].rank) {}

void RankSink::set_context(Pass pass, int layer, int microbatch) {
  pass_ = pass;
  plain_ = false;
  layer_ = layer;
  microbatch_ = microbatch;
}

void RankSink::set_plain_context(Pass pass) {
  pass_ = pass;
  plain_ = true;
  layer_ = -1;
  microbatch_ = -1;
}

sim::LabelId RankSink::label(std::string_view name) {
  // Graph labels stay few and shared ("fwd.qkv"); the layer and micro-batch live in OpInfo and
  // op_label() puts them back together ("L12.fwd.qkv mb3").
  if (plain_) return a_.graph().intern(name);
  label_scratch_.assign(pass_name(pass_));
  label_scratch_ += '.';
  label_scratch_ += name;
  return a_.graph().intern(label_scratch_);
}

OpInfo RankSink::base_info() const {
  OpInfo i;
  i.pass = pass_;
  i.layer = static_cast<std::int16_t>(layer_);
  i.microbatch = microbatch_;
  i.rank = static_cast<std::uint16_t>(sim_rank_);
  return i;
}

void RankSink::add_deps(sim::OpId op, std::span<const Handle> deps) {
  for (const Handle& h : deps)
    if (h.valid()) a_.graph().add_dependency(h.id, op);
}

OpSink::Handle RankSink::emit_kernel(std::string_view name, const topo::KernelWork& work,
                                     std::span<const Handle> deps) {
  const topo::KernelTime t = topo::kernel_time(a_.job().cluster.gpu, work);
  sim::Op op;
  op.kind = sim::OpKind::compute;
  op.bound = topo::tag(t.bound);
  op.work = t.duration;
  op.flops = work.flops;
  op.bytes = work.hbm_bytes;
  op.label = label(name);
  OpInfo info = base_info();
  info.op_class = work.op_class;
  const sim::StreamId stream = a_.streams(sim_rank_).compute;
  const sim::OpId id = a_.add(op, std::span<const sim::StreamId>(&stream, 1), info);
  add_deps(id, deps);
  return Handle{id};
}

sim::OpId RankSink::transfer(std::string_view name, const CommOp& c, const std::vector<std::vector<int>>& groups) {
  const auto key = std::make_tuple(static_cast<int>(c.dim), static_cast<int>(c.kind) * 64 + c.peer_offset + 32,
                                   std::llround(c.bytes));
  auto [it, inserted] = payload_cache_.try_emplace(key, 0u);
  if (inserted) {
    CommRequest req;
    req.kind = c.kind;
    req.dim = c.dim;
    req.bytes = c.bytes;
    req.groups = groups;
    req.peer_offset = c.peer_offset;
    it->second = a_.planner().plan(req);
  }
  sim::Op op;
  op.kind = sim::OpKind::transfer;
  op.payload = it->second;
  op.bytes = c.bytes;
  op.label = label(name);
  OpInfo info = base_info();
  info.is_comm = true;
  info.comm_dim = c.dim;
  // The op occupies this dimension's channel on every simulated member of the group.
  std::vector<sim::StreamId> streams;
  for (int member : groups.front()) {
    const int s = a_.sim_index(member);
    if (s >= 0) streams.push_back(a_.streams(s).comm[idx(c.dim)]);
  }
  return a_.add(op, streams, info);
}

OpSink::Handle RankSink::emit_comm(std::string_view name, const CommOp& c, std::span<const Handle> deps) {
  const auto& groups = a_.groups(c.dim, rank_);
  sim::OpId id;
  if (a_.mode() == RankMode::all) {
    const int seq = comm_seq_[idx(c.dim)]++;
    const auto key = std::make_tuple(static_cast<int>(c.dim), groups.front().front(), seq);
    auto it = a_.shared_collectives().find(key);
    if (it != a_.shared_collectives().end()) {
      id = it->second;
    } else {
      id = transfer(name, c, groups);
      a_.shared_collectives().emplace(key, id);
    }
  } else {
    id = transfer(name, c, groups);
  }
  add_deps(id, deps);
  return Handle{id};
}

}  // namespace stepsim::work
