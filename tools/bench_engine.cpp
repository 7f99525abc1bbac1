// Engine benchmark cases: a synthetic data-parallel-like step on 1,000 processors.
//
// Each processor runs a chain of compute ops on its compute stream. After every step, each group
// of 8 processors runs one collective op occupying the 8 comm streams (a multi-stream op that
// waits for the group's slowest member); a processor's compute of step i also waits for its
// group's collective of step i-2, so communication overlaps the next step's compute. In `engine`
// the collectives are transfers on a fixed-duration network and compute is slowed by 15 % while
// they run (re-timing events); `engine_fixed` replaces them by fixed-duration ops and runs without
// a network, measuring the engine alone.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <queue>
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "sim/graph.hpp"
#include "tools/bench.hpp"
#include "topology/resource.hpp"

namespace stepsim::cli {

namespace {

using Clock = std::chrono::steady_clock;

/// CPU time of the calling thread: on a shared machine, what one core actually spent.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// A network in which every transfer takes a fixed time chosen by its payload; nothing is shared.
/// The cheapest honest Network, so that the benchmark measures the engine.
class FixedDurationNetwork : public sim::Network {
 public:
  FixedDurationNetwork(std::vector<Time> durations, std::size_t op_count)
      : durations_(std::move(durations)), duration_of_(op_count) {}

  void start(sim::OpId op, std::uint32_t payload, Time now) override {
    duration_of_[op] = durations_[payload];
    pending_.push({now + durations_[payload], sequence_++, op});
  }
  Time next_event_time() const override { return pending_.empty() ? kTimeNever : pending_.top().end; }
  void advance_to(Time now, std::vector<sim::OpId>& completed) override {
    while (!pending_.empty() && pending_.top().end == now) {
      completed.push_back(pending_.top().op);
      pending_.pop();
    }
  }
  void attribution(sim::OpId op, std::vector<sim::BoundShare>& out) const override {
    out.push_back({topo::tag(topo::Resource::nvlink), duration_of_[op]});
  }

 private:
  struct Pending {
    Time end;
    std::uint64_t sequence;
    sim::OpId op;
    bool operator>(const Pending& o) const { return end > o.end || (end == o.end && sequence > o.sequence); }
  };
  std::vector<Time> durations_;
  std::vector<Time> duration_of_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  std::uint64_t sequence_ = 0;
};

struct Shape {
  int processors = 1000;
  int group = 8;
  int steps = 2500;
  bool transfers = true;   ///< collectives as network transfers (else fixed-duration delay ops)
  double slowdown = 0.15;  ///< comm_slowdown of every processor
};

constexpr int kPayloads = 16;

/// Payload p lasts 2 + p/4 us: collectives of 2 to 5.75 us.
std::vector<Time> payload_durations() {
  std::vector<Time> d;
  for (int p = 0; p < kPayloads; ++p) d.push_back(from_ns(2000.0 + 250.0 * p));
  return d;
}

/// The processors' streams: compute[p] and comm[p] for processor p.
struct Streams {
  std::vector<sim::StreamId> compute, comm;
};

Streams add_processors(sim::StepGraphBuilder& b, const Shape& s) {
  Streams out;
  for (int p = 0; p < s.processors; ++p) {
    const sim::ProcessorId id = b.add_processor({s.slowdown});
    out.compute.push_back(b.add_stream(id, sim::StreamRole::compute, "gpu" + std::to_string(p) + ".compute"));
    out.comm.push_back(b.add_stream(id, sim::StreamRole::comm, "gpu" + std::to_string(p) + ".comm"));
  }
  return out;
}

sim::Op make_op(sim::StepGraphBuilder& b, sim::OpKind kind, topo::Resource bound, std::string_view label) {
  sim::Op op;
  op.kind = kind;
  op.bound = topo::tag(bound);
  op.label = b.intern(label);
  return op;
}

sim::StepGraph build_graph(const Shape& s) {
  sim::StepGraphBuilder b;
  const int groups = s.processors / s.group;
  const auto per_step = static_cast<std::size_t>(s.processors);
  b.reserve(s.steps * (per_step + groups), s.steps * per_step * 2, s.steps * per_step * 2);
  const Streams streams = add_processors(b, s);
  sim::Op kernel = make_op(b, sim::OpKind::compute, topo::Resource::compute, "step.matmul");
  sim::Op collective = make_op(b, s.transfers ? sim::OpKind::transfer : sim::OpKind::delay,
                               topo::Resource::nvlink, "step.all_reduce");
  const auto durations = payload_durations();
  std::vector<sim::OpId> last_compute(s.processors);
  std::vector<std::vector<sim::OpId>> collectives(s.steps, std::vector<sim::OpId>(groups));
  for (int i = 0; i < s.steps; ++i) {
    for (int p = 0; p < s.processors; ++p) {
      // 5 to 15 us, varying by processor and step so ranks drift apart and wait for each other.
      kernel.work = from_ns(5000.0 + static_cast<double>((p * 7919 + i * 104729) % 10000));
      last_compute[p] = b.add_op(kernel, streams.compute[p]);
      if (i >= 2) b.add_dependency(collectives[i - 2][p / s.group], last_compute[p]);
    }
    for (int g = 0; g < groups; ++g) {
      collective.payload = static_cast<std::uint32_t>((g + i) % kPayloads);
      collective.work = durations[collective.payload];
      const auto group = static_cast<std::size_t>(s.group);
      collectives[i][g] = b.add_op(collective, std::span(streams.comm).subspan(g * group, group));
      b.add_dependencies(std::span(last_compute).subspan(g * group, group), collectives[i][g]);
    }
  }
  return std::move(b).build();
}

/// What one engine case reports. Events are everything the engine dequeued or received: op
/// completions (its own and the network's) and cancelled end events superseded by a re-timing.
/// Runs are repeated on the same graph (a fresh Engine and Network each time): shared machines
/// make single timings noisy, and the best of a few is the steadiest estimate of the engine's
/// speed. The median is reported too.
constexpr int kRuns = 3;

struct Timings {
  double build_s = 0, build_cpu_s = 0;
  double run_s = 0, run_cpu_s = 0;  ///< the fastest run (by wall time)
  double run_median_s = 0;
};

std::vector<std::pair<std::string, double>> metrics(const sim::StepGraph& graph, const sim::RunResult& run,
                                                    const Timings& t) {
  const auto ops = static_cast<double>(graph.op_count());
  const auto events = static_cast<double>(run.stats.events + run.stats.cancelled_events);
  return {
      {"ops", ops},
      {"dependencies", static_cast<double>(graph.dependency_count())},
      {"build_s", t.build_s},
      {"build_ops_per_s", ops / t.build_s},
      {"build_ops_per_cpu_s", ops / t.build_cpu_s},
      {"graph_bytes_per_op", static_cast<double>(graph.memory_bytes()) / ops},
      {"run_s", t.run_s},
      {"run_cpu_s", t.run_cpu_s},
      {"run_median_s", t.run_median_s},
      {"events", events},
      {"retimings", static_cast<double>(run.stats.retimings)},
      {"ops_per_s", ops / t.run_s},
      {"events_per_s", events / t.run_s},
      {"events_per_cpu_s", events / t.run_cpu_s},
      {"makespan_s", to_seconds(run.makespan)},
  };
}

BenchResult run_case(const char* name, const Shape& shape) {
  BenchResult out;
  out.name = name;
  Timings t;
  const auto t0 = Clock::now();
  const double cpu0 = thread_cpu_s();
  const sim::StepGraph graph = build_graph(shape);
  t.build_s = seconds_since(t0);
  t.build_cpu_s = thread_cpu_s() - cpu0;

  sim::RunResult run;
  std::vector<double> walls;
  for (int r = 0; r < kRuns; ++r) {
    FixedDurationNetwork network(payload_durations(), graph.op_count());
    const auto t1 = Clock::now();
    const double cpu1 = thread_cpu_s();
    sim::Engine engine(graph, shape.transfers ? &network : nullptr);
    run = engine.run();
    const double cpu = thread_cpu_s() - cpu1;
    walls.push_back(seconds_since(t1));
    if (r == 0 || walls.back() < t.run_s) t.run_s = walls.back(), t.run_cpu_s = cpu;
  }
  std::sort(walls.begin(), walls.end());
  t.run_median_s = walls[walls.size() / 2];
  out.wall_s = seconds_since(t0);
  out.metrics = metrics(graph, run, t);
  out.note =
      std::to_string(shape.processors) + " processors x " + std::to_string(shape.steps) +
      " steps, collectives on groups of " + std::to_string(shape.group) +
      (shape.transfers ? " as network transfers, comm slowdown " + std::to_string(shape.slowdown).substr(0, 4)
                       : " as fixed-duration ops, no network") +
      "; run figures: best of " + std::to_string(kRuns);
  return out;
}

}  // namespace

BenchResult bench_engine() {
  return run_case("engine", Shape{});
}

BenchResult bench_engine_fixed() {
  Shape s;
  s.transfers = false;
  s.slowdown = 0.0;
  return run_case("engine_fixed", s);
}

}  // namespace stepsim::cli
