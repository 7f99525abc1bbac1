// The layout space of the search: which layouts the divisibility rules allow, and how a layout is
// applied to a job.
#include <catch2/catch.hpp>

#include <set>

#include "tests/support/fixtures.hpp"
#include "workloads/layout/layout_space.hpp"
#include "workloads/model/names.hpp"

using namespace stepsim;
using work::Layout;
using work::LayoutSpaceOptions;

namespace {

using work::Knob;

LayoutSpaceOptions grid_only() {
  LayoutSpaceOptions o;
  o.values(Knob::micro_batch) = {1};
  o.values(Knob::zero_stage) = {0};
  o.values(Knob::recompute) = {static_cast<int>(work::Recompute::none)};
  o.values(Knob::tp_comm_overlap) = {0};
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
  o.values(Knob::micro_batch) = {1, 16};
  // Batch 64: micro-batch 16 needs 16 x dp <= 64, so dp <= 4, which tp 1 pp 1 (dp 8) loses; and
  // interleaving needs a multiple of pp micro-batches per pipeline, which tp 1 pp 2 v 2 (dp 4:
  // 64 / (16 x 4) = 1 micro-batch) loses: 12 + 10.
  CHECK(work::enumerate_layouts(test::tiny_training(), o).size() == 22);
  o.values(Knob::zero_stage) = {0, 1, 3};
  o.values(Knob::recompute) = {0, 2};
  CHECK(work::enumerate_layouts(test::tiny_training(), o).size() == 22 * 3 * 2);
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
  l.knob(Knob::micro_batch) = 4;
  l.knob(Knob::zero_stage) = 1;
  l.knob(Knob::recompute) = static_cast<int>(work::Recompute::selective);
  const work::JobSpec j = work::with_layout(test::tiny_training(), l);
  CHECK(j.parallel.world() == 8);
  CHECK(j.parallel.schedule == work::PipelineSchedule::interleaved);
  CHECK(j.parallel.sequence_parallel);
  CHECK(j.workload.micro_batch == 4);
  CHECK(j.recompute == work::Recompute::selective);
  CHECK(l.text() == "tp 2, pp 2 (v 2), dp 2, mb 4, zero 1, selective recompute, no TP overlap");
  Layout ub = l;
  ub.knob(Knob::tp_comm_overlap) = static_cast<int>(work::TpCommOverlap::userbuffers);
  CHECK(work::with_layout(test::tiny_training(), ub).parallel.tp_comm_overlap ==
        work::TpCommOverlap::userbuffers);
  // Without TP there is nothing to overlap: the canonical layout turns it off (one row, not two).
  Layout no_tp = ub;
  no_tp.tp = 1;
  no_tp.dp = 4;
  CHECK(work::canonical_layout(work::with_layout(test::tiny_training(), no_tp), no_tp)
            .knob(Knob::tp_comm_overlap) == 0);
  const auto set = work::layout_overrides(test::tiny_training(), l).set;
  CHECK(std::find(set.begin(), set.end(), "parallelism.schedule=\"interleaved\"") != set.end());
  CHECK(std::find(set.begin(), set.end(), "workload.recompute=\"selective\"") != set.end());
}

TEST_CASE("A base with uneven end stages keeps them at its own pp, without interleaving") {
  work::JobSpec base = test::tiny_training();  // 6 layers on 3 stages as 1 + 4 + 1, on 6 GPUs
  base.model.layers = 6;
  base.cluster.gpus_per_node = 6;
  base.cluster.nvlink_domain = 6;
  base.parallel.pp = 3;
  base.parallel.first_stage_layers = 1;
  base.parallel.last_stage_layers = 1;
  bool uneven = false, even_pp3 = false;
  for (const Layout& l : work::enumerate_layouts(base, grid_only())) {
    CAPTURE(l.text());
    if (l.first_stage_layers > 0) {
      uneven = true;
      CHECK(l.pp == 3);
      CHECK(l.last_stage_layers == 1);
      CHECK(l.virtual_stages == 1);
      CHECK(work::with_layout(base, l).parallel.first_stage_layers == 1);
    } else {
      even_pp3 = even_pp3 || l.pp == 3;  // 6 layers also split evenly over 3 stages
      // Every other layout drops the base's keys when it is loaded.
      const auto unset = work::layout_overrides(base, l).unset;
      CHECK(std::find(unset.begin(), unset.end(), "parallelism.first_stage_layers") != unset.end());
      CHECK(work::with_layout(base, l).parallel.first_stage_layers == 0);
    }
  }
  CHECK(uneven);
  CHECK(even_pp3);
  const auto notes = work::layout_adaptations(base);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("first_stage_layers = 1") && Catch::Contains("pp 3"));
}

TEST_CASE("ZeRO stages with a single data-parallel replica all run ZeRO-0's step") {
  Layout l;
  l.tp = 8;
  l.dp = 1;
  l.knob(Knob::zero_stage) = 2;
  const work::JobSpec job = work::with_layout(test::tiny_training(), l);
  CHECK(work::canonical_layout(job, l).zero_stage() == 0);  // nothing to shard over one replica
  l.tp = 4;
  l.dp = 2;
  const work::JobSpec two = work::with_layout(test::tiny_training(), l);
  CHECK(work::canonical_layout(two, l).zero_stage() == 2);
}

TEST_CASE("Knob values parse as the command line writes them") {
  const work::KnobInfo& rc = work::knob_info(Knob::recompute);
  CHECK(rc.parse("selective", "--recompute") == 1);
  CHECK_THROWS_WITH(rc.parse("some", "--recompute"),
                    Catch::Contains("--recompute: expected none, selective, full"));
  const work::KnobInfo& zero = work::knob_info(Knob::zero_stage);
  CHECK(zero.parse("3", "--zero") == 3);
  CHECK_THROWS_WITH(zero.parse("4", "--zero"), Catch::Contains("--zero: expected integers from 0 to 3"));
  CHECK(zero.label(1) == "Z1");
  CHECK(zero.toml(1) == "1");
  CHECK(rc.toml(2) == "\"full\"");
  CHECK(work::knob_info(Knob::micro_batch).text(4) == "mb 4");
}

TEST_CASE("a search from a DualPipe base says its layouts run 1F1B") {
  for (const work::PipelineSchedule s :
       {work::PipelineSchedule::dualpipe, work::PipelineSchedule::dualpipev}) {
    work::JobSpec base = test::tiny_training();
    base.parallel.schedule = s;
    const auto notes = work::layout_adaptations(base);
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], Catch::Contains(std::string(work::name(s)) + " schedule is replaced by 1F1B"));
  }
}
