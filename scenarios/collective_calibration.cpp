#include "scenarios/collective_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "scenarios/toml_text.hpp"
#include "sim/error.hpp"

namespace stepsim::scen {

namespace {

constexpr double kTolerance = 0.005;
/// A NIC figure below this says more about the rate assumed than about the protocol: NCCL moves
/// 0.85-0.96 of line rate over healthy InfiniBand (docs/topology.md, the B200 cluster's rows).
constexpr double kLowNicFigure = 0.6;
constexpr int kMaxRounds = 8;

/// The catalog figure a row measures, from the link the simulation found binding it; empty when
/// no link efficiency sets its time (latency, the fabric's switch links, host or compute).
std::string figure_of(const MeasuredCollective& row, const topo::CollectiveSample& s) {
  if (s.bound == topo::Resource::nic) return "nic";
  if (s.bound != topo::Resource::nvlink) return {};
  if (s.algorithm == topo::CollectiveAlgorithm::nvls || s.algorithm == topo::CollectiveAlgorithm::nvls_tree)
    return "nvls";
  if (row.op == topo::CollectiveOp::all_to_all) return "nvlink_p2p";
  return "nvlink";
}

double& efficiency(topo::Efficiency& e, const std::string& key) {
  if (key == "nic") return e.nic;
  if (key == "nvls") return e.nvls;
  if (key == "nvlink_p2p") return e.nvlink_p2p;
  return e.nvlink;
}

/// The figure's value in effect: nvlink_p2p = 0 means "as nvlink".
double effective(topo::Efficiency e, const std::string& key) {
  const double v = efficiency(e, key);
  return key == "nvlink_p2p" && v <= 0.0 ? e.nvlink : v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fixed(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string rows_text(int n) {
  return std::to_string(n) + (n == 1 ? " row" : " rows");
}

struct Fitted {
  std::size_t figure;  ///< into LinkCalibration::figures
  std::size_t row;     ///< into the rows
};

/// Every row's cluster takes the current figures of its GPU.
void apply_figures(const LinkCalibration& c, std::vector<MeasuredCollective>& rows) {
  for (auto& r : rows)
    for (const LinkFigure& f : c.figures)
      if (r.not_expressible.empty() && r.cluster.gpu.id == f.gpu_id)
        efficiency(r.cluster.gpu.eff, f.key) = f.after;
}

/// Why rows were left out of the fit, counted while choosing the rows that are fitted.
struct LeftOut {
  int refused = 0;                     ///< stepsim cannot run them
  int small = 0;                       ///< under kCalibrationMinBytes
  std::map<std::string, int> unbound;  ///< resource -> rows no link efficiency sets
  std::map<std::string, int> pinned;   ///< "algorithm/protocol" -> rows NCCL chose for, held at stepsim's
};

/// The figure of `r`'s binding link, created at the catalog's value the first time it is seen.
std::size_t figure_index(LinkCalibration& c, const MeasuredCollective& r, const std::string& key) {
  for (std::size_t k = 0; k < c.figures.size(); ++k)
    if (c.figures[k].gpu_id == r.cluster.gpu.id && c.figures[k].key == key) return k;
  LinkFigure f;
  f.gpu_id = r.cluster.gpu.id;
  f.key = key;
  f.before = f.after = effective(r.cluster.gpu.eff, key);
  f.nic_gbps = r.nic_gbps;
  c.figures.push_back(f);
  return c.figures.size() - 1;
}

/// The rows that measure a link figure, each simulated once at the catalog's figures.
std::vector<Fitted> fitted_rows(const std::vector<MeasuredCollective>& rows, LinkCalibration& c,
                                MeasuredSimulator& sim, LeftOut& out) {
  std::vector<Fitted> fitted;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const MeasuredCollective& r = rows[i];
    if (!r.not_expressible.empty()) {
      ++out.refused;
      continue;
    }
    if (r.bytes < kCalibrationMinBytes) {
      ++out.small;
      continue;
    }
    topo::CollectiveSample s;
    try {
      s = sim.run(r, r.algorithm);
    } catch (const UserError&) {
      ++out.refused;
      continue;
    }
    const std::string key = figure_of(r, s);
    if (key.empty()) {
      ++out.unbound[std::string(topo::name(s.bound))];
      continue;
    }
    fitted.push_back({figure_index(c, r, key), i});
    // The log does not say which algorithm NCCL ran: the row is fitted as the one stepsim runs
    // now, held while the figures move (a figure must not be fitted to a switching algorithm).
    if (r.algorithm == topo::CollectiveAlgorithm::automatic) {
      c.calibrated[i].algorithm = s.algorithm;
      c.calibrated[i].protocol = s.protocol;
      // Send/recv and all-to-all have one algorithm each in NCCL: nothing was chosen.
      if (r.op != topo::CollectiveOp::send_recv && r.op != topo::CollectiveOp::all_to_all)
        ++out.pinned[std::string(topo::name(s.algorithm)) + "/" + std::string(topo::name(s.protocol))];
    }
  }
  return fitted;
}

void add_left_out_findings(const LeftOut& out, std::vector<std::string>& findings) {
  if (!out.pinned.empty()) {
    std::string as;
    int n = 0;
    for (const auto& [what, count] : out.pinned) {
      as += (as.empty() ? "" : ", ") + what + " x " + std::to_string(count);
      n += count;
    }
    findings.push_back(
        rows_text(n) +
        " fitted ran NCCL's own algorithm, which the log does not name: fitted as "
        "stepsim runs them (" +
        as +
        "); if NCCL ran another, the figure is another link's. Run "
        "nccl-tests with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING (the log then names "
        "NCCL's choice per size), or with NCCL_ALGO set, or give --algorithm");
  }
  if (out.refused > 0)
    findings.push_back(rows_text(out.refused) + " stepsim cannot run (the comparison gives each reason)");
  if (out.small > 0)
    findings.push_back(rows_text(out.small) +
                       " under 64 MiB not fitted: latency and protocol terms, not link rates, set them");
  for (const auto& [resource, n] : out.unbound)
    findings.push_back(rows_text(n) + " from 64 MiB bound by " + resource +
                       ", which no link efficiency sets: not fitted");
}

/// One round: every fitted row simulated at the current figures, each figure scaled by its rows'
/// median measured / simulated. True once every figure agrees within the tolerance (or is held at 1).
bool fit_round(LinkCalibration& c, const std::vector<MeasuredCollective>& rows,
               const std::vector<Fitted>& fitted, MeasuredSimulator& sim, bool first) {
  apply_figures(c, c.calibrated);
  std::vector<double> simulated(rows.size(), 0.0);
  for (const Fitted& f : fitted)
    simulated[f.row] = sim.run(c.calibrated[f.row], c.calibrated[f.row].algorithm).busbw_GBps;
  ++c.simulations;
  bool converged = true;
  for (std::size_t k = 0; k < c.figures.size(); ++k) {
    LinkFigure& fig = c.figures[k];
    std::vector<double> ratio, measured, sims;
    for (const Fitted& f : fitted)
      if (f.figure == k) {
        ratio.push_back(rows[f.row].busbw_GBps / simulated[f.row]);
        measured.push_back(rows[f.row].busbw_GBps);
        sims.push_back(simulated[f.row]);
      }
    fig.rows = static_cast<int>(ratio.size());
    fig.measured_GBps = median(measured);
    if (first) fig.simulated_before_GBps = median(sims);
    fig.simulated_after_GBps = median(sims);
    const double m = median(ratio);
    fig.at_limit = fig.after >= 1.0 && m > 1.0 + kTolerance;
    if (std::abs(m - 1.0) <= kTolerance || fig.at_limit) continue;
    converged = false;
    fig.after = std::clamp(fig.after * m, 0.01, 1.0);
  }
  return converged;
}

/// What each fitted figure says of the catalog's.
std::string figure_finding(const LinkFigure& f, const Catalog& catalog) {
  const topo::GpuSpec* g = catalog.find_gpu(f.gpu_id);
  const std::string was = "efficiency." + f.key + " = " + fixed(f.before, "%.3f");
  if (f.at_limit)
    return f.gpu_id + ": even at " + f.key + " = 1 stepsim's links carry less than measured (" +
           fixed(f.simulated_after_GBps, "%.1f") + " against " + fixed(f.measured_GBps, "%.1f") +
           " GB/s): the algorithm or route stepsim runs differs from the one measured";
  if (f.key == "nic" && f.after < kLowNicFigure)
    return f.gpu_id + ": the NICs carried " + fixed(f.after, "%.3f") +
           " of the rate assumed for them, below what any working InfiniBand or RoCE link reaches: if the "
           "cluster's NICs are slower than the rows assume (" +
           fixed(f.nic_gbps, "%.0f") +
           " Gb/s per GPU), give --nic-gbps and calibrate again; else a link runs degraded";
  if (std::abs(f.after / f.before - 1.0) > 0.10)
    return f.gpu_id + ": the measurements contradict " + was + " (" +
           (g != nullptr ? g->source_of("efficiency." + f.key) : "not stated") + "): they give " +
           fixed(f.after, "%.3f");
  return f.gpu_id + ": the measurements agree within 10% with " + was + " (they give " +
         fixed(f.after, "%.3f") + ")";
}

}  // namespace

LinkCalibration calibrate_links(const std::vector<MeasuredCollective>& rows, const Catalog& catalog) {
  LinkCalibration c;
  c.calibrated = rows;
  MeasuredSimulator sim;
  LeftOut left_out;
  const std::vector<Fitted> fitted = fitted_rows(rows, c, sim, left_out);
  add_left_out_findings(left_out, c.findings);
  if (c.figures.empty())
    throw UserError(
        {}, "--write-calibration",
        "no measured row of 64 MiB or more is bound by a link whose efficiency stepsim can fit",
        "run nccl-tests up to 1 GiB or more (-e 8G) on the links to calibrate: NVLink on one node, "
        "the NICs across nodes");
  for (int round = 0; round < kMaxRounds; ++round)
    if (fit_round(c, rows, fitted, sim, round == 0)) break;
  apply_figures(c, c.calibrated);
  for (const LinkFigure& f : c.figures) c.findings.push_back(figure_finding(f, catalog));
  return c;
}

std::string link_calibration_toml(const LinkCalibration& c, const std::string& origin) {
  std::ostringstream out;
  out << toml_comment(
      "Link efficiencies measured by `stepsim collective --nccl-tests ... --write-calibration`");
  out << toml_comment("from " + origin + ".");
  out << toml_comment(
      "Apply it with --catalog FILE (or catalog = [\"FILE\"] in a scenario): it overrides these");
  out << toml_comment("figures of the GPU and keeps the catalog's others.");
  out << "#\n"
      << toml_comment(
             "Per figure: rows from 64 MiB, median bus bandwidth measured, simulated before -> after:");
  for (const LinkFigure& f : c.figures) {
    out << toml_comment("  " + f.gpu_id + " efficiency." + f.key + ": " + std::to_string(f.rows) + " rows, " +
                        fixed(f.measured_GBps, "%.1f") + " GB/s measured, " +
                        fixed(f.simulated_before_GBps, "%.1f") + " -> " +
                        fixed(f.simulated_after_GBps, "%.1f"));
    if (f.key == "nic")
      out << toml_comment("    a fraction of " + fixed(f.nic_gbps, "%.0f") +
                          " Gb/s NICs per GPU: scenarios using it should give the same (hardware.nic_gbps)");
  }
  out << "#\n" << toml_comment("What the measurements say:");
  for (const std::string& f : c.findings) out << toml_comment("  " + f);
  std::set<std::string> gpus;
  for (const LinkFigure& f : c.figures) gpus.insert(f.gpu_id);
  for (const std::string& gpu : gpus) {
    const std::string table = "[gpu." + toml_string(gpu);
    out << "\n" << table << ".efficiency]\n";
    for (const LinkFigure& f : c.figures)
      if (f.gpu_id == gpu) out << f.key << " = " << fixed(f.after, "%.4f") << "\n";
    out << "\n" << table << ".source]\n";
    for (const LinkFigure& f : c.figures)
      if (f.gpu_id == gpu)
        out << toml_string("efficiency." + f.key) << " = "
            << toml_string("measured: from " + origin +
                           " by stepsim collective --write-calibration: bus bandwidth " +
                           fixed(f.measured_GBps, "%.1f") + " GB/s (median of " + std::to_string(f.rows) +
                           " rows from 64 MiB) against " + fixed(f.simulated_before_GBps, "%.1f") +
                           " simulated at " + fixed(f.before, "%.3f"))
            << "\n";
  }
  return out.str();
}

}  // namespace stepsim::scen
