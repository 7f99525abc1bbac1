#pragma once
// One `stepsim profile` comparison end to end: one or more traces (one per profiled rank) against
// the simulation of a job over the same window, with the per-step figures (step time, compute,
// exposed communication, MFU, tokens/s) where the traces cover whole steps.

#include <vector>

#include "output/profile/profile_compare.hpp"
#include "output/profile/profile_trace.hpp"
#include "workloads/model/job.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::out {

/// A profiled rank: its trace's measured profile and which global rank it is.
struct ProfiledRank {
  const GpuTrace* trace = nullptr;  ///< not owned
  MeasuredProfile measured;
  int rank = 0;
  /// The whole trace's GPU span, time some compute kernel ran and communication it left exposed,
  /// seconds (classed once here: the calibration compares the trace with many simulations).
  double span_s = 0.0, compute_s = 0.0, exposed_comm_s = 0.0;
};

/// Measures every trace once (the calibration compares them with many simulations).
std::vector<ProfiledRank> profiled_ranks(const std::vector<GpuTrace>& traces, const std::vector<int>& ranks);

/// The per-step figures of whole-step traces: each trace's GPU span over `steps`, averaged over
/// the traces, beside the simulated step of the same ranks.
StepFigures step_figures(const std::vector<ProfiledRank>& ranks, int steps, const work::Simulation& sim);

/// Simulates `job` (one rank per pipeline stage) and compares it with every profiled rank over
/// `window` (its rank ignored: each trace's own): classes summed over the ranks. `steps` > 0 adds
/// the per-step figures.
ProfileComparison compare_job(const std::vector<ProfiledRank>& ranks, const work::JobSpec& job,
                              const ProfileWindow& window, int steps);

}  // namespace stepsim::out
