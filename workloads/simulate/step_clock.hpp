#pragma once
// The SM clock a step runs at. A GPU at its power limit holds a lower clock the longer its tensor
// cores stay busy: the catalog's clock_duty curve (topo::ClockCurve), measured on the H200 by
// alternating GEMMs with copies or a spinning kernel (tools/calibration/power_mix.py). A step's duty
// is the share of the step its busiest GPU spends in tensor-core-bound kernels (compute-bound GEMM
// and attention kernels, topo::tensor_bound); its clock is the curve at that duty. A GPU without a
// curve keeps its fixed sustained_clock.
//
// Training steps take the duty from the step's lower bound (workloads/bound/step_bound.hpp) walked at
// the curve's highest clock with collectives free: T, the tensor-core time of the rank with the most
// kernel work, over S, the relaxed step (its kernels in stream order, the pipeline's dependencies and
// bubbles). At clock c those kernels take T x c_high / c and the step S + T x (c_high / c - 1); the
// clock solves c = curve(duty(c)), a contraction (the curve falls slowly) that a few rounds settle.
// Inference steps take T over the kernel time of the built step's first simulated rank.
// Left out: exposed communication counts at the step's own duty (the spinning filler's measured clock
// sits between a copy's and a GEMM's), and communication overlapped with GEMMs adds power the
// serial measurement does not include; one clock for every GPU of the step (the busiest GPU's).

#include <memory>

#include "topology/collectives.hpp"
#include "topology/gpu.hpp"
#include "topology/topology.hpp"
#include "workloads/model/job.hpp"

namespace stepsim::work {

struct StepPlan;

struct StepClock {
  double duty = -1.0;  ///< the tensor-core duty that set the clock; < 0: the GPU's fixed clock
  double clock = 1.0;  ///< the held SM clock over the short-run clock the efficiencies describe
};

/// The fixed point for a step whose tensor-core-bound kernels take `tensor_s` of `step_s` when the
/// GPU runs at `at_clock`.
StepClock solve_step_clock(const topo::ClockCurve& curve, double at_clock, double tensor_s, double step_s);

/// A training job's clock, from its step bound (the GPU's fixed clock without a curve).
StepClock train_step_clock(const JobSpec& job);

/// A built inference step's clock: its first simulated rank's tensor-core share of its kernel time,
/// the step built at the GPU's sustained_clock.
StepClock plan_step_clock(const JobSpec& job, const StepPlan& plan);

/// The clock `job`'s step runs at: a training step's from its bound, an inference step's from a
/// representative build at the GPU's highest clock on a planner of its own over `topology`.
StepClock step_clock(const JobSpec& job, const std::shared_ptr<const topo::Topology>& topology,
                     const topo::CommConfig& comm);

/// `job` with its GPU's clock set to `clock`.
JobSpec at_clock(const JobSpec& job, const StepClock& clock);

}  // namespace stepsim::work
