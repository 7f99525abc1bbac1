// libFuzzer target: a cluster description ([hardware], [fabric], custom topologies) -> Topology ->
// a collective sweep over it, as `stepsim collective` and every simulation do. The input is the
// hardware part of a scenario; a fixed small model and workload complete it.
#include <cstdint>
#include <memory>
#include <string>

#include "tests/fuzz/fuzz_support.hpp"
#include "scenarios/scenario.hpp"
#include "topology/collective_sweep.hpp"
#include "topology/topology.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stepsim;
  static const std::string prefix =
      "[model]\npreset = \"llama-3.1-8b\"\nlayers = 2\n"
      "[workload]\nkind = \"train\"\nseq_len = 1024\nglobal_batch = 64\nmicro_batch = 1\n";
  fuzz::expect_user_errors_only([&] {
    const std::string text = prefix + std::string(fuzz::as_text(data, size));
    const scen::Scenario s = scen::load_scenario_string(text, "fuzz-topology.toml", fuzz::catalog());
    if (s.job.cluster.total_gpus() > 4096) return;  // building it is linear in GPUs: keep it quick
    auto topo = std::make_shared<const topo::Topology>(s.job.cluster);
    topo::SweepRequest r;
    r.op = topo::CollectiveOp::all_reduce;
    r.config = s.job.collective;  // [collective]: CollNet, PAT, a forced algorithm or protocol
    std::vector<topo::GpuId> group;
    for (topo::GpuId g = 0; g < topo->gpu_count() && g < 64; ++g) group.push_back(g);
    if (group.size() < 2) return;
    r.groups = {group};
    r.sizes_bytes = {8.0, 1 << 20, 256e6};
    (void)topo::sweep_collective(topo, r);
    // One GPU of each NVLink domain: NCCL's PAT is a candidate for its all-gathers.
    std::vector<topo::GpuId> per_domain;
    for (topo::GpuId g = 0; g < topo->gpu_count() && per_domain.size() < 64; ++g)
      if (per_domain.empty() || topo->domain_of(g) != topo->domain_of(per_domain.back()))
        per_domain.push_back(g);
    if (per_domain.size() >= 2) {
      r.op = topo::CollectiveOp::all_gather;
      r.groups = {per_domain};
      (void)topo::sweep_collective(topo, r);
    }
  });
  return 0;
}
