// The GPU entry's reader: its figures, its efficiency table, its clock, the source of each figure
// (`[gpu.<id>.source]`), and the checks that make a GPU usable. A catalog entry, a user's override
// of a built-in one and a scenario's [hardware.gpu] overrides all go through read_gpu_fields.
#include <algorithm>
#include <sstream>

#include "scenarios/choices.hpp"
#include "scenarios/spec_readers.hpp"
#include "scenarios/suggest.hpp"
#include "sim/units.hpp"

namespace stepsim::scen {

/// 0 (none) or a figure in `range`, stored as `to(v)`.
template <class Out, class Convert>
bool read_zero_or_as(TableReader& r, std::string_view key, Out& out, const RealRange& range, Convert to) {
  double v = 0.0;
  if (!r.read(key, v, RealRange{0.0, range.max, false, range.hint})) return false;
  if (v != 0.0 && v < range.min) {
    std::ostringstream problem;
    problem << "must be 0 (none) or in [" << range.min << ", " << range.max << "], got " << v;
    r.fail(key, problem.str(), std::string(range.hint));
  }
  out = to(v);
  return true;
}

bool read_zero_or(TableReader& r, std::string_view key, double& out, const RealRange& range, double scale) {
  return read_zero_or_as(r, key, out, range, [scale](double v) { return v * scale; });
}
template <class Tag>
bool read_zero_or(TableReader& r, std::string_view key, Quantity<Tag>& out, const RealRange& range,
                  Quantity<Tag> (*unit)(double)) {
  return read_zero_or_as(r, key, out, range, unit);
}

namespace {
/// `gemm_bf16 = { peak = 0.8, mn_half = 240, k_half = 600 }`: any of the three, over what is set.
void read_gemm_curve(TableReader& r, std::string_view key, topo::GemmCurve& c) {
  auto t = r.table(key);
  if (!t) return;
  t->read("peak", c.peak, RealRange{0.01, 1.0, false, "the large-GEMM limit, a fraction of dense peak"});
  // The matrix size at which a GEMM reaches half its peak: real kernels 100 to 1,000.
  constexpr RealRange kHalfSize{0.0, 1e5, false, "elements; plausible range 0 to 1e5, e.g. 240"};
  t->read("mn_half", c.mn_half, kHalfSize);
  t->read("k_half", c.k_half, kHalfSize);
  t->finish();
}
}  // namespace

void read_efficiency(TableReader& r, topo::Efficiency& eff) {
  for (const char* retired : {"large_gemm", "small_gemm"})
    if (r.has(retired))
      r.fail(retired, "GEMM efficiency is a curve over M, N and K now",
             "set gemm_bf16 = { peak = 0.8, mn_half = 240, k_half = 600 } (and gemm_fp8) in this table; "
             "docs/scenarios.md explains the three figures");
  read_gemm_curve(r, "gemm_bf16", eff.gemm16);
  read_gemm_curve(r, "gemm_fp8", eff.gemm8);
  r.read("fp8_split_accumulation", eff.fp8_split_accumulation, kEfficiency);
  r.read("fp8_blockwise", eff.fp8_blockwise,
         RealRange{0.1, 2.0, false, "block-scaled over per-tensor FP8 GEMM speed, e.g. 1.0"});
  r.read("fp8_blockwise_wgrad", eff.fp8_blockwise_wgrad,
         RealRange{0.1, 2.0, false, "block-scaled weight-gradient over block-scaled GEMM speed, e.g. 0.6"});
  r.read("attention", eff.attention, kEfficiency);
  for (const auto& [key, out] :
       {std::pair{"attention_fa2", &eff.attention_fa2}, std::pair{"attention_fa3", &eff.attention_fa3},
        std::pair{"attention_flex", &eff.attention_flex},
        std::pair{"attention_triton", &eff.attention_triton}})
    read_zero_or(r, key, *out,
                 RealRange{kEfficiency.min, kEfficiency.max, false,
                           "a fraction of dense peak, e.g. 0.4; 0 = the kernel does not run on this GPU"});
  r.read("attention_seq_half", eff.attention_seq_half,
         RealRange{0.0, 1e5, false,
                   "keys per query row at which attention runs at half its figure, e.g. 380; 0 = no term"});
  r.read("attention_tiles_half", eff.attention_tiles_half,
         RealRange{0.0, 1e5, false,
                   "128-row query tiles at which attention runs at half its figure, e.g. 250; 0 = no term"});
  r.read("elementwise", eff.elementwise, kEfficiency);
  r.read("hbm", eff.hbm, kEfficiency);
  r.read("gemm_hbm", eff.gemm_hbm, kEfficiency);
  r.read("attention_hbm", eff.attention_hbm, kEfficiency);
  r.read("grouped_m_half", eff.grouped_m_half,
         RealRange{0.0, 4096.0, false,
                   "rows per expert at which a grouped GEMM takes twice a batched one, e.g. 20"});
  for (std::size_t k = 0; k < topo::kKernelKindCount; ++k)
    r.read("hbm_" + std::string(topo::name(static_cast<topo::KernelKind>(k))), eff.hbm_kind[k], kEfficiency);
  r.read("nvlink", eff.nvlink, kEfficiency);
  r.read("nvlink_p2p", eff.nvlink_p2p, kEfficiency);
  r.read("nic", eff.nic, kEfficiency);
  read_zero_or(
      r, "nvls", eff.nvls,
      RealRange{kEfficiency.min, 1.0, false, "a fraction of NVLink line rate, e.g. 0.8; 0 = no NVLS"});
  double all = 0.0;
  if (r.read("estimate", all, kEfficiency))
    eff.estimate_compute = eff.estimate_memory = eff.estimate_network = all;
  r.read("estimate_compute", eff.estimate_compute, kEfficiency);
  r.read("estimate_memory", eff.estimate_memory, kEfficiency);
  r.read("estimate_network", eff.estimate_network, kEfficiency);
  r.finish();
}

namespace {

/// The figures of a GPU entry that carry a source ("efficiency.x" for the efficiency table's).
constexpr std::string_view kFigureKeys[] = {"bf16_tflops",
                                            "fp8_tflops",
                                            "fp4_tflops",
                                            "fp32_tflops",
                                            "hbm_gib",
                                            "hbm_gb",
                                            "hbm_reserved_gib",
                                            "hbm_fragmentation",
                                            "hbm_tb_s",
                                            "nvlink_gb_s",
                                            "nvlink_domain",
                                            "pcie_gb_s",
                                            "nic_gbps",
                                            "price_per_hour",
                                            "comm_sm_fraction",
                                            "sms",
                                            "comm_interference",
                                            "kernel_gap_us",
                                            "host_launch_us",
                                            "host_framework_us",
                                            "nvls_latency_us",
                                            "sustained_clock",
                                            "clock_duty",
                                            "gemm_fixed_us",
                                            "attention_fixed_us",
                                            "efficiency"};
constexpr std::string_view kEfficiencyKeys[] = {"gemm_bf16",
                                                "gemm_fp8",
                                                "fp8_split_accumulation",
                                                "fp8_blockwise",
                                                "fp8_blockwise_wgrad",
                                                "attention",
                                                "attention_fa2",
                                                "attention_fa3",
                                                "attention_flex",
                                                "attention_triton",
                                                "attention_seq_half",
                                                "attention_tiles_half",
                                                "elementwise",
                                                "hbm",
                                                "gemm_hbm",
                                                "attention_hbm",
                                                "grouped_m_half",
                                                "hbm_other",
                                                "hbm_norm",
                                                "hbm_activation",
                                                "hbm_quantize",
                                                "hbm_routing",
                                                "hbm_optimizer",
                                                "nvlink",
                                                "nvlink_p2p",
                                                "nic",
                                                "nvls",
                                                "estimate",
                                                "estimate_compute",
                                                "estimate_memory",
                                                "estimate_network"};

void set_source(topo::GpuSpec& g, topo::FigureSource src) {
  for (auto& s : g.sources)
    if (s.key == src.key) {
      s = std::move(src);
      return;
    }
  g.sources.push_back(std::move(src));
}

/// `[gpu.<id>.source]`: `key = "kind: text"` per figure. A figure this table sets without a source
/// is recorded as the user's, with its place, so an override never inherits the figure it replaced.
void read_sources(TableReader& r, topo::GpuSpec& g) {
  std::vector<std::string> given;
  if (auto src = r.table("source")) {
    std::vector<std::string> valid;
    for (auto k : kFigureKeys)
      if (k != "efficiency") valid.emplace_back(k);
    for (auto k : kEfficiencyKeys) valid.push_back("efficiency." + std::string(k));
    for (const auto& [k, v] : src->raw()) {
      const std::string key(k.str());
      if (std::find(valid.begin(), valid.end(), key) == valid.end())
        src->fail(key, "is not a figure of a GPU entry", did_you_mean(key, valid));
      std::string text;
      src->read(key, text);
      const auto colon = text.find(':');
      const std::string kind = colon == std::string::npos ? "" : text.substr(0, colon);
      topo::FigureSource fs{key, topo::SourceKind::assumed, ""};
      bool known = false;
      for (auto kk : {topo::SourceKind::datasheet, topo::SourceKind::measured, topo::SourceKind::derived,
                      topo::SourceKind::assumed})
        if (kind == topo::name(kk)) {
          fs.kind = kk;
          known = true;
        }
      if (!known)
        src->fail(key, "a source starts with its kind: datasheet, measured, derived or assumed",
                  "e.g. \"measured: tools/calibration/h200-2026-11-29-run3.json\" or \"assumed: guess\"");
      const auto start = text.find_first_not_of(' ', colon + 1);
      fs.text = start == std::string::npos ? "" : text.substr(start);
      set_source(g, std::move(fs));
      given.push_back(key);
    }
    src->finish();
  }
  const auto mark_user = [&](const TableReader& t, std::string_view key, const std::string& full) {
    if (!t.has(key) || std::find(given.begin(), given.end(), full) != given.end()) return;
    const SourceLocation at = t.where(key);
    set_source(g, {full, topo::SourceKind::user, at.file + ":" + std::to_string(at.line)});
  };
  for (auto k : kFigureKeys)
    if (k != "efficiency") mark_user(r, k, std::string(k));
  if (r.has("efficiency")) {
    const TableReader eff(*r.raw()["efficiency"].as_table(), r.path("efficiency"), r.context());
    for (auto k : kEfficiencyKeys) mark_user(eff, k, "efficiency." + std::string(k));
  }
}

}  // namespace

namespace {

/// `sustained_clock` (one clock for every step) or `clock_duty` (the clock by the step's tensor-core
/// duty, measured points); an entry that sets one replaces what an entry it overrides had set.
void read_clock(TableReader& r, topo::GpuSpec& g) {
  constexpr RealRange kClock{0.3, 1.2, false, "sustained over benchmark SM clock, e.g. 0.92"};
  if (r.has("sustained_clock") && r.has("clock_duty"))
    r.fail("clock_duty", "and sustained_clock both set the clock",
           "keep one: clock_duty for a measured curve by tensor-core duty, sustained_clock for one figure");
  if (r.read("sustained_clock", g.sustained_clock, kClock)) g.clock_duty = {};
  auto t = r.table("clock_duty");
  if (!t) return;
  topo::ClockCurve c;
  t->read("duty", c.duty, RealRange{0.0, 1.0, false, "share of the step the tensor cores are busy, 0 to 1"});
  t->read("clock", c.clock, kClock);
  const std::string example = "e.g. clock_duty = { duty = [0.5, 1.0], clock = [0.9, 0.84] }";
  if (c.duty.empty() || c.duty.size() != c.clock.size())
    r.fail("clock_duty", "needs `duty` and `clock` lists of the same length, at least one point", example);
  for (std::size_t i = 1; i < c.duty.size(); ++i)
    if (!(c.duty[i] > c.duty[i - 1]))
      t->fail("duty", "must rise from point to point", "list the measured points by rising duty; " + example);
  t->finish();
  g.sustained_clock = c.highest();
  g.clock_duty = std::move(c);
}

}  // namespace

void read_gpu_fields(TableReader& r, topo::GpuSpec& g) {
  r.read("name", g.name);
  r.read("architecture", g.arch, choices::kGpuArch);
  r.read("bf16_tflops", g.bf16_peak, kTflops, units::tflops_per_s);
  read_zero_or(r, "fp8_tflops", g.fp8_peak, kTflops, units::tflops_per_s);
  read_zero_or(r, "fp4_tflops", g.fp4_peak, kTflops, units::tflops_per_s);
  read_zero_or(r, "fp32_tflops", g.fp32_peak, kTflops, units::tflops_per_s);
  if (r.has("hbm_gb") && r.has("hbm_gib"))
    r.fail("hbm_gb", "and hbm_gib both set the memory capacity", "keep one: an \"80 GB\" H100 has 80 GiB");
  r.read("hbm_gb", g.hbm_capacity, kMemoryGB, units::gb);
  r.read("hbm_gib", g.hbm_capacity, kMemoryGB, units::gib);
  r.read("hbm_reserved_gib", g.hbm_reserved, RealRange{0.0, kMemoryGB.max, false, kMemoryGB.hint},
         units::gib);
  r.read("hbm_fragmentation", g.hbm_fragmentation,
         RealRange{0.0, 0.5, false, "share of free memory the allocator loses, e.g. 0.05"});
  read_clock(r, g);
  r.read("hbm_tb_s", g.hbm_bw, kHbmTBs, units::tb_per_s);
  read_zero_or(r, "nvlink_gb_s", g.nvlink_bw, kBandwidthGBs, units::gb_per_s);
  r.read("nvlink_domain", g.nvlink_domain, kPositiveInt);
  read_zero_or(r, "pcie_gb_s", g.pcie_bw, kBandwidthGBs, units::gb_per_s);
  read_zero_or(r, "nic_gbps", g.nic_bw, kBandwidthGbps, units::gbit_per_s);
  r.read("price_per_hour", g.price_per_hour, kNonNegative);
  r.read("price_note", g.price_note);
  r.read("comm_sm_fraction", g.comm_sm_fraction,
         RealRange{0.0, 0.9, false, "share of SMs used by communication"});
  r.read("sms", g.sms, IntRange{1, 4096});
  r.read(
      "comm_interference", g.comm_interference,
      RealRange{1.0, 2.0, false, "compute slowdown beyond the SM share while communication runs, e.g. 1.08"});
  for (const char* retired : {"kernel_launch_us", "graph_launch_us"})
    if (r.has(retired))
      r.fail(retired, "launch costs are split into the GPU's and the host's now",
             "set kernel_gap_us (GPU side, per kernel: 1.24 measured on the H200) and host_launch_us "
             "(eager PyTorch, per kernel: 7.7 measured); CUDA graphs drop the host's");
  r.read("kernel_gap_us", g.kernel_gap_s, kLatencyUs, 1e-6);
  r.read("host_launch_us", g.host_launch_s, kLatencyUs, 1e-6);
  r.read("host_framework_us", g.host_framework_s, kLatencyUs, 1e-6);
  r.read("gemm_fixed_us", g.gemm_fixed_s, kLatencyUs, 1e-6);
  r.read("attention_fixed_us", g.attention_fixed_s, kLatencyUs, 1e-6);
  double nvls_us = 0.0;
  if (r.read("nvls_latency_us", nvls_us, kLatencyUs)) g.nvls_latency_s = nvls_us * 1e-6;
  if (auto eff = r.table("efficiency")) read_efficiency(*eff, g.eff);
  read_sources(r, g);
}

void validate_gpu(const topo::GpuSpec& g, const TableReader& r) {
  if (!(g.bf16_peak.value() > 0.0)) fail_missing(r, "bf16_tflops", "dense BF16 TFLOP/s");
  if (!(g.hbm_capacity.value() > 0.0))
    fail_missing(r, "hbm_gib", "memory capacity in GiB (or hbm_gb in 1e9 bytes)");
  if (g.usable_hbm().value() <= 0.0)
    r.fail("hbm_reserved_gib", "reserves all of the device memory", "set it below hbm_gib");
  if (!(g.hbm_bw.value() > 0.0)) fail_missing(r, "hbm_tb_s", "memory bandwidth in TB/s");
  if (g.nvlink_domain > 1 && !(g.nvlink_bw.value() > 0.0))
    r.fail("nvlink_domain", "is " + std::to_string(g.nvlink_domain) + " but nvlink_gb_s is 0",
           "set nvlink_gb_s, or nvlink_domain = 1 for a GPU without scale-up links");
}

}  // namespace stepsim::scen
