// libFuzzer target: nccl-tests output, as `stepsim collective --nccl-tests LOG --write-calibration`
// reads it: the log reader, the clusters its runs map to, their simulation and the link fit. A log
// is whatever a job wrote, cut short or interleaved with other output; every such file must end in
// rows, a refusal per row, or a UserError, never a crash or an internal error.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "scenarios/collective_calibration.hpp"
#include "scenarios/nccl_tests_log.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stepsim;
  // Named like nccl-tests' all-reduce output, so that inputs without a command line still parse.
  static const std::filesystem::path path =
      (std::filesystem::is_directory("/dev/shm") ? std::filesystem::path("/dev/shm")
                                                 : std::filesystem::temp_directory_path()) /
      ("stepsim-fuzz-all_reduce_perf-" + std::to_string(::getpid()) + ".out");
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  fuzz::expect_user_errors_only([&] {
    const scen::NcclTestsLog log = scen::read_nccl_tests_log(path, std::nullopt);
    const auto rows = scen::measured_from_log(log, fuzz::catalog(), {});
    // Keep each input quick: a few rows, on clusters of up to 64 GPUs (building one is linear in GPUs).
    std::vector<scen::MeasuredCollective> some;
    for (const auto& r : rows)
      if (some.size() < 6 && (!r.not_expressible.empty() || r.cluster.total_gpus() <= 64)) some.push_back(r);
    scen::MeasuredSimulator sim;
    for (const auto& r : some)
      if (r.not_expressible.empty()) {
        try {
          (void)sim.run(r, r.algorithm);
        } catch (const UserError&) {  // a forced algorithm that cannot run there
        }
      }
    (void)scen::link_calibration_toml(scen::calibrate_links(some, fuzz::catalog()), "fuzz");
  });
  return 0;
}
