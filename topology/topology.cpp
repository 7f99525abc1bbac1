#include "topology/topology.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <string>

#include "sim/error.hpp"

namespace stepsim::topo {

std::string_view name(LinkKind k) {
  switch (k) {
    case LinkKind::nvlink: return "nvlink";
    case LinkKind::pcie: return "pcie";
    case LinkKind::nic: return "nic";
    case LinkKind::leaf_spine: return "leaf-spine";
    case LinkKind::spine_core: return "spine-core";
    case LinkKind::count: break;
  }
  return "unknown";
}

Resource resource_of(LinkKind k) {
  switch (k) {
    case LinkKind::nvlink: return Resource::nvlink;
    case LinkKind::pcie: return Resource::pcie;
    case LinkKind::nic: return Resource::nic;
    case LinkKind::leaf_spine:
    case LinkKind::spine_core:
    case LinkKind::count: break;
  }
  return Resource::fabric;
}

namespace {

void require(bool ok, const char* key, const std::string& problem, const char* hint = "") {
  if (!ok) throw UserError({}, key, problem, hint);
}

bool has_nvlink(const ClusterSpec& s) {
  return s.gpu.nvlink_bw.value() > 0.0 && s.nvlink_domain > 1;
}

// Scale-up domain size: the NVLink domain (capped at the cluster), or the host when GPUs share
// only a PCIe switch.
std::uint32_t checked_domain_size(const ClusterSpec& s) {
  require(s.nodes >= 1, "hardware.nodes", "must be at least 1, got " + std::to_string(s.nodes));
  require(s.gpus_per_node >= 1, "hardware.gpus_per_node",
          "must be at least 1, got " + std::to_string(s.gpus_per_node));
  require(s.nvlink_domain >= 1, "hardware.nvlink_domain",
          "must be at least 1, got " + std::to_string(s.nvlink_domain));
  const int total = s.total_gpus();
  if (!has_nvlink(s)) {
    require(s.gpus_per_node == 1 || s.gpu.pcie_bw.value() > 0.0, "hardware.gpu.pcie_gb_s",
            "GPUs of one node need NVLink or PCIe bandwidth to reach each other",
            "set nvlink_gb_s or pcie_gb_s for this GPU");
    return static_cast<std::uint32_t>(s.gpus_per_node);
  }
  // A domain is an NVLink island of part of a node (H100 NVL pairs), one node, or whole nodes.
  require(s.nvlink_domain % s.gpus_per_node == 0 || s.gpus_per_node % s.nvlink_domain == 0,
          "hardware.nvlink_domain",
          "must divide gpus_per_node (" + std::to_string(s.gpus_per_node) + ") or be a multiple of it, got " +
              std::to_string(s.nvlink_domain));
  const int domain = std::min(s.nvlink_domain, total);
  require(
      total % domain == 0, "hardware.nodes",
      "the " + std::to_string(total) + " GPUs do not fill whole NVLink domains of " + std::to_string(domain),
      "use a multiple of nvlink_domain / gpus_per_node nodes");
  return static_cast<std::uint32_t>(domain);
}

void check_fabric(const ClusterSpec& s) {
  const FabricSpec& f = s.fabric;
  require(s.nic_bw().value() > 0.0, "hardware.nic_gbps", "scale-out bandwidth must be positive",
          "set nic_gbps for this GPU or in [hardware]");
  if (f.kind == FabricKind::custom) return;
  require(f.tiers == 2 || f.tiers == 3, "fabric.tiers", "must be 2 or 3, got " + std::to_string(f.tiers));
  require(f.hosts_per_leaf >= 1, "fabric.hosts_per_leaf", "must be at least 1");
  require(f.leaves_per_pod >= 1, "fabric.leaves_per_pod", "must be at least 1");
  for (double r : f.oversubscription)
    require(r >= 1.0, "fabric.oversubscription", "each ratio must be >= 1 (1 = non-blocking)");
  require(f.hop_latency_s >= 0.0 && f.nic_latency_s >= 0.0, "fabric.hop_latency_us", "must be >= 0");
}

}  // namespace

Topology::Topology(const ClusterSpec& spec) : spec_(spec) {
  domain_size_ = checked_domain_size(spec_);
  gpus_per_host_ = static_cast<std::uint32_t>(spec_.gpus_per_node);
  gpu_count_ = static_cast<std::uint32_t>(spec_.total_gpus());
  nvlink_ = has_nvlink(spec_);
  const bool nvlink = nvlink_;
  if (spec_.nvls) {
    require(nvlink && domain_size_ > 1, "hardware.nvls", "in-switch reduction needs an NVLink domain");
    require(spec_.gpu.eff.nvls > 0.0, "hardware.nvls",
            "GPU `" + spec_.gpu.id + "` has no NVLS efficiency in the catalog (its switches cannot reduce)",
            "set nvls = false");
  }
  nvls_ = spec_.nvls;
  for (GpuId g = 0; g < gpu_count_; ++g) add_vertex(VertexKind::gpu);
  up_.assign(gpu_count_, kNoLink);
  down_.assign(gpu_count_, kNoLink);
  nic_up_.assign(gpu_count_, kNoLink);
  nic_down_.assign(gpu_count_, kNoLink);
  build_scaleup();
  if (gpu_count_ / domain_size_ > 1) {
    check_fabric(spec_);
    pxn_ = spec_.fabric.kind == FabricKind::rail_optimized && nvlink && gpus_per_host_ > 1;
    if (spec_.fabric.kind == FabricKind::custom) {
      build_custom();
      degrade_links(nullptr);
    } else {
      build_fabric();  // degrades its links before freezing its routing tables
    }
  } else {
    degrade_links(nullptr);
  }
}

VertexId Topology::add_vertex(VertexKind kind) {
  return static_cast<VertexId>(boost::add_vertex(VertexProps{kind}, graph_));
}

LinkId Topology::add_link(VertexId from, VertexId to, LinkKind kind, BytesPerSecond bw, double latency_s) {
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back(Link{from, to, kind, bw, latency_s});
  boost::add_edge(from, to, EdgeProps{id}, graph_);
  return id;
}

// One non-blocking switch per domain: every GPU has its full per-direction bandwidth to it. The
// step latency is split over the two links so a GPU-switch-GPU path costs exactly one step.
void Topology::build_scaleup() {
  if (domain_size_ <= 1) return;
  const bool nvlink = nvlink_;
  const LinkKind kind = nvlink ? LinkKind::nvlink : LinkKind::pcie;
  const BytesPerSecond bw = nvlink ? spec_.gpu.nvlink_bw : spec_.gpu.pcie_bw;
  const double half_step = spec_.nvlink_latency_s / 2.0;
  for (GpuId first = 0; first < gpu_count_; first += domain_size_) {
    const VertexId sw = add_vertex(nvlink ? VertexKind::nvswitch : VertexKind::pcie_switch);
    for (GpuId g = first; g < first + domain_size_; ++g) {
      up_[g] = add_link(g, sw, kind, bw, half_step);
      down_[g] = add_link(sw, g, kind, bw, half_step);
    }
  }
}

void Topology::route(GpuId src, GpuId dst, std::uint32_t channel, std::vector<LinkId>& out,
                     RailCrossing crossing) const {
  if (src == dst) return;
  if (domain_of(src) == domain_of(dst)) {
    out.push_back(up_[src]);
    out.push_back(down_[dst]);
    return;
  }
  const std::uint32_t rail = local_index(dst);
  // PXN: move the data over NVLink to this host's GPU on the destination's rail, then send it
  // from that GPU's NIC, so scale-out traffic stays on its rail. Only a GPU of the sender's own
  // NVLink domain can relay (a node of several NVLink islands; never the destination itself).
  const GpuId relay = host_of(src) * gpus_per_host_ + rail;
  if (pxn_ && crossing == RailCrossing::pxn && local_index(src) != rail &&
      domain_of(relay) == domain_of(src)) {
    out.push_back(up_[src]);
    out.push_back(down_[relay]);
    route_scaleout(relay, dst, channel, out);
    return;
  }
  route_scaleout(src, dst, channel, out);
}

void Topology::route_scaleout(GpuId src, GpuId dst, std::uint32_t channel, std::vector<LinkId>& out) const {
  if (custom_)
    route_custom(src, dst, channel, out);
  else
    route_fabric(src, dst, channel, out);
}

double Topology::latency_s(std::span<const LinkId> path) const {
  double sum = 0.0;
  for (LinkId l : path) sum += links_[l].latency_s;
  return sum;
}

int Topology::shortest_hops(VertexId from, VertexId to) const {
  std::vector<int> dist(vertex_count(), -1);
  dist[from] = 0;
  auto recorder = boost::record_distances(dist.data(), boost::on_tree_edge());
  boost::breadth_first_search(graph_, from, boost::visitor(boost::make_bfs_visitor(recorder)));
  return dist[to];
}

}  // namespace stepsim::topo
