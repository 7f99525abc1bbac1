#include <catch2/catch.hpp>

#include "sim/error.hpp"
#include "workloads/layout/rank_layout.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {
ParallelSpec layout(int tp, int cp, int pp, int dp, int ep = 1) {
  ParallelSpec p;
  p.tp = tp;
  p.cp = cp;
  p.pp = pp;
  p.dp = dp;
  p.ep = ep;
  return p;
}
}  // namespace

TEST_CASE("Megatron order: TP ranks are consecutive, then CP, PP, DP") {
  const RankLayout pl(layout(8, 1, 4, 2));
  CHECK(pl.world() == 64);
  // rank = tp + 8 * (pp + 4 * dp): rank 43 = 3 + 8 * (1 + 4 * 1).
  const RankCoords c = pl.coords(43);
  CHECK(c.tp == 3);
  CHECK(c.pp == 1);
  CHECK(c.dp == 1);
  CHECK(pl.rank(c) == 43);
  CHECK(pl.group(43, ParallelDim::tp) == std::vector<int>{40, 41, 42, 43, 44, 45, 46, 47});
  CHECK(pl.group(43, ParallelDim::pp) == std::vector<int>{35, 43, 51, 59});
  CHECK(pl.group(43, ParallelDim::dp) == std::vector<int>{11, 43});
  CHECK(pl.groups(ParallelDim::tp).size() == 8);
  CHECK(pl.groups(ParallelDim::dp).size() == 32);
}

TEST_CASE("a custom order puts DP innermost") {
  ParallelSpec p = layout(2, 1, 1, 4);
  p.order = {ParallelDim::dp, ParallelDim::tp, ParallelDim::cp, ParallelDim::pp};
  const RankLayout pl(p);
  CHECK(pl.group(0, ParallelDim::dp) == std::vector<int>{0, 1, 2, 3});
  CHECK(pl.group(0, ParallelDim::tp) == std::vector<int>{0, 4});
}

TEST_CASE("expert-parallel groups are consecutive DP ranks") {
  const RankLayout pl(layout(1, 1, 2, 8, 4));
  // DP stride is tp * cp * pp = 2; EP groups of 4 DP ranks at pp = 0: ranks 0, 2, 4, 6 and 8, ..., 14.
  CHECK(pl.ep_group(4) == std::vector<int>{0, 2, 4, 6});
  CHECK(pl.ep_group(10) == std::vector<int>{8, 10, 12, 14});
  CHECK(pl.groups(ParallelDim::ep).size() == 4);
}

TEST_CASE("a bad order or EP size is a user error") {
  ParallelSpec p = layout(2, 1, 1, 4);
  p.order = {ParallelDim::tp, ParallelDim::tp, ParallelDim::pp, ParallelDim::dp};
  CHECK_THROWS_AS(RankLayout(p), UserError);
  CHECK_THROWS_AS(RankLayout(layout(1, 1, 1, 6, 4)), UserError);
}
