#include <catch2/catch.hpp>

#include <map>
#include <utility>

#include "sim/error.hpp"
#include "workloads/pipeline_schedule.hpp"

using namespace stepsim;
using namespace stepsim::work;
using Kind = PipeStep::Kind;

namespace {
/// Every (micro-batch, chunk) runs forward once and backward once, backward after forward.
void check_complete(const std::vector<PipeStep>& steps, int microbatches, int chunks) {
  std::map<std::pair<int, int>, int> fwd_at, bwd_at;
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    auto& where = steps[i].kind == Kind::forward ? fwd_at : bwd_at;
    CHECK(where.emplace(std::make_pair(steps[i].microbatch, steps[i].chunk), i).second);
  }
  CHECK(fwd_at.size() == static_cast<std::size_t>(microbatches * chunks));
  CHECK(bwd_at.size() == fwd_at.size());
  for (const auto& [key, i] : bwd_at) CHECK(fwd_at.at(key) < i);
}
}  // namespace

TEST_CASE("1F1B: pp - rank - 1 warm-up forwards, then alternation") {
  const auto sched = pipeline_schedule(PipelineSchedule::one_f_one_b, 4, 8, 1);
  REQUIRE(sched.size() == 4);
  for (int r = 0; r < 4; ++r) {
    check_complete(sched[r], 8, 1);
    const int warmup = 4 - r - 1;
    for (int i = 0; i < warmup; ++i) CHECK(sched[r][i].kind == Kind::forward);
    // After warm-up: F, B, F, B, ...
    CHECK(sched[r][warmup].kind == Kind::forward);
    CHECK(sched[r][warmup + 1].kind == Kind::backward);
  }
  // The last stage never waits to start a backward: F0 B0 F1 B1 ...
  CHECK(sched[3][0].kind == Kind::forward);
  CHECK(sched[3][1].kind == Kind::backward);
  CHECK(sched[3][1].microbatch == 0);
}

TEST_CASE("GPipe runs all forwards before any backward") {
  const auto sched = pipeline_schedule(PipelineSchedule::gpipe, 2, 3, 1);
  for (const auto& steps : sched) {
    check_complete(steps, 3, 1);
    for (int i = 0; i < 3; ++i) CHECK(steps[i].kind == Kind::forward);
  }
}

TEST_CASE("interleaved 1F1B visits every chunk and follows Megatron's virtual micro-batch order") {
  const int pp = 4, m = 8, v = 2;
  const auto sched = pipeline_schedule(PipelineSchedule::interleaved, pp, m, v);
  for (int r = 0; r < pp; ++r) check_complete(sched[r], m, v);
  // Rank 0 warms up with (pp - 1) * 2 + (v - 1) * pp = 10 forwards: micro-batches 0-3 of chunk 0,
  // 0-3 of chunk 1, then 4-5 of chunk 0.
  const auto& r0 = sched[0];
  for (int i = 0; i < 10; ++i) CHECK(r0[i].kind == Kind::forward);
  CHECK(r0[4].chunk == 1);
  CHECK(r0[4].microbatch == 0);
  CHECK(r0[8].chunk == 0);
  CHECK(r0[8].microbatch == 4);
  // The first backward on rank 0 is micro-batch 0 of the last chunk.
  CHECK(r0[11].kind == Kind::backward);
  CHECK(r0[11].chunk == v - 1);
  CHECK(r0[11].microbatch == 0);
}

TEST_CASE("interleaving rejects micro-batch counts that are not a multiple of pp") {
  CHECK_THROWS_AS(pipeline_schedule(PipelineSchedule::interleaved, 4, 6, 2), UserError);
  CHECK_THROWS_AS(pipeline_schedule(PipelineSchedule::one_f_one_b, 4, 8, 2), UserError);
}
