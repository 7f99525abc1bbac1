#pragma once
// Rank placement: which GPU holds which (tp, cp, ep, pp, dp) coordinate, and the communicator groups
// each parallel dimension forms.
//
// Ranks are laid out like Megatron's: the first dimension of `order` varies fastest, so TP ranks sit
// on consecutive GPUs (inside an NVLink domain), then CP, then PP, then DP. GPU g lives on node
// g / gpus_per_node. Expert parallelism (MoE) is carved out of the data-parallel ranks: an EP group is
// `ep` consecutive DP ranks (consecutive in DP index) at fixed tp/cp/pp coordinates.

#include <array>
#include <vector>

#include "workloads/job.hpp"

namespace stepsim::work {

/// A rank's position along each parallel dimension (indexed by ParallelDim).
struct RankCoords {
  int tp = 0;
  int cp = 0;
  int pp = 0;
  int dp = 0;
};

class RankLayout {
 public:
  /// Validates that `order` names tp, cp, pp and dp exactly once each (ep is ignored: it is carved
  /// out of dp); throws UserError otherwise.
  explicit RankLayout(const ParallelSpec& parallel);

  int world() const { return world_; }
  int size(ParallelDim d) const;
  RankCoords coords(int rank) const;
  int rank(const RankCoords& c) const;
  /// The ranks that share every coordinate with `rank` except `d`, ordered by their `d` index.
  std::vector<int> group(int rank, ParallelDim d) const;
  /// Every group along `d`, each ordered by `d` index, groups ordered by their smallest rank.
  std::vector<std::vector<int>> groups(ParallelDim d) const;
  /// The ranks that hold the same weights as `rank` and reduce gradients with it: every dp and cp
  /// index at the same tp/pp coordinates, in ascending rank order.
  std::vector<int> grad_group(int rank) const;
  /// Expert-parallel group of `rank`: `ep` consecutive DP indices at the same tp/cp/pp.
  std::vector<int> ep_group(int rank) const;
  /// Distance between consecutive ranks along `d` (1 for the innermost dimension).
  int stride(ParallelDim d) const;

 private:
  int get(const RankCoords& c, ParallelDim d) const;
  std::array<int, 5> size_{};    // indexed by ParallelDim
  std::array<int, 5> stride_{};  // indexed by ParallelDim
  int ep_ = 1;
  int world_ = 1;
};

}  // namespace stepsim::work
