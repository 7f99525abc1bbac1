#pragma once
// A simulated step as an HDF5 file (schema in docs/hdf5.md): the summary of `stepsim run
// --format json` as a table of figures plus the JSON text and the scenario's TOML, per-rank
// breakdowns, the critical path, every op of the selected ranks, memory in use over time, and link
// utilisation per link and per tier over time; with several steps (`--steps N`, [variability]) each
// step, the distribution's summary and every GPU's kernel time factor (/steps). Tables are compound
// datasets written in chunks as rows arrive, into a file built in memory and written whole at the end.

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "output/run/step_sink.hpp"

namespace stepsim::out {

struct Hdf5Meta {
  std::string version;             ///< stepsim version
  std::string scenario;            ///< the scenario's name
  std::string scenario_toml;       ///< the scenario file as read (overrides listed in `overrides`)
  std::string overrides;           ///< --set overrides, one per line
  nlohmann::ordered_json summary;  ///< the `stepsim run --format json` document
};

class Hdf5Writer final : public StepSink {
 public:
  /// Builds the file in memory; end() writes it to `path` whole (output/common/atomic_file.hpp). HDF5
  /// files hold about 40 bytes per op, a few MB for the bundled examples.
  Hdf5Writer(const std::filesystem::path& path, const work::Simulation& s, Hdf5Meta meta);
  ~Hdf5Writer() override;
  Hdf5Writer(const Hdf5Writer&) = delete;
  Hdf5Writer& operator=(const Hdf5Writer&) = delete;

  void begin(const StepLayout& layout) override;
  void critical_path(const std::vector<CriticalStep>& path) override;
  void op(const OpRow& row) override;
  void memory(const MemoryRow& row) override;
  void tier_load(const TierLoad& row) override;
  void link_load(const topo::LinkLoadChange& change) override;
  /// Writes the remaining tables and the file; UserError (naming `path`) when it cannot.
  void end() override;

 private:
  struct Tables;
  std::filesystem::path path_;
  const work::Simulation& sim_;
  Hdf5Meta meta_;
  std::unique_ptr<Tables> t_;
};

/// The HDF5 file of `s` for the ranks in `layout`, in one call.
void write_hdf5(const std::filesystem::path& path, const work::Simulation& s, const StepLayout& layout,
                Hdf5Meta meta);

}  // namespace stepsim::out
