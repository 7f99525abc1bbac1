#include <algorithm>
#include <catch2/catch.hpp>
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
