// The pre-flight size check: an upper estimate of a step's ops from the closed form, and the
// refusal (a UserError, before anything is built) of a step above the limit.
#include "workloads/step/step_size.hpp"

#include <catch2/catch.hpp>

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/fixtures.hpp"
#include "workloads/simulate/simulate.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace step_size_tests {
/// Ops the builders really emit for `job`, and the estimate's graph ops.
std::pair<double, double> actual_and_estimate(const JobSpec& job, RankMode ranks) {
  SimulateOptions o;
  o.ranks = ranks;
  const Simulation sim = simulate(job, o);
  return {double(sim.run.ops.size()), step_size(job, ranks).graph_ops};
}
}  // namespace step_size_tests

TEST_CASE("the step size follows its closed form") {
  const JobSpec job = test::tiny_training();
  const StepSize s = step_size(job, RankMode::representative);
  // 4 dense layers of 35 + 15 (tp 2) ops, 8 micro-batches (64 / (2 x 4)), one stage: per
  // micro-batch 4 x 50 + 20 = 220; per step 10 x 4 + 100 = 140; eager launches double it:
  // (8 x 220 + 140) x 2 = 3,800.
  CHECK(s.micro_batches == 8.0);
  CHECK(s.simulated_ranks == 1);
  CHECK(s.graph_ops == 3800.0);
  // The network: 100 op-equivalents for each of the 8 GPUs.
  CHECK(s.network_ops == 800.0);
  CHECK(s.ops() == 4600.0);
  // Every rank: each of the tp x dp = 8 pipelines is simulated.
  CHECK(step_size(job, RankMode::all).graph_ops == 8 * 3800.0);
  // Decode: the forward alone, 0.4 of the training layer, one micro-batch, no per-step ops:
  // 4 x 35 x 0.4 + 20 = 76, doubled for eager launches = 152.
  CHECK(step_size(test::tiny_inference(WorkloadKind::decode), RankMode::representative).graph_ops == 152.0);
}

TEST_CASE("the estimate bounds the ops the builders emit") {
  using step_size_tests::actual_and_estimate;
  JobSpec train = test::tiny_training();
  JobSpec graphs = train;
  graphs.workload.cuda_graphs = true;
  JobSpec full = train;
  full.recompute = Recompute::full;
  const JobSpec prefill = test::tiny_inference(WorkloadKind::prefill);
  const JobSpec decode = test::tiny_inference(WorkloadKind::decode);
  for (const auto& [name, job, ranks] : {std::tuple{"train", train, RankMode::representative},
                                         std::tuple{"train, every rank", train, RankMode::all},
                                         std::tuple{"CUDA graphs", graphs, RankMode::representative},
                                         std::tuple{"full recompute", full, RankMode::representative},
                                         std::tuple{"prefill", prefill, RankMode::representative},
                                         std::tuple{"decode", decode, RankMode::representative}}) {
    const auto [actual, estimate] = actual_and_estimate(job, ranks);
    INFO(name << ": " << actual << " ops emitted, " << estimate << " estimated");
    CHECK(actual <= estimate);
  }
}

TEST_CASE("on bundled examples the estimate is within a factor of three of the ops emitted") {
  const scen::Catalog& catalog = test::builtin_catalog();
  const std::filesystem::path examples = std::filesystem::path(STEPSIM_SOURCE_DIR) / "scenarios/examples";
  for (const char* file : {"llama3.1-70b-decode-8xh200-bs1.toml", "mixtral-8x7b-64xh100.toml"}) {
    const JobSpec job = scen::load_scenario(examples / file, catalog).job;
    const auto [actual, estimate] = step_size_tests::actual_and_estimate(job, RankMode::representative);
    INFO(file << ": " << actual << " ops emitted, " << estimate << " estimated");
    CHECK(actual <= estimate);
    CHECK(estimate <= 3.0 * actual);
  }
}

TEST_CASE("a step above the limit is refused with its size, the limit and what to do") {
  JobSpec job = test::tiny_training();
  CHECK_NOTHROW(check_step_size(job, RankMode::representative, 4600));
  try {
    check_step_size(job, RankMode::representative, 4599);
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    const std::string what = e.what();
    CHECK_THAT(
        what,
        Catch::Contains(
            "the step is too large to simulate: about 4,600 ops (an upper estimate: 3,800 step-graph ops"));
    CHECK_THAT(what,
               Catch::Contains(
                   "4 layers x 8 micro-batches on 1 simulated rank, plus 800 for the network of 8 GPUs"));
    CHECK_THAT(what, Catch::Contains("above the limit of 4,599 ops"));
    CHECK_THAT(what, Catch::Contains("--max-ops 1000000"));
    CHECK_THAT(what, Catch::Contains("stepsim estimate"));
  }
}

TEST_CASE("simulate refuses a huge step before building anything") {
  // A million layers (the audit's 22.6 GB out-of-memory kill) and ten million GPUs (9 GB and 120 s
  // in): each refused at once under the default limit.
  JobSpec layers = test::tiny_training();
  layers.model.layers = 1'000'000;
  CHECK_THROWS_WITH(simulate(layers),
                    Catch::Contains("1,000,000 layers") && Catch::Contains("limit of 50,000,000 ops"));
  JobSpec gpus = test::tiny_training();
  gpus.cluster.nodes = 1'250'000;
  gpus.parallel.dp = 5'000'000;
  gpus.workload.global_batch = 10'000'000;
  CHECK_THROWS_WITH(simulate(gpus), Catch::Contains("for the network of 10,000,000 GPUs"));
  // The limit is an option: a step refused by a small one runs under the default.
  SimulateOptions small;
  small.max_ops = 1000;
  CHECK_THROWS_AS(simulate(test::tiny_training(), small), UserError);
  // More ops than the small limit refused, all run under the default.
  CHECK(simulate(test::tiny_training()).run.ops.size() > small.max_ops);
}
