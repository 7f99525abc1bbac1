#include <catch2/catch.hpp>
#include <string>

#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"
#include "workloads/serving/serve.hpp"

using stepsim::UserError;
using stepsim::scen::Catalog;
namespace work = stepsim::work;
namespace fs = std::filesystem;

namespace {

/// Llama-3.1-8B on one H100, served.
std::string serve_toml(const std::string& serving, const std::string& extra = "") {
  return R"([model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h100-sxm"
gpus = 1
[workload]
kind = "serve"
cuda_graphs = true
)" + extra +
         "[serving]\n" + serving;
}

std::string serving_error_of(const std::string& toml) {
  stepsim::test::TempDir dir;
  try {
    (void)stepsim::scen::load_scenario(dir.write("s.toml", toml), stepsim::test::builtin_catalog());
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a serving scenario draws its Poisson requests as [serving] says") {
  stepsim::test::TempDir dir;
  const auto s = stepsim::scen::load_scenario(
      dir.write("s.toml",
                serve_toml("rate_per_s = 4\nrequests = 300\ninput_len = [100, 200]\noutput_len = 64\n"
                           "max_batch = 32\n")),
      stepsim::test::builtin_catalog());
  REQUIRE(s.serve);
  CHECK(s.serve->requests.size() == 300);
  CHECK(s.serve->config.max_batch == 32);
  for (const work::Request& r : s.serve->requests) {
    CHECK(r.input_len >= 100);
    CHECK(r.input_len <= 200);
    CHECK(r.output_len == 64);
  }
  // 300 exponential gaps of mean 1/4 s: the last arrival near 75 s (5 standard deviations: 300^0.5 / 4
  // = 4.3 s each).
  CHECK(s.serve->requests.back().arrival_s == Approx(75.0).margin(22.0));
}

TEST_CASE("a serving scenario replays a trace file beside it") {
  stepsim::test::TempDir dir;
  dir.write("trace.csv", "arrival_s,input_len,output_len\n0,100,10\n0.5,200,20\n");
  const auto s = stepsim::scen::load_scenario(
      dir.write("s.toml", serve_toml("arrival = \"trace\"\ntrace = \"trace.csv\"\n")),
      stepsim::test::builtin_catalog());
  REQUIRE(s.serve->requests.size() == 2);
  CHECK(s.serve->requests[1].arrival_s == 0.5);
  CHECK(s.serve->requests[1].input_len == 200);
}

TEST_CASE("serving and generation inputs that cannot work are user errors") {
  CHECK_THAT(serving_error_of(serve_toml("requests = 10\n")), Catch::Contains("serving.rate_per_s"));
  CHECK_THAT(serving_error_of(serve_toml("rate_per_s = 1\ninput_len = [300, 100]\n")),
             Catch::Contains("1 <= MIN <= MAX"));
  CHECK_THAT(serving_error_of(serve_toml("arrival = \"trace\"\n")), Catch::Contains("needs `trace`"));
  CHECK_THAT(serving_error_of(serve_toml("rate_per_s = 1\nprefill_replicas = 1\n")),
             Catch::Contains("leaves no decode replica"));
  CHECK_THAT(serving_error_of(serve_toml("rate_per_s = 1\nmax_batch = 64\nmax_num_tokens = 32\n")),
             Catch::Contains("serving.max_num_tokens: max_num_tokens = 32 is below max_batch = 64"));
  CHECK_THAT(serving_error_of(serve_toml("rate_per_s = 1\n", "batch = 4\n")), Catch::Contains("[serving]"));
  CHECK_THAT(
      serving_error_of(serve_toml("rate_per_s = 1\n", "[precision]\nparams = \"int4\"\ncompute = \"fp8\"\n")),
      Catch::Contains("w8a16, w4a16"));
  // [serving] on a decode step, and a generation without output_len.
  const std::string decode = R"([model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h100-sxm"
gpus = 1
[workload]
kind = "decode"
batch = 1
context = 10
[serving]
rate_per_s = 1
)";
  CHECK_THAT(serving_error_of(decode), Catch::Contains("set workload.kind = \"serve\""));
  const std::string generate = R"([model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h100-sxm"
gpus = 1
[workload]
kind = "generate"
batch = 1
input_len = 10
)";
  CHECK_THAT(serving_error_of(generate), Catch::Contains("needs `output_len`"));
}

TEST_CASE("the serving cost model is the simulated step at its grid points") {
  stepsim::test::TempDir dir;
  const auto s = stepsim::scen::load_scenario(
      dir.write("s.toml", serve_toml("rate_per_s = 2\nrequests = 50\ninput_len = 512\noutput_len = 128\n"
                                     "max_batch = 8\nmax_num_tokens = 2048\n")),
      stepsim::test::builtin_catalog());
  const work::ServeCostModel cost(s.job, *s.serve);
  // Decode grid: batches 1, 2, 4, 8; contexts 512 (shortest prompt), 576, 640 (longest sequence).
  work::JobSpec d = s.job;
  d.workload.kind = work::WorkloadKind::decode;
  d.workload.batch = 4;
  d.workload.context_len = 640;
  CHECK(cost.decode_s(4, 640) == Approx(work::simulate(d).metrics.step_time_s).epsilon(1e-12));
  // Prefill grid at 2,048 tokens: one prompt of 2,048, and 64 prompts of 32.
  work::JobSpec p = s.job;
  p.workload.kind = work::WorkloadKind::prefill;
  p.workload.batch = 1;
  p.workload.seq_len = 2048;
  CHECK(cost.prefill_s(2048, 2048) == Approx(work::simulate(p).metrics.step_time_s).epsilon(1e-12));
  // An iteration of decodes only costs the decode step; adding prompt tokens costs their prefill plus
  // what the decodes add over a batch-1 decode at the shortest context.
  work::IterationShape shape;
  shape.decode_seqs = 4;
  shape.decode_context_tokens = 4 * 640.0;
  CHECK(cost(shape) == Approx(cost.decode_s(4, 640)));
  shape.prefill_tokens = 2048;
  shape.prefill_seqs = 1;
  CHECK(cost(shape) == Approx(cost.prefill_s(2048, 2048) + cost.decode_s(4, 640) - cost.decode_s(1, 512)));
  // The KV cache: 8B on 80 GB holds far more than the longest request.
  CHECK(cost.kv_capacity_tokens() > 640);
}

TEST_CASE("a served stream obeys Little's law through the step model") {
  stepsim::test::TempDir dir;
  const auto s = stepsim::scen::load_scenario(
      dir.write("s.toml", serve_toml("rate_per_s = 20\nrequests = 2000\ninput_len = [128, 1024]\n"
                                     "output_len = [32, 256]\nmax_batch = 64\n")),
      stepsim::test::builtin_catalog());
  const work::Serving served = work::simulate_serve(s.job, *s.serve);
  const auto& m = served.result.summary;
  // L = lambda W over the whole run: mean requests in the system = completed rate x mean latency
  // (an identity over the run's span); and against the offered 20/s within 5% (Poisson count noise
  // 1 / sqrt(2000) = 2.2%, plus the drain after the last arrival).
  CHECK(m.mean_in_system == Approx(m.requests_per_s * m.latency.mean_s).epsilon(1e-6));
  CHECK(m.mean_in_system == Approx(20.0 * m.latency.mean_s).epsilon(0.05));
  CHECK(m.tpot.mean_s > 0.0);
  CHECK(m.ttft.p99_s >= m.ttft.p50_s);
}
