#include "output/common/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace stepsim::out {
namespace {

constexpr int kProgressBarWidth = 24;
constexpr std::string_view kSpinnerFrames = "|/-\\";

std::string fixed_text(double value, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

/// "  31/106 cases  29.2%  2.5 cases/s  elapsed 0:12  ETA 0:30": the counted part of a line.
std::string counted_text(const ProgressState& s, const ProgressOptions& o) {
  const std::uint64_t done = std::min(s.done, s.total);
  const double fraction = static_cast<double>(done) / static_cast<double>(s.total);
  std::string t = std::to_string(done) + "/" + std::to_string(s.total) + " " + o.unit + "  " +
                  fixed_text(100.0 * fraction, 1) + "%";
  if (s.ran > 0 && s.elapsed_s > 0.0)
    t += "  " + fixed_text(static_cast<double>(s.ran) / s.elapsed_s, 1) + " " + o.unit + "/s";
  if (s.final) return t + "  in " + elapsed_clock_text(s.total_s);
  t += "  elapsed " + elapsed_clock_text(s.total_s);
  const double eta = eta_seconds(done, s.total, s.ran, s.elapsed_s);
  t += "  ETA " + elapsed_clock_text(eta);
  if (s.eta == EtaMeaning::at_most && std::isfinite(eta)) t += " or less";
  return t;
}

}  // namespace

ProgressClock steady_progress_clock() {
  return [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
}

ProgressSink stream_progress_sink(std::ostream& out) {
  return [&out](std::string_view text) { out << text << std::flush; };
}

std::string elapsed_clock_text(double seconds) {
  if (!std::isfinite(seconds)) return "?";
  const long t = std::lround(std::max(0.0, seconds));
  char buf[40];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

double eta_seconds(std::uint64_t done, std::uint64_t total, std::uint64_t ran, double elapsed_s) {
  if (total == 0) return NAN;
  if (done >= total) return 0.0;
  if (ran == 0 || !(elapsed_s > 0.0)) return NAN;
  return static_cast<double>(total - done) * elapsed_s / static_cast<double>(ran);
}

std::string status_line(const ProgressState& s, const ProgressOptions& o) {
  std::string line = s.label + (o.style == ProgressStyle::lines ? ": " : "  ");
  if (s.total == 0) {
    line += s.final ? "done in " + elapsed_clock_text(s.total_s)
                    : std::string(1, kSpinnerFrames[s.frame % kSpinnerFrames.size()]) + "  " +
                          elapsed_clock_text(s.total_s);
  } else {
    if (o.style == ProgressStyle::bar) {
      const double fraction = static_cast<double>(std::min(s.done, s.total)) / static_cast<double>(s.total);
      const int filled = static_cast<int>(std::floor(fraction * kProgressBarWidth));
      line += "[" + std::string(filled, '#') + std::string(kProgressBarWidth - filled, '-') + "]  ";
    }
    line += counted_text(s, o);
  }
  if (!s.detail.empty()) line += "  " + s.detail;
  return line;
}

ProgressReporter::ProgressReporter(ProgressSink sink, ProgressClock clock, ProgressOptions options)
    : sink_(std::move(sink)), clock_(std::move(clock)), options_(std::move(options)) {
  done_ = options_.already;
  total_ = options_.total;
  eta_ = options_.eta;
  phase_start_done_ = done_;
  start_s_ = phase_start_s_ = clock_();
}

ProgressReporter::~ProgressReporter() {
  finish(ProgressEnd::clear);
}

ProgressState ProgressReporter::state_at(double now) const {
  ProgressState s;
  s.done = done_;
  s.total = total_;
  s.ran = done_ - std::min(done_, phase_start_done_);
  s.elapsed_s = now - phase_start_s_;
  s.total_s = now - start_s_;
  s.label = phase_.empty() ? options_.label : options_.label + " " + phase_;
  s.detail = detail_;
  s.eta = eta_;
  s.frame = frame_;
  return s;
}

void ProgressReporter::maybe_draw(bool force) {
  if (options_.style == ProgressStyle::none || finished_) return;
  const double now = clock_();
  if (now - start_s_ < options_.delay_s) return;
  const bool bar = options_.style == ProgressStyle::bar;
  const double interval = bar ? options_.redraw_interval_s : options_.line_interval_s;
  // A bar appears at once; a log gets its first line after one interval, so a short run writes
  // only its last.
  const bool due = (bar && !drawn_) || now - (drawn_ ? last_draw_s_ : start_s_) >= interval;
  if (!force && !due) return;
  last_draw_s_ = now;
  drawn_ = true;
  const std::string line = status_line(state_at(now), options_);
  ++frame_;
  sink_(bar ? "\r" + line + "\033[K" : line + "\n");
}

void ProgressReporter::advance(std::uint64_t n) {
  std::lock_guard lock(mutex_);
  done_ += n;
  maybe_draw(false);
}

void ProgressReporter::set_done(std::uint64_t done) {
  std::lock_guard lock(mutex_);
  done_ = done;
  maybe_draw(false);
}

void ProgressReporter::set_total(std::uint64_t total) {
  std::lock_guard lock(mutex_);
  total_ = total;
}

void ProgressReporter::start_phase(std::string phase, std::uint64_t total, EtaMeaning eta) {
  std::lock_guard lock(mutex_);
  phase_ = std::move(phase);
  total_ = total;
  eta_ = eta;
  done_ = phase_start_done_ = 0;
  phase_start_s_ = clock_();
  maybe_draw(options_.style == ProgressStyle::bar);
}

void ProgressReporter::set_detail(std::string detail) {
  std::lock_guard lock(mutex_);
  detail_ = std::move(detail);
}

void ProgressReporter::tick() {
  std::lock_guard lock(mutex_);
  maybe_draw(false);
}

void ProgressReporter::finish(ProgressEnd end) {
  std::lock_guard lock(mutex_);
  if (finished_ || options_.style == ProgressStyle::none) return;
  const double now = clock_();
  // Work that ended before the delay leaves no trace; any other ends with its total time.
  if (!drawn_ && now - start_s_ < options_.delay_s) {
    finished_ = true;
    return;
  }
  const bool bar = options_.style == ProgressStyle::bar;
  if (bar && end == ProgressEnd::clear) {
    if (drawn_) sink_("\r\033[K");
  } else {
    ProgressState s = state_at(now);
    s.final = true;
    const std::string line = status_line(s, options_);
    sink_(bar ? "\r" + line + "\033[K\n" : line + "\n");
  }
  finished_ = true;
}

ProgressTicker::ProgressTicker(ProgressReporter& reporter, std::chrono::milliseconds interval)
    : thread_([this, &reporter, interval](std::stop_token stop) {
        std::unique_lock lock(mutex_);
        while (!stop.stop_requested()) {
          wake_.wait_for(lock, stop, interval, [] { return false; });
          if (!stop.stop_requested()) reporter.tick();
        }
      }) {}

ProgressTicker::~ProgressTicker() = default;

}  // namespace stepsim::out
