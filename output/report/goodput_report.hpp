#pragma once
// `stepsim goodput --report FILE.html`: one self-contained page (inline CSS and SVG, no scripts,
// nothing fetched) about a training run with failures and checkpoints: the headline figures, goodput
// over checkpoint intervals (the Monte Carlo's p10-p90 band and mean beside the first-order model,
// Young/Daly's optimum marked) and where the wall time goes at each interval. Same inputs, same bytes.

#include <string>
#include <string_view>

#include "output/views/run_view.hpp"
#include "workloads/reliability/goodput.hpp"

namespace stepsim::out {

/// The page; `version` is stepsim's.
std::string goodput_html(const work::JobSpec& job, const work::GoodputAssessment& a, const RunLabels& labels,
                         std::string_view version);

namespace charts {
/// Goodput (%) over the sweep's checkpoint intervals (log scale): the p10-p90 band, the mean with a
/// point per interval (the best larger), the first-order line 1 - C/tau - (tau/2 + D + R)/M, and a
/// line at Young/Daly's tau_opt (and at the asked interval). Intervals that never finish are left out.
std::string goodput_curve_chart(const work::GoodputAssessment& a);
/// One stacked bar per finishing interval of the sweep: steps, checkpoints, rework and restarts as
/// shares of the mean wall time.
std::string wall_time_chart(const work::GoodputAssessment& a);
}  // namespace charts

}  // namespace stepsim::out
