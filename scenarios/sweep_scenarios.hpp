#pragma once
// The scenario at each point of a sweep: the base scenario is parsed once, and each point's values
// are placed into a copy of it before it is read and validated like any scenario file.

#include <memory>
#include <span>
#include <string>

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/sweep.hpp"

namespace stepsim::scen {

class SweepScenarios {
 public:
  /// Parses the base scenario and checks that every axis key is a key the base scenario accepts
  /// (UserError at the axis, with did-you-mean, otherwise). `sweep` and `catalog` must outlive
  /// this object.
  SweepScenarios(const Sweep& sweep, const Catalog& catalog);
  ~SweepScenarios();
  SweepScenarios(const SweepScenarios&) = delete;
  SweepScenarios& operator=(const SweepScenarios&) = delete;

  /// The scenario with `values` (one per Sweep::keys, from point_values) in place. Throws
  /// UserError when that point is not a valid scenario; messages point at the axis values in the
  /// sweep file. Safe to call from several threads at once.
  Scenario load(std::span<const SweepValue* const> values) const;

  /// Text identifying the cluster at a point: equal for points whose [hardware], [fabric] and
  /// catalog values are equal, the only tables a ClusterSpec is read from. Points with equal keys
  /// may share one topo::Topology.
  std::string cluster_key(std::span<const SweepValue* const> values) const;

  /// Text identifying the step a point builds: equal for points whose values differ only in keys
  /// that set nothing but the cluster's scale-out fabric (`hardware.nic_gbps` and the [fabric]
  /// table, read into ClusterSpec::fabric and checked, never rewritten into anything else). Such
  /// points may share one work::StepProgram: the step builder does not read the fabric.
  std::string program_key(std::span<const SweepValue* const> values) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stepsim::scen
