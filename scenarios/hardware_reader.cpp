// Readers of the [hardware] and [fabric] tables.
#include "scenarios/choices.hpp"
#include "scenarios/scenario_sections.hpp"
#include "scenarios/spec_readers.hpp"
#include "scenarios/suggest.hpp"
#include "sim/units.hpp"

namespace stepsim::scen::detail {
namespace {

const topo::GpuSpec& find_gpu(TableReader r, std::string_view key, const std::string& id,
                              const Catalog& catalog) {
  const topo::GpuSpec* gpu = catalog.find_gpu(id);
  if (gpu == nullptr) {
    const std::string hint = did_you_mean(id, catalog.gpu_names());
    r.fail(key, "unknown GPU `" + id + "`",
           (hint.empty() ? "" : hint + " ") + "`stepsim catalog gpus` lists them");
  }
  return *gpu;
}

/// `gpu = "h100-sxm"`, or a [hardware.gpu] table with `preset` and overrides of catalog figures.
void read_gpu(TableReader& r, const Catalog& catalog, Scenario& s) {
  const toml::node* n = r.node("gpu");
  if (n == nullptr)
    r.fail("", "missing `gpu` (a catalog GPU id)",
           "e.g. gpu = \"h100-sxm\"; `stepsim catalog gpus` lists them");
  topo::GpuSpec& gpu = s.job.cluster.gpu;
  std::string id;
  if (n->is_string()) {
    r.read("gpu", id);
    gpu = find_gpu(r, "gpu", id, catalog);
  } else if (n->is_table()) {
    TableReader t = *r.table("gpu");
    if (!t.read("preset", id))
      t.fail("", "missing `preset` (the catalog GPU these figures override)", "e.g. preset = \"h100-sxm\"");
    gpu = find_gpu(t, "preset", id, catalog);
    read_gpu_fields(t, gpu);
    t.finish();
    validate_gpu(gpu, t);
  } else {
    r.fail_at(*n, "gpu", "expected a catalog GPU id (a string) or a table with `preset` and overrides",
              "e.g. gpu = \"h100-sxm\"");
  }
  s.gpu_preset = gpu.id;
}

/// nodes, or gpus (total), or both; gpus below one node's worth shrink the node.
void read_size(TableReader& r, topo::ClusterSpec& c) {
  const bool has_gpn = r.read("gpus_per_node", c.gpus_per_node, kGpuCount);
  const bool has_nodes = r.read("nodes", c.nodes, kGpuCount);
  int gpus = 0;
  const bool has_gpus = r.read("gpus", gpus, kGpuCount);
  if (!has_nodes && !has_gpus)
    r.fail("", "missing `nodes` (or `gpus`, the total)", "e.g. nodes = 64 with gpus_per_node = 8");
  // Each count is below 2^24, so the product is exact in 64 bits (nodes = 777777777 x 8 overflowed int).
  const std::int64_t total = std::int64_t{c.nodes} * c.gpus_per_node;
  if (has_nodes && total > kGpuCount.max)
    r.fail("nodes",
           "nodes x gpus_per_node = " + std::to_string(c.nodes) + " x " + std::to_string(c.gpus_per_node) +
               " = " + std::to_string(total) + " GPUs, above the plausible maximum of " +
               std::to_string(kGpuCount.max),
           "a cluster of at most 16,777,216 GPUs (the largest built have about 100,000)");
  if (!has_gpus) return;
  if (!has_nodes && !has_gpn && gpus < c.gpus_per_node) c.gpus_per_node = gpus;
  if (has_nodes) {
    if (c.nodes * c.gpus_per_node != gpus)
      r.fail("gpus",
             "is " + std::to_string(gpus) + " but nodes x gpus_per_node = " + std::to_string(c.nodes) +
                 " x " + std::to_string(c.gpus_per_node) + " = " + std::to_string(c.nodes * c.gpus_per_node),
             "give either nodes or gpus, or make them agree");
    return;
  }
  if (gpus % c.gpus_per_node != 0)
    r.fail("gpus",
           "is " + std::to_string(gpus) +
               ", not a multiple of gpus_per_node = " + std::to_string(c.gpus_per_node),
           "use whole nodes, or set gpus_per_node");
  c.nodes = gpus / c.gpus_per_node;
}

void read_links(TableReader& r, topo::FabricSpec& f) {
  for (TableReader& l : r.tables("link")) {
    topo::CustomLink link;
    double bw_gb_s = 0.0;
    double latency_us = f.hop_latency_s * 1e6;
    if (!l.read("a", link.a)) l.fail("", "missing `a` (an endpoint: gpuN or a switch name)");
    if (!l.read("b", link.b)) l.fail("", "missing `b` (an endpoint: gpuN or a switch name)");
    if (!l.read("bw_gb_s", bw_gb_s, kBandwidthGBs)) l.fail("", "missing `bw_gb_s` (GB/s per direction)");
    l.read("latency_us", latency_us, kLatencyUs);
    l.finish();
    link.bw = units::gb_per_s(bw_gb_s);
    link.latency_s = latency_us * 1e-6;
    f.custom_links.push_back(std::move(link));
  }
}

}  // namespace

void read_hardware_section(TableReader r, const Catalog& catalog, Scenario& s) {
  topo::ClusterSpec& c = s.job.cluster;
  read_gpu(r, catalog, s);
  read_size(r, c);
  c.nvlink_domain = 0;  // 0 = not given; resolve_and_check derives it from the GPU and the cluster
  r.read("nvlink_domain", c.nvlink_domain, kGpuCount);
  r.read("gpus_per_domain", c.rack_gpus, kGpuCount);  // the job's share; resolve_nvlink_domain swaps them
  r.read("nvls", c.nvls);
  double latency_us = 0.0;
  if (r.read("nvlink_latency_us", latency_us, kLatencyUs)) c.nvlink_latency_s = latency_us * 1e-6;
  r.read("nic_gbps", c.fabric.nic_bw, kBandwidthGbps, units::gbit_per_s);
  if (auto eff = r.table("efficiency")) read_efficiency(*eff, c.gpu.eff);
  r.finish();
}

void read_fabric_section(TableReader r, Scenario& s) {
  topo::FabricSpec& f = s.job.cluster.fabric;
  r.read("kind", f.kind, choices::kFabricKind);
  r.read("tiers", f.tiers, IntRange{2, 3});
  if (const toml::node* n = r.node("oversubscription"); n != nullptr && n->is_number()) {
    double all = 1.0;
    r.read("oversubscription", all, kOversubscription);
    f.oversubscription = {all, all, all};
  } else {
    std::vector<double> per_tier;
    if (r.read("oversubscription", per_tier, kOversubscription)) {
      if (per_tier.size() != static_cast<std::size_t>(f.tiers))
        r.fail("oversubscription",
               "has " + std::to_string(per_tier.size()) + " entries but tiers = " + std::to_string(f.tiers),
               "give one ratio per switch tier, leaf first");
      for (std::size_t i = 0; i < per_tier.size(); ++i) f.oversubscription[i] = per_tier[i];
    }
  }
  r.read("sharp", f.sharp);
  r.read("hosts_per_leaf", f.hosts_per_leaf, kGpuCount);
  r.read("leaves_per_pod", f.leaves_per_pod, kGpuCount);
  double hop_us = 0.0;
  if (r.read("hop_latency_us", hop_us, kLatencyUs)) f.hop_latency_s = hop_us * 1e-6;
  const bool custom = f.kind == topo::FabricKind::custom;
  for (std::string_view key : {"switches", "link"})
    if (!custom && r.has(key))
      r.fail(key, "applies only to kind = \"custom\"", "set kind = \"custom\" or remove " + std::string(key));
  r.read("switches", f.custom_switches);
  read_links(r, f);
  r.finish();
  if (custom && f.custom_links.empty())
    r.fail("kind", "\"custom\" needs links", "add [[fabric.link]] tables with a, b and bw_gb_s");
}

}  // namespace stepsim::scen::detail
