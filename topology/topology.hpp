#pragma once
// The physical network of a cluster: GPUs, switches and directed links, and how a flow between two
// GPUs is routed over them.
//
// Built once from a ClusterSpec and immutable afterwards, so runs on several threads can share it.
// Vertices and links live in a Boost.Graph adjacency list (graph()); GPU g is vertex g. Every link
// direction is its own capacity, with a kind (nvlink, pcie, nic, leaf-spine, spine-core) and a
// latency. Generated fabrics (fat-tree, rail-optimised, NVLink domains of any size) are routed by
// a structured up/down computation, fast at 16,384 GPUs; custom edge lists by breadth-first search.
// Equal-cost choices are deterministic: generated fabrics use d-mod-k destination routing offset by
// the channel (as InfiniBand's ftree routing), so balanced patterns (all-to-all, rotated ring
// channels) spread evenly over uplinks; custom fabrics pick among next hops by (src, dst, channel).

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topology/cluster.hpp"
#include "topology/resource.hpp"

namespace stepsim::topo {

using GpuId = std::uint32_t;
using LinkId = std::uint32_t;
using VertexId = std::uint32_t;
inline constexpr LinkId kNoLink = 0xffffffffu;
/// Custom fabrics keep a GPU x vertex table of BFS distances: at most this many entries (128 MiB).
inline constexpr std::size_t kMaxCustomRoutingEntries = std::size_t{1} << 26;

/// What a link direction is; decides its protocol efficiency and the resource it is reported as.
enum class LinkKind : std::uint8_t {
  nvlink,      ///< GPU <-> NVSwitch (scale-up)
  pcie,        ///< GPU <-> PCIe switch (scale-up without NVLink)
  nic,         ///< GPU <-> its first scale-out switch (leaf)
  leaf_spine,  ///< leaf <-> spine, or any switch-to-switch link of a custom fabric
  spine_core,  ///< spine <-> core (three tiers)
  count
};
inline constexpr std::size_t kLinkKindCount = static_cast<std::size_t>(LinkKind::count);

/// How a flow between GPUs on different rails leaves the host: NCCL relays it over NVLink to the
/// GPU on the destination's rail first (PXN) where the fabric is rail-optimised; GPU-initiated RDMA
/// (DeepEP's low-latency kernels, IBGDA) sends it from the source GPU's own NIC.
enum class RailCrossing : std::uint8_t { pxn, own_nic };

enum class VertexKind : std::uint8_t { gpu, nvswitch, pcie_switch, leaf, spine, core, custom_switch };

/// One direction of a physical link.
struct Link {
  VertexId from = 0;
  VertexId to = 0;
  LinkKind kind = LinkKind::nic;
  BytesPerSecond bw;       ///< line rate
  double latency_s = 0.0;  ///< propagation plus the switch hop it ends in (see topology.cpp)
};

/// Lower-case name ("nvlink", "leaf-spine", ...).
std::string_view name(LinkKind k);
/// The resource a link kind is reported as (nvlink, pcie, nic, fabric).
Resource resource_of(LinkKind k);

class Topology {
 public:
  struct VertexProps {
    VertexKind kind = VertexKind::gpu;
  };
  struct EdgeProps {
    LinkId link = kNoLink;
  };
  using Graph =
      boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, VertexProps, EdgeProps>;

  /// Builds the network; throws UserError (with the scenario key) for inconsistent specs.
  explicit Topology(const ClusterSpec& spec);

  const ClusterSpec& spec() const { return spec_; }
  std::uint32_t gpu_count() const { return gpu_count_; }
  std::uint32_t host_of(GpuId g) const { return g / gpus_per_host_; }
  std::uint32_t local_index(GpuId g) const { return g % gpus_per_host_; }
  /// Scale-up domain (NVLink domain, or the host when GPUs share only a PCIe switch).
  std::uint32_t domain_of(GpuId g) const { return g / domain_size_; }
  std::uint32_t domain_size() const { return domain_size_; }
  /// True when GPUs of one domain talk over NVLink (else the domain is a host's PCIe).
  bool nvlink() const { return nvlink_; }
  /// True when GPUs of one domain can reduce in the switch (NVLink SHARP).
  bool nvls() const { return nvls_; }
  /// True when scale-out traffic between rails relays over NVLink to the GPU on the destination's
  /// rail first (NCCL's PXN), as on rail-optimised fabrics.
  bool relays_across_rails() const { return pxn_; }

  std::span<const Link> links() const { return links_; }
  const Link& link(LinkId l) const { return links_[l]; }
  std::size_t vertex_count() const { return boost::num_vertices(graph_); }
  VertexKind vertex_kind(VertexId v) const { return graph_[v].kind; }
  const Graph& graph() const { return graph_; }

  /// GPU -> its scale-up switch, and back; kNoLink when the GPU has no scale-up peers.
  LinkId scaleup_up(GpuId g) const { return up_[g]; }
  LinkId scaleup_down(GpuId g) const { return down_[g]; }
  /// GPU -> its first scale-out switch, and back; kNoLink when the cluster has no fabric.
  LinkId nic_up(GpuId g) const { return nic_up_.empty() ? kNoLink : nic_up_[g]; }
  LinkId nic_down(GpuId g) const { return nic_down_.empty() ? kNoLink : nic_down_[g]; }

  /// Appends to `out` the links a flow from `src` to `dst` (src != dst) crosses, in order.
  /// `channel` selects among equal-cost paths; the same arguments always give the same route.
  void route(GpuId src, GpuId dst, std::uint32_t channel, std::vector<LinkId>& out,
             RailCrossing crossing = RailCrossing::pxn) const;
  /// Sum of the latencies of `path`, seconds.
  double latency_s(std::span<const LinkId> path) const;
  /// Fewest links between two vertices by breadth-first search over the whole graph (for checks).
  int shortest_hops(VertexId from, VertexId to) const;

  /// Implementation tables of generated and custom fabrics (topology_fabric.cpp, topology_custom.cpp).
  struct Fabric;
  struct Custom;

 private:
  VertexId add_vertex(VertexKind kind);
  LinkId add_link(VertexId from, VertexId to, LinkKind kind, BytesPerSecond bw, double latency_s);
  void build_scaleup();
  void build_fabric();
  void add_fabric_links(Fabric& fab, double leaf_spine_bw, double spine_core_bw);
  void build_custom();
  /// Applies spec_.degraded: scales the links of degraded parts; moves the traffic of a GPU whose
  /// NIC is down onto the nearest working NIC of its node (`fab`: null on custom fabrics).
  void degrade_links(Fabric* fab);
  /// Applies spec_.degraded_switches to a generated fabric: scales a switch's links, or takes it
  /// down (a leaf's NICs into `nic_down`; spines and cores out of the routing).
  void degrade_switches(Fabric& fab, std::vector<std::uint8_t>& nic_down);
  /// With spines or cores down: the cores up per group, and an error where no route is left.
  void check_switch_routes(Fabric& fab) const;
  void add_custom_links(Custom& custom, const std::map<std::string, VertexId>& names);
  void compute_custom_distances(Custom& custom) const;
  void route_scaleout(GpuId src, GpuId dst, std::uint32_t channel, std::vector<LinkId>& out) const;
  void route_fabric(GpuId src, GpuId dst, std::uint32_t channel, std::vector<LinkId>& out) const;
  void route_custom(GpuId src, GpuId dst, std::uint32_t channel, std::vector<LinkId>& out) const;

  ClusterSpec spec_;
  std::uint32_t gpu_count_ = 0;
  std::uint32_t gpus_per_host_ = 1;
  std::uint32_t domain_size_ = 1;
  bool nvlink_ = false;
  bool nvls_ = false;
  bool pxn_ = false;
  Graph graph_;
  std::vector<Link> links_;
  std::vector<LinkId> up_, down_;          // per GPU, scale-up
  std::vector<LinkId> nic_up_, nic_down_;  // per GPU, scale-out first hop
  std::shared_ptr<const Fabric> fabric_;
  std::shared_ptr<const Custom> custom_;
};

}  // namespace stepsim::topo
