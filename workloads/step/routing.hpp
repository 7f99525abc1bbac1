#pragma once
// How one MoE layer's tokens reach their experts across an expert-parallel group: a seeded,
// deterministic model of expert load, the capacity limit (token dropping), node-limited routing, and
// what that makes every EP rank send, receive and compute.
//
// Load model. Expert popularity follows an exponential profile over the experts sorted by load,
// share_j proportional to exp(-beta j / (E - 1)), with beta chosen so that the busiest expert's
// expected load is `imbalance` times the mean (1 = balanced, beta = 0). A token picks an expert at
// most once, so imbalance is at most E / top_k. The seed shuffles which experts (hence which ranks)
// are hot, differently in every layer. Counts are expectations, not samples: the same inputs give the
// same matrix on every platform.
//
// Capacity. With capacity factor c, each source rank keeps at most c x T k / E copies per expert
// (GShard, Megatron-Core's per-rank drop policy); the rest are dropped.
//
// Node-limited routing (DeepSeek-V3: each token reaches at most M nodes). A token's copies for a
// remote node cross the fabric once, to the GPU with the same in-node index (its rail peer), which
// forwards them over NVLink to the GPUs holding the experts; copies for the source's own node go
// directly. Each GPU gets a token once however many of its experts the token picked (DeepEP's
// dispatch), also when the EP group is one node. Without a limit every copy goes straight to its
// expert's GPU (Megatron's all-to-all).

#include <cstdint>
#include <vector>

#include "workloads/model/job.hpp"

namespace stepsim::work {

struct RoutingInputs {
  int experts = 0;             ///< routed experts E
  int top_k = 0;               ///< experts per token k
  double tokens_per_rank = 0;  ///< tokens each EP rank routes per micro-batch (T)
  std::vector<int> node_of;    ///< node of each EP rank (EP index order); its size is ep
  double vector_bytes = 0.0;   ///< bytes of one token's hidden vector (fills the byte matrices)
  /// Bytes of one dispatched vector (FP8 dispatch: less than vector_bytes); 0 = vector_bytes.
  double dispatch_vector_bytes = 0.0;
  MoeSpec moe;  ///< imbalance, capacity factor, node limit, seed
};

/// Which EP rank carries the heaviest load.
enum class HotRank : std::uint8_t {
  as_drawn,  ///< where the seed puts it (every rank simulated)
  first,     ///< relabelled (a symmetry of nodes and in-node positions) so that EP index 0 is the
             ///< busiest in every layer: the rank a representative simulation follows
};

/// One EP rank's share of a layer's expert work.
struct ExpertLoad {
  double copies = 0.0;          ///< token copies its experts process (after drops)
  double active_experts = 0.0;  ///< its experts expected to receive at least one token
};

struct LayerRouting {
  int ep = 1;
  int experts_per_rank = 1;
  /// ep x ep row-major: hidden vectors rank i sends to rank j in the dispatch (diagonal: kept
  /// locally). The combine sends the transpose back.
  std::vector<double> dispatch;
  std::vector<double> combine;
  std::vector<double> dispatch_bytes;  ///< dispatch x RoutingInputs::vector_bytes
  std::vector<double> combine_bytes;
  double mean_sent_bytes = 0.0;     ///< what a rank sends in the dispatch, averaged over the ranks
  double mean_combine_bytes = 0.0;  ///< the same for the combine
  std::vector<ExpertLoad> ranks;    ///< by EP index
  /// Hidden vectors each EP rank ends up holding for its own experts, by EP index: one per (token,
  /// rank) under the node-limited (DeepEP) dispatch, which its permute expands into the rank's
  /// copies; every copy under the direct dispatch.
  std::vector<double> delivered;
  double dropped_fraction = 0.0;    ///< of all token copies
  double expert_imbalance = 1.0;    ///< max / mean expected expert load, after drops
  double rank_imbalance = 1.0;      ///< max / mean copies per rank
  /// True when every pair carries the same bytes: a plain all-to-all describes the dispatch.
  bool uniform = true;

  /// Token copies rank `i` sends in the dispatch (its row, the diagonal included).
  double sent(int i) const;
  /// Token copies rank `j` receives in the dispatch (its column, the diagonal included).
  double received(int j) const;
};

/// Routes layer `layer` (the seed is mixed with it). Throws UserError when imbalance exceeds
/// E / top_k or the EP ranks do not divide the experts.
LayerRouting route_layer(const RoutingInputs& in, int layer, HotRank hot);

}  // namespace stepsim::work
