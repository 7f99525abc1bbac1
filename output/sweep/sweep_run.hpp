#pragma once
// Running a sweep (or one shard of it) on threads into a crash-safe journal, then writing the
// results file (and CSV) from the journal in point order. Results do not depend on the number
// of threads, on interruptions, or on resuming: rows are functions of their point only.

#include <array>
#include <filesystem>
#include <optional>
#include <ostream>
#include <span>

#include "output/sweep/sweep_hdf5.hpp"
#include "output/sweep/sweep_progress.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/sweep.hpp"
#include "workloads/step/step_size.hpp"

namespace stepsim::out {

struct SweepRunOptions {
  std::filesystem::path out;                 ///< results file (HDF5)
  std::optional<std::filesystem::path> csv;  ///< also write CSV here
  unsigned jobs = 1;                         ///< worker threads
  /// Continue from the journal of an interrupted run (or start if there is none). Without it an
  /// existing journal is an error rather than silently discarded work.
  bool resume = false;
  scen::Shard shard;
  std::string version;  ///< stepsim version, recorded in the files
  ProgressStyle progress = ProgressStyle::none;
  /// Points whose step is estimated above this many ops are refused as invalid rows.
  std::uint64_t max_ops = work::kDefaultMaxOps;
};

struct SweepRunSummary {
  std::uint64_t points_total = 0;            ///< the sweep's points after filters
  std::uint64_t rejected = 0;                ///< combinations the filters removed
  std::uint64_t points_shard = 0;            ///< points in this shard
  std::uint64_t resumed = 0;                 ///< rows found in the journal
  std::uint64_t evaluated = 0;               ///< rows computed by this run
  bool already_complete = false;             ///< --resume found a finished results file and did nothing
  std::array<std::uint64_t, 4> by_status{};  ///< rows per PointStatus in the file
  std::string first_problem;                 ///< message of the lowest invalid or failed point ("" if none)
  double run_s = 0.0;                        ///< wall time spent evaluating points
};

/// The journal kept beside `out` while a sweep runs.
std::filesystem::path journal_path(const std::filesystem::path& out);

/// Runs the sweep's share of points. Throws UserError for problems the user can fix (journal of
/// another sweep, unwritable output); a point's own problems are rows, never exceptions.
SweepRunSummary run_sweep(const scen::Sweep& sweep, const scen::Catalog& catalog,
                          const SweepRunOptions& options, std::ostream& progress_out);

/// The identity and texts a results file of `sweep` records.
SweepFileInfo sweep_file_info(const scen::Sweep& sweep, std::uint64_t points, scen::Shard shard,
                              const std::string& version);

/// Counts rows per status (PointStatus order) in a journal; `first_problem` receives "point N:
/// message" of the lowest invalid or failed point.
std::array<std::uint64_t, 4> count_statuses(const SweepJournal& rows, std::string& first_problem);

}  // namespace stepsim::out
