#include "output/sweep_progress.hpp"

#include <cmath>
#include <cstdio>

namespace stepsim::out {
namespace {

constexpr int kBarWidth = 24;

std::string clock_text(double s) {
  if (!std::isfinite(s)) return "?";
  const long t = std::lround(s);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

}  // namespace

SweepProgress::SweepProgress(std::ostream& out, ProgressStyle style, std::uint64_t total,
                             std::uint64_t already, double line_interval_s)
    : out_(out),
      style_(style),
      total_(total),
      done_(already),
      interval_s_(line_interval_s),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

std::string SweepProgress::status_text(std::uint64_t done, std::uint64_t total, std::uint64_t ran,
                                       double elapsed_s, bool bar) {
  const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const double rate = elapsed_s > 0 ? static_cast<double>(ran) / elapsed_s : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total - done) / rate : NAN;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%llu/%llu points  %.1f%%  %.1f points/s  ETA %s",
                static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                100.0 * fraction, rate, done == total ? "0:00" : clock_text(eta).c_str());
  if (!bar) return std::string("sweep: ") + buf;
  const int filled = static_cast<int>(std::floor(fraction * kBarWidth));
  return "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '-') + "]  " + buf;
}

void SweepProgress::draw(bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string text = status_text(done_, total_, ran_, elapsed, style_ == ProgressStyle::bar);
  if (style_ == ProgressStyle::bar)
    out_ << "\r" << text << "  " << (final ? "\n" : "") << std::flush;
  else
    out_ << text << "\n" << std::flush;
}

void SweepProgress::advance() {
  if (style_ == ProgressStyle::none) return;
  std::lock_guard lock(mutex_);
  ++done_;
  ++ran_;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since >= (style_ == ProgressStyle::bar ? 0.1 : interval_s_)) {
    last_ = now;
    draw(false);
  }
}

void SweepProgress::finish() {
  if (style_ == ProgressStyle::none) return;
  std::lock_guard lock(mutex_);
  draw(true);
}

}  // namespace stepsim::out
