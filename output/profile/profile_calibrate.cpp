#include "output/profile/profile_calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "scenarios/toml_text.hpp"

namespace stepsim::out {
namespace profile_calibrate {

/// A figure and the classes whose time it governs.
struct Target {
  enum class Kind { gemm, attention, hbm } kind = Kind::hbm;
  topo::KernelKind hbm_kind = topo::KernelKind::other;
  std::string key;
  std::vector<std::string> classes;
};

/// The catalog key of the attention figure the job's kernel runs at (Efficiency::attention_of).
std::string attention_key(topo::AttentionKernel k) {
  return k == topo::AttentionKernel::cudnn ? "attention" : "attention_" + std::string(topo::name(k));
}

std::vector<Target> targets(const FittedKernels& k) {
  std::vector<Target> out;
  out.push_back(
      {Target::Kind::gemm, {}, k.fp8_linears ? "gemm_fp8" : "gemm_bf16", {"gemm_dense", "gemm_expert"}});
  out.push_back({Target::Kind::attention, {}, attention_key(k.attention), {"attention"}});
  for (std::size_t k = 0; k < topo::kKernelKindCount; ++k) {
    const auto kind = static_cast<topo::KernelKind>(k);
    out.push_back({Target::Kind::hbm, kind, "hbm_" + std::string(topo::name(kind)), {kind_class(kind)}});
  }
  return out;
}

double& figure(topo::GpuSpec& g, const Target& t, const FittedKernels& k) {
  switch (t.kind) {
    case Target::Kind::gemm: return (k.fp8_linears ? g.eff.gemm8 : g.eff.gemm16).peak;
    case Target::Kind::attention: return g.eff.attention_of(k.attention);
    case Target::Kind::hbm: break;
  }
  double& v = g.eff.hbm_kind[static_cast<std::size_t>(t.hbm_kind)];
  if (v <= 0.0) v = g.eff.hbm;  // a kind without its own figure runs at the GPU's
  return v;
}

struct Times {
  double measured_s = 0.0, simulated_s = 0.0;
};

Times times_of(const ProfileComparison& c, const Target& t) {
  Times out;
  for (const ProfileRow& r : c.rows)
    if (std::find(t.classes.begin(), t.classes.end(), r.cls) != t.classes.end()) {
      out.measured_s += r.measured_s;
      out.simulated_s += r.simulated_s;
    }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " + ") + s;
  return out;
}

std::string ms(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", s * 1e3);
  return b;
}

std::string percent(double f) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100.0 * f);
  return b;
}

std::string fixed3(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

/// What the comparison says beyond the fitted figures.
std::vector<std::string> findings(const Calibration& cal) {
  std::vector<std::string> out;
  for (const CalibratedFigure& f : cal.figures) {
    const double change = f.after / f.before - 1.0;
    const std::string what = "efficiency." + f.key + " = " + fixed3(f.before) + " (" + f.before_source + ")";
    if (std::abs(change) > 0.10)
      out.push_back("the trace contradicts " + what + ": its " + f.classes + " kernels ran at " +
                    fixed3(f.after) + " in this trace (" + percent(change) + ")");
    else
      out.push_back(what + " agrees with the trace within 10% (" + fixed3(f.after) + ")");
    if (f.at_limit)
      out.push_back(
          "efficiency." + f.key + " reached 1 and " + f.classes + " still simulates " +
          ms(f.simulated_after_s) + " against " + ms(f.measured_s) +
          " measured: the simulated kernels have a floor (launch gaps, vector FLOPs, slowdown beside "
          "communication) the trace's kernels do not show");
  }
  if (cal.host.fitted) {
    const HostFigure& h = cal.host;
    const double change = h.after_us / h.before_us - 1.0;
    const std::string what = "host_framework_us = " + fixed3(h.before_us) + " (" + h.before_source + ")";
    out.push_back(std::abs(change) > 0.10
                      ? "the trace contradicts " + what + ": its host took " + ms(h.measured_s) +
                            " launching, which " + fixed3(h.after_us) + " reproduces (" + percent(change) +
                            ")"
                      : what + " agrees with the trace within 10% (" + fixed3(h.after_us) + ")");
  } else if (cal.before.measured.host.launches == 0) {
    out.push_back("the trace records no launch calls: host_framework_us not calibrated");
  } else {
    out.push_back(
        "the simulated window has no host ops (CUDA graphs, an inference step, or no "
        "host_framework_us): host_framework_us not calibrated");
  }
  double compute_s = 0.0;
  for (const ProfileRow& r : cal.before.rows) compute_s += r.measured_s;
  for (const ProfileRow& r : cal.before.rows) {
    if (r.measured_s > 0.0 && r.simulated_ops == 0)
      out.push_back("the trace has " + ms(r.measured_s) + " of " + r.cls + " kernels (" +
                    std::to_string(r.kernels) + ", " +
                    percent(r.measured_s / std::max(compute_s, 1e-30)).substr(1) +
                    " of its compute kernel time) the simulation has no op for: not calibrated");
    if (r.simulated_s > 0.0 && r.kernels == 0)
      out.push_back("the simulation runs " + ms(r.simulated_s) + " of " + r.cls +
                    " ops the trace has no kernel of: not calibrated");
  }
  const auto has = [&](const char* cls) {
    return std::any_of(cal.before.rows.begin(), cal.before.rows.end(),
                       [&](const ProfileRow& r) { return r.cls == cls && r.measured_s > 0.0; });
  };
  if (has("gemm_dense") && has("gemm_expert"))
    out.push_back(
        "GEMMs are fitted as one class: kernel names do not split dense and expert GEMMs as the "
        "simulation does (a per-expert GEMM under a dense kernel name)");
  for (const ProfileRow& r : cal.before.comm_rows) {
    const double exposed =
        cal.before.measured.exposed_comm_s.count(r.cls) ? cal.before.measured.exposed_comm_s.at(r.cls) : 0.0;
    std::string line =
        r.cls + ": " + ms(r.measured_s) + " of kernels, " + ms(exposed) + " exposed in the trace";
    for (const auto& [group, busy] : cal.after.simulated.comm_busy_s)
      if ((group == "ep" && (r.cls == "ep_comm" || r.cls == "nccl_all_to_all")) ||
          (group == "pp" && r.cls == "nccl_send_recv"))
        line += "; the simulation's " + group + " group: " + ms(busy) + " busy, " +
                ms(cal.after.simulated.comm_exposed_s.at(group)) + " exposed";
    out.push_back(line +
                  " (communication is not calibrated: a kernel's duration includes its wait for peers, so it "
                  "does not measure the links)");
  }
  if (!cal.before.measured.unclassified.empty()) {
    double t = 0.0;
    for (const UnclassifiedKernel& u : cal.before.measured.unclassified) t += u.time_s;
    out.push_back(std::to_string(cal.before.measured.unclassified.size()) +
                  " kernel names no rule classes (" + ms(t) + "): not calibrated");
  }
  return out;
}

}  // namespace profile_calibrate

Calibration calibrate(const topo::GpuSpec& gpu, const FittedKernels& kernels, const CompareWithGpu& compare,
                      double tolerance, int max_simulations) {
  using namespace profile_calibrate;
  Calibration cal;
  cal.gpu_id = gpu.id;
  cal.gpu_name = gpu.name;
  cal.tolerance = tolerance;
  cal.calibrated = gpu;
  ProfileComparison now = compare(cal.calibrated);
  cal.simulations = 1;
  cal.before = now;
  std::vector<Target> fitted;
  for (const Target& t : targets(kernels)) {
    const Times x = times_of(now, t);
    if (x.measured_s <= 0.0 || x.simulated_s <= 0.0) continue;
    fitted.push_back(t);
    CalibratedFigure f;
    f.key = t.key;
    f.classes = joined(t.classes);
    topo::GpuSpec copy = gpu;
    f.before = figure(copy, t, kernels);
    const bool own =
        t.kind != Target::Kind::hbm || gpu.eff.hbm_kind[static_cast<std::size_t>(t.hbm_kind)] > 0.0;
    f.before_source = gpu.source_of("efficiency." + (own ? t.key : std::string("hbm")));
    f.measured_s = x.measured_s;
    f.simulated_before_s = x.simulated_s;
    cal.figures.push_back(f);
  }
  HostFigure& host = cal.host;
  host.measured_s = now.measured.host.busy_s;
  host.simulated_before_s = now.simulated.host_s;
  host.fitted = gpu.host_framework_s > 0.0 && host.measured_s > 0.0 && host.simulated_before_s > 0.0;
  host.before_us = gpu.host_framework_s * 1e6;
  host.before_source = gpu.source_of("host_framework_us");
  // time ~ 1 / efficiency where the figure binds: scale each by simulated / measured and
  // re-simulate until every class agrees (launch gaps and overlap make it not quite inverse).
  // The host's time is linear in host_framework_us: scale it by measured / simulated.
  while (cal.simulations < max_simulations) {
    bool changed = false;
    if (host.fitted && std::abs(now.simulated.host_s / host.measured_s - 1.0) > tolerance) {
      cal.calibrated.host_framework_s *= host.measured_s / now.simulated.host_s;
      changed = true;
    }
    for (std::size_t i = 0; i < fitted.size(); ++i) {
      const Times x = times_of(now, fitted[i]);
      const double ratio = x.simulated_s / x.measured_s;
      if (std::abs(ratio - 1.0) <= tolerance) continue;
      double& v = figure(cal.calibrated, fitted[i], kernels);
      const double next = std::clamp(v * ratio, 0.01, 1.0);
      if (std::abs(next - v) > 1e-6 * v) changed = true;
      v = next;
    }
    if (!changed) break;
    now = compare(cal.calibrated);
    ++cal.simulations;
  }
  cal.after = now;
  host.after_us = cal.calibrated.host_framework_s * 1e6;
  host.simulated_after_s = now.simulated.host_s;
  for (std::size_t i = 0; i < fitted.size(); ++i) {
    CalibratedFigure& f = cal.figures[i];
    f.after = figure(cal.calibrated, fitted[i], kernels);
    f.simulated_after_s = times_of(now, fitted[i]).simulated_s;
    f.at_limit = f.after >= 1.0 && f.simulated_after_s > f.measured_s * (1.0 + tolerance);
  }
  cal.findings = findings(cal);
  return cal;
}

std::string calibration_toml(const Calibration& c, const std::string& origin) {
  using scen::toml_comment;
  using scen::toml_string;
  std::ostringstream out;
  out << toml_comment("Calibration of the " + c.gpu_name +
                      " measured by `stepsim profile --write-calibration`");
  out << toml_comment("from " + origin + ".");
  out << toml_comment(
      "Apply it with --catalog FILE (or catalog = [\"FILE\"] in a scenario): it overrides these");
  out << toml_comment("figures of the GPU and keeps the catalog's others.");
  out << "#\n" << toml_comment("Per class, measured and simulated time of the window before and after:");
  for (const CalibratedFigure& f : c.figures)
    out << toml_comment("  " + f.classes + ": measured " + profile_calibrate::ms(f.measured_s) +
                        ", simulated " + profile_calibrate::ms(f.simulated_before_s) + " -> " +
                        profile_calibrate::ms(f.simulated_after_s));
  out << "#\n" << toml_comment("What the trace says of the catalog's figures:");
  for (const std::string& f : c.findings) out << toml_comment("  " + f);
  const std::string table = "[gpu." + toml_string(c.gpu_id);
  if (c.host.fitted) {
    char v[32];
    std::snprintf(v, sizeof v, "%.2f", c.host.after_us);
    out << "\n" << table << "]\nhost_framework_us = " << v << "\n";
  }
  out << "\n" << table << ".efficiency]\n";
  for (const CalibratedFigure& f : c.figures) {
    char v[32];
    std::snprintf(v, sizeof v, "%.4f", f.after);
    if (f.key == "gemm_bf16" || f.key == "gemm_fp8") {
      const topo::GemmCurve& curve = f.key == "gemm_fp8" ? c.calibrated.eff.gemm8 : c.calibrated.eff.gemm16;
      char line[160];
      std::snprintf(line, sizeof line, "%s = { peak = %.4f, mn_half = %.6g, k_half = %.6g }\n", f.key.c_str(),
                    curve.peak, curve.mn_half, curve.k_half);
      out << line;
    } else {
      out << f.key << " = " << v << "\n";
    }
  }
  out << "\n" << table << ".source]\n";
  if (c.host.fitted)
    out << "host_framework_us = "
        << toml_string("measured: from " + origin +
                       " by stepsim profile --write-calibration: the host took " +
                       profile_calibrate::ms(c.host.measured_s) + " launching against " +
                       profile_calibrate::ms(c.host.simulated_before_s) + " simulated at " +
                       profile_calibrate::fixed3(c.host.before_us) + " us")
        << "\n";
  for (const CalibratedFigure& f : c.figures)
    out << toml_string("efficiency." + f.key) << " = "
        << toml_string("measured: from " + origin + " by stepsim profile --write-calibration: " + f.classes +
                       " kernels " + profile_calibrate::ms(f.measured_s) + " against " +
                       profile_calibrate::ms(f.simulated_before_s) + " simulated at " +
                       profile_calibrate::fixed3(f.before))
        << "\n";
  return out.str();
}

std::string calibration_text(const Calibration& c) {
  using namespace profile_calibrate;
  std::ostringstream out;
  out << "\ncalibration of " << c.gpu_id << " (" << c.simulations << " simulations)\n";
  out << "figure                      classes                      catalog  fitted  change  measured ms  "
         "stepsim ms before -> after\n";
  out << std::string(112, '-') << "\n";
  for (const CalibratedFigure& f : c.figures) {
    char line[256];
    std::snprintf(line, sizeof line, "%-27s %-28s %7.3f %7.3f %7s %12.3f %11.3f -> %.3f%s\n",
                  ("efficiency." + f.key).c_str(), f.classes.c_str(), f.before, f.after,
                  percent(f.after / f.before - 1.0).c_str(), f.measured_s * 1e3, f.simulated_before_s * 1e3,
                  f.simulated_after_s * 1e3, f.at_limit ? "  (at 1)" : "");
    out << line;
  }
  if (c.host.fitted) {
    char line[256];
    std::snprintf(line, sizeof line, "%-27s %-28s %7.2f %7.2f %7s %12.3f %11.3f -> %.3f\n",
                  "host_framework_us", "host launches", c.host.before_us, c.host.after_us,
                  percent(c.host.after_us / c.host.before_us - 1.0).c_str(), c.host.measured_s * 1e3,
                  c.host.simulated_before_s * 1e3, c.host.simulated_after_s * 1e3);
    out << line;
  }
  out << "\nwhat the trace says:\n";
  for (const std::string& f : c.findings) out << "  - " << f << "\n";
  return out.str();
}

nlohmann::json calibration_json(const Calibration& c) {
  nlohmann::json j;
  j["gpu"] = c.gpu_id;
  j["simulations"] = c.simulations;
  j["tolerance"] = c.tolerance;
  j["figures"] = nlohmann::json::array();
  for (const CalibratedFigure& f : c.figures)
    j["figures"].push_back({{"key", "efficiency." + f.key},
                            {"classes", f.classes},
                            {"catalog", f.before},
                            {"catalog_source", f.before_source},
                            {"fitted", f.after},
                            {"measured_ms", f.measured_s * 1e3},
                            {"simulated_before_ms", f.simulated_before_s * 1e3},
                            {"simulated_after_ms", f.simulated_after_s * 1e3},
                            {"at_limit", f.at_limit}});
  if (c.host.fitted)
    j["host"] = {{"key", "host_framework_us"},
                 {"catalog", c.host.before_us},
                 {"catalog_source", c.host.before_source},
                 {"fitted", c.host.after_us},
                 {"measured_ms", c.host.measured_s * 1e3},
                 {"simulated_before_ms", c.host.simulated_before_s * 1e3},
                 {"simulated_after_ms", c.host.simulated_after_s * 1e3}};
  j["findings"] = c.findings;
  return j;
}

}  // namespace stepsim::out
