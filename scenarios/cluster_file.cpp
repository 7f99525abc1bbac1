// Reading a cluster file: [cluster], the base scenario's hardware, and each [[job]]'s scenario and
// placement, every problem reported where it was written.
#include "scenarios/cluster_file.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "scenarios/scenario.hpp"
#include "scenarios/toml_reader.hpp"

namespace stepsim::scen {
namespace {

constexpr std::array<Choice<work::NodePlacement>, 2> kPlacements{
    {{"packed", work::NodePlacement::packed}, {"spread", work::NodePlacement::spread}}};

/// A scenario path relative to the cluster file, checked to be a readable file.
std::filesystem::path cluster_scenario_path(TableReader& r, std::string_view key,
                                            const std::filesystem::path& base_dir) {
  std::string text;
  r.read(key, text);
  if (text.find('\0') != std::string::npos) r.fail(key, "contains a NUL character (\\u0000)");
  std::filesystem::path p(text);
  if (p.is_relative()) p = base_dir / p;
  if (const std::string problem = file_problem(p); !problem.empty())
    r.fail(key, "scenario file `" + p.string() + "` " + problem, "paths are relative to the cluster file");
  return p;
}

/// `nodes = [0, 2]`: integers in [0, cluster nodes), none repeated.
std::vector<int> cluster_node_list(TableReader& r, int cluster_nodes) {
  const toml::node* n = r.node("nodes");
  const toml::array* a = n->as_array();
  if (a == nullptr || a->empty())
    r.fail_at(*n, "nodes", "expected a list of cluster node numbers, e.g. nodes = [0, 2]");
  std::vector<int> out;
  for (const toml::node& e : *a) {
    const auto* v = e.as_integer();
    if (v == nullptr || v->get() < 0 || v->get() >= cluster_nodes)
      r.fail_at(e, "nodes",
                "expected node numbers from 0 to " + std::to_string(cluster_nodes - 1) +
                    " (the cluster has " + std::to_string(cluster_nodes) + " nodes)");
    if (std::find(out.begin(), out.end(), static_cast<int>(v->get())) != out.end())
      r.fail_at(e, "nodes", "lists node " + std::to_string(v->get()) + " twice");
    out.push_back(static_cast<int>(v->get()));
  }
  return out;
}

/// Refuses a job whose GPUs or fabric differ from the cluster's, pointing at the job's scenario.
void check_same_machine(const Scenario& s, const topo::ClusterSpec& c, const std::string& base) {
  const topo::ClusterSpec& own = s.job.cluster;
  const std::string hint = "jobs run on the cluster's machine (from " + base + "): make the scenario's ";
  if (own.gpu.id != c.gpu.id)
    throw UserError(s.where("hardware.gpu"), "hardware.gpu",
                    "is " + own.gpu.id + " and the cluster's GPUs are " + c.gpu.id,
                    hint + "[hardware] agree");
  if (own.gpus_per_node != c.gpus_per_node || own.nvlink_domain != c.nvlink_domain)
    throw UserError(s.where("hardware.gpus_per_node"), "hardware.gpus_per_node",
                    "has " + std::to_string(own.gpus_per_node) + " GPUs per node in NVLink domains of " +
                        std::to_string(own.nvlink_domain) + "; the cluster's nodes have " +
                        std::to_string(c.gpus_per_node) + " in domains of " + std::to_string(c.nvlink_domain),
                    hint + "[hardware] agree");
  const topo::FabricSpec &a = own.fabric, &b = c.fabric;
  if (a.kind != b.kind || a.tiers != b.tiers || a.oversubscription != b.oversubscription ||
      a.hosts_per_leaf != b.hosts_per_leaf || a.leaves_per_pod != b.leaves_per_pod ||
      own.nic_bw().value() != c.nic_bw().value() || a.sharp != b.sharp)
    throw UserError(s.where("fabric"), "fabric",
                    "differs from the cluster's fabric (kind, tiers, oversubscription, hosts_per_leaf, "
                    "leaves_per_pod, sharp or hardware.nic_gbps)",
                    hint + "[fabric] and nic_gbps agree");
}

work::ClusterJob read_cluster_job(TableReader& r, const ClusterFile& f, const Catalog& catalog,
                                  const std::filesystem::path& base_dir, std::filesystem::path& path) {
  work::ClusterJob job;
  if (!r.has("scenario"))
    r.fail("", "missing `scenario` (the job's scenario file)", "e.g. scenario = \"job-a.toml\"");
  path = cluster_scenario_path(r, "scenario", base_dir);
  const Scenario s = load_scenario(path, catalog);
  job.job = s.job;
  if (!r.read("name", job.name)) job.name = path.stem().string();
  double start_ms = 0.0;
  if (r.read("start_ms", start_ms,
             RealRange{0.0, 1e9, false,
                       "milliseconds after time 0 at which the job's first step starts, e.g. 150"}))
    job.start_s = start_ms * 1e-3;
  const bool has_placement = r.read("placement", job.placement, kPlacements);
  if (r.has("nodes")) {
    if (has_placement)
      r.fail("nodes", "gives the job's nodes, and `placement` places them too", "keep one of the two");
    job.nodes = cluster_node_list(r, f.jobs.cluster.nodes);
    job.placement = work::NodePlacement::explicit_nodes;
    if (static_cast<int>(job.nodes.size()) != s.job.cluster.nodes)
      r.fail("nodes",
             "lists " + std::to_string(job.nodes.size()) +
                 " nodes and the job's scenario has hardware.nodes = " + std::to_string(s.job.cluster.nodes),
             "list one cluster node per node of the job");
  }
  r.finish();
  check_same_machine(s, f.jobs.cluster, f.base.string());
  try {
    work::check_cluster_job(f.jobs.cluster, job);
  } catch (const UserError& e) {
    throw UserError(r.where("scenario"), r.path("scenario"), e.what(),
                    "simulate this scenario with `stepsim run`");
  }
  return job;
}

/// Explicit lists of different jobs must not share a node.
void check_overlaps(const std::vector<TableReader>& readers, const work::ClusterJobs& jobs) {
  std::map<int, std::size_t> owner;
  for (std::size_t i = 0; i < jobs.jobs.size(); ++i)
    for (int n : jobs.jobs[i].nodes) {
      const auto [it, fresh] = owner.try_emplace(n, i);
      if (!fresh)
        readers[i].fail(
            "nodes",
            "takes node " + std::to_string(n) + ", already job `" + jobs.jobs[it->second].name + "`'s",
            "give each node to one job");
    }
}

ClusterFile read_cluster(std::string_view text, const std::string& name, const Catalog& catalog,
                         const std::filesystem::path& base_dir) {
  ClusterFile f;
  f.display_name = name;
  const toml::table doc = parse_toml(text, name);
  const ReadContext ctx{name, nullptr, nullptr};
  TableReader root(doc, "", ctx);
  auto cluster = root.table("cluster");
  if (!cluster)
    root.fail("", "missing the [cluster] table",
              "add [cluster] with nodes = N (and base = \"scenario.toml\")");
  cluster->read("name", f.name);
  int nodes = 0;
  if (!cluster->read("nodes", nodes, IntRange{1, 1 << 20}))
    cluster->fail("", "missing `nodes` (the cluster's node count)", "e.g. nodes = 8");
  cluster->read("steps", f.jobs.steps, IntRange{1, 1000});
  std::vector<TableReader> job_readers = root.tables("job");
  if (job_readers.empty())
    root.fail("", "missing [[job]] tables", "add one [[job]] with scenario = \"...\" per job");
  // The machine: the base scenario's hardware and fabric, else the first job's, with `nodes`.
  const bool has_base = cluster->has("base");
  if (has_base) {
    f.base = cluster_scenario_path(*cluster, "base", base_dir);
  } else {
    if (!job_readers.front().has("scenario"))
      job_readers.front().fail("", "missing `scenario` (the job's scenario file)",
                               "e.g. scenario = \"job-a.toml\"");
    std::string first;
    job_readers.front().read("scenario", first);
    f.base = std::filesystem::path(first).is_relative() ? base_dir / first : std::filesystem::path(first);
    if (const std::string problem = file_problem(f.base); !problem.empty())
      job_readers.front().fail("scenario", "scenario file `" + f.base.string() + "` " + problem,
                               "paths are relative to the cluster file");
  }
  f.jobs.cluster = load_scenario(f.base, catalog).job.cluster;
  f.jobs.cluster.nodes = nodes;
  if (f.jobs.cluster.fabric.kind == topo::FabricKind::custom)
    cluster->fail(has_base ? "base" : "",
                  "the cluster's fabric is custom, and its links name GPUs of one job's size",
                  "use a generated fabric (fat-tree or rail-optimized) for several jobs");
  cluster->finish();
  int wanted = 0;
  for (TableReader& r : job_readers) {
    f.scenarios.emplace_back();
    f.jobs.jobs.push_back(read_cluster_job(r, f, catalog, base_dir, f.scenarios.back()));
    wanted += f.jobs.jobs.back().job.cluster.nodes;
    for (std::size_t i = 0; i + 1 < f.jobs.jobs.size(); ++i)
      if (f.jobs.jobs[i].name == f.jobs.jobs.back().name)
        r.fail(r.has("name") ? "name" : "scenario",
               "names job `" + f.jobs.jobs.back().name + "` a second time",
               "give each job its own name = \"...\"");
  }
  root.finish();
  check_overlaps(job_readers, f.jobs);
  if (wanted > nodes)
    cluster->fail("nodes",
                  "is " + std::to_string(nodes) + " and the jobs' scenarios need " + std::to_string(wanted) +
                      " nodes together",
                  "give the cluster at least " + std::to_string(wanted) + " nodes, or the jobs fewer");
  if (f.name.empty()) f.name = name;
  return f;
}

}  // namespace

ClusterFile load_cluster_file(const std::filesystem::path& path, const Catalog& catalog) {
  ClusterFile f = read_cluster(read_text_file(path), path.string(), catalog, path.parent_path());
  if (f.name == path.string()) f.name = path.stem().string();
  return f;
}

ClusterFile load_cluster_string(std::string_view text, const std::string& name, const Catalog& catalog,
                                const std::filesystem::path& base_dir) {
  return read_cluster(text, name, catalog, base_dir);
}

}  // namespace stepsim::scen
