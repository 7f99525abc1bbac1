#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>

#include "sim/error.hpp"
#include "workloads/step/routing.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

/// `ep` ranks, `per_node` to a node; E experts, top-k, T tokens per rank, hidden 1024 in bf16.
RoutingInputs inputs(int ep, int per_node, int experts, int top_k, double tokens, double imbalance = 1.0) {
  RoutingInputs in;
  in.experts = experts;
  in.top_k = top_k;
  in.tokens_per_rank = tokens;
  for (int i = 0; i < ep; ++i) in.node_of.push_back(i / per_node);
  in.vector_bytes = 1024 * 2.0;
  in.moe.imbalance = imbalance;
  return in;
}

double total(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

/// Hidden vectors rank i sends to ranks on other nodes.
double inter_node(const LayerRouting& r, const RoutingInputs& in, int i) {
  double sum = 0.0;
  for (int j = 0; j < r.ep; ++j)
    if (in.node_of[static_cast<std::size_t>(j)] != in.node_of[static_cast<std::size_t>(i)])
      sum += r.dispatch[static_cast<std::size_t>(i * r.ep + j)];
  return sum;
}

}  // namespace

TEST_CASE("a balanced router: every rank sends and receives tokens x top-k copies") {
  // ep 8 on two nodes, 8 experts, top-2, 1,024 tokens per rank: each rank sends T k = 2,048 copies,
  // 256 to every rank (itself included), and receives as many.
  const RoutingInputs in = inputs(8, 4, 8, 2, 1024);
  const LayerRouting r = route_layer(in, 0, HotRank::as_drawn);
  CHECK(r.uniform);
  for (int i = 0; i < 8; ++i) {
    CHECK(r.sent(i) == Approx(2048));
    CHECK(r.received(i) == Approx(r.sent(i)));
    CHECK(r.ranks[static_cast<std::size_t>(i)].copies == Approx(2048));
    CHECK(r.dispatch[static_cast<std::size_t>(i * 8 + 3)] == Approx(256));
  }
  // In bytes: tokens x hidden x top-k x 2 B = 1,024 x 1,024 x 2 x 2 = 4,194,304 per rank.
  CHECK(total(r.dispatch_bytes) / 8 == Approx(4'194'304.0));
  CHECK(r.rank_imbalance == Approx(1.0));
}

TEST_CASE("a skewed router keeps total bytes sent equal to bytes received") {
  const RoutingInputs in = inputs(8, 4, 16, 2, 1000, 3.0);
  const LayerRouting r = route_layer(in, 5, HotRank::as_drawn);
  CHECK_FALSE(r.uniform);
  double sent = 0.0, received = 0.0;
  for (int i = 0; i < 8; ++i) sent += r.sent(i), received += r.received(i);
  // Every rank still sends its T k = 2,000 copies; the busiest receives more than the mean.
  CHECK(sent == Approx(8 * 2000.0));
  CHECK(received == Approx(sent));
  for (int i = 0; i < 8; ++i) CHECK(r.sent(i) == Approx(2000.0));
  // The combine returns every copy: it is the transpose.
  CHECK(r.combine[1 * 8 + 6] == Approx(r.dispatch[6 * 8 + 1]));
  CHECK(r.expert_imbalance == Approx(3.0).epsilon(1e-9));
  // Max over mean copies per rank (routing.hpp's definition).
  double busiest = 0.0, copies = 0.0;
  for (const auto& rank : r.ranks) busiest = std::max(busiest, rank.copies), copies += rank.copies;
  CHECK(r.rank_imbalance > 1.0);
  CHECK(r.rank_imbalance == Approx(busiest / (copies / 8)).epsilon(1e-12));
}

TEST_CASE("the seed moves the hot experts, never the load profile, and the same seed repeats exactly") {
  RoutingInputs in = inputs(4, 4, 16, 4, 512, 2.0);
  const LayerRouting a = route_layer(in, 0, HotRank::as_drawn);
  const LayerRouting b = route_layer(in, 0, HotRank::as_drawn);
  CHECK(a.dispatch == b.dispatch);
  in.moe.seed = 99;
  const LayerRouting c = route_layer(in, 0, HotRank::as_drawn);
  CHECK(c.expert_imbalance == Approx(a.expert_imbalance));
  // Layers draw their own placement: not every layer puts the load on the same ranks.
  bool differs = false;
  for (int layer = 1; layer < 8 && !differs; ++layer)
    differs = route_layer(in, layer, HotRank::as_drawn).dispatch != a.dispatch;
  CHECK(differs);
}

TEST_CASE("relabelled routing puts the busiest rank first, with the same loads") {
  const RoutingInputs in = inputs(8, 4, 16, 2, 1000, 2.5);
  for (int layer = 0; layer < 6; ++layer) {
    const LayerRouting drawn = route_layer(in, layer, HotRank::as_drawn);
    const LayerRouting first = route_layer(in, layer, HotRank::first);
    double most = 0.0;
    for (const auto& l : drawn.ranks) most = std::max(most, l.copies);
    CHECK(first.ranks[0].copies == Approx(most));
    CHECK(first.rank_imbalance == Approx(drawn.rank_imbalance));
  }
}

TEST_CASE("the capacity factor drops copies above c x T k / E") {
  // 2 experts, top-1, imbalance 1.5: shares w0 = 1.5 / 2 = 0.75 and w1 = 0.25. Capacity factor 1:
  // at most T k / E = half of the copies per expert, so 0.75 - 0.5 = 0.25 of all copies are dropped.
  RoutingInputs in = inputs(2, 2, 2, 1, 1000, 1.5);
  in.moe.capacity_factor = 1.0;
  const LayerRouting r = route_layer(in, 0, HotRank::as_drawn);
  CHECK(r.dropped_fraction == Approx(0.25));
  // Of the 2 ranks x 1,000 copies, the hot expert keeps its cap, 0.5 x 2,000 = 1,000, the other its
  // 0.25 x 2,000 = 500; the busiest rank now does 1,000 / 750 = 1.33x the mean, not 1.5x.
  const double hot = std::max(r.ranks[0].copies, r.ranks[1].copies);
  const double cold = std::min(r.ranks[0].copies, r.ranks[1].copies);
  CHECK(hot == Approx(1000.0));
  CHECK(cold == Approx(500.0));
  CHECK(r.rank_imbalance == Approx(1000.0 / 750.0));
}

TEST_CASE("node-limited routing crosses the fabric at most M times per token") {
  // ep 16 on 4 nodes of 4, 16 experts, top-8, T = 100. Unlimited: 12 of every 16 copies leave the
  // node, 8 x 100 x 12/16 = 600 vectors per rank. With M = 2 a token reaches node n with
  // probability M x 1/4 = 1/2 and crosses once to it: 3 remote nodes x 1/2 x 100 = 150 <= M T = 200.
  RoutingInputs in = inputs(16, 4, 16, 8, 100);
  CHECK(inter_node(route_layer(in, 0, HotRank::as_drawn), in, 0) == Approx(600.0));
  in.moe.max_nodes_per_token = 2;
  const LayerRouting r = route_layer(in, 0, HotRank::as_drawn);
  for (int i = 0; i < 16; ++i) CHECK(inter_node(r, in, i) == Approx(150.0));
  // The experts still process every copy: 16 ranks x 100 tokens x 8 / 16 ranks = 800 each.
  for (const auto& l : r.ranks) CHECK(l.copies == Approx(800.0));
}

TEST_CASE("decode touches only the experts some token picks") {
  // One token, top-2 of 8 experts on one rank: each expert is picked with probability 2/8, so
  // 8 x (1 - (1 - 1/4)^1) = 2 experts are read.
  const LayerRouting r = route_layer(inputs(1, 1, 8, 2, 1), 0, HotRank::as_drawn);
  CHECK(r.ranks[0].active_experts == Approx(2.0));
  // 64 tokens: 8 x (1 - 0.75^64) = 8 - 8 x 1.0e-8.
  CHECK(route_layer(inputs(1, 1, 8, 2, 64), 0, HotRank::as_drawn).ranks[0].active_experts == Approx(8.0));
}

TEST_CASE("routing rejects an imbalance no top-k router can produce") {
  // A token reaches an expert at most once, so one expert holds at most 1/k of the copies:
  // max / mean <= E / k = 8 / 2 = 4.
  CHECK_THROWS_AS(route_layer(inputs(4, 4, 8, 2, 10, 4.5), 0, HotRank::as_drawn), UserError);
  CHECK_NOTHROW(route_layer(inputs(4, 4, 8, 2, 10, 4.0), 0, HotRank::as_drawn));
}

TEST_CASE("round-robin balanced routing through DeepEP: a token reaches only the ranks of its block") {
  // AutoModel's FakeBalancedGate: a rank's token t takes experts 8t .. 8t + 7 (mod 256). EP 64 on 8
  // nodes of 8, 4 experts per rank, T = 4,096 tokens per rank: the block starting at expert 8 s sits
  // on ranks 2 s and 2 s + 1, two ranks of one node. gcd(8, 256) = 8 gives 32 starts, 4,096 / 32 =
  // 128 tokens each; 4 starts per node. From a source, the starts of its own node go straight to both
  // ranks of their pair (128 tokens each); each remote start crosses once, to the rail peer (the
  // remote rank at the source's in-node position), which forwards the tokens to the pair's ranks.
  RoutingInputs in = inputs(64, 8, 256, 8, 4096);
  in.moe.max_nodes_per_token = 8;  // DeepEP's dispatch (the gate ignores node groups)
  in.moe.routing = MoeRouting::round_robin;
  const LayerRouting r = route_layer(in, 0, HotRank::as_drawn);
  // Fabric traffic: 7 of 8 starts are remote, one crossing each: 4,096 x 7 / 8 = 3,584 vectors,
  // against 4,096 x 8 x 7 / 8 = 28,672 copies of the direct dispatch and about 4,096 x 4.6 of a
  // random top-8 through the same DeepEP dispatch.
  for (int i = 0; i < 64; ++i) CHECK(inter_node(r, in, i) == Approx(3584.0));
  // Each token reaches 2 ranks: every rank ends up with 64 sources x 4,096 x 2 / 64 = 8,192 tokens,
  // expanded into its 4,096 x 64 x 8 / 64 = 32,768 copies (4 experts each token of the block).
  for (int j = 0; j < 64; ++j) {
    CHECK(r.delivered[static_cast<std::size_t>(j)] == Approx(8192.0));
    CHECK(r.ranks[static_cast<std::size_t>(j)].copies == Approx(32768.0));
  }
  // Row of rank 0 inside node 0: 128 tokens of its own to every rank (one start per pair); and as
  // the rail peer of the 7 remote sources at position 0 it forwards their 128 tokens of each start
  // to the ranks of node 0 other than itself: 128 + 7 x 128 = 1,024 to ranks 1-7.
  CHECK(r.dispatch[0] == Approx(128.0));
  for (int j = 1; j < 8; ++j) CHECK(r.dispatch[static_cast<std::size_t>(j)] == Approx(1024.0));
  // A remote node's rail peer (position 0, rank 8) receives 4 starts x 128 from rank 0.
  CHECK(r.dispatch[8] == Approx(512.0));
  // Random routing through the same dispatch spreads each token over more nodes.
  in.moe.routing = MoeRouting::random;
  CHECK(inter_node(route_layer(in, 0, HotRank::as_drawn), in, 0) > 4.0 * 3584.0);
}

TEST_CASE("delivered tokens: every copy under the direct dispatch, one per rank under DeepEP's") {
  // EP 8 in one node, 16 experts (2 per rank), top-4, T = 1,000, balanced random routing. Direct:
  // each rank receives every copy meant for its experts, 8 x 1,000 x 4 / 8 = 4,000. DeepEP: a token
  // reaches a rank unless all 4 copies miss its 2 of 16 experts (drawn with replacement, the model's
  // approximation): 8 sources x 1,000 x (1 - (14/16)^4) = 3,310.5 tokens, still 4,000 copies.
  RoutingInputs in = inputs(8, 8, 16, 4, 1000);
  const LayerRouting direct = route_layer(in, 0, HotRank::as_drawn);
  for (int j = 0; j < 8; ++j) CHECK(direct.delivered[static_cast<std::size_t>(j)] == Approx(4000.0));
  in.moe.max_nodes_per_token = 1;
  const LayerRouting deepep = route_layer(in, 0, HotRank::as_drawn);
  const double reach = 1.0 - std::pow(14.0 / 16.0, 4.0);
  for (int j = 0; j < 8; ++j) {
    CHECK(deepep.delivered[static_cast<std::size_t>(j)] == Approx(8000.0 * reach));
    CHECK(deepep.ranks[static_cast<std::size_t>(j)].copies == Approx(4000.0));
  }
}
