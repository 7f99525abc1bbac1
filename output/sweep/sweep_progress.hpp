#pragma once
// Progress of a running sweep: a ProgressReporter counting points, as a bar redrawn in place on a
// terminal or a quiet line every ten seconds in a log (Slurm, CI). Progress never touches the
// results.

#include <cstdint>
#include <ostream>

#include "output/common/progress.hpp"

namespace stepsim::out {

class SweepProgress {
 public:
  /// `total` points in this run's share, `already` of them done before it started (resumed).
  SweepProgress(std::ostream& out, ProgressStyle style, std::uint64_t total, std::uint64_t already,
                double line_interval_s = 10.0);
  /// One more point finished. Thread-safe.
  void advance();
  /// Prints the final state (the bar's last line with the total time, and a newline).
  void finish();

 private:
  ProgressReporter reporter_;
};

}  // namespace stepsim::out
