#pragma once
// `stepsim collective --compare FILE` and `--nccl-tests LOG`: measured collectives simulated on the
// cluster each describes, with the error per row and a summary by message-size band; from
// nccl-tests logs, optionally the link efficiencies that make them agree (--write-calibration).

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/catalog.hpp"
#include "scenarios/collective_measurements.hpp"
#include "scenarios/nccl_tests_log.hpp"

namespace stepsim::cli {

/// One measured row and what stepsim made of it.
struct MeasuredOutcome {
  const scen::MeasuredCollective* row = nullptr;
  std::string refused;  ///< why it was not simulated (not expressible, or a forced algorithm that cannot run)
  topo::CollectiveSample ran;
  topo::CollectiveSample chosen;  ///< what stepsim picks itself (automatic algorithm and protocol)
  double error = 0.0;             ///< simulated / measured busbw - 1
};

/// Rows per message-size band, within the bound (10% from 64 MB, 25% below), and |error| sum.
struct SizeBand {
  int rows = 0, within = 0;
  double abs_sum = 0.0;
};

/// The band of a message size: ">= 64 MB", "64 KB - 64 MB" or "< 64 KB" (MiB and KiB bounds).
std::string band(double bytes);
/// "ring/simple".
std::string label(const topo::CollectiveSample& s);
/// The outcome's fields of a JSON row: `not_simulated` with the reason, or the simulated bus
/// bandwidth, the error, the algorithm, protocol and bound stepsim ran and its own choice.
void add_outcome_json(nlohmann::ordered_json& row, const MeasuredOutcome& o);
/// Each row simulated alone on an idle network of its cluster (rows stay owned by the caller).
std::vector<MeasuredOutcome> simulate_measurements(const std::vector<scen::MeasuredCollective>& rows);
std::map<std::string, SizeBand> size_bands(const std::vector<MeasuredOutcome>& out);
void print_size_bands(const std::map<std::string, SizeBand>& bands);

/// Simulates each expressible row alone on an idle network and prints (table or JSON) the
/// measured and simulated bus bandwidth, the error, the algorithm and protocol stepsim ran and the
/// one it would choose itself; rows it cannot express are listed with the reason.
void compare_measurements(const std::filesystem::path& file, const scen::Catalog& catalog, bool json);

/// What `--nccl-tests` reads and what the logs do not say.
struct NcclTestsRequest {
  std::vector<std::string> files;
  std::optional<std::string> op;  ///< --op when given; else each log's own
  scen::LogCluster cluster;
  std::string write_calibration;  ///< catalog overlay to write; empty = none
};

/// Compares each log's rows with the simulation (as compare_measurements) and, with
/// write_calibration, fits the link efficiencies, writes them and compares again through them.
void compare_nccl_tests(const NcclTestsRequest& request, const scen::Catalog& catalog, bool json);

}  // namespace stepsim::cli
