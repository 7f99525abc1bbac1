#include <catch2/catch.hpp>

#include <cmath>

#include "tests/support/fixtures.hpp"
#include "workloads/simulate/simulate.hpp"
#include "workloads/simulate/step_clock.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

/// The H200's measured curve (scenarios/catalog/gpus.toml, clock_duty).
topo::ClockCurve h200_curve() {
  return {{0.25, 0.5, 0.75, 1.0}, {0.958, 0.894, 0.868, 0.844}};
}

/// `gpn` of the fixture H100s (test::cluster) on one node, with 80 GB and the H200's clock curve.
topo::ClusterSpec curve_node(int gpn) {
  topo::ClusterSpec c = test::cluster(1, gpn);
  c.gpu.hbm_capacity = units::bytes(80e9);
  c.gpu.clock_duty = h200_curve();
  c.gpu.sustained_clock = c.gpu.clock_duty.highest();
  return c;
}

/// Llama-2-7B (test::llama2_7b) training on one 8-GPU curve_node: TP 8 / pp, pp stages, `microbatches`
/// sequences of 4,096 tokens.
JobSpec node_job(int pp, int microbatches) {
  JobSpec j;
  j.model = test::llama2_7b();
  j.cluster = curve_node(8);
  j.workload.seq_len = 4096;
  j.workload.micro_batch = 1;
  j.workload.global_batch = microbatches;
  j.parallel.tp = 8 / pp;
  j.parallel.pp = pp;
  j.parallel.dp = 1;
  return j;
}

}  // namespace

TEST_CASE("a clock curve interpolates between its measured points and is flat beyond them") {
  const topo::ClockCurve c = h200_curve();
  CHECK(c.at(0.0) == 0.958);  // below the lowest duty measured: its clock
  CHECK(c.at(0.25) == 0.958);
  CHECK(c.at(0.625) == Approx(0.881));  // halfway from 0.894 (0.5) to 0.868 (0.75)
  CHECK(c.at(0.9) == Approx(0.8536));   // 0.868 - 0.6 x 0.024
  CHECK(c.at(1.0) == 0.844);
  CHECK(c.highest() == 0.958);
}

TEST_CASE("a step's clock is the curve at the duty it runs at that clock") {
  // Tensor-core kernels take 0.8 s of a 1 s step at clock 0.958. At clock c they take 0.8 x 0.958 / c
  // and the step 0.2 s more; the solution satisfies c = curve(duty(c)).
  const topo::ClockCurve curve = h200_curve();
  const StepClock c = solve_step_clock(curve, 0.958, 0.8, 1.0);
  const double tensor = 0.8 * 0.958 / c.clock;
  CHECK(c.duty == Approx(tensor / (0.2 + tensor)).epsilon(1e-9));
  CHECK(c.clock == Approx(curve.at(c.duty)).epsilon(1e-9));
  // The slower clock stretches the tensor work: the duty rises above the 0.8 it had at 0.958.
  CHECK(c.duty > 0.8);
  CHECK(c.clock < curve.at(0.8));
  // No tensor-core work: the highest clock; no curve: nothing to solve.
  CHECK(solve_step_clock(curve, 0.958, 0.0, 1.0).clock == 0.958);
  CHECK(solve_step_clock(topo::ClockCurve{}, 0.958, 0.8, 1.0).duty < 0.0);
  CHECK(solve_step_clock(topo::ClockCurve{}, 0.958, 0.8, 1.0).clock == 0.958);
  CHECK(solve_step_clock(curve, 0.958, 0.0, 0.0).clock == 0.958);  // an empty step: nothing busy
}

TEST_CASE("a pipeline bubble lets the GPU hold a higher clock than a step with none") {
  // pp 4 with 4 micro-batches idles each stage for 3 of 7 slots (1F1B's bubble (p - 1) / (m + p - 1));
  // tp 8 on one stage with 4 micro-batches has no bubble, so its tensor cores are busier.
  const Simulation bubbly = simulate(node_job(4, 4));
  const Simulation busy = simulate(node_job(1, 4));
  CHECK(bubbly.clock.duty >= 0.0);
  CHECK(busy.clock.duty > bubbly.clock.duty);
  CHECK(busy.clock.clock < bubbly.clock.clock);
  CHECK(busy.clock.clock == Approx(h200_curve().at(busy.clock.duty)));
}

TEST_CASE("a GPU without a clock curve keeps its fixed clock") {
  JobSpec j = node_job(1, 4);
  j.cluster.gpu.clock_duty = {};
  j.cluster.gpu.sustained_clock = 0.9;
  const Simulation s = simulate(j);
  CHECK(s.clock.duty < 0.0);
  CHECK(s.clock.clock == 0.9);
}

TEST_CASE("a prefill holds a lower clock than a decode step, whose GEMMs stream weights") {
  // Llama-2-7B on one GPU with the H200's curve: a prefill of 8 x 2,048 tokens runs its GEMMs
  // compute-bound (tensor cores busy most of the step); a decode step at batch 1 runs every GEMM
  // HBM-bound, so no tensor-core-bound time: duty 0 and the curve's highest clock, 0.958.
  JobSpec j = node_job(1, 1);
  j.cluster = curve_node(1);
  j.parallel.tp = 1;
  j.workload.seq_len = 2048;
  j.workload.context_len = 1000;
  j.workload.kind = WorkloadKind::prefill;
  j.workload.batch = 8;
  const Simulation prefill = simulate(j);
  j.workload.kind = WorkloadKind::decode;
  j.workload.batch = 1;
  const Simulation decode = simulate(j);
  CHECK(prefill.clock.duty > 0.5);
  CHECK(prefill.clock.clock == Approx(h200_curve().at(prefill.clock.duty)));
  CHECK(decode.clock.duty == 0.0);
  CHECK(decode.clock.clock == 0.958);
}
