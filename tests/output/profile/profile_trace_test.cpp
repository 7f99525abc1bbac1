// The Kineto trace reader and the kernel classes of `stepsim profile` (output/profile/profile_trace.hpp),
// on a small trace written here: a dozen kernels of different libraries and one no rule knows.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "output/profile/profile_compare.hpp"
#include "output/profile/profile_trace.hpp"
#include "sim/error.hpp"
#include "tests/support/temp_files.hpp"

using namespace stepsim;
using namespace stepsim::out;

namespace profile_trace_rows {

struct Kernel {
  const char* name;
  const char* cat;
  double ts_us, dur_us;
  int stream;
  const char* expected;  ///< the class the rules give; "" = unclassified
};

// One device; stream 7 computes, stream 20 communicates. Times are whole microseconds.
const Kernel kKernels[] = {
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
     "kernel",
     "kernel", 0, 100, 7, "gemm_dense"},
    {"nvjet_tst_128x256_64x4_1x2_h_bz_coopB_NTN", "kernel", 100, 50, 7, "gemm_dense"},
    {"void cutlass::device_kernel<deep_gemm::m_grouped_fp8_gemm_kernel<128>>(Params)", "kernel", 150, 200, 7,
     "gemm_expert"},
    {"void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)", "kernel",
     350, 80, 7, "attention"},
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>", "kernel",
     430, 10, 7, "norm"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::silu_kernel(at::TensorIteratorBase&)>",
     "kernel", 440, 6, 7, "activation"},
    {"void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128>", "kernel", 446, 4, 7, "quantize"},
    {"void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>", "kernel", 450, 5, 7,
     "moe_routing"},
    {"void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>", "kernel", 455, 15, 7,
     "optimizer"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>",
     "kernel", 470, 5, 7, "elementwise"},
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "kernel", 400, 200,
     20, "nccl_all_reduce"},
    {"void dpsk::ep::internode::dispatch<false, 8>(void*)", "kernel", 0, 50, 20, "ep_comm"},
    {"Memcpy DtoD (Device -> Device)", "gpu_memcpy", 480, 2, 7, "memcpy"},
    {"my_custom_fused_kernel(float*)", "kernel", 600, 30, 7, ""},
};

std::string trace_text() {
  nlohmann::json events = nlohmann::json::array();
  // CPU-side events the reader must skip.
  events.push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", "aten::mm"}, {"ts", 0}, {"dur", 5}});
  events.push_back(
      {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"ts", 1}, {"dur", 2}});
  for (const Kernel& k : kKernels)
    events.push_back({{"ph", "X"},
                      {"cat", k.cat},
                      {"name", k.name},
                      {"pid", 0},
                      {"tid", k.stream},
                      {"ts", 1740000000000000.0 + k.ts_us},
                      {"dur", k.dur_us},
                      {"args", {{"device", 0}, {"stream", k.stream}, {"correlation", 1}}}});
  return nlohmann::json{{"schemaVersion", 1}, {"traceEvents", events}}.dump();
}

}  // namespace profile_trace_rows

TEST_CASE("a Kineto trace's kernels, classed by library name", "[profile]") {
  using namespace profile_trace_rows;
  test::TempDir dir;
  const GpuTrace trace = read_kineto_trace(dir.write("trace.json", trace_text()));
  REQUIRE(trace.kernels.size() == std::size(kKernels));
  CHECK(trace.kernels[10].stream == 20);
  CHECK(trace.kernels[0].dur_us == 100.0);
  for (const Kernel& k : kKernels) {
    INFO(k.name);
    CHECK(kernel_class(k.name, k.cat) == k.expected);
  }
  const MeasuredProfile m = measure_profile(trace);
  CHECK(m.kernels == static_cast<long>(std::size(kKernels)));
  CHECK(m.classes.at("gemm_dense").count == 2);
  CHECK(m.classes.at("gemm_dense").time_s == Approx(150e-6));  // 100 + 50 us
  REQUIRE(m.unclassified.size() == 1);
  CHECK(m.unclassified[0].name == "my_custom_fused_kernel(float*)");
  CHECK(m.unclassified[0].count == 1);
  CHECK(m.unclassified[0].time_s == Approx(30e-6));
  long classified = 0;
  for (const auto& [cls, c] : m.classes) classified += c.count;
  CHECK(classified + m.unclassified[0].count == m.kernels);  // every kernel counted once
  // The all-reduce runs 400-600 us; other kernels cover 400-475 (attention to the add) and 480-482
  // (the memcpy): 5 + 118 = 123 us of it ran alone. DeepEP's dispatch (0-50) ran entirely beside
  // the first GEMM (0-100).
  CHECK(m.exposed_comm_s.at("nccl_all_reduce") == Approx(123e-6));
  CHECK(m.exposed_comm_s.at("ep_comm") == Approx(0.0).margin(1e-12));
}

TEST_CASE("intervals: time covered and not hidden", "[profile]") {
  // [0,10] and [5,20] cover 0-20; [2,4] and [15,30] hide 2 + 5 of it: 13 left.
  CHECK(uncovered_time({{0, 10}, {5, 20}}, {{15, 30}, {2, 4}}) == Approx(13.0));
  CHECK(uncovered_time({{0, 10}}, {}) == Approx(10.0));
  CHECK(uncovered_time({}, {{0, 1}}) == 0.0);
}

TEST_CASE("the host's time per launch: gaps between launches, waits of 1 ms or more apart", "[profile]") {
  // Launch calls at 0, 10, 30, 2,030 and 2,040 us, on two threads (the host launches in program
  // order: merged in time), plus a query that launches nothing. Gaps: 10, 20, 2,000 (a wait) and 10 us:
  // 40 us launching over 3 gaps, 13.33 us per launch; one wait of 2 ms.
  const char* trace = R"({"traceEvents": [
    {"cat": "kernel", "name": "k", "ts": 0, "dur": 1, "args": {"device": 0, "stream": 7}},
    {"cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 0, "dur": 3, "tid": 1},
    {"cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "ts": 10, "dur": 3, "tid": 2},
    {"cat": "cuda_runtime", "name": "cudaEventQuery", "ts": 20, "dur": 1, "tid": 1},
    {"cat": "cuda_driver", "name": "cuLaunchKernel", "ts": 30, "dur": 3, "tid": 1},
    {"cat": "cuda_runtime", "name": "cudaMemsetAsync", "ts": 2040, "dur": 3, "tid": 1},
    {"cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 2030, "dur": 3, "tid": 2}]})";
  const HostLaunches h = measure_profile(parse_kineto_trace(trace, "t.json")).host;
  CHECK(h.launches == 5);
  CHECK(h.gaps == 3);
  CHECK(h.busy_s == Approx(40e-6));
  CHECK(h.per_launch_s() == Approx(40e-6 / 3));
  CHECK(h.waits == 1);
  CHECK(h.wait_s == Approx(2e-3));
  // A trace without runtime events has no host figure.
  const char* gpu_only = R"({"traceEvents": [{"cat": "kernel", "name": "k", "ts": 0, "dur": 1}]})";
  CHECK(measure_profile(parse_kineto_trace(gpu_only, "t.json")).host.per_launch_s() == 0.0);
}

TEST_CASE("traces that are not Kineto traces are the user's error", "[profile]") {
  CHECK_THROWS_AS(parse_kineto_trace("{\"traceEvents\": [", "t.json"), UserError);
  CHECK_THROWS_WITH(
      parse_kineto_trace(R"({"traceEvents": [{"cat": "cpu_op", "name": "x", "ts": 0, "dur": 1}]})", "t.json"),
      Catch::Contains("no GPU kernel events"));
  CHECK_THROWS_WITH(parse_kineto_trace(R"({"foo": 1})", "t.json"), Catch::Contains("traceEvents"));
  CHECK_THROWS_AS(read_kineto_trace("/nonexistent/trace.json"), UserError);
}

TEST_CASE("simulated op labels map to the kernel classes", "[profile]") {
  CHECK(simulated_op_class("fwd.experts_fc1", topo::OpClass::gemm) == "gemm_expert");
  CHECK(simulated_op_class("bwd.q_down", topo::OpClass::gemm) == "gemm_dense");
  CHECK(simulated_op_class("rc.ln1", topo::OpClass::elementwise) == "norm");
  CHECK(simulated_op_class("fwd.experts_act", topo::OpClass::elementwise) == "activation");
  CHECK(simulated_op_class("fwd.router_topk", topo::OpClass::elementwise) == "moe_routing");
  CHECK(simulated_op_class("fwd.x_quantize", topo::OpClass::elementwise) == "quantize");
  CHECK(simulated_op_class("adam", topo::OpClass::elementwise) == "optimizer");
  CHECK(simulated_op_class("fwd.core_attn", topo::OpClass::attention) == "attention");
}

TEST_CASE("FlexAttention's Inductor templates are attention, other Triton kernels element-wise",
          "[profile]") {
  // Inductor names a FlexAttention template after the op it implements; a plain fused kernel is
  // element-wise work.
  CHECK(kernel_class("triton_tem_fused_flex_attention_0", "kernel") == "attention");
  CHECK(kernel_class("triton_tem_fused_flex_attention_backward_1", "kernel") == "attention");
  CHECK(kernel_class("triton_tem_fused_flex_decoding_2", "kernel") == "attention");
  CHECK(kernel_class("triton_poi_fused_add_mul_3", "kernel") == "elementwise");
}
