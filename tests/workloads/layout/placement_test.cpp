#include <catch2/catch.hpp>

#include "sim/error.hpp"
#include "workloads/layout/placement.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {
ParallelSpec par(int tp, int dp, int pp = 1, int cp = 1, int ep = 1) {
  ParallelSpec p;
  p.tp = tp;
  p.dp = dp;
  p.pp = pp;
  p.cp = cp;
  p.ep = ep;
  return p;
}
}  // namespace

TEST_CASE("TP innermost fills the NVLink domain, DP then crosses domains") {
  // tp 8 x dp 4 on 8-GPU domains: TP groups are ranks 8i..8i+7, DP groups {j, 8+j, 16+j, 24+j}.
  const ParallelSpec p = par(8, 4);
  const GroupPlacement tp = place(p, RankGroup::tp, 8);
  CHECK(tp.size == 8);
  CHECK(tp.per_domain == 8);
  CHECK(tp.inside_domain());
  const GroupPlacement dp = place(p, RankGroup::dp, 8);
  CHECK(dp.size == 4);
  CHECK(dp.per_domain == 1);
  CHECK(dp.domains == 4);
}

TEST_CASE("A small TP leaves room for DP ranks inside a domain") {
  // tp 2 x dp 8: DP group of rank 0 = {0,2,...,14}: 4 ranks in each of 2 domains.
  const GroupPlacement dp = place(par(2, 8), RankGroup::dp, 8);
  CHECK(dp.per_domain == 4);
  CHECK(dp.domains == 2);
  // tp 2 x dp 4 = 8 GPUs: everything inside one domain.
  CHECK(place(par(2, 4), RankGroup::dp, 8).inside_domain());
}

TEST_CASE("The placement order decides which group is innermost") {
  ParallelSpec p = par(8, 4);
  p.order = {ParallelDim::dp, ParallelDim::tp, ParallelDim::cp, ParallelDim::pp};
  // DP innermost: {0,1,2,3} inside a domain; TP stride 4 spans 4 domains of 8 with 2 members each.
  CHECK(place(p, RankGroup::dp, 8).inside_domain());
  const GroupPlacement tp = place(p, RankGroup::tp, 8);
  CHECK(tp.per_domain == 2);
  CHECK(tp.domains == 4);
}

TEST_CASE("Pipeline stages and context-parallel groups follow tp, cp, pp, dp") {
  // tp 2, cp 2, pp 4, dp 1 = 16 GPUs: CP stride 2 (inside a domain), PP stride 4 x 4 = 16 (two domains).
  const ParallelSpec p = par(2, 1, 4, 2);
  CHECK(place(p, RankGroup::cp, 8).inside_domain());
  const GroupPlacement pp = place(p, RankGroup::pp, 8);
  CHECK(pp.per_domain == 2);
  CHECK(pp.domains == 2);
  // Gradients of dense weights reduce over dp x cp = 2 ranks, stride 2: inside.
  CHECK(place(p, RankGroup::dp_cp, 8).size == 2);
}

TEST_CASE("Expert parallelism re-divides a stage's ranks as expert_tp x ep x expert_dp (Megatron-Core)") {
  // tp 2, dp 8, ep 4, expert_tp 1 on 8-GPU domains: the 16 ranks of the stage in order are
  // expert_tp 1 x ep 4 x expert_dp 4, so rank 0's EP group is {0,1,2,3} (it spans the TP pair): inside.
  ParallelSpec p = par(2, 8, 1, 1, 4);
  const GroupPlacement ep = place(p, RankGroup::ep, 8);
  CHECK(ep.size == 4);
  CHECK(ep.inside_domain());
  // Expert-data-parallel group: every 4th rank, {0, 4, 8, 12}: two per domain, two domains.
  GroupPlacement edp = place(p, RankGroup::expert_dp, 8);
  CHECK(edp.size == 4);
  CHECK(edp.per_domain == 2);
  CHECK(edp.domains == 2);
  // expert_tp 2: ranks are expert_tp 2 x ep 4 x expert_dp 2; EP = {0,2,4,6}, expert-DP = {0, 8}.
  p.expert_tp = 2;
  CHECK(place(p, RankGroup::ep, 8).inside_domain());
  edp = place(p, RankGroup::expert_dp, 8);
  CHECK(edp.size == 2);
  CHECK(edp.per_domain == 1);
  CHECK(edp.domains == 2);
  CHECK_THROWS_AS(place(par(1, 6, 1, 1, 4), RankGroup::ep, 8), UserError);  // 4 does not divide 6
}

TEST_CASE("Ragged domains: the worst-placed group counts") {
  // tp 4 x dp 3 = 12 GPUs in domains of 6: TP group {4,5,6,7} has 2 members in each of domains 0 and 1.
  const GroupPlacement tp = place(par(4, 3), RankGroup::tp, 6);
  CHECK(tp.per_domain == 2);
  CHECK(tp.domains == 2);
}
