#include "topology/gpu.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/error.hpp"

namespace stepsim::topo {

double ClockCurve::at(double d) const {
  if (duty.empty()) throw std::logic_error("ClockCurve::at on an empty curve");
  if (d <= duty.front()) return clock.front();
  for (std::size_t i = 1; i < duty.size(); ++i)
    if (d <= duty[i])
      return clock[i - 1] + (clock[i] - clock[i - 1]) * (d - duty[i - 1]) / (duty[i] - duty[i - 1]);
  return clock.back();
}

double ClockCurve::highest() const {
  if (clock.empty()) throw std::logic_error("ClockCurve::highest on an empty curve");
  return *std::max_element(clock.begin(), clock.end());
}

FlopsPerSecond GpuSpec::peak_flops(Precision p) const {
  FlopsPerSecond peak;
  switch (p) {
    case Precision::fp32: peak = fp32_peak; break;
    case Precision::bf16:
    case Precision::fp16: peak = bf16_peak; break;
    case Precision::fp8: peak = fp8_peak; break;
    case Precision::fp4: peak = fp4_peak; break;
  }
  if (!(peak.value() > 0.0))
    throw UserError("GPU `" + id + "` has no " + std::string(topo::name(p)) +
                    " throughput in the catalog; choose another precision or set it in [hardware.gpu]");
  return peak;
}

double GemmCurve::at(double m, double n, double k) const {
  // A dimension below one tile still occupies a whole one (Hopper's smallest WGMMA is 64 rows; a
  // GEMV computes 64-row tiles of which it keeps one): the curve does not keep falling below it,
  // and the roofline's memory term prices such GEMMs.
  const auto inv = [](double x) { return x > 0.0 ? 1.0 / std::max(x, GemmCurve::kMinTile) : 0.0; };
  return peak / (1.0 + mn_half * (inv(m) + inv(n)) + k_half * inv(k));
}

double Efficiency::headline(OpClass c) const {
  switch (c) {
    case OpClass::gemm: return gemm16.at(8192, 8192, 8192);
    case OpClass::attention: return attention;
    case OpClass::elementwise: return elementwise;
    case OpClass::count: break;
  }
  return 0.0;
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

std::string_view name(SourceKind k) {
  switch (k) {
    case SourceKind::datasheet: return "datasheet";
    case SourceKind::measured: return "measured";
    case SourceKind::derived: return "derived";
    case SourceKind::assumed: return "assumed";
    case SourceKind::user: return "user";
  }
  return "unknown";
}

std::string GpuSpec::source_of(std::string_view key) const {
  for (const FigureSource& s : sources)
    if (s.key == key) return std::string(topo::name(s.kind)) + ": " + s.text;
  return "not stated";
}

std::string_view name(OpClass c) {
  switch (c) {
    case OpClass::gemm: return "gemm";
    case OpClass::attention: return "attention";
    case OpClass::elementwise: return "elementwise";
    case OpClass::count: break;
  }
  return "unknown";
}

std::string_view name(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::cudnn: return "cudnn";
    case AttentionKernel::fa2: return "fa2";
    case AttentionKernel::fa3: return "fa3";
    case AttentionKernel::flex: return "flex";
    case AttentionKernel::triton: return "triton";
  }
  return "unknown";
}

std::string_view published_name(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::cudnn: return "cuDNN fused attention";
    case AttentionKernel::fa2: return "FlashAttention-2";
    case AttentionKernel::fa3: return "FlashAttention-3";
    case AttentionKernel::flex: return "FlexAttention";
    case AttentionKernel::triton: return "Triton FlashAttention";
  }
  return "unknown";
}

namespace {
/// The smallest power of two, `from` or above, that is at least `x`.
double power_of_two_at_least(double x, double from) {
  double w = from;
  while (w < x) w *= 2.0;
  return w;
}
}  // namespace

double attention_head_tile(AttentionKernel k, double head_dim) {
  if (!(head_dim > 0.0)) return head_dim;
  switch (k) {
    case AttentionKernel::cudnn: return head_dim;
    case AttentionKernel::fa2: {
      const double w = std::ceil(head_dim / 8.0) * 8.0;
      return w > 256.0 ? w : std::ceil(w / 32.0) * 32.0;
    }
    case AttentionKernel::fa3:
      for (double w : {64.0, 96.0, 128.0, 192.0, 256.0})
        if (head_dim <= w) return w;
      return head_dim;
    case AttentionKernel::flex: return power_of_two_at_least(head_dim, 1.0);
    case AttentionKernel::triton: return power_of_two_at_least(head_dim, 16.0);
  }
  return head_dim;
}

std::string_view name(KernelKind k) {
  switch (k) {
    case KernelKind::other: return "other";
    case KernelKind::norm: return "norm";
    case KernelKind::activation: return "activation";
    case KernelKind::quantize: return "quantize";
    case KernelKind::routing: return "routing";
    case KernelKind::optimizer: return "optimizer";
    case KernelKind::count: break;
  }
  return "unknown";
}

}  // namespace stepsim::topo
