// Cross-field rules of the hardware: the precision a GPU can run, the NVLink domain the job uses,
// and what the topology needs to build the network (scale-up links, NICs, NVLS, custom fabrics).
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "scenarios/cross_checks_rules.hpp"
#include "scenarios/suggest.hpp"
#include "topology/topology.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::scen::detail {
namespace cross_checks_hardware {

using std::to_string;

/// Largest d <= cap with pred(d), scanning down from cap (cap >= 1).
template <class Pred>
int largest(int cap, Pred pred) {
  for (int d = cap; d > 1; --d)
    if (pred(d)) return d;
  return 1;
}

/// The job's share of each physical NVLink domain when it does not fill them: the largest multiple
/// of gpus_per_node, at most the domain, that tiles the job (128 GPUs on NVL72 racks: 64 of each).
int domain_share(int domain, int gpn, int total) {
  return largest(std::min(domain, total), [&](int d) { return d % gpn == 0 && total % d == 0; });
}

/// GPUs of one scale-up domain as the topology builds it: the NVLink domain (capped at the
/// cluster), or the host when GPUs share only PCIe.
int scaleup_domain(const topo::ClusterSpec& c) {
  const bool nvlink = c.gpu.nvlink_bw.value() > 0.0 && c.nvlink_domain > 1;
  return nvlink ? std::min(c.nvlink_domain, c.total_gpus()) : c.gpus_per_node;
}

void check_weight_quant(const work::JobSpec& job) {
  const work::PrecisionSpec& p = job.precision;
  if (p.weight_quant == work::WeightQuant::none) return;
  if (job.workload.kind == work::WorkloadKind::train)
    refuse("precision.params", "int8/int4 weights are weight-only quantisation for inference",
           "use kind = \"prefill\", \"decode\", \"generate\" or \"serve\", or params = \"bf16\"");
  if (p.compute != topo::Precision::bf16 && p.compute != topo::Precision::fp16)
    refuse("precision.params",
           "weight-only int8/int4 GEMMs run 16-bit math (w8a16, w4a16), but compute = \"" +
               std::string(topo::name(p.compute)) + "\"",
           "set compute = \"bf16\"; W4A8 and W8A8 are not modelled");
}

void check_compute_peak(const work::JobSpec& job) {
  const topo::GpuSpec& gpu = job.cluster.gpu;
  const topo::Precision c = job.precision.compute;
  const double peak = c == topo::Precision::fp8    ? gpu.fp8_peak.value()
                      : c == topo::Precision::fp4  ? gpu.fp4_peak.value()
                      : c == topo::Precision::fp32 ? gpu.fp32_peak.value()
                                                   : gpu.bf16_peak.value();
  if (!(peak > 0.0))
    refuse(
        "precision.compute",
        "GPU `" + gpu.id + "` has no " + std::string(topo::name(c)) + " tensor throughput in the catalog",
        "choose a precision it supports, or set " + std::string(topo::name(c)) + "_tflops in [hardware.gpu]");
}

/// What the topology needs of the scale-up tier and the NICs (topology.cpp checked_domain_size).
void check_scaleup(const topo::ClusterSpec& c) {
  const bool nvlink = c.gpu.nvlink_bw.value() > 0.0 && c.nvlink_domain > 1;
  if (!nvlink && c.gpus_per_node > 1 && !(c.gpu.pcie_bw.value() > 0.0))
    refuse("hardware.gpu", "GPUs of one node need NVLink or PCIe bandwidth to reach each other",
           "set nvlink_gb_s or pcie_gb_s in [hardware.gpu]");
  if (c.nvls && !nvlink)
    refuse("hardware.nvls", "in-switch reduction needs an NVLink domain",
           "set nvls = false, or an nvlink_domain above 1 on a GPU with NVLink");
  if (c.nvls && !(c.gpu.eff.nvls > 0.0))
    refuse("hardware.nvls",
           "GPU `" + c.gpu.id + "` has no NVLS efficiency in the catalog (its switches cannot reduce)",
           "set nvls = false");
  if (c.total_gpus() / scaleup_domain(c) > 1 && !(c.nic_bw().value() > 0.0))
    refuse("hardware.nic_gbps",
           "the job spans " + to_string(c.total_gpus() / scaleup_domain(c)) + " scale-up domains, but GPU `" +
               c.gpu.id + "` has no NIC bandwidth to join them",
           "set nic_gbps in [hardware]");
}

/// `name` as gpuN: N, -1 for another name, or `gpus` (beyond any cluster) for a huge N.
long long gpu_index(const std::string& name, int gpus) {
  if (name.rfind("gpu", 0) != 0 || name.size() <= 3 ||
      name.find_first_not_of("0123456789", 3) != std::string::npos)
    return -1;
  return name.size() > 12 ? gpus : std::stoll(name.substr(3));
}

/// GPUs and switches joined by links (union-find, halving paths).
struct Components {
  std::vector<std::size_t> parent;
  std::size_t root(std::size_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  }
  void join(std::size_t a, std::size_t b) { parent[root(a)] = root(b); }
};

void check_custom_names(const topo::FabricSpec& f) {
  const auto& names = f.custom_switches;
  for (auto it = names.begin(); it != names.end(); ++it) {
    if (it->empty() || it->rfind("gpu", 0) == 0)
      refuse("fabric.switches", "switch name `" + *it + "` is empty or starts with `gpu`",
             "rename the switch");
    if (std::find(names.begin(), it, *it) != it)
      refuse("fabric.switches", "lists switch `" + *it + "` twice", "give every switch its own name");
  }
}

/// The vertex of one end of link `i` (`side` "a" or "b"): gpuN is N, switch s is GPUs + s.
std::size_t endpoint(const topo::FabricSpec& f, std::size_t i, const char* side, int total) {
  const std::string& end = side[0] == 'a' ? f.custom_links[i].a : f.custom_links[i].b;
  const std::string key = "fabric.link[" + to_string(i) + "]." + side;
  const long long g = gpu_index(end, total);
  if (g >= total)
    refuse(key, "`" + end + "` is beyond the cluster's " + to_string(total) + " GPUs",
           "GPUs are gpu0 .. gpu" + to_string(total - 1));
  if (g >= 0) return static_cast<std::size_t>(g);
  const auto at = std::find(f.custom_switches.begin(), f.custom_switches.end(), end);
  if (at == f.custom_switches.end()) {
    const std::string hint = did_you_mean(end, f.custom_switches);
    refuse(key, "`" + end + "` is neither gpuN nor a switch listed in `switches`",
           hint.empty() ? "add it to fabric.switches" : hint);
  }
  return static_cast<std::size_t>(total) + static_cast<std::size_t>(at - f.custom_switches.begin());
}

/// The components the links make; refuses bad endpoints, self-links and GPUs without a link.
Components link_components(const topo::FabricSpec& f, int total) {
  Components c{std::vector<std::size_t>(static_cast<std::size_t>(total) + f.custom_switches.size())};
  std::iota(c.parent.begin(), c.parent.end(), std::size_t{0});
  std::vector<bool> linked(static_cast<std::size_t>(total), false);
  for (std::size_t i = 0; i < f.custom_links.size(); ++i) {
    const std::size_t a = endpoint(f, i, "a", total), b = endpoint(f, i, "b", total);
    if (a == b)
      refuse("fabric.link[" + to_string(i) + "].b",
             "is `" + f.custom_links[i].b + "`, the endpoint `a` names too",
             "a link joins two different endpoints");
    for (std::size_t v : {a, b})
      if (v < linked.size()) linked[v] = true;
    c.join(a, b);
  }
  for (int g = 0; g < total; ++g)
    if (!linked[static_cast<std::size_t>(g)])
      refuse("fabric.link", "gpu" + to_string(g) + " has no link",
             "every GPU needs at least one [[fabric.link]]");
  return c;
}

/// Custom fabrics: every endpoint is gpuN (N < GPUs) or a listed switch, every link joins two
/// endpoints, every GPU has a link, the routing table fits, and every GPU reaches every other one
/// (over the listed links and its scale-up domain).
void check_custom_fabric(const topo::ClusterSpec& c) {
  const topo::FabricSpec& f = c.fabric;
  if (f.kind != topo::FabricKind::custom) return;
  check_custom_names(f);
  const int total = c.total_gpus();
  Components parts = link_components(f, total);
  const int domain = scaleup_domain(c);
  if (total / domain <= 1) return;  // one scale-up domain: the topology builds no fabric
  const std::size_t vertices =
      std::size_t(total) + (domain > 1 ? std::size_t(total / domain) : 0) + f.custom_switches.size();
  if (std::size_t(total) * vertices > topo::kMaxCustomRoutingEntries)
    refuse("fabric.kind",
           "custom fabrics are limited to " + to_string(topo::kMaxCustomRoutingEntries) +
               " GPU x vertex routing entries, and this one needs " +
               to_string(std::size_t(total) * vertices),
           "use a generated fat-tree or rail-optimized fabric for clusters this large");
  for (int g = 1; g < total; ++g)  // a scale-up domain joins its GPUs
    if (g % domain != 0) parts.join(std::size_t(g), std::size_t(g - 1));
  for (int g = 1; g < total; ++g)
    if (parts.root(std::size_t(g)) != parts.root(0))
      refuse("fabric.link", "gpu" + to_string(g) + " cannot reach gpu0 over the custom links",
             "connect every GPU (or its domain) to the fabric");
}

}  // namespace cross_checks_hardware

/// The precisions stepsim stores what in, where not given: the compute precision's natural width
/// (FP8 and FP4 math keeps 16-bit copies).
void resolve_precision(Scenario& s) {
  work::PrecisionSpec& p = s.job.precision;
  const double natural = p.compute == topo::Precision::fp32 ? 4.0 : 2.0;
  if (!given(s, "precision.params")) p.param_bytes = natural;
  if (!given(s, "precision.grads")) p.grad_bytes = natural;
  if (!given(s, "precision.activations")) p.activation_bytes = natural;
  if (!given(s, "precision.kv_cache")) p.kv_bytes = natural;
}

/// The low-precision recipe: Transformer Engine's default where unset (MXFP8 on Blackwell, whose
/// FP4 tensor cores mark it here, delayed scaling before it; NVFP4 for FP4), and the combinations
/// that exist.
void resolve_recipe(Scenario& s) {
  work::PrecisionSpec& p = s.job.precision;
  using R = work::LowPrecisionRecipe;
  const bool blackwell = s.job.cluster.gpu.fp4_peak.value() > 0.0;
  const bool set = given(s, "precision.recipe");
  if (!p.low_precision_linears()) {
    if (set) refuse("precision.recipe", "is a recipe for FP8 or FP4 linear layers", "set compute = \"fp8\"");
    if (p.fp8_params) refuse("precision.fp8_params", "needs FP8 linear layers", "set compute = \"fp8\"");
    if (p.fp8_attention && !(s.job.cluster.gpu.fp8_peak.value() > 0.0))
      refuse("precision.fp8_attention", "GPU `" + s.job.cluster.gpu.id + "` has no FP8 tensor cores");
    return;
  }
  if (p.compute == topo::Precision::fp4) {
    if (!set) p.recipe = R::nvfp4;
    if (p.recipe != R::nvfp4)
      refuse("precision.recipe", "FP4 linear layers run the nvfp4 recipe", "set recipe = \"nvfp4\"");
    return;
  }
  if (!set) p.recipe = blackwell ? R::mxfp8 : R::delayed;
  if (p.recipe == R::nvfp4) refuse("precision.recipe", "nvfp4 is an FP4 recipe", "set compute = \"fp4\"");
  if (p.recipe == R::mxfp8 && !blackwell)
    refuse("precision.recipe",
           "MXFP8 needs Blackwell tensor cores; GPU `" + s.job.cluster.gpu.id + "` has none",
           "use delayed, tensorwise or blockwise");
  // FP8 parameters replace the 16-bit working weights (Megatron's --fp8-param-gather).
  if (p.fp8_params && !given(s, "precision.params")) p.param_bytes = 1.0;
}

/// hardware.nvlink_domain is the physical scale-up domain (an NVL72 rack, or an NVLink island of
/// part of a node); the job uses gpus_per_domain of each multi-node one (given, or the largest
/// share that tiles it). Inside the job the scale-up domain is its share: the NVSwitch is
/// non-blocking, so GPUs of another job in the same rack take none of this job's NVLink bandwidth.
/// ClusterSpec keeps the share as nvlink_domain (what the topology builds) and the rack as rack_gpus.
void resolve_nvlink_domain(Scenario& s) {
  topo::ClusterSpec& c = s.job.cluster;
  const int gpn = c.gpus_per_node;
  const int total = c.total_gpus();
  const int share = c.rack_gpus;  // as read: gpus_per_domain (0 = not given)
  c.rack_gpus = 0;
  const bool stated = c.nvlink_domain > 0;
  int d = c.nvlink_domain;
  if (!stated) {
    d = c.gpu.nvlink_bw.value() > 0.0 ? c.gpu.nvlink_domain : 1;  // the catalog's domain
    if (d <= gpn)
      d = cross_checks_hardware::largest(d, [&](int x) { return gpn % x == 0; });
    else
      d = cross_checks_hardware::largest(
          d, [&](int x) { return x % gpn == 0; });  // whole nodes of a multi-node domain
  }
  if (gpn % d != 0 && d % gpn != 0)
    refuse("hardware.nvlink_domain",
           "is " + std::to_string(d) +
               ", neither a divisor nor a multiple of gpus_per_node = " + std::to_string(gpn),
           "a scale-up domain is part of a node, one node, or several whole nodes");
  if (d > 1 && !(c.gpu.nvlink_bw.value() > 0.0))
    refuse("hardware.nvlink_domain",
           "is " + std::to_string(d) + " but GPU `" + c.gpu.id + "` has no NVLink bandwidth",
           "set nvlink_gb_s in [hardware.gpu], or nvlink_domain = 1");
  if (d <= gpn) {  // domains inside a node
    if (share > 0)
      refuse("hardware.gpus_per_domain", "applies to scale-up domains of several nodes (NVL72 racks)",
             "remove it; this domain is " + std::to_string(d) + " GPUs of one node");
    c.nvlink_domain = d;
    return;
  }
  if (share > 0) {
    if (share > d || share % gpn != 0 || total % share != 0)
      refuse("hardware.gpus_per_domain",
             "is " + std::to_string(share) + ", but the job's GPUs in each NVLink domain of " +
                 std::to_string(d) + " must be whole nodes of " + std::to_string(gpn) +
                 ", at most the domain, and tile its " + std::to_string(total) + " GPUs",
             "e.g. gpus_per_domain = " + std::to_string(cross_checks_hardware::domain_share(d, gpn, total)));
    c.nvlink_domain = share;
  } else {
    c.nvlink_domain = total % d == 0 ? d : cross_checks_hardware::domain_share(d, gpn, total);
  }
  if (c.nvlink_domain < d) c.rack_gpus = d;
}

void check_hardware_rules(const work::JobSpec& job) {
  cross_checks_hardware::check_weight_quant(job);
  cross_checks_hardware::check_compute_peak(job);
  cross_checks_hardware::check_scaleup(job.cluster);
  cross_checks_hardware::check_custom_fabric(job.cluster);
}

}  // namespace stepsim::scen::detail
