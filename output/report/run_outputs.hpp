#pragma once
// The files `stepsim run` can write besides its report: a Chrome trace, an HDF5 file and an HTML
// page. Tools say which; this decides what the simulation must record and writes each file.

#include <string>
#include <vector>

#include "output/views/run_view.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"

namespace stepsim::out {

struct Advice;

struct RunOutputs {
  std::string trace_path;   ///< --trace; empty = none
  std::string trace_ranks;  ///< --trace-ranks ("0-15"); empty = the default selection
  std::string hdf5_path;    ///< --hdf5
  std::string report_path;  ///< --report
  bool any() const { return !trace_path.empty() || !hdf5_path.empty() || !report_path.empty(); }
};

/// Checks, before any simulation, that every requested file can be written (its folder exists and
/// takes files, the name is not a folder and not too long); UserError naming the option otherwise.
void check_run_outputs(const RunOutputs& outputs);

/// What the simulation must keep for these outputs (a link timeline for the trace and HDF5).
topo::LinkAccounting link_accounting_for(const RunOutputs& outputs);

/// Writes every requested file, each whole or not at all (output/common/atomic_file.hpp), and returns one
/// line per file for the user ("wrote trace.json: 12.3 MB, 16 of 16 ranks, 130,112 ops"). Throws
/// UserError when a file cannot be written or the rank selection is invalid.
std::vector<std::string> write_run_outputs(const RunOutputs& outputs, const scen::Scenario& scenario,
                                           const scen::LoadOptions& load, const work::Simulation& s,
                                           const RunLabels& labels, const scen::Catalog& catalog,
                                           const std::string& version, const Advice* advice = nullptr);

}  // namespace stepsim::out
