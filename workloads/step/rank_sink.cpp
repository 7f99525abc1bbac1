#include "workloads/step/rank_sink.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>
#include <utility>

#include "sim/memory.hpp"
#include "topology/compute_model.hpp"
#include "workloads/layout/deepep.hpp"
#include "workloads/model/names.hpp"
#include "workloads/step/step_size.hpp"

namespace stepsim::work {
namespace {

constexpr std::size_t idx(ParallelDim d) {
  return static_cast<std::size_t>(d);
}

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

namespace {

/// Kernels a PyTorch training framework launches per compute op stepsim simulates: DeepSeek's
/// training profile on H800 launches 951 kernels, memsets and copies in the window whose compute
/// ops stepsim simulates as 340 (layers 3-6 of micro-batch 0, scenarios/profiles/
/// deepseek-v3-ep64-h800.toml; `stepsim profile`, checked by tests/scripts/profile/
/// check_deepseek_profile.py): 951 / 340 = 2.80. The ops stepsim lacks (rotary, copies, fills,
/// reductions) and the several kernels behind one modelled op (split-K, casts, transposes) are launched too.
constexpr double kFrameworkKernelsPerOp = 2.80;

/// Host time per launch. Training runs in a PyTorch framework (Megatron-LM, NeMo, torchtitan): each
/// kernel costs the GPU's host_framework_s (module code, autograd, allocator, launch; measured in
/// DeepSeek's profile) and a simulated op stands for kFrameworkKernelsPerOp kernels. Inference
/// engines launch from C++ or replay graphs: a bare launch (host_launch_s) per op.
StepAssembler::HostCosts host_costs_of(const JobSpec& job) {
  const topo::GpuSpec& g = job.cluster.gpu;
  if (job.workload.kind == WorkloadKind::train && g.host_framework_s > 0.0)
    return {kFrameworkKernelsPerOp * g.host_framework_s, g.host_framework_s, g.host_launch_s};
  return {g.host_launch_s, g.host_launch_s, g.host_launch_s};
}

}  // namespace

StepAssembler::StepAssembler(const JobSpec& job, CommPlanner& planner, RankMode mode)
    : job_(job),
      planner_(planner),
      mode_(mode),
      host_costs_(host_costs_of(job)),
      host_timeline_(!job.workload.cuda_graphs && host_costs_.op_s > 0.0),
      layout_(job.parallel) {
  sim_index_.assign(static_cast<std::size_t>(layout_.world()), -1);
  // Room for the whole graph up front, from the closed-form size (an upper estimate, 1.1 to 2.7
  // times the ops emitted): no reallocation copies while building, and the tables are advised
  // huge pages before their first touch. Reserved but untouched pages cost address space only.
  // Where the address space is short (strict overcommit), building grows the tables instead.
  const double estimate = step_size(job, mode).graph_ops;
  const std::size_t ops = estimate > 0.0 ? static_cast<std::size_t>(std::min(estimate, 4.0e8)) : 0;
  try {
    graph_.reserve(ops, 2 * ops, 2 * ops);
    sim::reserve_huge(info_, ops);
    host_sync_.reserve(ops);
  } catch (const std::bad_alloc&) {
  }
  std::vector<int> simulated;
  if (mode == RankMode::all) {
    for (int r = 0; r < layout_.world(); ++r) simulated.push_back(r);
  } else {
    for (int s = 0; s < job.parallel.pp; ++s) simulated.push_back(layout_.rank({0, 0, s, 0}));
  }
  sim::Processor proc{job.cluster.gpu.comm_sm_fraction, job.parallel.ep_overlap,
                      job.parallel.reserve_comm_sms, job.cluster.gpu.comm_interference};
  // A collective's kernels hold the SMs of their channels (TransferInfo::ctas), and collectives
  // running at once add up, where the GPU's SM count is known.
  proc.transfer_shares = job.cluster.gpu.sms > 0 && job.cluster.gpu.comm_sm_fraction > 0.0;
  // Expert-parallel kernels that hold their own number of SMs (DeepEP's): while they run they take
  // that share; where the step reserves communication's SMs, theirs are what it reserves.
  ep_kernel_sms_ = job.model.is_moe() ? ep_comm_sms(job, layout_) : 0;
  const bool ep_alt = ep_kernel_sms_ > 0 && !job.parallel.reserve_comm_sms;
  if (ep_kernel_sms_ > 0) {
    const double share = static_cast<double>(ep_kernel_sms_) / job.cluster.gpu.sms;
    if (job.parallel.reserve_comm_sms)
      proc.comm_slowdown = share;
    else
      proc.alt_comm_slowdown = share;
  }
  for (int r : simulated) {
    sim_index_[static_cast<std::size_t>(r)] = static_cast<int>(ranks_.size());
    const sim::ProcessorId p = graph_.add_processor(proc);
    RankStreams s;
    s.compute = graph_.add_stream(p, sim::StreamRole::compute, stream_label(r, "compute"));
    for (ParallelDim d : {ParallelDim::tp, ParallelDim::cp, ParallelDim::ep, ParallelDim::dp})
      s.comm[idx(d)] =
          graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "comm." + std::string(name(d))),
                            ep_alt && d == ParallelDim::ep);
    s.send_next = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "pp.send_next"));
    s.recv_prev = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "pp.recv_prev"));
    s.send_prev = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "pp.send_prev"));
    s.recv_next = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "pp.recv_next"));
    s.expert_tp = s.comm[idx(ParallelDim::tp)];
    s.expert_dp = s.comm[idx(ParallelDim::dp)];
    s.stage = s.comm[idx(ParallelDim::dp)];
    if (job.reduces_fp8_amax())
      s.stage = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "comm.amax"));
    if (job.model.is_moe()) {
      s.expert_tp = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "comm.expert_tp"));
      s.expert_dp = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "comm.expert_dp"));
    }
    // The host's launches are delay ops on a stream of their own: communication never slows them,
    // and traces show them beside the GPU's streams.
    s.tp_copy = s.comm[idx(ParallelDim::tp)];
    if (job.parallel.tp_comm_overlap != TpCommOverlap::off && job.parallel.tp > 1)
      s.tp_copy = graph_.add_stream(p, sim::StreamRole::copy, stream_label(r, "copy.tp"));
    if (host_timeline_) s.host = graph_.add_stream(p, sim::StreamRole::compute, stream_label(r, "host"));
    streams_.push_back(s);
    ranks_.push_back(SimRank{r, layout_.coords(r).pp, p, s.compute});
    if (job.parallel.ep_overlap) {
      // The pair's backward: its own compute stream (sharing the SMs) and the channels its
      // collectives take, so that the two micro-batches' all-to-alls do not queue behind each other.
      RankStreams b = s;
      b.compute = graph_.add_stream(p, sim::StreamRole::compute, stream_label(r, "compute.pair"));
      for (ParallelDim d : {ParallelDim::tp, ParallelDim::cp, ParallelDim::ep})
        b.comm[idx(d)] = graph_.add_stream(p, sim::StreamRole::comm,
                                           stream_label(r, "comm." + std::string(name(d)) + ".pair"),
                                           ep_alt && d == ParallelDim::ep);
      b.expert_tp = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "comm.expert_tp.pair"));
      // Its data-parallel collectives (ZeRO-3's gathers and reduce-scatters, the last micro-batch's
      // buckets) and amax reductions too: the two halves take turns on the compute stream, so one
      // channel shared in emission order (the whole backward's, then the forward's) would make
      // the forward's gathers wait behind the backward's late reductions, which wait for the
      // forward's turns. The optimizer waits for both (RankSink::pair_dp_tails).
      b.comm[idx(ParallelDim::dp)] =
          graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "comm.dp.pair"));
      b.stage = b.comm[idx(ParallelDim::dp)];
      if (job.reduces_fp8_amax())
        b.stage = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "comm.amax.pair"));
      if (job.model.is_moe())
        b.expert_dp = graph_.add_stream(p, sim::StreamRole::comm, stream_label(r, "comm.expert_dp.pair"));
      // A training pair's launches interleave with the forward's as one host thread issues them
      // (RankSink::run_segments_in_turns); serving's halves launch in emission order on one.
      if (host_timeline_ && job.workload.kind == WorkloadKind::train)
        b.host = graph_.add_stream(p, sim::StreamRole::compute, stream_label(r, "host.pair"));
      if (s.tp_copy != s.comm[idx(ParallelDim::tp)])
        b.tp_copy = graph_.add_stream(p, sim::StreamRole::copy, stream_label(r, "copy.tp.pair"));
      else
        b.tp_copy = b.comm[idx(ParallelDim::tp)];
      pair_streams_.push_back(b);
      ranks_.back().compute_pair = b.compute;
    }
    if (is_dualpipe(job.parallel.schedule)) {
      // Deferred weight gradients: kernels only, on a compute stream of their own that runs only
      // while the main stream waits at a weight step.
      RankStreams w = s;
      w.compute = graph_.add_stream(p, sim::StreamRole::compute, stream_label(r, "compute.weights"));
      weight_streams_.push_back(w);
      ranks_.back().compute_weights = w.compute;
    }
  }
}

sim::OpId StepAssembler::add_host_op(int sim_rank, int lane, Time duration, sim::LabelId label,
                                     const OpInfo& info) {
  sim::Op op;
  op.kind = sim::OpKind::delay;
  op.bound = topo::tag(topo::Resource::host);
  op.work = duration;
  op.label = label;
  OpInfo i = info;
  i.is_host = true;
  const sim::StreamId stream = streams(sim_rank, lane).host;
  return add(op, std::span<const sim::StreamId>(&stream, 1), i);
}

int StepAssembler::sim_index(int rank) const {
  return sim_index_[static_cast<std::size_t>(rank)];
}

sim::OpId StepAssembler::add(const sim::Op& op, std::span<const sim::StreamId> streams, const OpInfo& info) {
  const sim::OpId id = graph_.add_op(op, streams);
  info_.push_back(info);
  host_sync_.push_back(false);
  return id;
}

namespace {
/// The communicator of `rank` along `d`. Data-parallel traffic (gradients, ZeRO shards) spans the
/// context-parallel ranks too, since they hold the same weights; expert weights reduce over the
/// ranks holding the same experts, and expert tensor parallelism has its own groups.
std::vector<int> group_of(const RankLayout& layout, int rank, ParallelDim d, CommScope scope, int shard) {
  if (scope == CommScope::expert && d == ParallelDim::dp) return layout.expert_dp_group(rank);
  if (scope == CommScope::stage) return layout.stage_group(rank);
  if (scope == CommScope::shard || scope == CommScope::replica) {
    // HSDP: consecutive blocks of `shard` ranks of the (sorted) dp x cp group shard the weights;
    // the ranks at the same position of every block hold the same shard.
    const std::vector<int> all = layout.grad_group(rank);
    const auto pos = static_cast<std::size_t>(std::find(all.begin(), all.end(), rank) - all.begin());
    const auto s = static_cast<std::size_t>(shard);
    std::vector<int> out;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (scope == CommScope::shard ? i / s == pos / s : i % s == pos % s) out.push_back(all[i]);
    return out;
  }
  if (scope == CommScope::expert && d == ParallelDim::tp) return layout.expert_tp_group(rank);
  return d == ParallelDim::dp ? layout.grad_group(rank) : layout.group(rank, d);
}
}  // namespace

const std::vector<std::vector<int>>& StepAssembler::groups(ParallelDim d, int rank, CommScope scope) {
  // Representative mode: every group along d at this rank's pipeline stage (they run in lock step).
  // Full mode: the rank's own group only.
  const int key = mode_ == RankMode::all ? rank : layout_.coords(rank).pp;
  auto [it, inserted] = group_cache_.try_emplace(GroupKey{d, scope, key});
  if (!inserted) return it->second;
  auto& out = it->second;
  const int shard = job_.parallel.dense_shard_ranks();
  out.push_back(group_of(layout_, rank, d, scope, shard));
  if (mode_ == RankMode::representative && scope != CommScope::stage) {  // a stage is one group
    for (int r = 0; r < layout_.world(); ++r) {
      if (layout_.coords(r).pp != key || r == out.front().front()) continue;
      auto g = group_of(layout_, r, d, scope, shard);
      if (g.front() == r) out.push_back(std::move(g));
    }
  }
  return out;
}

sim::OpId StepAssembler::shared_collective(const CollectiveKey& key) const {
  const auto it = shared_.find(key);
  return it == shared_.end() ? sim::StepGraph::kNoOp : it->second;
}

void StepAssembler::share_collective(const CollectiveKey& key, sim::OpId op) {
  shared_.emplace(key, op);
}

std::uint16_t StepAssembler::add_comm_groups(const std::vector<std::vector<int>>& groups) {
  if (comm_groups_.size() >= OpInfo::kNoCommGroups)
    throw std::logic_error("step build: more than 65,534 distinct collective group sets");
  comm_groups_.push_back(groups);
  return static_cast<std::uint16_t>(comm_groups_.size() - 1);
}

std::uint16_t StepAssembler::comm_groups_id(const std::vector<std::vector<int>>& groups) {
  if (mode_ != RankMode::representative) return OpInfo::kNoCommGroups;
  const auto [it, inserted] = comm_groups_by_address_.try_emplace(&groups, 0);
  if (inserted) it->second = add_comm_groups(groups);
  return it->second;
}

std::uint16_t StepAssembler::comm_groups_id(const std::vector<std::vector<int>>& groups,
                                            std::pair<int, int> pair) {
  if (mode_ != RankMode::representative) return OpInfo::kNoCommGroups;
  const auto [it, inserted] = comm_groups_by_pair_.try_emplace(pair, 0);
  if (inserted) it->second = add_comm_groups(groups);
  return it->second;
}

std::vector<BalancedOp> StepAssembler::take_balanced() {
  std::vector<BalancedOp> out;
  out.reserve(balanced_.size());
  for (const auto& [op, b] : balanced_) out.push_back(b);
  balanced_.clear();
  return out;
}

sim::OpId StepAssembler::add_pipeline_send(const CommRequest& req, int from, int to, Pass pass,
                                           int microbatch, std::string_view label, bool downstream) {
  const RankStreams& src = streams(from);
  const RankStreams& dst = streams(to);
  const std::array<sim::StreamId, 2> ends{downstream ? src.send_next : src.send_prev,
                                          downstream ? dst.recv_prev : dst.recv_next};
  sim::Op op;
  op.kind = sim::OpKind::transfer;
  op.payload = planner_.plan(req);
  op.bytes = req.bytes;
  op.label = graph_.intern(label);
  OpInfo info;
  info.pass = pass;
  info.is_comm = true;
  info.comm_dim = ParallelDim::pp;
  info.comm_groups = comm_groups_id(req.groups, {from, to});
  info.microbatch = microbatch;
  info.rank = static_cast<std::uint16_t>(from);
  return add(op, ends, info);
}

}  // namespace stepsim::work
