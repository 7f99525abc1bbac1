// `stepsim collective --nccl-tests LOG... [--write-calibration FILE]`: a cluster's own nccl-tests
// output against the model, and the link efficiencies that make them agree.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "output/common/atomic_file.hpp"
#include "scenarios/collective_calibration.hpp"
#include "tools/collective_compare.hpp"

namespace stepsim::cli {

namespace {

struct LogRows {
  scen::NcclTestsLog log;
  std::vector<scen::MeasuredCollective> rows;
};

std::string gb(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

/// "a.out (all_reduce, 16 ranks on 2 hosts, NCCL 2.29.7)" for each log: the calibration's origin.
std::string origin_of(const std::vector<LogRows>& logs) {
  std::string text = "nccl-tests logs ";
  for (std::size_t i = 0; i < logs.size(); ++i) {
    const auto& l = logs[i].log;
    text += (i ? ", " : "") + l.file.string() + " (" + l.op_name;
    if (!l.runs.empty())
      text += ", " + std::to_string(l.runs.front().ranks()) + " ranks on " +
              std::to_string(l.runs.front().distinct_hosts().size()) + " hosts";
    if (!l.nccl_version.empty()) text += ", NCCL " + l.nccl_version;
    text += ")";
  }
  return text;
}

/// What stepsim took the run's cluster to be, and what it assumed.
std::string run_line(const scen::NcclTestsLog& log, const scen::NcclTestsRun& run,
                     const scen::MeasuredCollective& first, const scen::LogCluster& lc) {
  std::string s = "run at line " + std::to_string(run.line) + ": " + std::to_string(run.ranks()) +
                  " ranks on " + std::to_string(run.distinct_hosts().size()) + " hosts, " + run.device;
  if (!first.not_expressible.empty()) return s;
  s += " -> " + first.cluster.gpu.id + (lc.gpu.empty() ? "" : " (--gpu)") + ", NIC " + gb(first.nic_gbps) +
       " Gb/s per GPU" + (lc.nic_gbps ? "" : " (the GPU's; --nic-gbps)") + ", NVLink domains of " +
       std::to_string(first.cluster.nvlink_domain) + ", rail-optimised fabric" +
       (lc.sharp ? " with SHARP" : "");
  if (!log.forced_algorithm.empty())
    s += ", NCCL_ALGO=" + log.forced_algorithm;
  else if (!lc.algorithm.empty())
    s += ", NCCL_ALGO=" + lc.algorithm + " (--algorithm)";
  else if (!run.choices.empty())
    s += ", NCCL's choice per size from its TUNING lines";
  else
    s += ", NCCL's own algorithm (not in the log)";
  if (!log.forced_protocol.empty()) s += ", NCCL_PROTO=" + log.forced_protocol;
  if (log.nvls_disabled) s += ", NVLS off";
  return s;
}

void print_rows(const std::vector<MeasuredOutcome>& out) {
  std::printf("    %6s %14s %9s %9s %7s  %-20s %-8s %s\n", "line", "bytes", "meas_bus", "sim_bus", "error",
              "ran", "bound", "stepsim's own choice");
  for (const auto& o : out) {
    std::printf("    %6d %14.0f %9.2f ", o.row->line, o.row->bytes, o.row->busbw_GBps);
    if (!o.refused.empty()) {
      std::printf("%9s %7s  not simulated: %s\n", "-", "-", o.refused.c_str());
      continue;
    }
    std::printf("%9.2f %+6.1f%%  %-20s %-8s %s\n", o.ran.busbw_GBps, o.error * 100.0, label(o.ran).c_str(),
                std::string(topo::name(o.ran.bound)).c_str(), label(o.chosen).c_str());
  }
}

nlohmann::ordered_json rows_json(const std::vector<MeasuredOutcome>& out) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& o : out) {
    nlohmann::ordered_json r{
        {"line", o.row->line}, {"bytes", o.row->bytes}, {"measured_busbw_GBps", o.row->busbw_GBps}};
    add_outcome_json(r, o);
    j.push_back(std::move(r));
  }
  return j;
}

nlohmann::ordered_json bands_json(const std::map<std::string, SizeBand>& bands) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, b] : bands)
    j[name] = {{"rows", b.rows}, {"within_bound", b.within}, {"mape", b.rows ? b.abs_sum / b.rows : 0.0}};
  return j;
}

void print_calibration(const scen::LinkCalibration& c) {
  std::printf("\nlink calibration (%d rounds of simulation)\n", c.simulations);
  std::printf("%-10s %-22s %7s %7s %7s %5s %12s  %s\n", "gpu", "figure", "catalog", "fitted", "change",
              "rows", "measured", "simulated before -> after (median bus GB/s)");
  for (const auto& f : c.figures)
    std::printf("%-10s %-22s %7.3f %7.3f %+6.1f%% %5d %12.1f  %.1f -> %.1f%s\n", f.gpu_id.c_str(),
                ("efficiency." + f.key).c_str(), f.before, f.after, (f.after / f.before - 1.0) * 100.0,
                f.rows, f.measured_GBps, f.simulated_before_GBps, f.simulated_after_GBps,
                f.at_limit ? "  (at 1)" : "");
  for (const auto& f : c.findings) std::printf("  - %s\n", f.c_str());
}

nlohmann::ordered_json log_json(const LogRows& l, const std::vector<MeasuredOutcome>& out) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const auto& run : l.log.runs)
    if (!run.rows.empty())
      runs.push_back({{"line", run.line},
                      {"ranks", run.ranks()},
                      {"hosts", run.distinct_hosts().size()},
                      {"device", run.device},
                      {"nccl_choices", run.choices.size()}});
  return {{"file", l.log.file.string()},        {"op", l.log.op_name}, {"op_from", l.log.op_source},
          {"nccl_version", l.log.nccl_version}, {"runs", runs},        {"rows", rows_json(out)}};
}

void print_log(const LogRows& l, const std::vector<MeasuredOutcome>& out, const scen::LogCluster& lc) {
  std::printf("%s: %s (from %s)%s\n", l.log.file.string().c_str(), l.log.op_name.c_str(),
              l.log.op_source.c_str(),
              l.log.nccl_version.empty() ? "" : (", NCCL " + l.log.nccl_version).c_str());
  std::size_t at = 0;
  for (const auto& run : l.log.runs) {
    if (run.rows.empty()) continue;
    // The cluster as the run's first row stepsim can run describes it (small sizes may not run).
    std::size_t described = at;
    for (std::size_t i = at; i < at + run.rows.size(); ++i)
      if (l.rows[i].not_expressible.empty()) {
        described = i;
        break;
      }
    std::printf("  %s\n", run_line(l.log, run, l.rows[described], lc).c_str());
    print_rows(std::vector<MeasuredOutcome>(out.begin() + static_cast<std::ptrdiff_t>(at),
                                            out.begin() + static_cast<std::ptrdiff_t>(at + run.rows.size())));
    at += run.rows.size();
  }
}

nlohmann::ordered_json calibration_json(const scen::LinkCalibration& cal, const std::string& file,
                                        const std::map<std::string, SizeBand>& after) {
  nlohmann::ordered_json figures = nlohmann::ordered_json::array();
  for (const auto& f : cal.figures)
    figures.push_back({{"gpu", f.gpu_id},
                       {"figure", "efficiency." + f.key},
                       {"catalog", f.before},
                       {"fitted", f.after},
                       {"rows", f.rows},
                       {"measured_busbw_GBps", f.measured_GBps},
                       {"simulated_before_GBps", f.simulated_before_GBps},
                       {"simulated_after_GBps", f.simulated_after_GBps},
                       {"at_limit", f.at_limit}});
  return {
      {"file", file}, {"figures", figures}, {"findings", cal.findings}, {"bands_after", bands_json(after)}};
}

/// Fits, writes the overlay, then reads every log again through it as a user applies it.
void calibrate(const std::vector<LogRows>& logs, const NcclTestsRequest& request,
               const scen::Catalog& catalog, nlohmann::ordered_json* json) {
  std::vector<scen::MeasuredCollective> all;
  for (const LogRows& l : logs) all.insert(all.end(), l.rows.begin(), l.rows.end());
  const scen::LinkCalibration cal = scen::calibrate_links(all, catalog);
  out::write_file_atomically(request.write_calibration, scen::link_calibration_toml(cal, origin_of(logs)),
                             "--write-calibration");
  const scen::Catalog applied = catalog.with_file(request.write_calibration);
  std::vector<scen::MeasuredCollective> again;
  for (const LogRows& l : logs) {
    const auto rows = scen::measured_from_log(l.log, applied, request.cluster);
    again.insert(again.end(), rows.begin(), rows.end());
  }
  const auto after = size_bands(simulate_measurements(again));
  if (json != nullptr) {
    (*json)["calibration"] = calibration_json(cal, request.write_calibration, after);
    return;
  }
  print_calibration(cal);
  std::printf("\nwritten: %s; the logs again with it (--catalog %s):\n", request.write_calibration.c_str(),
              request.write_calibration.c_str());
  print_size_bands(after);
}

}  // namespace

void compare_nccl_tests(const NcclTestsRequest& request, const scen::Catalog& catalog, bool json) {
  std::vector<LogRows> logs;
  for (const auto& file : request.files) {
    LogRows l{scen::read_nccl_tests_log(file, request.op), {}};
    l.rows = scen::measured_from_log(l.log, catalog, request.cluster);
    logs.push_back(std::move(l));
  }
  nlohmann::ordered_json j{{"logs", nlohmann::ordered_json::array()}};
  std::vector<MeasuredOutcome> every;
  for (const LogRows& l : logs) {
    const auto out = simulate_measurements(l.rows);
    every.insert(every.end(), out.begin(), out.end());
    if (json)
      j["logs"].push_back(log_json(l, out));
    else
      print_log(l, out, request.cluster);
  }
  const auto bands = size_bands(every);
  if (json) {
    j["bands"] = bands_json(bands);
  } else {
    std::printf(
        "\nbus bandwidth error by message size (simulated rows; bound: 10%% from 64 MB, 25%% below):\n");
    print_size_bands(bands);
  }
  if (!request.write_calibration.empty()) calibrate(logs, request, catalog, json ? &j : nullptr);
  if (json) std::cout << j.dump(2) << '\n';
}

}  // namespace stepsim::cli
