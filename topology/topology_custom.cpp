// Custom scale-out fabrics from an edge list (FabricSpec::custom_switches / custom_links).
//
// Links join GPUs ("gpu12") and named switches in both directions. Scale-up domains are still
// generated from the ClusterSpec; only traffic between domains uses the custom links. Routing is
// shortest-hop, precomputed by breadth-first search towards every GPU; among equal next hops the
// choice is (src + dst + channel + hop) mod n, so it is deterministic and spreads channels.
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <limits>
#include <map>
#include <string>

#include "sim/error.hpp"
#include "topology/topology.hpp"

namespace stepsim::topo {

struct Topology::Custom {
  std::size_t vertices = 0;
  std::vector<std::vector<LinkId>> out;  // custom out-links per vertex, increasing id
  std::vector<std::uint16_t> dist;       // [gpu * vertices + v]: hops from v to gpu
};

namespace {

constexpr std::uint16_t kFar = std::numeric_limits<std::uint16_t>::max();
constexpr std::size_t kMaxDistanceEntries = kMaxCustomRoutingEntries;

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest_hint(const std::string& word, const std::map<std::string, VertexId>& names) {
  const std::string* best = nullptr;
  std::size_t best_d = 3;  // suggest only near misses
  for (const auto& [n, v] : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best_d) best_d = d, best = &n;
  }
  return best ? "did you mean `" + *best + "`?"
              : "use gpuN (N < number of GPUs) or a name from fabric.switches";
}

}  // namespace

static VertexId custom_endpoint(const std::string& n, const std::string& key,
                                const std::map<std::string, VertexId>& names, std::uint32_t gpus) {
  if (n.rfind("gpu", 0) == 0 && n.size() > 3 && n.find_first_not_of("0123456789", 3) == std::string::npos) {
    const unsigned long g = std::stoul(n.substr(3));
    if (g < gpus) return static_cast<VertexId>(g);
    throw UserError({}, key, "`" + n + "` is beyond the cluster's " + std::to_string(gpus) + " GPUs");
  }
  const auto it = names.find(n);
  if (it == names.end()) throw UserError({}, key, "unknown endpoint `" + n + "`", closest_hint(n, names));
  return it->second;
}

void Topology::build_custom() {
  const FabricSpec& f = spec_.fabric;
  std::map<std::string, VertexId> names;
  for (std::size_t i = 0; i < f.custom_switches.size(); ++i) {
    const std::string& n = f.custom_switches[i];
    const std::string key = "fabric.switches[" + std::to_string(i) + "]";
    if (n.empty() || n.rfind("gpu", 0) == 0)
      throw UserError({}, key, "switch name `" + n + "` is empty or starts with `gpu`", "rename the switch");
    if (!names.emplace(n, add_vertex(VertexKind::custom_switch)).second)
      throw UserError({}, key, "duplicate switch name `" + n + "`");
  }
  auto custom = std::make_shared<Custom>();
  add_custom_links(*custom, names);
  if (std::size_t{gpu_count_} * custom->vertices > kMaxDistanceEntries)
    throw UserError({}, "fabric.kind",
                    "custom fabrics are limited to " + std::to_string(kMaxDistanceEntries) +
                        " GPU x vertex routing entries",
                    "use a generated fat-tree or rail-optimized fabric for clusters this large");
  compute_custom_distances(*custom);
  custom_ = std::move(custom);
}

// Both directions of every listed link; links touching a GPU are its NIC links.
void Topology::add_custom_links(Custom& custom, const std::map<std::string, VertexId>& names) {
  const FabricSpec& f = spec_.fabric;
  custom.out.resize(vertex_count());
  for (std::size_t i = 0; i < f.custom_links.size(); ++i) {
    const CustomLink& cl = f.custom_links[i];
    const std::string key = "fabric.link[" + std::to_string(i) + "]";
    const VertexId a = custom_endpoint(cl.a, key + ".a", names, gpu_count_);
    const VertexId b = custom_endpoint(cl.b, key + ".b", names, gpu_count_);
    if (a == b) throw UserError({}, key, "a link must join two different endpoints");
    if (!(cl.bw.value() > 0.0)) throw UserError({}, key + ".bw_gb_s", "must be positive");
    if (!(cl.latency_s >= 0.0)) throw UserError({}, key + ".latency_us", "must be >= 0");
    const LinkKind kind = a < gpu_count_ || b < gpu_count_ ? LinkKind::nic : LinkKind::leaf_spine;
    for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
      const LinkId l = add_link(from, to, kind, cl.bw, cl.latency_s);
      if (from < gpu_count_ && nic_up_[from] == kNoLink) nic_up_[from] = l;
      if (to < gpu_count_ && nic_down_[to] == kNoLink) nic_down_[to] = l;
      custom.out[from].push_back(l);
    }
  }
  custom.vertices = vertex_count();
}

// Hop distances towards each GPU: BFS from the GPU over the reversed custom links. Every GPU must
// reach every GPU of the other domains.
void Topology::compute_custom_distances(Custom& custom) const {
  std::vector<std::pair<VertexId, VertexId>> reversed;
  for (VertexId v = 0; v < custom.vertices; ++v)
    for (LinkId l : custom.out[v]) reversed.emplace_back(links_[l].to, v);
  using Reverse = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  const Reverse rev(reversed.begin(), reversed.end(), custom.vertices);
  custom.dist.assign(std::size_t{gpu_count_} * custom.vertices, kFar);
  std::vector<int> d(custom.vertices);
  for (GpuId g = 0; g < gpu_count_; ++g) {
    std::fill(d.begin(), d.end(), -1);
    d[g] = 0;
    boost::breadth_first_search(
        rev, g,
        boost::visitor(boost::make_bfs_visitor(boost::record_distances(d.data(), boost::on_tree_edge()))));
    for (std::size_t v = 0; v < custom.vertices; ++v)
      if (d[v] >= 0) custom.dist[g * custom.vertices + v] = static_cast<std::uint16_t>(d[v]);
    for (GpuId s = 0; s < gpu_count_; ++s)
      if (domain_of(s) != domain_of(g) && d[s] < 0)
        throw UserError(
            {}, "fabric.link",
            "gpu" + std::to_string(s) + " cannot reach gpu" + std::to_string(g) + " over the custom links",
            "connect every GPU (or its domain) to the fabric");
  }
}

void Topology::route_custom(GpuId src, GpuId dst, std::uint32_t channel, std::vector<LinkId>& out) const {
  const Custom& c = *custom_;
  const std::uint16_t* dist = &c.dist[std::size_t{dst} * c.vertices];
  VertexId v = src;
  std::uint32_t hop = 0;
  std::vector<LinkId> next;
  while (v != dst) {
    next.clear();
    for (LinkId l : c.out[v])
      if (dist[links_[l].to] + 1 == dist[v]) next.push_back(l);
    const LinkId l = next[(src + dst + channel + hop) % next.size()];
    out.push_back(l);
    v = links_[l].to;
    ++hop;
  }
}

}  // namespace stepsim::topo
