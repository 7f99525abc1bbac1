// libFuzzer target: scenario text -> reader and cross-field checks -> closed-form estimate ->
// for small jobs, one simulated step. Everything a scenario file can reach, as `stepsim run` does.
#include <cstdint>

#include "scenarios/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/simulate/simulate.hpp"

namespace {

/// Jobs small enough to simulate in a few milliseconds; larger ones stop at the estimate, so the
/// fuzzer spends its time on the readers instead of on one big step (a 16-GPU, 4-layer step with 8
/// micro-batches takes about 50 ms under ASan).
bool small_enough(const stepsim::work::JobSpec& job) {
  const auto& w = job.workload;
  const auto& p = job.parallel;
  const long micro_batches = p.dp > 0 && w.micro_batch > 0 ? w.global_batch / (long(p.dp) * w.micro_batch) : 0;
  return job.cluster.total_gpus() <= 16 && job.model.layers <= 4 && micro_batches <= 8 &&
         w.seq_len <= 8192 && w.batch <= 64 && w.output_len <= 16;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stepsim;
  fuzz::expect_user_errors_only([&] {
    const scen::Scenario s = scen::load_scenario_string(fuzz::as_text(data, size), "fuzz.toml", fuzz::catalog());
    if (s.serve) return;  // serving runs whole request streams: its own target when it needs one
    (void)work::estimate(s.job);
    if (!small_enough(s.job)) return;
    // [variability] needs every GPU simulated (representative ranks refuse it): run it so.
    work::SimulateOptions options;
    if (s.job.variability.active()) options.ranks = work::RankMode::all;
    (void)work::simulate(s.job, options);
  });
  return 0;
}
