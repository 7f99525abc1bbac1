// RankSink, the OpSink of one simulated rank: its kernels, host launches and synchronisations, and
// its collectives (each shared by the ranks of its group), added to the StepAssembler's graph.
#include <algorithm>
#include <cmath>
#include <utility>

#include "topology/compute_model.hpp"
#include "workloads/model/names.hpp"
#include "workloads/step/rank_sink.hpp"

namespace stepsim::work {

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

sim::OpId RankSink::launch(double seconds) {
  if (!a_.host_timeline()) return sim::StepGraph::kNoOp;
  return host_op(from_seconds(seconds), a_.launch_label());
}

sim::OpId RankSink::host_op(Time duration, sim::LabelId label) {
  const int lane = lane_ == 1 ? 1 : 0;  // deferred weight gradients launch from the main thread
  const sim::OpId h = a_.add_host_op(sim_rank_, lane, duration, label, base_info());
  const auto l = static_cast<std::size_t>(lane);
  if (lane == 0) {
    if (host_resume_after_ != sim::StepGraph::kNoOp) a_.graph().add_dependency(host_resume_after_, h);
    host_resume_after_ = sim::StepGraph::kNoOp;
    last_main_host_ = h;
  }
  if (tracking_) keep_in_segment(host_segments_[l], host_index_[l], h);
  return h;
}

void RankSink::on_host_sync(Handle op, std::string_view name) {
  if (!a_.host_timeline() || !op.valid()) return;
  // Waking up on the GPU's event costs about one launch; then launching resumes.
  if (tracking_ && lane_ < 2) {
    const auto l = static_cast<std::size_t>(lane_);
    host_index_[l] = boundaries_[l] + 1;
  }
  const sim::OpId h = host_op(from_seconds(a_.host_costs().launch_s), a_.graph().intern(name));
  a_.mark_host_sync(h);
  a_.graph().add_dependency(op.id, h);
}

void RankSink::begin_deferral() {
  deferring_ = true;
  deferred_ = {};
  deferred_ops_.clear();
}

RankSink::Deferred RankSink::end_deferral() {
  deferring_ = false;
  deferred_ops_.clear();
  return std::exchange(deferred_, Deferred{});
}

OpSink::Handle RankSink::emit_kernel(std::string_view name, const topo::KernelWork& work,
                                     std::span<const Handle> deps) {
  const int lane = lane_;
  if (deferring_ && (work.weight_grad || std::any_of(deps.begin(), deps.end(), [&](Handle d) {
                       return d.valid() &&
                              std::binary_search(deferred_ops_.begin(), deferred_ops_.end(), d.id);
                     }))) {
    lane_ = kWeightLane;
    if (!deferred_.gate.valid()) deferred_.gate = barrier(Handle{}, "weights.gate");
    const Handle h = emit_kernel_on_lane(name, work, deps);
    deferred_ops_.push_back(h.id);
    deferred_.last = h;
    lane_ = lane;
    return h;
  }
  return emit_kernel_on_lane(name, work, deps);
}

OpSink::Handle RankSink::emit_kernel_on_lane(std::string_view name, const topo::KernelWork& work,
                                             std::span<const Handle> deps) {
  const StepAssembler::HostCosts& hc = a_.host_costs();
  const sim::OpId host = launch(work.launches * (work.inner_launch ? hc.launch_s : hc.op_s));
  const topo::KernelTime t = named_kernel_time(a_.job().cluster.gpu, name, work);
  sim::Op op;
  op.kind = sim::OpKind::compute;
  op.bound = topo::tag(t.bound);
  op.work = t.duration;
  op.flops = work.flops.value();
  op.bytes = work.hbm_bytes.value();
  op.sm_margin = work.sm_margin;
  op.label = label(name);
  OpInfo info = base_info();
  info.op_class = work.op_class;
  const sim::StreamId stream = a_.streams(sim_rank_, lane_).compute;
  const sim::OpId id = a_.add(op, std::span<const sim::StreamId>(&stream, 1), info);
  if (host != sim::StepGraph::kNoOp) a_.graph().add_dependency(host, id);
  add_deps(id, deps);
  last_[static_cast<std::size_t>(lane_)] = Handle{id};
  if (tracking_ && lane_ < 2) {
    const auto l = static_cast<std::size_t>(lane_);
    keep_in_segment(segments_[l], boundaries_[l], id);
  }
  return Handle{id};
}

OpSink::Handle RankSink::barrier(Handle after, std::string_view name) {
  sim::Op op;
  op.kind = sim::OpKind::delay;
  op.label = label(name);
  const sim::StreamId stream = a_.streams(sim_rank_, lane_).compute;
  const sim::OpId id = a_.add(op, std::span<const sim::StreamId>(&stream, 1), base_info());
  if (after.valid()) a_.graph().add_dependency(after.id, id);
  last_[static_cast<std::size_t>(lane_)] = Handle{id};
  return Handle{id};
}

std::uint32_t RankSink::payload(const CommOp& c, const std::vector<std::vector<int>>& groups) {
  const PayloadKey key{
      c.dim, c.scope, c.kind, c.peer_offset, std::llround(c.bytes), c.pair_bytes.empty() ? -1 : c.pattern,
      c.sms};
  auto [it, inserted] = payload_cache_.try_emplace(key, 0u);
  if (inserted) {
    CommRequest req;
    req.kind = c.kind;
    req.dim = c.dim;
    req.bytes = c.bytes;
    req.groups = groups;
    req.peer_offset = c.peer_offset;
    req.pair_bytes.assign(c.pair_bytes.begin(), c.pair_bytes.end());
    req.average = averages_in_collective(a_.job(), c.dim, c.kind);
    req.kernel_sms = c.sms;
    if (c.dim == ParallelDim::ep && c.kind == CollectiveKind::all_to_all && a_.ep_kernel_sms() > 0)
      req.ep_kernels = {a_.ep_kernel_sms(), a_.job().model.experts, a_.job().model.top_k};
    it->second = a_.planner().plan(req);
  }
  return it->second;
}

sim::OpId RankSink::transfer(std::string_view name, const CommOp& c,
                             const std::vector<std::vector<int>>& groups) {
  const std::uint32_t id = payload(c, groups);
  sim::Op op;
  op.kind = sim::OpKind::transfer;
  op.payload = id;
  op.bytes = c.bytes;
  op.label = label(name);
  OpInfo info = base_info();
  info.is_comm = true;
  info.comm_dim = c.dim;
  info.comm_groups = a_.comm_groups_id(groups);
  // The op occupies this dimension's channel on every simulated member of the group.
  std::vector<sim::StreamId> streams;
  for (int member : groups.front()) {
    const int s = a_.sim_index(member);
    if (s < 0) continue;
    const RankStreams& rs = a_.streams(s, lane_);
    streams.push_back(c.copy_engine && c.dim == ParallelDim::tp ? rs.tp_copy : rs.channel(c.dim, c.scope));
  }
  return a_.add(op, streams, info);
}

OpSink::Handle RankSink::emit_comm(std::string_view name, const CommOp& c, std::span<const Handle> deps) {
  const auto& groups = a_.groups(c.dim, rank_, c.scope);
  const sim::OpId host = launch(c.inner_launch ? a_.host_costs().launch_s : a_.host_costs().call_s);
  // A collective that ends its lane's segment: the lane's next kernels start the next one.
  if (tracking_ && lane_ < 2 &&
      (rule_ == SegmentRule::any_collective ||
       (c.dim == ParallelDim::ep && c.kind == CollectiveKind::all_to_all && c.scope == CommScope::dense))) {
    const auto l = static_cast<std::size_t>(lane_);
    ++boundaries_[l];
    host_index_[l] = std::max(host_index_[l], boundaries_[l]);
  }
  sim::OpId id;
  if (a_.mode() == RankMode::all) {
    // Copy-engine steps have a sequence of their own, after every dimension x scope's.
    const int channel =
        c.copy_engine ? 5 * kCommScopes : static_cast<int>(c.dim) * kCommScopes + static_cast<int>(c.scope);
    const int seq = comm_seq_[static_cast<std::size_t>(channel)]++;
    const StepAssembler::CollectiveKey key{channel, groups.front().front(), seq};
    id = a_.shared_collective(key);
    if (id == sim::StepGraph::kNoOp) {
      id = transfer(name, c, groups);
      a_.share_collective(key, id);
    }
  } else {
    id = transfer(name, c, groups);
  }
  if (host != sim::StepGraph::kNoOp) a_.graph().add_dependency(host, id);
  add_deps(id, deps);
  if (lane_ == 1 && c.dim == ParallelDim::dp)
    pair_dp_tails_[c.scope == CommScope::expert ? 1 : c.scope == CommScope::stage ? 2 : 0] = Handle{id};
  return Handle{id};
}

void RankSink::on_balanced_kernel(Handle op, const topo::KernelWork& balanced) {
  BalancedOp b;
  b.op = op.id;
  b.kernel = topo::kernel_time(a_.job().cluster.gpu, balanced).duration;  // its kind set by the layer
  b.flops = balanced.flops.value();
  a_.record_balanced(b);
}

void RankSink::on_balanced_comm(Handle op, const CommOp& balanced) {
  if (a_.has_balanced(op.id)) return;  // full mode: another member recorded it
  BalancedOp b;
  b.op = op.id;
  b.payload = payload(balanced, a_.groups(balanced.dim, rank_, balanced.scope));
  a_.record_balanced(b);
}

}  // namespace stepsim::work
