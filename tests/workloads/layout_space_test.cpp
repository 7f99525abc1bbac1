// The layout space of the search: which layouts the divisibility rules allow, and how a layout is
// applied to a job.
#include <catch2/catch.hpp>

#include <set>

#include "tests/workloads/fixtures.hpp"
#include "workloads/layout_space.hpp"

using namespace stepsim;
using work::Layout;
using work::LayoutSpaceOptions;

namespace {

LayoutSpaceOptions grid_only() {
  LayoutSpaceOptions o;
  o.micro_batches = {1};
  o.zero_stages = {0};
  o.recomputes = {work::Recompute::none};
  return o;
}

}  // namespace

TEST_CASE("Layouts of a 4-layer, 16-head model on 8 GPUs") {
  const work::JobSpec job = test::tiny_training();  // 8 GPUs, NVLink domain 8, seq 2048, batch 64
  const std::vector<Layout> all = work::enumerate_layouts(job, grid_only());
  // tp in {1, 2, 4, 8} (divides 8 GPUs, 16 heads, 2048 tokens); pp divides 4 layers and 8 / tp;
  // virtual stages divide the layers per stage; cp = 2 would leave 1,024 < 2,048 tokens per rank.
  //   tp 1: pp 1 (v 1), pp 2 (v 1, 2), pp 4 (v 1)  -> 4
  //   tp 2: the same                                -> 4
  //   tp 4: pp 1, pp 2 (v 1, 2)                     -> 3
  //   tp 8: pp 1                                    -> 1
  CHECK(all.size() == 12);
  for (const Layout& l : all) {
    CAPTURE(l.text());
    CHECK(l.tp * l.pp * l.cp * l.dp == 8);
    CHECK(4 % (l.pp * l.virtual_stages) == 0);
    CHECK((l.virtual_stages == 1 || l.pp > 1));
    CHECK(l.cp == 1);
    CHECK(l.ep == 1);
  }
  // Capping TP at 2 keeps tp 1 and 2: 8 layouts.
  LayoutSpaceOptions capped = grid_only();
  capped.max_tp = 2;
  CHECK(work::enumerate_layouts(job, capped).size() == 8);
  // Longer sequences open context parallelism: at 8,192 tokens cp 2 and 4 keep >= 2,048 per rank.
  work::JobSpec longer = job;
  longer.workload.seq_len = 8192;
  std::set<int> cps;
  for (const Layout& l : work::enumerate_layouts(longer, grid_only())) cps.insert(l.cp);
  CHECK(cps == std::set<int>{1, 2, 4});
}

TEST_CASE("Micro-batches must divide the batch per data-parallel rank") {
  LayoutSpaceOptions o = grid_only();
  o.micro_batches = {1, 16};
  // Batch 64: micro-batch 16 needs 16 x dp <= 64, so dp <= 4; only tp 1 pp 1 (dp 8) loses it: 12 + 11.
  CHECK(work::enumerate_layouts(test::tiny_training(), o).size() == 23);
  o.zero_stages = {0, 1, 3};
  o.recomputes = {work::Recompute::none, work::Recompute::full};
  CHECK(work::enumerate_layouts(test::tiny_training(), o).size() == 23 * 3 * 2);
}

TEST_CASE("Expert parallelism is carved out of the data-parallel ranks") {
  work::JobSpec moe = test::tiny_training();
  moe.model.experts = 8;
  moe.model.top_k = 2;
  moe.model.expert_ffn = 1024;
  std::set<int> eps;
  for (const Layout& l : work::enumerate_layouts(moe, grid_only()))
    if (l.tp == 1 && l.pp == 1) eps.insert(l.ep);  // dp 8: ep divides 8 experts and dp x cp = 8
  CHECK(eps == std::set<int>{1, 2, 4, 8});
  for (const Layout& l : work::enumerate_layouts(moe, grid_only())) CHECK((l.dp * l.cp) % l.ep == 0);
}

TEST_CASE("A layout applied to a job") {
  Layout l;
  l.tp = 2;
  l.pp = 2;
  l.virtual_stages = 2;
  l.dp = 2;
  l.micro_batch = 4;
  l.zero_stage = 1;
  l.recompute = work::Recompute::selective;
  const work::JobSpec j = work::with_layout(test::tiny_training(), l);
  CHECK(j.parallel.world() == 8);
  CHECK(j.parallel.schedule == work::PipelineSchedule::interleaved);
  CHECK(j.parallel.sequence_parallel);
  CHECK(j.workload.micro_batch == 4);
  CHECK(j.recompute == work::Recompute::selective);
  CHECK(l.text() == "tp 2, pp 2 (v 2), dp 2, mb 4, zero 1, selective recompute");
  const auto set = work::layout_overrides(l);
  CHECK(std::find(set.begin(), set.end(), "parallelism.schedule=\"interleaved\"") != set.end());
  CHECK(std::find(set.begin(), set.end(), "workload.recompute=\"selective\"") != set.end());
}
