// TrainStepBuilder's pipeline links: each stage boundary's send joined to the receiving stage's
// first op, for the simulated ranks and the images of the ranks they stand for.
#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "sim/error.hpp"
#include "workloads/step/train_step_builder.hpp"

namespace stepsim::work {
namespace detail {

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
      const int from_stage = stage_of_boundary(send.key.vstage), to_stage = stage_of_boundary(to_vs);
      if (from_stage == to_stage) {
        // DualPipeV's turn: the last rank runs both chunks either side of it; nothing is sent.
        a_.graph().add_dependency(send.producer.id, a_.gpu_op(entry->second.op));
        continue;
      }
      // Every replica's copy of this boundary crosses the fabric at the same moment.
      CommRequest req;
      req.kind = CollectiveKind::send_recv;
      req.dim = ParallelDim::pp;
      req.communicator_ranks = job_.parallel.pp;
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
      // 1F1B and interleaving send activations downstream (the last rank's to the first, for the
      // next model chunk) and gradients upstream; DualPipe's second direction the other way round.
      const bool downstream = is_dualpipe(kind_) ? to_stage == from_stage + 1 : fwd;
      const sim::OpId id =
          a_.add_pipeline_send(req, static_cast<int>(s), dst_sim, fwd ? Pass::forward : Pass::backward,
                               send.key.microbatch, fwd ? "pp.send_act" : "pp.send_grad", downstream);
      a_.graph().add_dependency(send.producer.id, id);
      a_.graph().add_dependency(id, a_.gpu_op(entry->second.op));
      if (!time_steps_.empty()) {
        lockstep_exchange(static_cast<int>(s), send, dst_sim, id);
        continue;
      }
      // DualPipe waits for every posted send and receive before its next chunk (_commit_and_wait_comm).
      if (job_.parallel.pp_p2p == P2pMode::blocking || is_dualpipe(kind_)) {
        // The sender's next step waits for the exchange (Megatron's batch_isend_irecv followed by a
        // synchronize). Receives are taken as posted in advance, as Megatron's paired calls post them.
        const auto& sender = steps_[s];
        if (send.step + 1 < static_cast<int>(sender.size()))
          a_.graph().add_dependency(id, sender[send.step + 1].first);
      }
    }
  }
}

void TrainStepBuilder::lockstep_exchange(int sender_sim, const PendingSend& send, int receiver_sim,
                                         sim::OpId transfer) {
  // torch.distributed.pipelining's PipelineScheduleMulti._step_microbatches (PyTorch <= 2.8): at
  // time step t each rank runs its action, then batch_isend_irecv's its sends with the receives of
  // what its neighbours' actions at t produce and work.wait()s for all of them, so its next
  // action's kernels queue behind the whole batch. A transfer starts once both ends have posted it.
  const auto& sender = steps_[static_cast<std::size_t>(sender_sim)];
  const auto times = [&](int sim_rank) -> const std::vector<int>& {
    return time_steps_[static_cast<std::size_t>(a_.ranks()[static_cast<std::size_t>(sim_rank)].stage)];
  };
  const int t = times(sender_sim)[static_cast<std::size_t>(send.step)];
  a_.graph().add_dependency(sender[static_cast<std::size_t>(send.step)].end, transfer);
  if (send.step + 1 < static_cast<int>(sender.size()))
    a_.graph().add_dependency(transfer, a_.gpu_op(sender[static_cast<std::size_t>(send.step) + 1].first));
  // The receiver posts its receive after its own action at t, or (an empty step) after its last
  // action before t; its first action after t waits for the data.
  const auto& receiver = steps_[static_cast<std::size_t>(receiver_sim)];
  const auto& received = times(receiver_sim);
  const auto after = std::upper_bound(received.begin(), received.end(), t) - received.begin();
  if (after > 0) a_.graph().add_dependency(receiver[static_cast<std::size_t>(after) - 1].end, transfer);
  if (after < static_cast<std::ptrdiff_t>(receiver.size()))
    a_.graph().add_dependency(transfer, a_.gpu_op(receiver[static_cast<std::size_t>(after)].first));
}

}  // namespace detail
}  // namespace stepsim::work
