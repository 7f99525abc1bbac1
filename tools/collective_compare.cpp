#include "tools/collective_compare.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenarios/collective_measurements.hpp"
#include "sim/error.hpp"
#include "topology/collective_sweep.hpp"

namespace stepsim::cli {

std::string band(double bytes) {
  if (bytes >= 64.0 * 1024 * 1024) return ">= 64 MB";
  if (bytes >= 64.0 * 1024) return "64 KB - 64 MB";
  return "< 64 KB";
}

std::string label(const topo::CollectiveSample& s) {
  return std::string(topo::name(s.algorithm)) + "/" + std::string(topo::name(s.protocol));
}

void add_outcome_json(nlohmann::ordered_json& r, const MeasuredOutcome& o) {
  if (!o.refused.empty()) {
    r["not_simulated"] = o.refused;
    return;
  }
  r["simulated_busbw_GBps"] = o.ran.busbw_GBps;
  r["error"] = o.error;
  r["algorithm"] = topo::name(o.ran.algorithm);
  r["protocol"] = topo::name(o.ran.protocol);
  r["bound"] = topo::name(o.ran.bound);
  r["chosen_algorithm"] = topo::name(o.chosen.algorithm);
  r["chosen_protocol"] = topo::name(o.chosen.protocol);
}

std::vector<MeasuredOutcome> simulate_measurements(const std::vector<scen::MeasuredCollective>& rows) {
  scen::MeasuredSimulator sim;
  std::vector<MeasuredOutcome> out;
  for (const auto& row : rows) {
    MeasuredOutcome o;
    o.row = &row;
    if (!row.not_expressible.empty()) {
      o.refused = row.not_expressible;
      out.push_back(std::move(o));
      continue;
    }
    try {
      o.ran = sim.run(row, row.algorithm);
    } catch (const UserError& e) {
      o.refused = e.what();
      out.push_back(std::move(o));
      continue;
    }
    if (row.algorithm == topo::CollectiveAlgorithm::automatic &&
        row.protocol == topo::CollectiveProtocol::automatic) {
      o.chosen = o.ran;
    } else {
      scen::MeasuredCollective own = row;  // what stepsim picks with nothing forced
      own.protocol = topo::CollectiveProtocol::automatic;
      o.chosen = sim.run(own, topo::CollectiveAlgorithm::automatic);
    }
    o.error = o.ran.busbw_GBps / row.busbw_GBps - 1.0;
    out.push_back(std::move(o));
  }
  return out;
}

std::map<std::string, SizeBand> size_bands(const std::vector<MeasuredOutcome>& out) {
  std::map<std::string, SizeBand> bands;
  for (const auto& o : out)
    if (o.refused.empty()) {
      SizeBand& b = bands[band(o.row->bytes)];
      ++b.rows;
      b.abs_sum += std::abs(o.error);
      if (std::abs(o.error) <= (o.row->bytes >= 64.0 * 1024 * 1024 ? 0.10 : 0.25)) ++b.within;
    }
  return bands;
}

void print_size_bands(const std::map<std::string, SizeBand>& bands) {
  for (const auto& [name, b] : bands)
    std::printf("  %-14s %3d rows, %3d within the bound, MAPE %.1f%%\n", name.c_str(), b.rows, b.within,
                b.rows ? 100.0 * b.abs_sum / b.rows : 0.0);
}

void compare_measurements(const std::filesystem::path& file, const scen::Catalog& catalog, bool json) {
  const auto rows = scen::read_collective_measurements(file, catalog);
  const std::vector<MeasuredOutcome> out = simulate_measurements(rows);
  // Per band: rows, within the bound (10% from 64 MB, 25% below), MAPE.
  const auto bands = size_bands(out);

  if (json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& o : out) {
      nlohmann::ordered_json r{{"id", o.row->id},
                               {"gpu", o.row->gpu},
                               {"nodes", o.row->nodes},
                               {"gpus_per_node", o.row->gpus_per_node},
                               {"op", o.row->op_name},
                               {"bytes", o.row->bytes},
                               {"named_algorithm", o.row->named_algorithm},
                               {"measured_busbw_GBps", o.row->busbw_GBps}};
      add_outcome_json(r, o);
      if (o.refused.empty()) {
        if (!o.row->substitution.empty()) r["compared_with"] = o.row->substitution;
        if (o.row->nvls_disabled) r["nvls"] = false;
      }
      j.push_back(std::move(r));
    }
    std::cout << j.dump(2) << '\n';
    return;
  }
  std::printf("%-5s %-6s %5s %3s %-10s %-14s %14s %9s %9s %7s  %-20s %s\n", "id", "gpu", "nodes", "gpn", "op",
              "named", "bytes", "meas_bus", "sim_bus", "error", "ran", "stepsim's own choice");
  for (const auto& o : out) {
    const auto& r = *o.row;
    std::printf("%-5s %-6s %5d %3d %-10s %-14s %14.0f %9.1f ", r.id.c_str(), r.gpu.substr(0, 6).c_str(),
                r.nodes, r.gpus_per_node, r.op_name.substr(0, 10).c_str(),
                r.named_algorithm.substr(0, 14).c_str(), r.bytes, r.busbw_GBps);
    if (!o.refused.empty()) {
      std::printf("%9s %7s  not simulated: %s\n", "-", "-", o.refused.c_str());
      continue;
    }
    std::printf("%9.1f %+6.1f%%  %-20s %s%s%s\n", o.ran.busbw_GBps, o.error * 100.0, label(o.ran).c_str(),
                label(o.chosen).c_str(), o.row->substitution.empty() ? "" : "  [*]",
                o.row->nvls_disabled ? "  [o]" : "");
  }
  // Rows compared with something other than the algorithm they name, grouped by the reason.
  std::map<std::string, std::string> substituted;
  for (const auto& o : out)
    if (o.refused.empty() && !o.row->substitution.empty()) {
      std::string& ids = substituted[o.row->substitution];
      ids += (ids.empty() ? "" : ", ") + o.row->id;
    }
  for (const auto& [why, ids] : substituted) std::printf("[*] rows %s: %s\n", ids.c_str(), why.c_str());
  std::string off_ids;
  for (const auto& o : out)
    if (o.refused.empty() && o.row->nvls_disabled) off_ids += (off_ids.empty() ? "" : ", ") + o.row->id;
  if (!off_ids.empty())
    std::printf("[o] rows %s: run with NVLink SHARP off, as their notes say (NCCL_NVLS_ENABLE=0)\n",
                off_ids.c_str());
  std::printf(
      "\nbus bandwidth error by message size (simulated rows; bound: 10%% from 64 MB, 25%% below):\n");
  print_size_bands(bands);
  int refused = 0;
  for (const auto& o : out) refused += o.refused.empty() ? 0 : 1;
  std::printf("  %d rows not simulated (reason on each row)\n", refused);
}

}  // namespace stepsim::cli
