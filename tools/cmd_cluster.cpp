// `stepsim cluster FILE [--steps N] [--format table|json] [--catalog FILE]... [--max-ops N] [--quiet]`:
// several scenarios placed on one cluster and simulated together; each job's step alone and shared,
// and the links they contend on (workloads/cluster/cluster_sim.hpp, docs/simulation.md).
#include <boost/program_options.hpp>
#include <iostream>

#include "output/common/render_format.hpp"
#include "output/views/cluster_view.hpp"
#include "scenarios/cluster_file.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"
#include "workloads/cluster/cluster_sim.hpp"

namespace stepsim::cli {
namespace {

namespace po = boost::program_options;

struct ClusterArgs {
  std::string file;
  std::string format = "table";
  std::vector<std::string> catalogs;
  int steps = 0;
  std::uint64_t max_ops = work::kDefaultMaxOps;
  bool quiet = false;
  bool strict = false;  ///< --strict: a job whose step does not fit in memory exits 2
};

po::options_description cluster_options(ClusterArgs& a) {
  po::options_description o(
      "stepsim cluster FILE [options]\n\n"
      "Several jobs on one cluster: a cluster file ([cluster] with the machine's nodes, one [[job]] per\n"
      "scenario with its placement: packed, spread or a list of nodes; docs/scenarios.md) is simulated\n"
      "with every GPU of every job in one graph over one network, each job's steps back to back. Prints\n"
      "each job's step time alone (same placement, nothing else running) and shared, and the links that\n"
      "carry traffic of more than one job");
  o.add_options()("help,h", "show this help")(
      "steps", count_value(a.steps, "--steps", 1, 1000),
      "steps each job runs at least (default: [cluster] steps, else 4); shorter jobs run more")(
      "format", po::value(&a.format)->default_value("table"), "table or json")(
      "catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)");
  o.add_options()("strict", po::bool_switch(&a.strict),
                  "exit 2 after the report when a job's step does not fit in memory");
  add_quiet_option(o, a.quiet);
  add_max_ops_option(o, a.max_ops);
  return o;
}

}  // namespace

int cmd_cluster(Args args) {
  ClusterArgs a;
  if (!parse_command_line(args, cluster_options(a), "file", a.file)) return 0;
  if (a.file.empty())
    throw UserError(
        "missing the cluster file (usage: stepsim cluster scenarios/examples/cluster/two-jobs.cluster.toml)");
  const out::RenderFormat format = out::parse_render_format(a.format);
  const scen::Catalog catalog = load_catalog(a.catalogs);
  const scen::ClusterFile f = scen::load_cluster_file(a.file, catalog);
  work::ClusterSimOptions options;
  options.steps = a.steps;
  options.max_ops = a.max_ops;
  const work::ClusterSimulation sim = with_elapsed_spinner(
      "cluster", a.quiet, format, [&] { return work::simulate_cluster(f.jobs, options); });
  if (format == out::RenderFormat::json)
    std::cout << out::cluster_json(f.name, f.jobs, sim).dump(2) << "\n";
  else
    std::cout << out::cluster_table(f.name, f.jobs, sim);
  if (a.strict)
    for (const work::ClusterJobOutcome& j : sim.jobs)
      if (!j.fits())
        return strict_memory_exit("job `" + j.name + "`", j.memory_peak_bytes, j.usable_hbm_bytes);
  return 0;
}

}  // namespace stepsim::cli
