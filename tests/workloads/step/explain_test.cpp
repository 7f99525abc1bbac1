// The verdict (what a step waits on most) ranks the entries of the breakdown table, in its words.
#include "workloads/simulate/explain.hpp"

#include <catch2/catch.hpp>

using namespace stepsim::work;

namespace {

/// A 10 s step whose mean breakdown is `b` (the parts must sum to 10 s, as analyse_step's do).
StepReport verdict_report_of(const Breakdown& b) {
  StepReport r;
  r.step_time_s = 10.0;
  r.mean = b;
  return r;
}

Breakdown deepseek_like() {
  // Exposed EP communication (3.8 s) above compute (3.6 s): the DeepSeek-V3 case, where the
  // critical path still said "compute". 3.6 + 0.4 + 3.8 + 0.7 (dp) + 1.5 (bubble) = 10 s.
  Breakdown b;
  b.compute_s = 3.6;
  b.memory_bound_s = 0.4;
  b.exposed_comm_s[static_cast<std::size_t>(ParallelDim::ep)] = 3.8;
  b.exposed_comm_s[static_cast<std::size_t>(ParallelDim::dp)] = 0.7;
  b.bubble_s = 1.5;
  return b;
}

}  // namespace

TEST_CASE("breakdown entries follow the table's order and skip groups without exposed time") {
  const auto e = breakdown_entries(deepseek_like());
  std::vector<std::string> keys;
  for (const auto& x : e) keys.push_back(x.key);
  // ParallelDim order is tp, cp, ep, pp, dp; only ep and dp have exposed time; no host timeline.
  CHECK(keys ==
        std::vector<std::string>{"compute", "memory_bound", "exposed_comm.ep", "exposed_comm.dp", "bubble"});
  CHECK(e[2].label == "exposed ep communication");
  double sum = 0.0;
  for (const auto& x : e) sum += x.seconds;
  CHECK(sum == Approx(10.0));
}

TEST_CASE("the verdict names the largest and second-largest breakdown entries with their shares") {
  const StepVerdict v = step_verdict(verdict_report_of(deepseek_like()));
  CHECK(v.primary.key == "exposed_comm.ep");
  CHECK(v.primary_share == Approx(0.38));  // 3.8 s of 10 s
  CHECK(v.secondary.key == "compute");
  CHECK(v.secondary_share == Approx(0.36));  // 3.6 s of 10 s
}

TEST_CASE("the verdict counts host-bound time and breaks ties in table order") {
  Breakdown b;
  b.compute_s = 2.0;
  b.memory_bound_s = 2.0;  // ties with compute: compute comes first in the table
  b.host_bound_s = 6.0;    // eager launches dominate: 2 + 2 + 6 = 10 s
  const StepVerdict v = step_verdict(verdict_report_of(b));
  CHECK(v.primary.key == "host_bound");
  CHECK(v.primary.label == "host-bound (kernel launches)");
  CHECK(v.primary_share == Approx(0.6));
  CHECK(v.secondary.key == "compute");
}

TEST_CASE("a step with one kind of time has a verdict without a second part") {
  Breakdown b;
  b.memory_bound_s = 10.0;  // batch-1 decode: every kernel HBM-bound
  const StepVerdict v = step_verdict(verdict_report_of(b));
  CHECK(v.primary.key == "memory_bound");
  CHECK(v.primary_share == Approx(1.0));
  CHECK(v.secondary.seconds == 0.0);
}
