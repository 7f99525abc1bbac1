// GEMM FLOPs from a Kineto trace recorded with record_shapes=True (output/profile/profile_trace.hpp): each
// GEMM kernel is linked to the CPU op that launched it, by "External id" or through the launch
// event's "correlation", and gets that op's FLOPs from its "Input Dims".
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "output/profile/profile_trace.hpp"

using namespace stepsim;
using namespace stepsim::out;

namespace profile_shapes_rows {

using nlohmann::json;

json cpu_op(const char* name, long long external_id, json dims) {
  json args = {{"External id", external_id}};
  if (!dims.is_null()) args["Input Dims"] = std::move(dims);
  return {{"ph", "X"}, {"cat", "cpu_op"}, {"name", name}, {"ts", 0}, {"dur", 1}, {"args", args}};
}

json kernel(const char* name, double ts_us, long long external_id, long long correlation) {
  json args = {{"device", 0}, {"stream", 7}, {"correlation", correlation}};
  if (external_id > 0) args["External id"] = external_id;
  return {{"ph", "X"}, {"cat", "kernel"}, {"name", name}, {"ts", ts_us}, {"dur", 10}, {"args", args}};
}

std::string trace_text() {
  json e = json::array();
  // linear -> addmm: the kernels carry the inner op's id (11). addmm(bias, [2048, 1024], [1024, 4096]):
  // 2 * 2048 * 4096 * 1024 = 2^34 FLOPs. Its split-K reduction, listed first but starting later,
  // is shaped but its FLOPs stay on the GEMM; the fill it launched is no GEMM.
  e.push_back(cpu_op("aten::linear", 10, json::array({{4, 512, 1024}, {4096, 1024}, {4096}})));
  e.push_back(cpu_op("aten::addmm", 11,
                     json::array({{4096}, {2048, 1024}, {1024, 4096}, json::array(), json::array()})));
  e.push_back(kernel("void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16>", 110, 11, 101));
  e.push_back(kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 100, 11, 100));
  e.push_back(kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", 90,
                     11, 99));
  // bmm([8, 128, 64], [8, 64, 256]): 2 * 8 * 128 * 256 * 64 = 2^25. The kernel has no External id:
  // the cudaLaunchKernel of the same correlation (500) names the op.
  e.push_back(cpu_op("aten::bmm", 20, json::array({{8, 128, 64}, {8, 64, 256}})));
  e.push_back({{"ph", "X"},
               {"cat", "cuda_runtime"},
               {"name", "cudaLaunchKernel"},
               {"ts", 1},
               {"dur", 2},
               {"args", {{"External id", 20}, {"correlation", 500}}}});
  e.push_back(kernel("nvjet_tst_128x256_64x4_1x2_h_bz_coopB_NTN", 200, 0, 500));
  // linear([2, 8, 1024], weight [512, 1024]): m = 16 rows, 2 * 16 * 512 * 1024 = 2^24.
  e.push_back(cpu_op("aten::linear", 30, json::array({{2, 8, 1024}, {512, 1024}, json::array()})));
  e.push_back(
      kernel("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8>", 300,
             30, 300));
  // matmul([3, 1, 32, 64], [5, 64, 16]): batch broadcast to 3 x 5, 2 * 15 * 32 * 16 * 64 = 983,040.
  e.push_back(cpu_op("aten::matmul", 40, json::array({{3, 1, 32, 64}, {5, 64, 16}})));
  e.push_back(kernel("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_tn", 400, 40, 400));
  // _scaled_mm([256, 512], [512, 128], scales): 2 * 256 * 128 * 512 = 2^25.
  e.push_back(cpu_op("aten::_scaled_mm", 50, json::array({{256, 512}, {512, 128}, {}, {}})));
  e.push_back(kernel("sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128", 500, 50, 501));
  // Without shapes: an mm recorded without "Input Dims", and one whose dims do not multiply.
  e.push_back(cpu_op("aten::mm", 60, nullptr));
  e.push_back(kernel("nvjet_tst_64x8_64x16_4x1_v_bz_TNT", 600, 60, 600));
  e.push_back(cpu_op("aten::mm", 70, json::array({{4, 8}, {9, 4}})));
  e.push_back(kernel("nvjet_tst_64x8_64x16_4x1_v_bz_TNN", 700, 70, 700));
  return json{{"traceEvents", e}}.dump();
}

}  // namespace profile_shapes_rows

TEST_CASE("GEMM FLOPs from the launching op's recorded input dims", "[profile]") {
  using namespace profile_shapes_rows;
  const GpuTrace trace = parse_kineto_trace(trace_text(), "shapes.json");
  REQUIRE(trace.kernels.size() == 9);
  const auto named = [&](std::string_view prefix) -> const TraceKernel& {
    for (const TraceKernel& k : trace.kernels)
      if (k.name.rfind(prefix, 0) == 0) return k;
    FAIL("no kernel " << prefix);
    return trace.kernels.front();
  };
  CHECK(named("sm90_xmma_gemm_bf16").flops == 17179869184.0);  // 2^34
  CHECK(named("sm90_xmma_gemm_bf16").shaped);
  CHECK(named("void cublasLt::splitKreduce").shaped);
  CHECK(named("void cublasLt::splitKreduce").flops == 0.0);
  CHECK_FALSE(named("void at::native::vectorized").shaped);
  CHECK(named("nvjet_tst_128x256").flops == 33554432.0);      // 2^25, linked through the launch
  CHECK(named("void cutlass::Kernel2").flops == 16777216.0);  // 2^24
  CHECK(named("ampere_bf16").flops == 983040.0);
  CHECK(named("sm90_xmma_gemm_e4m3").flops == 33554432.0);  // 2^25
  CHECK_FALSE(named("nvjet_tst_64x8_64x16_4x1_v_bz_TNT").shaped);
  CHECK_FALSE(named("nvjet_tst_64x8_64x16_4x1_v_bz_TNN").shaped);
  CHECK(named("nvjet_tst_64x8_64x16_4x1_v_bz_TNN").flops == 0.0);

  const MeasuredProfile m = measure_profile(trace);
  const MeasuredClass& gemm = m.classes.at("gemm_dense");
  CHECK(gemm.count == 8);   // all but the fill
  CHECK(gemm.shaped == 6);  // the two without shapes left out
  // 2^34 + 2^25 + 2^24 + 983,040 + 2^25 = 17,264,738,304
  CHECK(gemm.flops == 17264738304.0);
  CHECK(m.classes.at("elementwise").shaped == 0);
  CHECK(m.classes.at("elementwise").flops == 0.0);
}

TEST_CASE("a trace without recorded shapes has no FLOPs", "[profile]") {
  const GpuTrace trace = parse_kineto_trace(
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 5,
          "args": {"External id": 3}},
        {"ph": "X", "cat": "kernel", "name": "nvjet_tst_64x8", "ts": 1, "dur": 4,
          "args": {"External id": 3, "correlation": 8}}]})",
      "plain.json");
  const MeasuredProfile m = measure_profile(trace);
  CHECK(m.classes.at("gemm_dense").count == 1);
  CHECK(m.classes.at("gemm_dense").shaped == 0);
  CHECK(m.classes.at("gemm_dense").flops == 0.0);
}
