#pragma once
// Link efficiencies fitted to a cluster's own collective measurements (`stepsim collective
// --nccl-tests LOG --write-calibration FILE`): the figures of the GPU's catalog entry that make
// stepsim's bus bandwidth match the measured one where the links, not latency, set it.
//
// A row of 64 MiB or more is bandwidth-bound; the link stepsim finds binding it names the figure it
// measures: `nic` (the scale-out NIC), `nvls` (NVLink SHARP's multimem traffic), `nvlink_p2p`
// (all-to-all over NVLink) or `nvlink` (rings, trees, send/recv over NVLink). Each figure is scaled
// by the median of measured / simulated bus bandwidth over its rows and the rows simulated again,
// until every figure's median is within 0.5% (at most 8 rounds; a collective's time is not quite
// inverse in one efficiency: latency terms and the other links do not scale). Figures stay in
// (0, 1]: a link cannot carry more than its line rate.

#include <string>
#include <vector>

#include "scenarios/collective_measurements.hpp"

namespace stepsim::scen {

/// Rows from this size on are fitted (nccl-tests' sizes are powers of two).
inline constexpr double kCalibrationMinBytes = 64.0 * 1024 * 1024;

struct LinkFigure {
  std::string gpu_id;  ///< catalog key
  std::string key;     ///< "nic", "nvlink", "nvlink_p2p", "nvls": under [gpu.<id>.efficiency]
  double before = 0.0;
  double after = 0.0;
  int rows = 0;
  double measured_GBps = 0.0;          ///< median bus bandwidth of its rows
  double simulated_before_GBps = 0.0;  ///< median, at `before`
  double simulated_after_GBps = 0.0;   ///< median, at `after`
  bool at_limit = false;               ///< held at 1 and still slower than measured
  double nic_gbps = 0.0;               ///< the NIC rate its rows assumed, Gb/s per GPU and direction
};

struct LinkCalibration {
  std::vector<LinkFigure> figures;
  std::vector<std::string> findings;  ///< rows not fitted and why; figures that disagree with the catalog
  int simulations = 0;                ///< rounds of simulating every fitted row
  /// The rows with the fitted efficiencies in their clusters' GPUs (the others unchanged).
  std::vector<MeasuredCollective> calibrated;
};

/// Fits the link efficiencies to `rows` (expressible rows of at least kCalibrationMinBytes).
/// Throws UserError when no row can be fitted, saying why.
LinkCalibration calibrate_links(const std::vector<MeasuredCollective>& rows, const Catalog& catalog);

/// The calibration as a catalog overlay (apply with --catalog FILE): `[gpu."<id>".efficiency]`
/// with the fitted figures and `[gpu."<id>".source]` with their provenance, `origin` naming the
/// measurements ("nccl-tests logs a.out (all_reduce, 16 ranks on 2 hosts, NCCL 2.21.5)").
std::string link_calibration_toml(const LinkCalibration& c, const std::string& origin);

}  // namespace stepsim::scen
