#pragma once
// Sweep results in HDF5: one compound dataset `/results`, one row per point in point order, the
// sweep and base scenario texts as datasets, and attributes on the root group naming the sweep
// (docs/sweeps.md, "Results file"). Files are built in memory and written whole through an
// AtomicFile (output/common/atomic_file.hpp), so a reader, a crash or a full disk never leaves half a
// file. Bytes depend only on the rows: no timestamps, no addresses.

#include <filesystem>
#include <functional>
#include <string>

#include "output/sweep/sweep_journal.hpp"

namespace stepsim::out {

/// The attributes of a results file.
struct SweepFileInfo {
  SweepIdentity identity;
  std::string sweep_text;  ///< the sweep file, verbatim
  std::string base_text;   ///< the base scenario file ("" when the sweep holds it inline)
  std::uint64_t rows = 0;  ///< set by the writer; read back by the reader
};

/// Writes every row of `rows` (ascending point order) to `path` atomically. UserError (naming
/// `path`) when it cannot be built or written.
void write_sweep_hdf5(const std::filesystem::path& path, const SweepJournal& rows, SweepFileInfo info);
/// Builds, in memory, the file `info` and `schema` give without rows, so that a problem with the
/// texts or columns shows before any point is computed rather than after the last one.
void check_sweep_hdf5(const std::filesystem::path& path, const SweepSchema& schema, SweepFileInfo info);

/// A results file's attributes and schema (columns as stored).
struct SweepFileHeader {
  SweepFileInfo info;
  SweepSchema schema;
};
/// Reads the attributes and schema; UserError if `path` is not a stepsim sweep results file or is
/// damaged. Reads files of schema versions 1 (texts as attributes), 2 (texts as datasets) and 3
/// (closed sets of text as enums; Column::categories).
SweepFileHeader read_sweep_hdf5_header(const std::filesystem::path& path);
/// Calls `sink` with every row of the file, in file order; UserError if the file is damaged.
void read_sweep_hdf5_rows(const std::filesystem::path& path, const std::function<void(Row&&)>& sink);

/// Writes the same rows as CSV (header line, then one line per row; RFC 4180 quoting; NaN as an
/// empty field; numbers in their shortest exact form), atomically like the HDF5 file.
void write_sweep_csv(const std::filesystem::path& path, const SweepJournal& rows);

}  // namespace stepsim::out
