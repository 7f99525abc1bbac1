// Generated scale-out fabrics: two- and three-tier fat-trees, plain or rail-optimised.
//
// Leaves hold `hosts_per_leaf` NICs. Plain fat-tree: NIC g (one per GPU) on leaf g / hosts_per_leaf.
// Rail-optimised: GPU i of every node in a group of hosts_per_leaf nodes on that group's rail-i
// leaf. Every leaf of a pod connects to each of the pod's P spines (two tiers: one pod of all
// leaves); spine j of every pod connects to core group j of C cores. Oversubscription r at a tier
// divides its uplink bandwidth: a leaf has hosts_per_leaf x nic / r of uplink, split over P =
// round(hosts_per_leaf / r) spines (links as fast as a NIC when that divides evenly).
#include <cmath>

#include "topology/topology.hpp"

namespace stepsim::topo {

struct Topology::Fabric {
  std::uint32_t leaves = 0;
  std::uint32_t leaves_per_pod = 1;
  std::uint32_t pods = 1;
  std::uint32_t spines = 1;                  // per pod (P)
  std::uint32_t cores = 1;                   // per core group (C); 0 for two tiers
  std::vector<std::uint32_t> leaf_of;        // per GPU
  std::vector<std::uint32_t> nic_index;      // per GPU: leaf x hosts_per_leaf + port on the leaf
  std::vector<LinkId> leaf_up, leaf_down;    // [leaf * P + j]
  std::vector<LinkId> spine_up, spine_down;  // [(pod * P + j) * C + k]
  // Switches down ([variability] degraded_switches): routes pick among the others.
  bool switches_down = false;
  std::vector<std::uint8_t> spine_is_down;  // [pod * P + j]
  std::vector<std::uint8_t> core_is_down;   // [j * C + k]
  std::vector<std::uint32_t> live_cores;    // per spine index j: cores of group j up

  bool spine_up_in(std::uint32_t pod, std::uint32_t j) const {
    return spine_is_down.empty() || !spine_is_down[std::size_t{pod} * spines + j];
  }
  /// Spine index j for hash h from pod pa to pod pb: d-mod-k over the spines up in both pods (and,
  /// across pods, whose core group has a core up).
  std::uint32_t pick_spine(std::uint32_t h, std::uint32_t pa, std::uint32_t pb) const {
    if (!switches_down) return h % spines;
    const auto usable = [&](std::uint32_t j) {
      return spine_up_in(pa, j) && spine_up_in(pb, j) && (pa == pb || live_cores[j] > 0);
    };
    std::uint32_t n = 0;
    for (std::uint32_t j = 0; j < spines; ++j) n += usable(j) ? 1 : 0;
    std::uint32_t want = h % n;  // n > 0: checked when the switches were taken down
    for (std::uint32_t j = 0; j < spines; ++j)
      if (usable(j) && want-- == 0) return j;
    return 0;
  }
  /// Core k of group j for hash h: ((h / P) mod the cores up), counted over the cores up.
  std::uint32_t pick_core(std::uint32_t h, std::uint32_t j) const {
    if (!switches_down || core_is_down.empty()) return (h / spines) % cores;
    std::uint32_t want = (h / spines) % live_cores[j];  // > 0: pick_spine skips groups without cores
    for (std::uint32_t k = 0; k < cores; ++k)
      if (!core_is_down[std::size_t{j} * cores + k] && want-- == 0) return k;
    return 0;
  }
};

namespace {

std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) {
  return (a + b - 1) / b;
}

std::uint32_t links_for(double ports, double ratio) {
  return static_cast<std::uint32_t>(std::max(1.0, std::round(ports / ratio)));
}

// Which leaf each NIC hangs off, and the NIC's number counted leaf by leaf (for routing).
void place_nics(Topology::Fabric& fab, const FabricSpec& f, std::uint32_t gpus, std::uint32_t per_host) {
  const auto hpl = static_cast<std::uint32_t>(f.hosts_per_leaf);
  fab.leaf_of.resize(gpus);
  fab.nic_index.resize(gpus);
  if (f.kind == FabricKind::rail_optimized) {
    fab.leaves = ceil_div(gpus / per_host, hpl) * per_host;
    for (GpuId g = 0; g < gpus; ++g) {
      const std::uint32_t host = g / per_host;
      fab.leaf_of[g] = (host / hpl) * per_host + g % per_host;
      fab.nic_index[g] = fab.leaf_of[g] * hpl + host % hpl;
    }
  } else {
    fab.leaves = ceil_div(gpus, hpl);
    for (GpuId g = 0; g < gpus; ++g) {
      fab.leaf_of[g] = g / hpl;
      fab.nic_index[g] = g;
    }
  }
}

}  // namespace

void Topology::build_fabric() {
  const FabricSpec& f = spec_.fabric;
  const double nic = spec_.nic_bw().value();
  const auto hpl = static_cast<std::uint32_t>(f.hosts_per_leaf);
  auto fab = std::make_shared<Fabric>();
  place_nics(*fab, f, gpu_count_, gpus_per_host_);
  const bool three = f.tiers == 3;
  fab->leaves_per_pod = three ? std::min<std::uint32_t>(f.leaves_per_pod, fab->leaves) : fab->leaves;
  fab->pods = ceil_div(fab->leaves, fab->leaves_per_pod);
  fab->spines = links_for(hpl, f.oversubscription[0]);
  const double leaf_spine_bw = hpl * nic / (f.oversubscription[0] * fab->spines);
  fab->cores = three ? links_for(fab->leaves_per_pod, f.oversubscription[1]) : 0;
  const double spine_core_bw =
      three ? fab->leaves_per_pod * leaf_spine_bw / (f.oversubscription[1] * fab->cores) : 0.0;
  add_fabric_links(*fab, leaf_spine_bw, spine_core_bw);
  degrade_links(fab.get());
  fabric_ = std::move(fab);
}

void Topology::add_fabric_links(Fabric& fab, double leaf_spine_bw, double spine_core_bw) {
  const FabricSpec& f = spec_.fabric;
  const double hop = f.hop_latency_s;
  std::vector<VertexId> leaf_v(fab.leaves), spine_v(fab.pods * fab.spines);
  for (auto& v : leaf_v) v = add_vertex(VertexKind::leaf);
  for (auto& v : spine_v) v = add_vertex(VertexKind::spine);
  for (GpuId g = 0; g < gpu_count_; ++g) {
    // The NIC pair costs nic_latency_s per message; the leaf hop is charged on the way down.
    nic_up_[g] = add_link(g, leaf_v[fab.leaf_of[g]], LinkKind::nic, spec_.nic_bw(), f.nic_latency_s / 2);
    nic_down_[g] =
        add_link(leaf_v[fab.leaf_of[g]], g, LinkKind::nic, spec_.nic_bw(), f.nic_latency_s / 2 + hop);
  }
  const std::uint32_t P = fab.spines;
  fab.leaf_up.resize(std::size_t{fab.leaves} * P);
  fab.leaf_down.resize(fab.leaf_up.size());
  for (std::uint32_t leaf = 0; leaf < fab.leaves; ++leaf)
    for (std::uint32_t j = 0; j < P; ++j) {
      const VertexId spine = spine_v[(leaf / fab.leaves_per_pod) * P + j];
      fab.leaf_up[leaf * P + j] =
          add_link(leaf_v[leaf], spine, LinkKind::leaf_spine, BytesPerSecond::of(leaf_spine_bw), hop);
      fab.leaf_down[leaf * P + j] =
          add_link(spine, leaf_v[leaf], LinkKind::leaf_spine, BytesPerSecond::of(leaf_spine_bw), hop);
    }
  if (fab.cores == 0) return;
  const std::uint32_t C = fab.cores;
  std::vector<VertexId> core_v(std::size_t{P} * C);
  for (auto& v : core_v) v = add_vertex(VertexKind::core);
  fab.spine_up.resize(std::size_t{fab.pods} * P * C);
  fab.spine_down.resize(fab.spine_up.size());
  for (std::uint32_t pod = 0; pod < fab.pods; ++pod)
    for (std::uint32_t j = 0; j < P; ++j)
      for (std::uint32_t k = 0; k < C; ++k) {
        const std::size_t i = (std::size_t{pod} * P + j) * C + k;
        const VertexId spine = spine_v[pod * P + j], core = core_v[j * C + k];
        fab.spine_up[i] = add_link(spine, core, LinkKind::spine_core, BytesPerSecond::of(spine_core_bw), hop);
        fab.spine_down[i] =
            add_link(core, spine, LinkKind::spine_core, BytesPerSecond::of(spine_core_bw), hop);
      }
}

// Up to the lowest common switch tier and down again, choosing the spine by (d + channel) mod P
// and the core by ((d + channel) / P) mod C, d numbering the destination NIC leaf by leaf (with
// switches down, the same counted over the spines and cores that are up). This is
// d-mod-k destination routing, as InfiniBand's fat-tree routing (OpenSM ftree) sets up: each
// destination has one path per channel, an all-to-all or a set of rotated ring channels loads
// every link equally, and patterns that funnel into few destinations collide as they do on real
// fabrics. (Raw GPU ids would not do: a rail's GPUs are gpus_per_node apart.)
void Topology::route_fabric(GpuId src, GpuId dst, std::uint32_t channel, std::vector<LinkId>& out) const {
  const Fabric& fab = *fabric_;
  out.push_back(nic_up_[src]);
  const std::uint32_t la = fab.leaf_of[src], lb = fab.leaf_of[dst];
  if (la != lb) {
    const std::uint32_t P = fab.spines;
    const std::uint32_t h = fab.nic_index[dst] + channel;
    const std::uint32_t pa = la / fab.leaves_per_pod, pb = lb / fab.leaves_per_pod;
    const std::uint32_t j = fab.pick_spine(h, pa, pb);
    out.push_back(fab.leaf_up[std::size_t{la} * P + j]);
    if (pa != pb) {
      const std::uint32_t C = fab.cores;
      const std::uint32_t k = fab.pick_core(h, j);
      out.push_back(fab.spine_up[(std::size_t{pa} * P + j) * C + k]);
      out.push_back(fab.spine_down[(std::size_t{pb} * P + j) * C + k]);
    }
    out.push_back(fab.leaf_down[std::size_t{lb} * P + j]);
  }
  out.push_back(nic_down_[dst]);
}

namespace degraded_detail {
void degraded_require(bool ok, const char* key, const std::string& problem, const char* hint = "") {
  if (!ok) throw UserError({}, key, problem, hint);
}
}  // namespace degraded_detail

void Topology::degrade_links(Fabric* fab) {
  using degraded_detail::degraded_require;
  std::vector<std::uint8_t> nic_down(gpu_count_, 0);
  for (std::size_t i = 0; i < spec_.degraded.size(); ++i) {
    const LinkDegradation& d = spec_.degraded[i];
    const std::string key = "variability.degraded_links[" + std::to_string(i) + "]";
    degraded_require(
        d.gpu >= 0 && static_cast<std::uint32_t>(d.gpu) < gpu_count_, key.c_str(),
        "GPU " + std::to_string(d.gpu) + " is not in the job (" + std::to_string(gpu_count_) + " GPUs)");
    const auto g = static_cast<GpuId>(d.gpu);
    const bool nvlink = d.part == LinkDegradation::Part::nvlink;
    const LinkId up = nvlink ? up_[g] : nic_up_[g], down = nvlink ? down_[g] : nic_down_[g];
    degraded_require(up != kNoLink, key.c_str(),
                     std::string("GPU ") + std::to_string(g) + " has no " + (nvlink ? "NVLink" : "NIC") +
                         " link in this cluster (" +
                         (nvlink ? "no scale-up domain" : "one NVLink domain, no fabric") + ")");
    if (d.bandwidth > 0.0) {
      links_[up].bw = BytesPerSecond::of(links_[up].bw.value() * d.bandwidth);
      links_[down].bw = BytesPerSecond::of(links_[down].bw.value() * d.bandwidth);
      continue;
    }
    degraded_require(!nvlink, key.c_str(), "an NVLink down is not modelled (the GPU would leave its domain)",
                     "give it a small bandwidth instead, e.g. bandwidth = 0.25");
    degraded_require(fab != nullptr, key.c_str(), "a NIC down is rerouted on generated fabrics only",
                     "on a custom fabric, give the GPU's [[fabric.link]] a lower bw_gb_s");
    nic_down[g] = 1;
  }
  degraded_require(
      spec_.degraded_switches.empty() || fab != nullptr, "variability.degraded_switches",
      "switches are degraded on generated fabrics only (this cluster has " +
          std::string(gpu_count_ / domain_size_ > 1 ? "a custom fabric" : "no fabric: one NVLink domain") +
          ")",
      "on a custom fabric, give the switch's [[fabric.link]] entries a lower bw_gb_s");
  if (fab == nullptr) return;
  degrade_switches(*fab, nic_down);
  constexpr GpuId kNoGpu = 0xffffffffu;
  // A GPU whose NIC is down uses the nearest working NIC of its node: its PCIe-switch partner
  // first (local index i xor 1, the GPU pair that shares a switch and two NICs in DGX and HGX
  // nodes), then by local index. It shares that NIC's links, leaf and place in the routing.
  for (GpuId g = 0; g < gpu_count_; ++g) {
    if (!nic_down[g]) continue;
    const GpuId host = host_of(g) * gpus_per_host_, i = local_index(g);
    GpuId peer = kNoGpu;
    const GpuId partner = i ^ 1u;
    if (partner < gpus_per_host_ && !nic_down[host + partner]) peer = host + partner;
    for (GpuId k = 1; peer == kNoGpu && k < gpus_per_host_; ++k)
      for (const GpuId j : {i + k, i - k})
        if (j < gpus_per_host_ && !nic_down[host + j] && peer == kNoGpu) peer = host + j;
    degraded_require(
        peer != kNoGpu,
        spec_.degraded_switches.empty() ? "variability.degraded_links" : "variability.degraded_switches",
        "every NIC of node " + std::to_string(host_of(g)) + " is down: its GPUs cannot reach the others",
        "the job cannot run on this node: leave it out, or give a NIC (or its leaf) a small bandwidth");
    nic_up_[g] = nic_up_[peer];
    nic_down_[g] = nic_down_[peer];
    fab->leaf_of[g] = fab->leaf_of[peer];
    fab->nic_index[g] = fab->nic_index[peer];
  }
}

namespace degraded_detail {

/// The links a switch's ports drive, both directions: a leaf's NIC links and uplinks, a spine's
/// links to its pod's leaves and to its cores, a core's links to its spines.
std::vector<LinkId> switch_links(const Topology::Fabric& fab, const SwitchDegradation& d,
                                 std::span<const LinkId> nic_up, std::span<const LinkId> nic_down) {
  std::vector<LinkId> out;
  const auto i = static_cast<std::uint32_t>(d.index);
  const std::uint32_t P = fab.spines, C = fab.cores;
  switch (d.tier) {
    case SwitchDegradation::Tier::leaf:
      for (GpuId g = 0; g < fab.leaf_of.size(); ++g)
        if (fab.leaf_of[g] == i) out.insert(out.end(), {nic_up[g], nic_down[g]});
      for (std::uint32_t j = 0; j < P; ++j)
        out.insert(out.end(), {fab.leaf_up[i * P + j], fab.leaf_down[i * P + j]});
      break;
    case SwitchDegradation::Tier::spine: {
      const std::uint32_t pod = i / P, j = i % P;
      for (std::uint32_t leaf = pod * fab.leaves_per_pod;
           leaf < std::min(fab.leaves, (pod + 1) * fab.leaves_per_pod); ++leaf)
        out.insert(out.end(), {fab.leaf_up[leaf * P + j], fab.leaf_down[leaf * P + j]});
      for (std::uint32_t k = 0; k < C; ++k)
        out.insert(out.end(), {fab.spine_up[std::size_t{i} * C + k], fab.spine_down[std::size_t{i} * C + k]});
      break;
    }
    case SwitchDegradation::Tier::core: {
      const std::uint32_t j = i / C, k = i % C;
      for (std::uint32_t pod = 0; pod < fab.pods; ++pod) {
        const std::size_t x = (std::size_t{pod} * P + j) * C + k;
        out.insert(out.end(), {fab.spine_up[x], fab.spine_down[x]});
      }
      break;
    }
  }
  return out;
}

std::uint32_t switch_count(const Topology::Fabric& fab, SwitchDegradation::Tier tier) {
  switch (tier) {
    case SwitchDegradation::Tier::leaf: return fab.leaves;
    case SwitchDegradation::Tier::spine: return fab.pods * fab.spines;
    case SwitchDegradation::Tier::core: return fab.spines * fab.cores;
  }
  return 0;
}

}  // namespace degraded_detail

void Topology::degrade_switches(Fabric& fab, std::vector<std::uint8_t>& nic_down) {
  using namespace degraded_detail;
  for (std::size_t i = 0; i < spec_.degraded_switches.size(); ++i) {
    const SwitchDegradation& d = spec_.degraded_switches[i];
    const std::string key = "variability.degraded_switches[" + std::to_string(i) + "]";
    const std::uint32_t count = switch_count(fab, d.tier);
    degraded_require(d.tier != SwitchDegradation::Tier::core || fab.cores > 0, key.c_str(),
                     "a two-tier fabric has no core switches",
                     "name a leaf or a spine, or set fabric.tiers = 3");
    degraded_require(d.index >= 0 && static_cast<std::uint32_t>(d.index) < count, key.c_str(),
                     "switch " + std::to_string(d.index) + " is not in the fabric (" + std::to_string(count) +
                         " at that tier, numbered from 0)");
    const auto idx = static_cast<std::uint32_t>(d.index);
    if (d.bandwidth > 0.0) {
      for (const LinkId l : switch_links(fab, d, nic_up_, nic_down_))
        links_[l].bw = BytesPerSecond::of(links_[l].bw.value() * d.bandwidth);
      continue;
    }
    switch (d.tier) {
      case SwitchDegradation::Tier::leaf:  // its NICs are down: their GPUs use another NIC of the node
        for (GpuId g = 0; g < gpu_count_; ++g)
          if (fab.leaf_of[g] == idx) nic_down[g] = 1;
        break;
      case SwitchDegradation::Tier::spine:
        fab.spine_is_down.resize(std::size_t{fab.pods} * fab.spines, 0);
        fab.spine_is_down[idx] = 1;
        break;
      case SwitchDegradation::Tier::core:
        fab.core_is_down.resize(std::size_t{fab.spines} * fab.cores, 0);
        fab.core_is_down[idx] = 1;
        break;
    }
  }
  if (fab.spine_is_down.empty() && fab.core_is_down.empty()) return;
  fab.switches_down = true;
  check_switch_routes(fab);
}

void Topology::check_switch_routes(Fabric& fab) const {
  using degraded_detail::degraded_require;
  fab.live_cores.assign(fab.spines, fab.cores);
  if (!fab.core_is_down.empty())
    for (std::uint32_t j = 0; j < fab.spines; ++j)
      for (std::uint32_t k = 0; k < fab.cores; ++k)
        fab.live_cores[j] -= fab.core_is_down[std::size_t{j} * fab.cores + k];
  // Every pod whose leaves talk to each other needs a spine up; across pods, a spine index up in
  // both pods whose core group has a core up.
  for (std::uint32_t pa = 0; pa < fab.pods; ++pa)
    for (std::uint32_t pb = pa; pb < fab.pods; ++pb) {
      if (pa == pb && std::min(fab.leaves, (pa + 1) * fab.leaves_per_pod) - pa * fab.leaves_per_pod < 2)
        continue;
      bool any = false;
      for (std::uint32_t j = 0; j < fab.spines && !any; ++j)
        any = fab.spine_up_in(pa, j) && fab.spine_up_in(pb, j) && (pa == pb || fab.live_cores[j] > 0);
      degraded_require(any, "variability.degraded_switches",
                       pa == pb ? "every spine of pod " + std::to_string(pa) +
                                      " is down: its leaves cannot reach each other"
                                : "no spine and core path is up between pods " + std::to_string(pa) +
                                      " and " + std::to_string(pb),
                       "the job cannot run across them: give a switch a small bandwidth instead of 0");
    }
}

}  // namespace stepsim::topo
