// libFuzzer target: a user catalog file (`--catalog FILE`, a scenario's `catalog = [...]`) applied
// over the built-in catalog, as `stepsim` does: GPU, model and userbuffers entries, overrides of
// built-in ones, `preset` variants and sources. A GPU entry the file adds or changes then prices one
// small training step, so its figures reach the estimate and the simulation as a scenario's would.
#include <algorithm>
#include <cstdint>
#include <string>

#include "scenarios/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/simulate/simulate.hpp"

namespace {

/// GPUs the file added, or whose figures it set without a source (at most two: each costs a step).
std::vector<std::string> touched_gpus(const stepsim::scen::Catalog& c) {
  std::vector<std::string> out;
  for (const auto& g : c.gpus()) {
    const bool added = stepsim::fuzz::catalog().find_gpu(g.id) == nullptr;
    const bool changed = std::any_of(g.sources.begin(), g.sources.end(),
                                     [](const auto& s) { return s.kind == stepsim::topo::SourceKind::user; });
    if ((added || changed) && out.size() < 2) out.push_back(g.id);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stepsim;
  fuzz::expect_user_errors_only([&] {
    const scen::Catalog c =
        fuzz::catalog().with_text(std::string(fuzz::as_text(data, size)), "fuzz-catalog.toml");
    for (const std::string& id : touched_gpus(c)) {
      // A 2-layer model on 8 GPUs of the entry: TP 2 x PP 2 x DP 2, 4 micro-batches.
      const std::string text =
          "[model]\npreset = \"llama-3.1-8b\"\nlayers = 2\n[hardware]\ngpu = \"" + id +
          "\"\nnodes = 1\ngpus_per_node = 8\nnvlink_domain = 8\n"
          "[workload]\nkind = \"train\"\nseq_len = 1024\nglobal_batch = 8\nmicro_batch = 1\n"
          "[parallelism]\ntp = 2\npp = 2\ndp = 2\n";
      fuzz::expect_user_errors_only([&] {
        const scen::Scenario s = scen::load_scenario_string(text, "fuzz-catalog-step.toml", c);
        (void)work::estimate(s.job);
        (void)work::simulate(s.job);
      });
    }
  });
  return 0;
}
