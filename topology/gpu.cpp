#include "topology/gpu.hpp"

#include "sim/error.hpp"

namespace stepsim::topo {

double GpuSpec::peak_flops(Precision p) const {
  double peak = 0.0;
  switch (p) {
    case Precision::fp32: peak = fp32_flops_per_s; break;
    case Precision::bf16:
    case Precision::fp16: peak = bf16_flops_per_s; break;
    case Precision::fp8: peak = fp8_flops_per_s; break;
    case Precision::fp4: peak = fp4_flops_per_s; break;
  }
  if (!(peak > 0.0))
    throw UserError("GPU `" + id + "` has no " + std::string(topo::name(p)) +
                    " throughput in the catalog; choose another precision or set it in [hardware.gpu]");
  return peak;
}

std::string_view name(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
    case Precision::fp4: return "fp4";
  }
  return "unknown";
}

std::string_view name(OpClass c) {
  switch (c) {
    case OpClass::large_gemm: return "large_gemm";
    case OpClass::small_gemm: return "small_gemm";
    case OpClass::attention: return "attention";
    case OpClass::elementwise: return "elementwise";
    case OpClass::count: break;
  }
  return "unknown";
}

}  // namespace stepsim::topo
