// Several jobs on one cluster as a terminal report and as JSON.
#include "output/views/cluster_view.hpp"

#include <algorithm>
#include <array>
#include <sstream>

#include "output/common/format.hpp"
#include "output/common/text_table.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

/// Rows of the busiest contended links the table shows; JSON lists all of them.
constexpr std::size_t kClusterLinkRows = 12;

std::string cluster_node_ranges(const std::vector<int>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size();) {
    std::size_t k = i;
    while (k + 1 < nodes.size() && nodes[k + 1] == nodes[k] + 1) ++k;
    out += (out.empty() ? "" : ",") + std::to_string(nodes[i]);
    if (k > i) out += "-" + std::to_string(nodes[k]);
    i = k + 1;
  }
  return out;
}

std::string placement_name(work::NodePlacement p) {
  switch (p) {
    case work::NodePlacement::packed: return "packed";
    case work::NodePlacement::spread: return "spread";
    case work::NodePlacement::explicit_nodes: return "nodes";
  }
  return "packed";
}

std::string fabric_text(const topo::ClusterSpec& c) {
  const topo::FabricSpec& f = c.fabric;
  std::ostringstream o;
  o << (f.kind == topo::FabricKind::rail_optimized ? "rail-optimized" : "fat-tree") << ", " << f.tiers
    << " tiers, oversubscription " << format_number(f.oversubscription[0], 2);
  if (f.tiers == 3) o << ":" << format_number(f.oversubscription[1], 2);
  o << ", " << f.hosts_per_leaf << " hosts per leaf";
  return o.str();
}

/// One row per job; a start column when any job starts after time 0.
std::string cluster_jobs_table(const work::ClusterJobs& spec, const work::ClusterSimulation& s) {
  const bool offsets =
      std::any_of(s.jobs.begin(), s.jobs.end(), [](const auto& r) { return r.start_s > 0.0; });
  std::vector<std::string> headings{"job", "placement", "nodes", "GPUs"};
  if (offsets) headings.push_back("start");
  for (const char* h : {"step alone", "step shared", "slowdown", "steps in window", "memory peak"})
    headings.push_back(h);
  TextTable jobs(headings);
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const work::ClusterJobOutcome& r = s.jobs[j];
    std::vector<std::string> row{r.name, placement_name(spec.jobs[j].placement), cluster_node_ranges(r.nodes),
                                 std::to_string(r.gpus)};
    if (offsets) row.push_back(format_seconds(r.start_s));
    for (std::string cell :
         {format_seconds(r.alone_step_s), format_seconds(r.shared_step_s), format_percent(r.slowdown(), 2),
          std::to_string(r.steps_in_window) + " of " + std::to_string(r.steps_run),
          format_bytes(r.memory_peak_bytes) + (r.fits() ? "" : " DOES NOT FIT")})
      row.push_back(std::move(cell));
    jobs.add_row(std::move(row));
  }
  return jobs.render();
}

}  // namespace

std::string cluster_table(const std::string& name, const work::ClusterJobs& spec,
                          const work::ClusterSimulation& s) {
  const topo::ClusterSpec& c = spec.cluster;
  std::ostringstream o;
  o << "cluster     " << name << ": " << c.nodes << " nodes x " << c.gpus_per_node << " " << c.gpu.id << ", "
    << fabric_text(c) << "\n";
  o << "simulated   every GPU of every job, steps back to back from each job's start; " << s.ops << " ops, "
    << format_seconds(s.makespan_s) << " simulated; all jobs running for the first "
    << format_seconds(s.window_s) << "\n\n";
  o << cluster_jobs_table(spec, s);
  for (const work::ClusterJobOutcome& r : s.jobs)
    if (!r.fits())
      o << "memory      job `" << r.name << "` DOES NOT FIT: peak " << format_bytes(r.memory_peak_bytes)
        << " of " << format_bytes(r.usable_hbm_bytes)
        << " usable per GPU; its step times are not achievable as configured (`stepsim run` on its "
           "scenario shows where the memory goes)\n";
  if (s.contended.empty()) {
    o << "\ncontended   no link carries traffic of more than one job\n";
    return o.str();
  }
  std::array<int, topo::kLinkKindCount> per_kind{};
  for (const auto& l : s.contended) ++per_kind[static_cast<std::size_t>(l.kind)];
  o << "\ncontended   " << s.contended.size() << " link directions carry traffic of more than one job:";
  bool first = true;
  for (std::size_t k = topo::kLinkKindCount; k-- > 0;)
    if (per_kind[k] > 0) {
      o << (first ? " " : ", ") << per_kind[k] << " " << topo::name(static_cast<topo::LinkKind>(k));
      first = false;
    }
  o << "\n";
  std::vector<std::string> headings{"link", "tier", "line rate"};
  for (const auto& r : s.jobs) headings.push_back(r.name + " per step");
  headings.push_back("busy");
  headings.push_back("peak");
  TextTable links(headings);
  for (std::size_t i = 0; i < std::min(kClusterLinkRows, s.contended.size()); ++i) {
    const work::ContendedLink& l = s.contended[i];
    std::vector<std::string> row{l.from + " -> " + l.to, std::string(topo::name(l.kind)),
                                 format_number(l.capacity_Bps / 1e9, 1) + " GB/s"};
    for (double b : l.bytes_per_step) row.push_back(b > 0.0 ? format_bytes(b) : "-");
    row.push_back(format_seconds(l.busy_s));
    row.push_back(format_percent(l.peak_utilisation));
    links.add_row(std::move(row));
  }
  o << links.render();
  if (s.contended.size() > kClusterLinkRows)
    o << "(" << s.contended.size() - kClusterLinkRows << " more; --format json lists every one)\n";
  return o.str();
}

Json cluster_json(const std::string& name, const work::ClusterJobs& spec, const work::ClusterSimulation& s) {
  const topo::ClusterSpec& c = spec.cluster;
  Json j;
  j["name"] = name;
  j["gpu"] = c.gpu.id;
  j["nodes"] = c.nodes;
  j["gpus_per_node"] = c.gpus_per_node;
  j["ops"] = s.ops;
  j["window_s"] = s.window_s;
  j["makespan_s"] = s.makespan_s;
  Json jobs = Json::array();
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const work::ClusterJobOutcome& r = s.jobs[i];
    Json o;
    o["name"] = r.name;
    o["placement"] = placement_name(spec.jobs[i].placement);
    o["nodes"] = r.nodes;
    o["gpus"] = r.gpus;
    o["tokens_per_step"] = r.tokens_per_step;
    o["start_s"] = r.start_s;
    o["alone_step_s"] = r.alone_step_s;
    o["shared_step_s"] = r.shared_step_s;
    o["slowdown"] = r.slowdown();
    o["steps_run"] = r.steps_run;
    o["steps_in_window"] = r.steps_in_window;
    o["shared_steps_s"] = r.shared_steps_s;
    o["memory_peak_bytes"] = r.memory_peak_bytes;
    o["usable_hbm_bytes"] = r.usable_hbm_bytes;
    o["fits"] = r.fits();
    jobs.push_back(std::move(o));
  }
  j["jobs"] = std::move(jobs);
  Json links = Json::array();
  for (const work::ContendedLink& l : s.contended) {
    Json o;
    o["link"] = l.link;
    o["tier"] = std::string(topo::name(l.kind));
    o["from"] = l.from;
    o["to"] = l.to;
    o["capacity_Bps"] = l.capacity_Bps;
    Json bytes = Json::object();
    for (std::size_t i = 0; i < s.jobs.size(); ++i) bytes[s.jobs[i].name] = l.bytes_per_step[i];
    o["bytes_per_step"] = std::move(bytes);
    o["busy_s"] = l.busy_s;
    o["peak_utilisation"] = l.peak_utilisation;
    links.push_back(std::move(o));
  }
  j["contended_links"] = std::move(links);
  return j;
}

}  // namespace stepsim::out
