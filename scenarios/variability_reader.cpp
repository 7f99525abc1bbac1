// Reader of the [variability] table: jitter, part spread, clock wander, slow GPUs, degraded links
// and switches.
#include <initializer_list>

#include "scenarios/scenario_sections.hpp"
#include "scenarios/spec_readers.hpp"

namespace stepsim::scen::detail {

namespace variability_reader {

/// Fails on the first of `keys` that an array entry lacks, with `example` (a whole entry) as hint.
void require_entry_keys(TableReader& t, std::initializer_list<const char*> keys, const char* example) {
  for (const char* key : keys)
    if (!t.has(key)) t.fail(key, std::string("each entry needs `") + key + "`", example);
}

/// `slow_gpus = [{ rank = 17, factor = 1.1 }]` or `slow_nodes = [{ node = 3, factor = 1.2 }]`.
std::vector<work::SlowPart> read_slow_parts(TableReader& r, std::string_view key, std::string_view index_key,
                                            int count) {
  std::vector<work::SlowPart> out;
  for (TableReader& t : r.tables(key)) {
    work::SlowPart part;
    if (!t.has(index_key))
      t.fail(index_key, "each entry needs `" + std::string(index_key) + "`",
             "e.g. { " + std::string(index_key) + " = 0, factor = 1.1 }");
    if (!t.has("factor"))
      t.fail("factor", "each entry needs `factor`",
             "its kernels' time multiplier, e.g. factor = 1.1 (10% slower)");
    t.read(index_key, part.index, IntRange{0, count - 1});
    t.read("factor", part.factor,
           RealRange{0.0, 100.0, true, "a time multiplier: 1.1 = 10% slower, 0.9 = 10% faster"});
    t.finish();
    out.push_back(part);
  }
  return out;
}

/// `degraded_links = [{ rank = 5, link = "nic", bandwidth = 0.5 }]`, into the cluster.
void read_degraded_links(TableReader& r, Scenario& s) {
  topo::ClusterSpec& c = s.job.cluster;
  std::vector<int> nics_down(static_cast<std::size_t>(c.nodes), 0);
  for (TableReader& t : r.tables("degraded_links")) {
    topo::LinkDegradation d;
    require_entry_keys(t, {"rank", "link", "bandwidth"},
                       "e.g. { rank = 5, link = \"nic\", bandwidth = 0.5 }");
    t.read("rank", d.gpu, IntRange{0, c.total_gpus() - 1});
    std::string part;
    t.read("link", part);
    if (part != "nic" && part != "nvlink")
      t.fail("link", "expected \"nic\" or \"nvlink\", got \"" + part + "\"",
             "the GPU's scale-out NIC or its NVLink ports");
    d.part = part == "nic" ? topo::LinkDegradation::Part::nic : topo::LinkDegradation::Part::nvlink;
    t.read("bandwidth", d.bandwidth,
           RealRange{0.0, 1.0, false, "the fraction of the line rate left, 0 = down (NIC only)"});
    t.finish();
    if (d.bandwidth == 0.0) {
      if (d.part == topo::LinkDegradation::Part::nvlink)
        t.fail("bandwidth", "an NVLink down is not modelled (the GPU would leave its domain)",
               "give it a small bandwidth instead, e.g. bandwidth = 0.25");
      if (c.fabric.kind == topo::FabricKind::custom)
        t.fail("bandwidth", "a NIC down is rerouted on generated fabrics only",
               "on a custom fabric, give the GPU's [[fabric.link]] a lower bw_gb_s");
      const int node = d.gpu / c.gpus_per_node;
      if (++nics_down[static_cast<std::size_t>(node)] >= c.gpus_per_node)
        t.fail("bandwidth",
               "every NIC of node " + std::to_string(node) + " is down: its GPUs cannot reach the others",
               "the job cannot run on that node: leave it out, or give a NIC a small bandwidth");
    }
    c.degraded.push_back(d);
  }
  s.job.variability.degraded_links = static_cast<int>(c.degraded.size());
}

/// `degraded_switches = [{ tier = "spine", index = 3, bandwidth = 0 }]`, into the cluster (the index
/// is checked against the fabric when the topology is built).
void read_degraded_switches(TableReader& r, Scenario& s) {
  topo::ClusterSpec& c = s.job.cluster;
  for (TableReader& t : r.tables("degraded_switches")) {
    topo::SwitchDegradation d;
    require_entry_keys(t, {"tier", "index", "bandwidth"},
                       "e.g. { tier = \"spine\", index = 3, bandwidth = 0 }");
    std::string tier;
    t.read("tier", tier);
    if (tier != "leaf" && tier != "spine" && tier != "core")
      t.fail("tier", "expected \"leaf\", \"spine\" or \"core\", got \"" + tier + "\"",
             "the fabric's switch tiers, from the NICs up (docs/topology.md numbers them)");
    d.tier = tier == "leaf"    ? topo::SwitchDegradation::Tier::leaf
             : tier == "spine" ? topo::SwitchDegradation::Tier::spine
                               : topo::SwitchDegradation::Tier::core;
    t.read("index", d.index, kNonNegativeInt);
    t.read("bandwidth", d.bandwidth,
           RealRange{0.0, 1.0, false, "the fraction of every port's line rate left, 0 = down"});
    t.finish();
    if (c.fabric.kind == topo::FabricKind::custom)
      t.fail("tier", "switches are degraded on generated fabrics only",
             "on a custom fabric, give the switch's [[fabric.link]] entries a lower bw_gb_s");
    c.degraded_switches.push_back(d);
  }
  s.job.variability.degraded_switches = static_cast<int>(c.degraded_switches.size());
}

}  // namespace variability_reader

void read_variability_section(TableReader r, Scenario& s) {
  work::VariabilitySpec& v = s.job.variability;
  const topo::ClusterSpec& c = s.job.cluster;
  int seed = 1;
  if (r.read("seed", seed, kNonNegativeInt)) v.seed = static_cast<std::uint64_t>(seed);
  v.slow_gpus = variability_reader::read_slow_parts(r, "slow_gpus", "rank", c.total_gpus());
  v.slow_nodes = variability_reader::read_slow_parts(r, "slow_nodes", "node", c.nodes);
  variability_reader::read_degraded_links(r, s);
  variability_reader::read_degraded_switches(r, s);
  r.read("gpu_speed_sd", v.gpu_speed_sd,
         RealRange{0.0, 0.3, false, "the spread of per-GPU kernel time as a fraction, e.g. 0.02"});
  r.read("throttled_fraction", v.throttled_fraction,
         RealRange{0.0, 1.0, false, "the fraction of GPUs that are throttled, e.g. 0.005"});
  r.read("throttled_factor", v.throttled_factor,
         RealRange{0.0, 100.0, true, "a throttled GPU's time multiplier, e.g. 1.15"});
  r.read("kernel_jitter_cv", v.kernel_jitter_cv,
         RealRange{0.0, 2.0, false, "the coefficient of variation of one kernel's time, e.g. 0.03"});
  r.read("clock_wander_cv", v.clock_wander_cv,
         RealRange{
             0.0, 1.0, false,
             "the coefficient of variation of a GPU's kernel speed from one window to the next, e.g. 0.02"});
  r.read("clock_wander_ms", v.clock_wander_ms,
         RealRange{0.0, 1e6, true, "milliseconds a GPU's speed holds before it wanders again, e.g. 20"});
  r.read("host_stalls_per_step", v.host_stalls_per_step,
         RealRange{0.0, 1000.0, false, "expected stalls per GPU per step, e.g. 0.01"});
  r.read("host_stall_ms", v.host_stall_ms, RealRange{0.0, 1e6, false, "milliseconds per stall, e.g. 20"});
  r.finish();
  if (v.throttled_fraction > 0.0 && !r.has("throttled_factor"))
    r.fail("throttled_fraction", "throttled GPUs need their slowdown", "set throttled_factor, e.g. 1.15");
  if (v.clock_wander_cv > 0.0 && !r.has("clock_wander_ms"))
    r.fail("clock_wander_cv", "clock wander needs the time a GPU's speed holds",
           "set clock_wander_ms, e.g. 20 (a power-limited GPU's clock moves over milliseconds)");
  if (v.host_stalls_per_step > 0.0 && !(v.host_stall_ms > 0.0))
    r.fail("host_stalls_per_step", "stalls need a length", "set host_stall_ms, e.g. 20");
}

}  // namespace stepsim::scen::detail
