#pragma once
// Rank placement: which GPU holds which (tp, cp, ep, pp, dp) coordinate, and the communicator groups
// each parallel dimension forms.
//
// Ranks are laid out like Megatron's: the first dimension of `order` varies fastest, so TP ranks sit
// on consecutive GPUs (inside an NVLink domain), then CP, then PP, then DP. GPU g lives on node
// g / gpus_per_node.
//
// Expert parallelism (MoE) follows Megatron-Core: the tp x cp x dp ranks of one pipeline stage, taken
// in ascending rank order, are re-divided as expert_tp (innermost) x ep x expert_dp. With
// expert_tp = 1 and tp = 1 an EP group is `ep` consecutive DP (x CP) ranks; with tp > 1 and
// expert_tp = 1 it also spans the TP ranks (DeepSeek-V3 recipes: TP 2, EP 64 on 64 ranks per stage).

#include <array>
#include <vector>

#include "workloads/model/job.hpp"

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
  /// out of each stage's ranks) and that ep x expert_tp divides tp x cp x dp; throws UserError otherwise.
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
  /// Every rank of `rank`'s pipeline stage (all tp, cp and dp indices), ascending: Megatron-Core's
  /// tensor-and-data-parallel group with context parallelism, where FP8 amaxes are reduced.
  std::vector<int> stage_group(int rank) const;
  /// Expert-parallel group of `rank`: same stage, expert-TP and expert-DP index; ordered by EP index.
  std::vector<int> ep_group(int rank) const;
  /// Ranks that split each of `rank`'s experts (same stage, EP and expert-DP index).
  std::vector<int> expert_tp_group(int rank) const;
  /// Ranks holding the same experts as `rank` (same stage, expert-TP and EP index), ascending.
  std::vector<int> expert_dp_group(int rank) const;
  /// Position of `rank` in its EP group (which experts it holds).
  int ep_index(int rank) const;
  /// Distance between consecutive ranks along `d` (1 for the innermost dimension).
  int stride(ParallelDim d) const;
  /// Position of `rank` among the tp x cp x dp ranks of its stage, in ascending rank order. The
  /// ranks at one position of every stage share every coordinate but pp.
  int stage_index(int rank) const;
  /// Inverse of stage_index for pipeline stage `stage`.
  int stage_rank(int stage, int index) const;

 private:
  int get(const RankCoords& c, ParallelDim d) const;
  /// Ranks of `rank`'s stage whose expert coordinates (etp, ep, edp) agree except the one of `which`
  /// (0 etp, 1 ep, 2 edp), ordered along it.
  std::vector<int> expert_group(int rank, int which) const;
  std::array<int, 5> size_{};    // indexed by ParallelDim
  std::array<int, 5> stride_{};  // indexed by ParallelDim
  int ep_ = 1;
  int expert_tp_ = 1;
  int world_ = 1;
};

}  // namespace stepsim::work
