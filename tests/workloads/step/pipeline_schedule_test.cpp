#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "sim/error.hpp"
#include "tests/workloads/step/schedule_eval.hpp"
#include "workloads/step/pipeline_schedule.hpp"

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

TEST_CASE("Megatron-Core's split of 126 layers over PP 8 x VP 8 with the embedding and loss as layers") {
  // Llama 3.1 405B as NVIDIA runs it on GB200: 126 layers + embedding + loss = 128 slots, 16 per
  // stage, 2 per model chunk; the first chunk (stage 0, chunk 0) and the last (stage 7, chunk 7)
  // give one slot to the embedding and the loss: 1 + 62 x 2 + 1 = 126 transformer layers.
  ParallelSpec p;
  p.pp = 8;
  p.virtual_stages = 8;
  p.embedding_in_split = true;
  p.loss_in_split = true;
  int total = 0;
  for (int vs = 0; vs < 64; ++vs) {
    const int expected = vs == 0 || vs == 63 ? 1 : 2;
    CHECK(p.chunk_layers(vs, 126) == expected);
    total += p.chunk_layers(vs, 126);
  }
  CHECK(total == 126);
  // Stages 0 and 7 hold 15 layers (8 chunks, one of 1), the others 16.
  CHECK(p.stage_layers(0, 126) == 15);
  CHECK(p.stage_layers(7, 126) == 15);
  CHECK(p.stage_layers(3, 126) == 16);
}

TEST_CASE("uneven end stages split over their model chunks") {
  // 80 layers, PP 4 x VP 2, first and last stages 16: the middle two share 48 (24 each); each
  // stage's share halves over its chunks: chunk vs = c x pp + stage.
  ParallelSpec p;
  p.pp = 4;
  p.virtual_stages = 2;
  p.first_stage_layers = 16;
  p.last_stage_layers = 16;
  CHECK(p.chunk_layers(0, 80) == 8);   // stage 0, chunk 0
  CHECK(p.chunk_layers(4, 80) == 8);   // stage 0, chunk 1
  CHECK(p.chunk_layers(1, 80) == 12);  // stage 1
  CHECK(p.chunk_layers(7, 80) == 8);   // stage 3, chunk 1
  CHECK(p.stage_layers(2, 80) == 24);
}

TEST_CASE(
    "DualPipe: both directions complete, weight steps match deferred backwards, pairs cross directions") {
  const int pp = 8, m = 20;
  const auto sched = pipeline_schedule(PipelineSchedule::dualpipe, pp, m, 1);
  REQUIRE(sched.size() == static_cast<std::size_t>(pp));
  for (int r = 0; r < pp; ++r) {
    const auto& steps = sched[static_cast<std::size_t>(r)];
    std::vector<PipeStep> passes;
    int deferred = 0, weights = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const PipeStep& s = steps[i];
      if (s.kind == Kind::weight) {
        ++weights;
        CHECK(weights <= deferred);  // a weight step runs what an earlier backward deferred
        continue;
      }
      passes.push_back(s);
      if (s.defer_weights) ++deferred;
      // Micro-batches 0 .. m/2 - 1 enter at rank 0 (direction 0), the others at rank pp - 1.
      CHECK((s.microbatch < m / 2) == (s.chunk == 0));
      if (s.pair_with_next) {
        REQUIRE(i + 1 < steps.size());
        CHECK(s.kind == Kind::forward);
        CHECK(steps[i + 1].kind == Kind::backward);
        CHECK(steps[i + 1].chunk != s.chunk);
        CHECK_FALSE(steps[i + 1].defer_weights);
      }
    }
    CHECK(weights == deferred);
    // Each rank runs its two stages for m / 2 micro-batches each: m forwards and m backwards.
    check_complete(passes, m / 2, 2);
  }
  // The first rank starts with (pp/2 - 1) x 2 forwards of direction 0, then alternates directions.
  const auto& r0 = sched[0];
  for (int i = 0; i < (pp / 2 - 1) * 2; ++i) CHECK(r0[static_cast<std::size_t>(i)].chunk == 0);
  CHECK(r0[(pp / 2 - 1) * 2 + 1].chunk == 1);
}

TEST_CASE("DualPipe's bubble is the README's (pp/2 - 1)(F&B + B - 3W), against 1F1B's (pp - 1)(F + B)") {
  // deepseek-ai/DualPipe README: bubble (PP/2 - 1)(F&B + B - 3W), B the full backward (Bd + W),
  // F&B an overlapped pair. Run without overlap (F&B = F + B) and with F = Bd the schedule meets it
  // exactly; each rank does m (F + B) of work. 1F1B idles (pp - 1)(F + B).
  for (const auto& [pp, m] : {std::pair{4, 8}, {8, 20}, {16, 120}}) {
    for (const testing::UnitCosts c : {testing::UnitCosts{1, 1, 1}, testing::UnitCosts{2, 2, 1}}) {
      const double b = c.bd + c.w;
      const auto ends = testing::list_schedule(pipeline_schedule(PipelineSchedule::dualpipe, pp, m, 1),
                                               PipelineSchedule::dualpipe, c);
      const double makespan = *std::max_element(ends.begin(), ends.end());
      CHECK(makespan - m * (c.f + b) == Approx((pp / 2 - 1) * ((c.f + b) + b - 3 * c.w)));
      const auto f1b = testing::list_schedule(pipeline_schedule(PipelineSchedule::one_f_one_b, pp, m, 1),
                                              PipelineSchedule::one_f_one_b, c);
      CHECK(*std::max_element(f1b.begin(), f1b.end()) - m * (c.f + b) == Approx((pp - 1) * (c.f + b)));
    }
  }
}

TEST_CASE("DualPipe refuses odd pp, odd micro-batch counts and fewer than 2 x pp micro-batches") {
  CHECK_THROWS_AS(pipeline_schedule(PipelineSchedule::dualpipe, 3, 12, 1), UserError);
  CHECK_THROWS_AS(pipeline_schedule(PipelineSchedule::dualpipe, 4, 9, 1), UserError);
  CHECK_THROWS_AS(pipeline_schedule(PipelineSchedule::dualpipe, 4, 6, 1), UserError);
  CHECK_NOTHROW(pipeline_schedule(PipelineSchedule::dualpipe, 4, 8, 1));
}

TEST_CASE(
    "DualPipeV: every micro-batch down the V and back, and the README's bubble over its 2 x pp stages") {
  // deepseek-ai/DualPipe dualpipev.py: n ranks hold the 2n stages of a V; the README gives it
  // DualPipe's bubble over PP = 2n stages, (PP/2 - 1)(F&B + B - 3W), with F, B, W per stage.
  for (const auto& [n, m] : {std::pair{2, 4}, {4, 8}, {4, 10}, {8, 20}}) {
    const auto sched = pipeline_schedule(PipelineSchedule::dualpipev, n, m, 2);
    for (const auto& steps : sched) {
      std::vector<PipeStep> passes;
      int deferred = 0, weights = 0;
      for (const PipeStep& s : steps) {
        if (s.kind == Kind::weight)
          ++weights;
        else
          passes.push_back(s);
        if (s.defer_weights) ++deferred;
      }
      CHECK(weights == deferred);
      check_complete(passes, m, 2);  // m micro-batches through each of the rank's two chunks
    }
    for (const testing::UnitCosts c : {testing::UnitCosts{1, 1, 1}, testing::UnitCosts{2, 2, 1}}) {
      const double b = c.bd + c.w;
      const auto ends = testing::list_schedule(sched, PipelineSchedule::dualpipev, c);
      CHECK(*std::max_element(ends.begin(), ends.end()) - 2 * m * (c.f + b) ==
            Approx((n - 1) * ((c.f + b) + b - 3 * c.w)));
    }
  }
  CHECK_THROWS_AS(pipeline_schedule(PipelineSchedule::dualpipev, 4, 6, 2), UserError);
  CHECK_THROWS_AS(pipeline_schedule(PipelineSchedule::dualpipev, 4, 8, 1), UserError);
}

TEST_CASE("a split given chunk by chunk: AutoModel's 61 layers over PP 4 x VP 8") {
  // calculate_virtual_stages: ceil(61 / 2) + 1 = 32 stages; generate_hf_model_fqn_per_model_part
  // gives the first 61 % 32 = 29 of them 2 layers and the last 3 one; stage vs runs on rank vs % 4.
  ParallelSpec p;
  p.pp = 4;
  p.virtual_stages = 8;
  for (int vs = 0; vs < 32; ++vs) p.pipeline_layers.push_back(vs < 29 ? 2 : 1);
  CHECK(p.uneven_split());
  CHECK(p.chunk_layers(0, 61) == 2);
  CHECK(p.chunk_layers(29, 61) == 1);
  // Rank 0 holds stages 0, 4, ..., 28: 8 x 2 = 16 layers; ranks 1-3 one chunk of 1 each: 15.
  CHECK(p.stage_layers(0, 61) == 16);
  for (int rank = 1; rank < 4; ++rank) CHECK(p.stage_layers(rank, 61) == 15);
}

TEST_CASE("separate pipeline schedules per step: each fills and drains its own micro-batches") {
  // 8 micro-batches as 2 schedules of 4 on pp 4: every rank runs 1F1B of micro-batches 0-3, then
  // 1F1B of 4-7. With unit forward and backward costs one 1F1B of m micro-batches takes
  // 2 (m + pp - 1) on the first rank: 2 x 7 = 14 each, 28 for both, against 2 x 11 = 22 for one
  // schedule of 8: the second fill and drain cost (pp - 1)(F + B) = 6 more.
  const auto two = pipeline_schedule(PipelineSchedule::one_f_one_b, 4, 8, 1, 2);
  const auto one = pipeline_schedule(PipelineSchedule::one_f_one_b, 4, 4, 1);
  for (int r = 0; r < 4; ++r) {
    const auto& steps = two[static_cast<std::size_t>(r)];
    check_complete(steps, 8, 1);
    const auto& first = one[static_cast<std::size_t>(r)];
    REQUIRE(steps.size() == 2 * first.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
      CHECK(steps[i].kind == first[i].kind);
      CHECK(steps[i].microbatch == first[i].microbatch);
      CHECK(steps[i + first.size()].microbatch == first[i].microbatch + 4);
    }
  }
  const testing::UnitCosts c{1.0, 1.0, 0.0};
  const auto split = testing::list_schedule(two, PipelineSchedule::one_f_one_b, c);
  const auto whole = testing::list_schedule(pipeline_schedule(PipelineSchedule::one_f_one_b, 4, 8, 1),
                                            PipelineSchedule::one_f_one_b, c);
  CHECK(split[0] == Approx(28.0));
  CHECK(whole[0] == Approx(22.0));
  CHECK_THROWS_AS(pipeline_schedule(PipelineSchedule::one_f_one_b, 4, 8, 1, 3), UserError);
}

TEST_CASE("torch.distributed.pipelining's lock-step table: time steps of Interleaved1F1B") {
  // PyTorch 2.8's _get_1f1b_rank_ops for pp 2, 2 micro-batches, 2 chunks (microbatches_per_round 2):
  // rank 0: warm-up min((2 - 1) x 2 + 2 x (2 - 1 - 0), 4) = 4 forwards at t 0-3, then
  //   (2 x 2 + 2 x 1) - (4 + 0) = 2 empty steps, no 1F1B pairs, 4 cool-down (empty, backward):
  //   backwards at t 7, 9, 11, 13;
  // rank 1: 1 empty step, warm-up 2 forwards at t 1-2, (4 + 0) - (2 + 1) = 1 empty step, 2 pairs
  //   (forward, backward) at t 4-7, then backwards at t 9 and 11.
  const auto t = lockstep_time_steps(2, 2, 2, 1);
  REQUIRE(t.size() == 2);
  CHECK(t[0] == std::vector<int>{0, 1, 2, 3, 7, 9, 11, 13});
  CHECK(t[1] == std::vector<int>{1, 2, 4, 5, 6, 7, 9, 11});
  // The same ranks' step kinds, in pipeline_schedule's (Megatron's) order: torch's table runs the
  // same order.
  const auto s = pipeline_schedule(PipelineSchedule::interleaved, 2, 2, 2);
  const std::vector<Kind> rank1{Kind::forward, Kind::forward,  Kind::forward,  Kind::backward,
                                Kind::forward, Kind::backward, Kind::backward, Kind::backward};
  for (std::size_t i = 0; i < rank1.size(); ++i) CHECK(s[1][i].kind == rank1[i]);

  // AutoModel's DeepSeek-V3 pipeline (pp 4, 8 chunks, 8 micro-batches) in two schedule.step()s: in
  // each, every step's data was produced at an earlier time step of the table (the table is a
  // valid lock-step order), times rise on every rank and the second step starts after the first.
  const int pp = 4, v = 8, m = 8;
  const auto order = pipeline_schedule(PipelineSchedule::interleaved, pp, 2 * m, v, 2);
  const auto times = lockstep_time_steps(pp, 2 * m, v, 2);
  std::map<std::tuple<int, int, int>, int> at;  // (kind, micro-batch, virtual stage) -> time step
  for (int r = 0; r < pp; ++r) {
    const auto& steps = order[static_cast<std::size_t>(r)];
    const auto& ts = times[static_cast<std::size_t>(r)];
    REQUIRE(ts.size() == steps.size());
    CHECK(std::is_sorted(ts.begin(), ts.end()));
    CHECK(std::adjacent_find(ts.begin(), ts.end()) == ts.end());
    for (std::size_t i = 0; i < steps.size(); ++i)
      at[{steps[i].kind == Kind::forward ? 0 : 1, steps[i].microbatch, steps[i].chunk * pp + r}] = ts[i];
  }
  for (const auto& [key, when] : at) {
    const auto [kind, mb, stage] = key;
    const int from = kind == 0 ? stage - 1 : stage + 1;
    if (from >= 0 && from < pp * v) CHECK(at.at({kind, mb, from}) < when);
    if (kind == 1) CHECK(at.at({0, mb, stage}) < when);
  }
  int first_end = 0, second_start = 1 << 30;
  for (const auto& [key, when] : at)
    (std::get<1>(key) < m ? first_end : second_start) =
        std::get<1>(key) < m ? std::max(first_end, when) : std::min(second_start, when);
  CHECK(first_end < second_start);
}
