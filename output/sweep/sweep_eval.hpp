#pragma once
// Evaluating one point of a sweep into its row: place its values into the base scenario, simulate
// (or estimate) it, and read the figures a sweep reports. Every problem of the point itself is
// caught and recorded in the row; only bugs in the caller escape.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "output/sweep/sweep_table.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/sweep_scenarios.hpp"
#include "topology/topology.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::out {

/// What a point produced; result columns read it.
struct PointOutcome {
  const scen::Scenario& scenario;
  const work::Simulation* simulation;  ///< null in estimate mode and when not simulated
  const work::Estimate& estimate;
  /// A lower bound on the busiest rank's memory peak above usable HBM: the point does not fit, so
  /// it was not simulated (0 otherwise).
  double memory_bound_bytes = 0.0;
};

/// Topologies shared by points on the same cluster (keyed by SweepScenarios::cluster_key), at
/// most `capacity` at a time. Thread-safe; a topology is immutable once built.
class TopologyCache {
 public:
  explicit TopologyCache(std::size_t capacity = 16) : capacity_(capacity) {}
  std::shared_ptr<const topo::Topology> get(const std::string& key, const topo::ClusterSpec& cluster);

 private:
  std::mutex mutex_;
  std::size_t capacity_;
  std::map<std::string, std::shared_ptr<const topo::Topology>> by_key_;
  std::vector<std::string> order_;  ///< insertion order, for eviction
};

class PointEvaluator {
 public:
  /// Parses the base scenario and checks the axis keys (UserError on a bad key). Points whose step
  /// is estimated above `max_ops` ops are invalid rows (workloads/step/step_size.hpp).
  PointEvaluator(const scen::Sweep& sweep, const scen::Catalog& catalog,
                 std::uint64_t max_ops = work::kDefaultMaxOps);
  const SweepSchema& schema() const { return schema_; }
  /// The row of point `index` at axis `steps`, simulating through `program`, which the caller
  /// keeps for points of one program_key, one thread at a time: the step is built for the first
  /// of them only. Thread-safe across distinct programs.
  Row evaluate(std::uint64_t index, std::span<const std::uint32_t> steps, work::StepProgram& program) const;
  /// Equal for points that may share a work::StepProgram (SweepScenarios::program_key).
  std::string program_key(std::span<const std::uint32_t> steps) const;
  /// Roughly what simulating the point costs: its step's size in op-equivalents (work::step_size),
  /// 0 in estimate mode and for a point that does not load (its row says why). For ordering the
  /// work; no row depends on it.
  double cost(std::span<const std::uint32_t> steps) const;

 private:
  const scen::Sweep& sweep_;
  scen::SweepScenarios scenarios_;
  SweepSchema schema_;
  std::uint64_t max_ops_;
  mutable TopologyCache topologies_;
};

}  // namespace stepsim::out
