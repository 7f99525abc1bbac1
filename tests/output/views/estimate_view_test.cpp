#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "output/views/estimate_view.hpp"
#include "tests/support/fixtures.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

const out::EstimateLabels kLabels{"tiny", "round", "tiny-gpt"};

/// The notebook's H100 row: 900 TFLOP/s, 3.35 TB/s, 200 Gb/s, $3.93/h.
JobSpec notebook_h100() {
  return test::notebook_job(900, 3.35, 200, 3.93);
}

}  // namespace

TEST_CASE("Estimate JSON carries the documented keys") {
  JobSpec job = test::tiny_training();
  job.estimate.target_tokens_per_s = 1e7;
  const Estimate e = estimate(job);
  const auto j = estimate_json(e, kLabels);
  CHECK(j["formulas"] == "stepsim");
  CHECK(j["tokens_per_s_per_gpu"].get<double>() == e.tokens_per_s_per_gpu);
  CHECK(j["bound"] == "hbm");
  CHECK(j["rates"]["compute"].get<double>() == e.rates[0].tokens_per_s);
  CHECK(j["rates"]["nic"].is_null());  // no NIC traffic: unbounded
  CHECK(j["step_time_s"].get<double>() == e.step_time_s);
  CHECK(j["mfu"].get<double>() == e.mfu);
  CHECK(j["memory"]["fits"] == true);
  // FlashAttention (the default): 2 x 115,876,864 + 695,261,184 + 4 x 92,274,688 + 270,532,608.
  CHECK(j["memory"]["bytes_per_gpu"].get<double>() == 1'566'646'272.0);
  CHECK(j["memory"]["capacity_bytes"].get<double>() == 80e9);
  CHECK(j["memory"]["breakdown"]["optimizer"].get<double>() == 695'261'184.0);
  CHECK(j["cost"]["per_gpu_hour"].get<double>() == 2.0);
  CHECK(j["cost"]["per_tb_s_hour"].get<double>() == 1.0);
  CHECK(j["cost"].contains("per_million_tokens"));
  CHECK(j["gpus_needed"].get<int>() == e.sizing->gpus_needed);
  CHECK(j["cluster_cost_per_hour"].get<double>() == e.sizing->cluster_cost_per_hour);
  CHECK(j["network"].size() == e.network.size());
  CHECK(j["network"][0]["name"] == "dp.grad_all_reduce");
}

TEST_CASE("Estimate JSON without a target has no sizing, the notebook has no memory check") {
  const auto j = estimate_json(estimate(notebook_h100()), kLabels);
  CHECK(j["memory"]["checked"] == false);
  CHECK(j["memory"]["fits"].is_null());
  CHECK(j["gpus_needed"] == 150);
  JobSpec no_target = test::tiny_training();
  const auto k = estimate_json(estimate(no_target), kLabels);
  CHECK_FALSE(k.contains("gpus_needed"));
  CHECK_FALSE(k.contains("target"));
}

TEST_CASE("Estimate output is deterministic") {
  const Estimate a = estimate(test::tiny_training());
  const Estimate b = estimate(test::tiny_training());
  CHECK(estimate_json_text(a, kLabels) == estimate_json_text(b, kLabels));
  CHECK(estimate_table(a, kLabels) == estimate_table(b, kLabels));
}

TEST_CASE("The table marks the bound and prints the verdicts") {
  const std::string nb = estimate_table(estimate(notebook_h100()), kLabels);
  CHECK_THAT(nb, Catch::Contains("1,339.29  <- bound"));
  CHECK_THAT(nb, Catch::Contains("287,435.22"));
  CHECK_THAT(nb, Catch::Contains("not checked"));
  CHECK_THAT(nb, Catch::Contains("150 GPUs"));
  CHECK_THAT(nb, Catch::Contains("$589.50/h"));
  CHECK_THAT(nb, Catch::Contains("$1.17/TB/s-h"));
  JobSpec big = test::tiny_training();
  big.model = test::llama_70b();
  const std::string st = estimate_table(estimate(big), kLabels);
  CHECK_THAT(st, Catch::Contains("DOES NOT FIT"));
  CHECK_THAT(st, Catch::Contains("dp.grad_all_reduce"));
}
