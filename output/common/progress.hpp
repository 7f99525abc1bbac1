#pragma once
// Progress of long work for a person watching: "search: simulating  [####----]  12/40 layouts  30%
// 2.1 layouts/s  ETA 0:13" redrawn in place with a carriage return on a terminal, or one line per
// interval in a log. The clock and the sink are injected, so tests drive time by hand and read
// what was written. Progress never touches results; whether to show it at all (a terminal, not
// --quiet, not JSON) is the caller's decision.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>

namespace stepsim::out {

enum class ProgressStyle : std::uint8_t {
  bar,    ///< one line redrawn with \r, at most every ProgressOptions::redraw_interval_s
  lines,  ///< a line every ProgressOptions::line_interval_s and one at the end (logs, Slurm)
  none,   ///< nothing
};

/// What the remaining-time figure means.
enum class EtaMeaning : std::uint8_t {
  expected,  ///< remaining units at the rate so far
  at_most,   ///< the same arithmetic, but work may end early (a search that stops when nothing can win)
};

/// How finish() leaves a drawn bar.
enum class ProgressEnd : std::uint8_t {
  keep,   ///< a last line with the total time, then a newline
  clear,  ///< erased, so the command's own output starts on a clean line
};

/// Seconds since a fixed origin, never decreasing.
using ProgressClock = std::function<double()>;
/// Receives text exactly as it is to be written (carriage returns and escape codes included).
using ProgressSink = std::function<void(std::string_view)>;

/// std::chrono::steady_clock in seconds.
ProgressClock steady_progress_clock();
/// Writes to `out` and flushes; `out` must outlive the sink.
ProgressSink stream_progress_sink(std::ostream& out);

/// "0:07", "12:34", "1:02:03" (whole seconds, rounded); "?" when `seconds` is not finite.
std::string elapsed_clock_text(double seconds);

/// Seconds left for `total - done` units at the rate the `ran` units finished in `elapsed_s`:
/// (total - done) x elapsed_s / ran. NaN while nothing has run (no rate yet) or with no total;
/// 0 once done reaches total.
double eta_seconds(std::uint64_t done, std::uint64_t total, std::uint64_t ran, double elapsed_s);

struct ProgressOptions {
  std::string label;           ///< leads the line: "search", "validate"
  std::string unit = "items";  ///< what is counted, plural: "cases", "points/s" is derived from it
  std::uint64_t total = 0;     ///< 0: unknown; the line shows a spinner and the elapsed time
  std::uint64_t already = 0;   ///< counted done before this run (resumed): in the count, not in the rate
  ProgressStyle style = ProgressStyle::bar;
  EtaMeaning eta = EtaMeaning::expected;
  double redraw_interval_s = 0.2;  ///< bar: at most five redraws a second
  double line_interval_s = 10.0;   ///< lines: one every ten seconds
  double delay_s = 0.0;            ///< draw nothing before this much time has passed (short runs stay quiet)
};

/// The state a line shows; status_line formats it.
struct ProgressState {
  std::uint64_t done = 0;
  std::uint64_t total = 0;
  std::uint64_t ran = 0;   ///< units finished in this phase, for the rate
  double elapsed_s = 0.0;  ///< since the phase began
  double total_s = 0.0;    ///< since the reporter was made
  std::string label, detail;
  EtaMeaning eta = EtaMeaning::expected;
  unsigned frame = 0;  ///< spinner frame
  bool final = false;  ///< the last line: the total time instead of an ETA
};

/// One status line without \r or newline, e.g. "validate  [######------------------]  31/106 cases
/// 29%  2.5 cases/s  ETA 0:30  (detail)"; with no total: "run  simulating /  0:12".
std::string status_line(const ProgressState& s, const ProgressOptions& o);

/// A counter with a total that draws itself through a sink, throttled. Every member is
/// thread-safe: workers call advance() as they finish units.
class ProgressReporter {
 public:
  ProgressReporter(ProgressSink sink, ProgressClock clock, ProgressOptions options);
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  /// `n` more units finished.
  void advance(std::uint64_t n = 1);
  /// Sets the count (for callers that report absolute figures).
  void set_done(std::uint64_t done);
  /// Sets the total (for work whose size is known only once it has started).
  void set_total(std::uint64_t total);
  /// Starts a phase with its own label suffix, total, count and rate from 0, and ETA meaning
  /// ("bounding", then "simulating").
  void start_phase(std::string phase, std::uint64_t total, EtaMeaning eta = EtaMeaning::expected);
  /// Text shown after the counts, e.g. "best 3,120 tok/s/GPU"; "" for none.
  void set_detail(std::string detail);
  /// Redraws when one is due even though nothing advanced: the spinner and elapsed time move.
  void tick();
  /// Draws the final state (ProgressEnd::keep) or erases the line (clear). Nothing if nothing was
  /// drawn. Further calls do nothing; the destructor calls finish(ProgressEnd::clear).
  void finish(ProgressEnd end = ProgressEnd::keep);

 private:
  void maybe_draw(bool force);
  ProgressState state_at(double now) const;

  ProgressSink sink_;
  ProgressClock clock_;
  ProgressOptions options_;
  std::mutex mutex_;
  std::string phase_, detail_;
  EtaMeaning eta_;
  std::uint64_t done_ = 0, total_ = 0, phase_start_done_ = 0;
  double start_s_ = 0.0, phase_start_s_ = 0.0, last_draw_s_ = 0.0;
  unsigned frame_ = 0;
  bool drawn_ = false, finished_ = false;
};

/// Calls reporter.tick() every `interval` on its own thread until destroyed, so a line keeps
/// moving while one long unit of work runs (a big simulation).
class ProgressTicker {
 public:
  explicit ProgressTicker(ProgressReporter& reporter,
                          std::chrono::milliseconds interval = std::chrono::milliseconds(250));
  ~ProgressTicker();
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::jthread thread_;
};

}  // namespace stepsim::out
