#pragma once
// The charts of the HTML report, each one inline <svg> (output/common/svg.hpp): built from a simulated
// step and the catalog, with no scripts and nothing fetched.

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "output/common/svg.hpp"
#include "topology/gpu.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::out::charts {

/// One bar of a breakdown chart.
struct BreakdownBar {
  std::string label;
  work::Breakdown breakdown;
};

/// Horizontal stacked bars (compute, memory-bound kernels, exposed communication per group,
/// bubble), all on one time scale, with a legend. `id` is the <svg> element's id.
std::string breakdown_chart(std::span<const BreakdownBar> bars, std::string_view id);

/// Stages x time for one pipeline replica: a compute lane per stage (coloured by pass) and a
/// communication lane split by group. Adjacent ops of one colour closer than a pixel are merged.
/// With a window [from_s, to_s] (to_s > from_s), only that stretch of the step, as <svg id=`id`>.
std::string gantt_chart(const work::Simulation& s, double from_s = 0.0, double to_s = -1.0,
                        std::string_view id = "gantt");
/// A window of one micro-batch's work: from the first op of the middle micro-batch on the first
/// stage, as long as that micro-batch's kernels take there (and a tenth more); {0, 0} when the
/// step has none.
std::pair<double, double> microbatch_window(const work::Simulation& s);

/// Utilisation of each link tier over the step (time-weighted per bucket), 0-100%.
std::string network_chart(const work::Simulation& s);
/// Memory in use over the step on the busiest rank of up to 8 stages, against capacity.
std::string memory_timeline_chart(const work::Simulation& s);

/// Memory per pipeline stage (busiest simulated rank of each): static kinds plus activations at
/// the peak, against the GPU's capacity.
std::string memory_chart(const work::Simulation& s);

/// Log-log roofline of the GPU (dense peak at the job's precision, HBM slope, the achievable
/// ceilings) with the step's kernels placed by op class and the step as a whole.
std::string roofline_chart(const work::JobSpec& job, const work::Simulation& s);

/// Price per unit of each bottleneck resource for the catalog's GPUs ($/GPU-h, $/TFLOP-h at
/// dense BF16, $/TB/s-h of HBM, $/GB-h of HBM), `highlight` drawn darker.
std::string cost_charts(std::span<const topo::GpuSpec> gpus, std::string_view highlight);
/// The same figures as a table.
std::string cost_table(std::span<const topo::GpuSpec> gpus, std::string_view highlight);

/// Several steps (stepsim run --steps N): one bar per step, fastest to slowest (the slowest red),
/// against lines at the nominal step, p50 and p99; at most 1,000 bars (evenly spaced ranks beyond).
std::string step_time_chart(const work::StepDistribution& d);
/// Every GPU's kernel time factor as a grid, a block of `gpus_per_node` cells per node (white at
/// 1, red slower, blue faster), the slowest GPU outlined; each cell's tooltip has its waiting share
/// of the median step.
std::string slowness_map(const work::Simulation& s, int gpus_per_node);

/// Colour of a communication group (fixed palette).
std::string_view group_colour(work::ParallelDim d);

/// The parallel dimensions in the order charts list them.
inline constexpr work::ParallelDim kDims[] = {work::ParallelDim::tp, work::ParallelDim::cp,
                                              work::ParallelDim::ep, work::ParallelDim::pp,
                                              work::ParallelDim::dp};

using LegendItems = std::vector<std::pair<std::string, std::string_view>>;
/// Rows a legend starting at `x` needs before wrapping at `max_x`.
int legend_rows(const LegendItems& items, double x, double max_x);
/// Swatches and names from (x, y), wrapping at the canvas's right edge; rows are 16 units apart.
void legend(svg::Canvas& c, double x, double y, const LegendItems& items);
/// A tick step of 1, 2 or 5 x 10^k that cuts a span of `span` into about `n` steps.
double tick_step(double span, int n);
/// The simulated rank with the highest memory peak in each stage (-1 for a stage without one).
std::vector<int> busiest_per_stage(const work::Simulation& s);

/// Seconds along [x0, x0 + w] at height y, ticks at 1, 2 or 5 x 10^k, from 0 to `max_s`.
void time_axis(svg::Canvas& c, double x0, double w, double y, double max_s);
/// The same from `from_s` to `to_s`.
void time_axis(svg::Canvas& c, double x0, double w, double y, double from_s, double to_s);

}  // namespace stepsim::out::charts
