// The progress reporter with a hand-driven clock and a string sink: what it draws, when, and the
// ETA arithmetic. No test here reads the wall clock.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "output/common/progress.hpp"

using namespace stepsim::out;

namespace {

/// A clock the test moves and a sink that keeps everything written.
struct FakeTerminal {
  double now = 100.0;  // any origin: the reporter only takes differences
  std::string written;

  ProgressClock clock() {
    return [this] { return now; };
  }
  ProgressSink sink() {
    return [this](std::string_view t) { written += t; };
  }
  /// The text after the last carriage return: what a terminal shows on the bar's line.
  std::string shown() const { return written.substr(written.rfind('\r') + 1); }
};

ProgressOptions counting(std::uint64_t total, ProgressStyle style = ProgressStyle::bar) {
  ProgressOptions o;
  o.label = "validate";
  o.unit = "files";
  o.total = total;
  o.style = style;
  return o;
}

}  // namespace

TEST_CASE("The ETA is the remaining units at the rate so far") {
  // 30 of 120 done, 30 of them in 12 s: 2.5 units/s, so 90 left take 90 / 2.5 = 36 s.
  CHECK(eta_seconds(30, 120, 30, 12.0) == Approx(36.0));
  // Resumed work: 50 counted done, but only the 10 run now set the rate (10 in 5 s = 2/s);
  // 150 left take 75 s.
  CHECK(eta_seconds(50, 200, 10, 5.0) == Approx(75.0));
  CHECK(eta_seconds(120, 120, 0, 0.0) == 0.0);     // done: nothing left, even with no rate
  CHECK(std::isnan(eta_seconds(0, 120, 0, 3.0)));  // no unit finished: no rate yet
  CHECK(std::isnan(eta_seconds(5, 0, 5, 3.0)));    // no total
  CHECK(std::isnan(eta_seconds(5, 10, 5, 0.0)));   // no time has passed
}

TEST_CASE("Times print as m:ss, h:mm:ss, and ? when unknown") {
  CHECK(elapsed_clock_text(0.0) == "0:00");
  CHECK(elapsed_clock_text(7.4) == "0:07");
  CHECK(elapsed_clock_text(59.6) == "1:00");  // rounded, not truncated
  CHECK(elapsed_clock_text(754.0) == "12:34");
  CHECK(elapsed_clock_text(3723.0) == "1:02:03");  // 3,600 + 2 x 60 + 3
  CHECK(elapsed_clock_text(NAN) == "?");
}

TEST_CASE("A status line shows the bar, count, share, rate, elapsed time and ETA") {
  ProgressState s;
  s.label = "validate";
  s.done = 30;
  s.total = 120;
  s.ran = 30;
  s.elapsed_s = 12.0;
  s.total_s = 12.0;
  ProgressOptions o = counting(120);
  // 30/120 = 25%: 6 of 24 bar cells; 30 / 12 s = 2.5 files/s; ETA 90 / 2.5 = 36 s.
  CHECK(status_line(s, o) ==
        "validate  [######------------------]  30/120 files  25.0%  2.5 files/s  elapsed 0:12  ETA 0:36");
  s.detail = "best 3,120 tok/s/GPU";
  s.eta = EtaMeaning::at_most;
  CHECK(status_line(s, o) ==
        "validate  [######------------------]  30/120 files  25.0%  2.5 files/s  "
        "elapsed 0:12  ETA 0:36 or less  best 3,120 tok/s/GPU");
  SECTION("a log line has no bar") {
    o.style = ProgressStyle::lines;
    s.detail.clear();
    s.eta = EtaMeaning::expected;
    CHECK(status_line(s, o) == "validate: 30/120 files  25.0%  2.5 files/s  elapsed 0:12  ETA 0:36");
  }
  SECTION("the last line gives the total time instead of an ETA") {
    s.done = 120;
    s.ran = 120;
    s.elapsed_s = s.total_s = 48.0;
    s.detail.clear();
    s.final = true;
    CHECK(status_line(s, o) ==
          "validate  [########################]  120/120 files  100.0%  2.5 files/s  in 0:48");
  }
  SECTION("with no total: a spinner and the elapsed time") {
    s.total = 0;
    s.detail.clear();
    s.frame = 1;
    CHECK(status_line(s, o) == "validate  /  0:12");
    s.final = true;
    CHECK(status_line(s, o) == "validate  done in 0:12");
  }
}

TEST_CASE("The bar redraws in place, at most five times a second") {
  FakeTerminal t;
  ProgressReporter r(t.sink(), t.clock(), counting(10));
  r.advance();  // the first unit draws at once
  CHECK(t.written.find('\r') == 0);
  CHECK(t.shown() == "validate  [##----------------------]  1/10 files  10.0%  elapsed 0:00  ETA ?\033[K");
  const std::string after_first = t.written;
  t.now += 0.125;  // within the 0.2 s redraw interval: counted, not drawn
  r.advance();
  CHECK(t.written == after_first);
  t.now += 0.125;  // 0.25 s since the last draw
  r.advance();
  // 3 in 0.25 s = 12 files/s; 7 left take 7 / 12 = 0.58 s, shown rounded as 0:01.
  CHECK(t.shown() ==
        "validate  [#######-----------------]  3/10 files  30.0%  12.0 files/s  elapsed 0:00  "
        "ETA 0:01\033[K");
  CHECK(t.written.find('\n') == std::string::npos);  // one line, rewritten
  t.now += 10.0;
  r.finish();
  CHECK(t.written.back() == '\n');
  // 3 in 10.25 s = 0.29 files/s.
  CHECK(t.shown() == "validate  [#######-----------------]  3/10 files  30.0%  0.3 files/s  in 0:10\033[K\n");
  const std::string done = t.written;
  r.finish();  // once only
  r.advance();
  CHECK(t.written == done);
}

TEST_CASE("A delay keeps short work silent and a ticker-driven spinner moves without new work") {
  FakeTerminal t;
  ProgressOptions o;
  o.label = "run";
  o.delay_s = 2.0;
  SECTION("work shorter than the delay writes nothing, even at the end") {
    ProgressReporter r(t.sink(), t.clock(), o);
    t.now += 1.9;
    r.tick();
    r.finish();
    CHECK(t.written.empty());
  }
  SECTION("longer work shows a spinner with the elapsed time, and ends with the total time") {
    ProgressReporter r(t.sink(), t.clock(), o);
    t.now += 2.0;
    r.tick();
    CHECK(t.written == "\rrun  |  0:02\033[K");
    t.now += 0.25;
    r.tick();
    CHECK(t.shown() == "run  /  0:02\033[K");  // the next spinner frame
    t.now += 10.0;
    r.finish(ProgressEnd::keep);
    CHECK(t.shown() == "run  done in 0:12\033[K\n");
  }
  SECTION("ProgressEnd::clear erases the line") {
    ProgressReporter r(t.sink(), t.clock(), o);
    t.now += 3.0;
    r.tick();
    r.finish(ProgressEnd::clear);
    CHECK(t.shown() == "\033[K");
  }
}

TEST_CASE("Phases restart the count, the total and the rate") {
  FakeTerminal t;
  ProgressOptions o = counting(0);
  o.label = "search";
  o.unit = "layouts";
  ProgressReporter r(t.sink(), t.clock(), o);
  r.start_phase("bounding", 1000);
  t.now += 4.0;
  r.set_done(1000);
  CHECK(t.shown().starts_with("search bounding  [########################]  1000/1000 layouts  100.0%"));
  r.start_phase("simulating", 40, EtaMeaning::at_most);
  t.now += 10.0;
  r.set_detail("3 skipped");
  r.set_done(10);
  // 10 layouts in the 10 s since the phase began: 1/s, 30 left: at most 30 s; elapsed counts from
  // the start (14 s).
  CHECK(t.shown() ==
        "search simulating  [######------------------]  10/40 layouts  25.0%  1.0 layouts/s  "
        "elapsed 0:14  ETA 0:30 or less  3 skipped\033[K");
}

TEST_CASE("Resumed work counts as done but not in the rate") {
  FakeTerminal t;
  ProgressOptions o = counting(200);
  o.already = 50;
  ProgressReporter r(t.sink(), t.clock(), o);
  t.now += 5.0;
  r.advance(10);
  // 60 of 200; 10 ran in 5 s = 2/s; 140 left: 70 s.
  CHECK(
      t.shown() ==
      "validate  [#######-----------------]  60/200 files  30.0%  2.0 files/s  elapsed 0:05  ETA 1:10\033[K");
}

TEST_CASE("Log lines come one per interval and once at the end") {
  FakeTerminal t;
  ProgressOptions o = counting(100, ProgressStyle::lines);
  o.label = "sweep";
  o.unit = "points";
  ProgressReporter r(t.sink(), t.clock(), o);
  t.now += 9.0;
  r.advance(30);
  CHECK(t.written.empty());  // the first line waits a whole interval
  t.now += 1.0;
  r.advance(10);
  CHECK(t.written == "sweep: 40/100 points  40.0%  4.0 points/s  elapsed 0:10  ETA 0:15\n");
  t.now += 5.0;
  r.advance(60);
  r.finish();
  CHECK(t.written.substr(t.written.find('\n') + 1) ==
        "sweep: 100/100 points  100.0%  6.7 points/s  in 0:15\n");
}

TEST_CASE("ProgressStyle::none writes nothing") {
  FakeTerminal t;
  ProgressReporter r(t.sink(), t.clock(), counting(3, ProgressStyle::none));
  r.advance(3);
  t.now += 60.0;
  r.tick();
  r.finish();
  CHECK(t.written.empty());
}

TEST_CASE("Workers on several threads count every unit") {
  FakeTerminal t;
  ProgressReporter r(t.sink(), t.clock(), counting(4000));
  {
    std::vector<std::jthread> workers;
    for (int w = 0; w < 4; ++w)
      workers.emplace_back([&r] {
        for (int i = 0; i < 1000; ++i) r.advance();
      });
  }
  t.now += 1.0;
  r.finish();
  CHECK(t.shown() ==
        "validate  [########################]  4000/4000 files  100.0%  4000.0 files/s  in 0:01\033[K\n");
}
