#pragma once
// Progress of a running sweep: a bar redrawn in place on a terminal, or a quiet line every ten
// seconds in a log (Slurm, CI). Progress never touches the results.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

namespace stepsim::out {

enum class ProgressStyle : std::uint8_t {
  bar,    ///< one line redrawn with \r at most ten times a second
  lines,  ///< a line every `line_interval` seconds and at the end
  none,
};

class SweepProgress {
 public:
  /// `total` points in this run's share, `already` of them done before it started (resumed).
  SweepProgress(std::ostream& out, ProgressStyle style, std::uint64_t total, std::uint64_t already,
                double line_interval_s = 10.0);
  /// One more point finished. Thread-safe.
  void advance();
  /// Prints the final state (a newline after the bar).
  void finish();
  /// "[#####-----]  120/400  30.0%  85.2 points/s  ETA 0:03" for `done` of `total`.
  static std::string status_text(std::uint64_t done, std::uint64_t total, std::uint64_t ran, double elapsed_s,
                                 bool bar);

 private:
  void draw(bool final);

  std::ostream& out_;
  ProgressStyle style_;
  std::uint64_t total_, done_, ran_ = 0;
  double interval_s_;
  std::chrono::steady_clock::time_point start_, last_;
  std::mutex mutex_;
};

}  // namespace stepsim::out
