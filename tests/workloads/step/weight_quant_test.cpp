#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "tests/support/fixtures.hpp"
#include "topology/compute_model.hpp"
#include "workloads/simulate/simulate.hpp"
#include "workloads/step/layer_ops.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

/// tiny_gpt decode on one round GPU: batch 8 with 1,000 cached tokens, int4 weight-only.
JobSpec int4_decode() {
  JobSpec j = test::tiny_inference(WorkloadKind::decode);
  j.precision.weight_quant = WeightQuant::int4;
  j.precision.param_bytes = 0.5 + 2.0 / 128;  // what the scenario reader sets for params = "int4"
  return j;
}

bool find_op(const Simulation& s, std::string_view suffix, double* bytes) {
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) {
    const std::string_view label = s.plan.graph.label(op);
    if (label.size() >= suffix.size() && label.substr(label.size() - suffix.size()) == suffix) {
      *bytes = s.plan.graph.op(op).bytes;
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("int4 weight-only GEMMs read half a byte per weight plus group scales and pay to dequantise") {
  // The MLP's down projection of tiny_gpt: [8 x 4096] x [4096 x 1024]. Weights 4096 x 1024 =
  // 4,194,304 at 0.5 + 2 / 128 = 0.515625 B = 2,162,688 B (bf16 would be 8,388,608 B); plus the
  // activations in and out, 8 x (4096 + 1024) x 2 B = 81,920 B.
  const Simulation s = simulate(int4_decode());
  double bytes = 0.0;
  REQUIRE(find_op(s, "fwd.mlp_down", &bytes));
  CHECK(bytes == Approx(4096.0 * 1024 * 0.515625 + 8.0 * (4096 + 1024) * 2));
  // Dequantisation: 3 ops (unpack, convert, scale) per weight once per 64-row tile; 8 rows is one
  // tile: 3 x 4,194,304 = 12,582,912 ops, for 128 rows two tiles.
  CHECK(dequant_ops(WeightQuant::int4, 8, 1024, 4096) == 3.0 * 4096 * 1024);
  CHECK(dequant_ops(WeightQuant::int4, 128, 1024, 4096) == 2 * 3.0 * 4096 * 1024);
  CHECK(dequant_ops(WeightQuant::int8, 8, 1024, 4096) == 2.0 * 4096 * 1024);
}

TEST_CASE("dequantisation adds vector-unit time to a GEMM's compute term") {
  // A compute-bound GEMM of 1e12 FLOPs at 1,000 TFLOP/s x 0.8 = 1.25 ms, plus 1e11 vector ops at
  // 60 TFLOP/s x 0.5 = 3.33 ms; memory 1 MB at 2 TB/s is negligible.
  topo::GpuSpec g = test::round_gpu();
  g.fp32_peak = units::flops_per_s(60e12);
  g.eff.gemm16.peak = 0.8;
  g.eff.elementwise = 0.5;
  g.kernel_gap_s = 0.0;
  topo::KernelWork w;
  w.op_class = topo::OpClass::gemm;
  w.flops = units::flops(1e12);
  w.hbm_bytes = units::bytes(1e6);
  const double plain = to_seconds(topo::kernel_time(g, w).duration);
  w.vector_ops = 1e11;
  const double dequant = to_seconds(topo::kernel_time(g, w).duration);
  CHECK(dequant - plain == Approx(1e11 / (60e12 * 0.5)).epsilon(1e-6));
}

TEST_CASE("int4 weights make a memory-bound decode step faster and leave the LM head in 16 bits") {
  JobSpec bf16 = int4_decode();
  bf16.precision.weight_quant = WeightQuant::none;
  bf16.precision.param_bytes = 2.0;
  const Simulation q = simulate(int4_decode()), b = simulate(bf16);
  CHECK(q.metrics.step_time_s < b.metrics.step_time_s);
  double qh = 0.0, bh = 0.0;
  REQUIRE(find_op(q, "logits", &qh));
  REQUIRE(find_op(b, "logits", &bh));
  CHECK(qh == bh);  // the LM head reads the same 16-bit weights
}
