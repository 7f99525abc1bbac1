#include "output/report/run_outputs.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "output/common/atomic_file.hpp"
#include "output/common/format.hpp"
#include "output/hdf5/hdf5_writer.hpp"
#include "output/report/report_html.hpp"
#include "output/run/trace_writer.hpp"
#include "sim/error.hpp"

namespace stepsim::out {
namespace {

std::string size_of(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? "?" : format_bytes(static_cast<double>(n));
}

std::string coverage(const StepLayout& l) {
  return std::to_string(l.ranks.size()) + " of " + std::to_string(l.simulated_ranks) + " simulated ranks, " +
         format_number(static_cast<double>(l.ops_selected), 0) + " ops";
}

}  // namespace

void check_run_outputs(const RunOutputs& o) {
  if (!o.trace_path.empty()) check_output_path(o.trace_path, "--trace");
  if (!o.hdf5_path.empty()) check_output_path(o.hdf5_path, "--hdf5");
  if (!o.report_path.empty()) check_output_path(o.report_path, "--report");
  if (!o.trace_ranks.empty()) {
    if (o.trace_path.empty() && o.hdf5_path.empty())
      throw UserError(
          "--trace-ranks: selects the GPU ranks of --trace and --hdf5, and neither is given "
          "(add --trace FILE.json or --hdf5 FILE.h5, or drop --trace-ranks)");
    (void)RankSelection::parse(o.trace_ranks, "--trace-ranks");  // its syntax, before the run
  }
}

topo::LinkAccounting link_accounting_for(const RunOutputs& o) {
  // The trace's counters, HDF5's link tables and the report's network chart need the timeline.
  return o.any() ? topo::LinkAccounting::timeline : topo::LinkAccounting::off;
}

std::vector<std::string> write_run_outputs(const RunOutputs& o, const scen::Scenario& scenario,
                                           const scen::LoadOptions& load, const work::Simulation& s,
                                           const RunLabels& labels, const scen::Catalog& catalog,
                                           const std::string& version, const Advice* advice) {
  std::vector<std::string> lines;
  if (!o.trace_path.empty()) {
    const StepLayout layout = select_ranks(s, RankSelection::parse(o.trace_ranks, "--trace-ranks"));
    {
      AtomicFile f(o.trace_path, "--trace");
      write_chrome_trace(f.stream(), s, layout, TraceMeta{labels.scenario, version});
      f.commit();
    }
    lines.push_back("wrote " + o.trace_path + " (" + size_of(o.trace_path) + ", " + coverage(layout) +
                    "): open it at ui.perfetto.dev");
    if (o.trace_ranks.empty() && layout.ranks.size() < layout.simulated_ranks)
      lines.push_back("  the default keeps the first simulated ranks up to " +
                      format_number(static_cast<double>(RankSelection::kDefaultTraceOps), 0) +
                      " ops; --trace-ranks selects others (GPU ranks, e.g. 0-15)");
  }
  if (!o.hdf5_path.empty()) {
    // HDF5 keeps every simulated rank unless --trace-ranks narrows it.
    const StepLayout layout =
        select_ranks(s, o.trace_ranks.empty() ? RankSelection{{{0, s.plan.world}}, 0, 0}
                                              : RankSelection::parse(o.trace_ranks, "--trace-ranks"));
    std::string overrides;
    for (const auto& kv : load.set) overrides += kv + "\n";
    write_hdf5(o.hdf5_path, s, layout,
               Hdf5Meta{version, labels.scenario, scenario.source_text, overrides,
                        run_json(scenario.job, s, labels)});
    lines.push_back("wrote " + o.hdf5_path + " (" + size_of(o.hdf5_path) + ", " + coverage(layout) + ")");
  }
  if (!o.report_path.empty()) {
    write_file_atomically(o.report_path,
                          report_html(scenario.job, s, labels, catalog.gpus(), version, advice), "--report");
    lines.push_back("wrote " + o.report_path + " (" + size_of(o.report_path) + ")");
  }
  return lines;
}

}  // namespace stepsim::out
