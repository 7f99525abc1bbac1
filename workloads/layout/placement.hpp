#pragma once
// Where the ranks of each parallel group sit relative to the scale-up (NVLink) domains.
//
// Ranks are numbered by the placement order (innermost first, Megatron's tp, cp, pp, dp); GPU g
// belongs to scale-up domain g / domain_size. A group whose members all share a domain talks over
// NVLink; one spread over several domains also crosses the NIC. Expert parallelism re-divides each
// stage's tp x cp x dp ranks as expert_tp x ep x expert_dp, as Megatron-Core does (rank_layout.hpp).

#include "workloads/model/job.hpp"

namespace stepsim::work {

/// The communicator kinds the estimate prices.
enum class RankGroup : std::uint8_t {
  tp,         ///< tensor parallel
  cp,         ///< context parallel
  pp,         ///< pipeline stages
  dp,         ///< data parallel (replicas)
  dp_cp,      ///< gradient reduction of non-expert weights: data x context parallel
  ep,         ///< expert parallel (Megatron-Core: expert_tp x ep x expert_dp over a stage's ranks)
  expert_dp,  ///< gradient reduction of expert weights: the ranks holding the same experts
};

/// How one kind of group lies on the machine.
struct GroupPlacement {
  int size = 1;        ///< ranks per group
  int per_domain = 1;  ///< fewest members any group has inside one scale-up domain it touches
  int domains = 1;     ///< most scale-up domains one group spans
  /// True when every group lies inside one scale-up domain.
  bool inside_domain() const { return domains == 1; }
};

/// Placement of `group` for `par` on a machine whose scale-up domains hold `domain_size` GPUs.
/// Enumerates every rank once, so it is exact for any order and any (even ragged) domain size.
GroupPlacement place(const ParallelSpec& par, RankGroup group, int domain_size);

/// Lower-case name ("tp", "dp_cp", "expert_dp").
std::string_view name(RankGroup g);

}  // namespace stepsim::work
