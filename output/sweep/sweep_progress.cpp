#include "output/sweep/sweep_progress.hpp"

namespace stepsim::out {
namespace {

ProgressOptions sweep_progress_options(ProgressStyle style, std::uint64_t total, std::uint64_t already,
                                       double line_interval_s) {
  ProgressOptions o;
  o.label = "sweep";
  o.unit = "points";
  o.total = total;
  o.already = already;
  o.style = style;
  o.line_interval_s = line_interval_s;
  return o;
}

}  // namespace

SweepProgress::SweepProgress(std::ostream& out, ProgressStyle style, std::uint64_t total,
                             std::uint64_t already, double line_interval_s)
    : reporter_(stream_progress_sink(out), steady_progress_clock(),
                sweep_progress_options(style, total, already, line_interval_s)) {}

void SweepProgress::advance() {
  reporter_.advance();
}

void SweepProgress::finish() {
  reporter_.finish(ProgressEnd::keep);
}

}  // namespace stepsim::out
