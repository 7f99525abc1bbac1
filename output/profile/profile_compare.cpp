#include "output/profile/profile_compare.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "sim/error.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::out {
namespace profile_compare {

bool starts_with(std::string_view s, std::string_view p) {
  return s.rfind(p, 0) == 0;
}

bool in_range(int v, int first, int last) {
  return (first < 0 || v >= first) && (last < 0 || v <= last);
}

/// The simulated group a measured communication class is compared with; empty when none can be
/// told from the kernel name (an all-reduce may be TP's or DP's).
std::string group_of(std::string_view cls) {
  if (cls == "ep_comm" || cls == "nccl_all_to_all") return "ep";
  if (cls == "nccl_send_recv") return "pp";
  return {};
}

std::string row_text(const char* name, double meas_s, long kernels, double sim_s, double err, double tflops,
                     bool has_measure, double gb_s = 0.0) {
  char line[180];
  char tf[16] = "", bw[16] = "";
  if (tflops > 0.0) std::snprintf(tf, sizeof tf, "%.0f", tflops);
  if (gb_s > 0.0) std::snprintf(bw, sizeof bw, "%.0f", gb_s);
  char e[16] = "-";
  if (has_measure) std::snprintf(e, sizeof e, "%+.1f%%", 100.0 * err);
  std::snprintf(line, sizeof line, "%-20s %11.3f %8ld %11.3f %8s %9s %8s", name, meas_s * 1e3, kernels,
                sim_s * 1e3, e, tf, bw);
  std::string text = line;
  text.erase(text.find_last_not_of(' ') + 1);
  return text + "\n";
}

nlohmann::json row_json(const ProfileRow& r) {
  nlohmann::json j{{"class", r.cls},
                   {"measured_ms", r.measured_s * 1e3},
                   {"kernels", r.kernels},
                   {"simulated_ms", r.simulated_s * 1e3},
                   {"simulated_ops", r.simulated_ops}};
  j["error"] = r.measured_s > 0.0 ? nlohmann::json(r.error()) : nlohmann::json(nullptr);
  j["measured_tflops"] =
      r.measured_tflops() > 0.0 ? nlohmann::json(r.measured_tflops()) : nlohmann::json(nullptr);
  j["trace_flops"] = r.trace_flops;
  j["shaped_kernels"] = r.shaped;
  j["measured_gb_s"] = r.measured_gb_s() > 0.0 ? nlohmann::json(r.measured_gb_s()) : nlohmann::json(nullptr);
  return j;
}

std::string step_text(const StepFigures& f) {
  std::ostringstream out;
  char line[160];
  out << "\nper step (the trace covers " << f.steps << (f.steps == 1 ? " step" : " steps")
      << ")           measured    stepsim    error\n";
  out << std::string(71, '-') << "\n";
  const auto row = [&](const char* name, double m, double s, double scale, const char* fmt) {
    char mv[32], sv[32], e[16] = "-";
    std::snprintf(mv, sizeof mv, fmt, m * scale);
    std::snprintf(sv, sizeof sv, fmt, s * scale);
    if (m > 0.0) std::snprintf(e, sizeof e, "%+.1f%%", 100.0 * (s / m - 1.0));
    std::snprintf(line, sizeof line, "%-37s %10s %10s %8s\n", name, mv, sv, e);
    out << line;
  };
  row("step time, ms", f.measured_step_s, f.simulated_step_s, 1e3, "%.2f");
  row("  compute kernels running, ms", f.measured_compute_s, f.simulated_compute_s, 1e3, "%.2f");
  row("  communication exposed, ms", f.measured_exposed_comm_s, f.simulated_exposed_comm_s, 1e3, "%.2f");
  row("  idle (bubbles, host, waits), ms",
      std::max(0.0, f.measured_step_s - f.measured_compute_s - f.measured_exposed_comm_s),
      std::max(0.0, f.simulated_step_s - f.simulated_compute_s - f.simulated_exposed_comm_s), 1e3, "%.2f");
  row("MFU, %", f.mfu_measured, f.mfu_simulated, 100.0, "%.1f");
  row("tokens/s per GPU", f.tokens_per_s_per_gpu_measured, f.tokens_per_s_per_gpu_simulated, 1.0, "%.0f");
  out << "(measured MFU and tokens/s: the scenario's model FLOPs and tokens over the measured step)\n";
  return out.str();
}

/// GPU activities of the compute classes per simulated compute op of the window; 0 without ops.
double kernels_per_op(const ProfileComparison& c) {
  return c.total.simulated_ops > 0
             ? static_cast<double>(c.total.kernels) / static_cast<double>(c.total.simulated_ops)
             : 0.0;
}

/// The host side: how long the trace's host took per launch, against the window's host ops.
std::string host_text(const ProfileComparison& c) {
  const HostLaunches& h = c.measured.host;
  if (h.launches == 0)
    return "\nhost: the trace records no launch calls (profile with ProfilerActivity.CPU to compare the "
           "host)\n";
  char line[400];
  std::snprintf(
      line, sizeof line,
      "\nhost: %ld launches, %.3f ms launching, %.1f us per launch (%ld gaps of 1 ms or more, %.3f ms, "
      "counted as waits); %.2f GPU activities per simulated compute op\n",
      h.launches, h.busy_s * 1e3, h.per_launch_s() * 1e6, h.waits, h.wait_s * 1e3, kernels_per_op(c));
  std::string out = line;
  if (c.simulated.host_ops > 0) {
    std::snprintf(line, sizeof line, "      stepsim: %ld host ops in the window, %.3f ms (%+.1f%%)\n",
                  c.simulated.host_ops, c.simulated.host_s * 1e3,
                  h.busy_s > 0.0 ? 100.0 * (c.simulated.host_s / h.busy_s - 1.0) : 0.0);
    out += line;
  } else {
    out += "      stepsim: no host ops (CUDA graphs, or a GPU without host costs)\n";
  }
  return out;
}

}  // namespace profile_compare

std::string simulated_op_class(std::string name, topo::OpClass op_class) {
  const topo::KernelKind kind = work::kernel_kind(name, op_class);
  if (kind == topo::KernelKind::quantize) return "quantize";
  if (op_class == topo::OpClass::gemm) {
    for (const char* pass : {"fwd.", "bwd.", "rc."})
      if (profile_compare::starts_with(name, pass)) name = name.substr(std::string_view(pass).size());
    return profile_compare::starts_with(name, "experts_") ? "gemm_expert" : "gemm_dense";
  }
  if (op_class == topo::OpClass::attention) return "attention";
  return kind_class(kind);
}

std::string kind_class(topo::KernelKind kind) {
  switch (kind) {
    case topo::KernelKind::routing: return "moe_routing";
    case topo::KernelKind::other: return "elementwise";
    default: return std::string(topo::name(kind));
  }
}

std::optional<topo::KernelKind> class_kind(std::string_view cls) {
  for (std::size_t k = 0; k < topo::kKernelKindCount; ++k)
    if (kind_class(static_cast<topo::KernelKind>(k)) == cls) return static_cast<topo::KernelKind>(k);
  return std::nullopt;
}

SimulatedProfile simulate_window(const work::StepPlan& plan, const ProfileWindow& w,
                                 const sim::RunResult* run, double alone_scale) {
  using profile_compare::in_range;
  int rank_index = -1;
  std::string simulated;
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    if (plan.ranks[i].rank == w.rank) rank_index = static_cast<int>(i);
    if (i < 16) simulated += (simulated.empty() ? "" : ", ") + std::to_string(plan.ranks[i].rank);
  }
  if (rank_index < 0)
    throw UserError("--rank " + std::to_string(w.rank) +
                    ": that rank is not simulated (hint: simulated ranks: " + simulated +
                    (plan.ranks.size() > 16 ? ", ..." : "") +
                    ", one per pipeline stage: the ranks of a stage run the same ops, so give the one of "
                    "the profiled rank's stage)");
  SimulatedProfile out;
  std::map<std::string, std::vector<Interval>> comm;
  std::vector<Interval> compute;
  for (sim::OpId op = 0; op < plan.graph.op_count(); ++op) {
    const work::OpInfo& i = plan.info[op];
    if (i.rank != rank_index) continue;
    const bool layers_all = w.first_layer < 0 && w.last_layer < 0;
    const bool mbs_all = w.first_microbatch < 0 && w.last_microbatch < 0;
    const bool in_window =
        (layers_all || (i.layer >= 0 && in_range(i.layer, w.first_layer, w.last_layer))) &&
        (mbs_all || (i.microbatch >= 0 && in_range(i.microbatch, w.first_microbatch, w.last_microbatch)));
    if (i.is_host) {
      if (in_window) {
        out.host_s += to_seconds(plan.graph.exec(op).work);
        ++out.host_ops;
      }
      continue;
    }
    const bool is_compute = !i.is_comm && plan.graph.exec(op).kind == sim::OpKind::compute;
    if (run) {
      const Interval span{to_seconds(run->ops[op].start), to_seconds(run->ops[op].end)};
      if (is_compute) compute.push_back(span);
      if (in_window && i.is_comm) comm[std::string(work::name(i.comm_dim))].push_back(span);
    }
    if (!in_window || !is_compute) continue;
    SimulatedClass& c = out.classes[simulated_op_class(std::string(plan.graph.label(op)), i.op_class)];
    c.time_s += run ? to_seconds(run->ops[op].end - run->ops[op].start)
                    : to_seconds(plan.graph.exec(op).work) * alone_scale;
    c.flops += plan.graph.info(op).flops;
    c.hbm_bytes += plan.graph.info(op).bytes;
    ++c.count;
    ++out.ops;
  }
  if (out.ops == 0)
    throw UserError(
        "the window (--rank, --layers, --microbatches) selects no compute op of the simulated step "
        "(hint: layers count from 0 and micro-batches from 0; see `stepsim check` for the model's "
        "layers and the micro-batches per step)");
  for (auto& [group, spans] : comm) {
    out.comm_busy_s[group] = uncovered_time(spans, {});
    out.comm_exposed_s[group] = uncovered_time(spans, compute);
  }
  return out;
}

ProfileComparison compare_profiles(MeasuredProfile measured, SimulatedProfile simulated) {
  ProfileComparison c;
  std::set<std::string> classes;
  for (const auto& [cls, m] : measured.classes)
    if (!is_comm_class(cls)) classes.insert(cls);
  for (const auto& [cls, s] : simulated.classes) classes.insert(cls);
  c.total.cls = "total";
  for (const std::string& cls : classes) {
    ProfileRow r;
    r.cls = cls;
    if (const auto m = measured.classes.find(cls); m != measured.classes.end()) {
      r.measured_s = m->second.time_s;
      r.kernels = m->second.count;
      r.trace_flops = m->second.flops;
      r.shaped = m->second.shaped;
    }
    if (const auto s = simulated.classes.find(cls); s != simulated.classes.end()) {
      r.simulated_s = s->second.time_s;
      r.simulated_ops = s->second.count;
      if (cls.rfind("gemm", 0) == 0 || cls == "attention")
        r.flops = s->second.flops;
      else
        r.hbm_bytes = s->second.hbm_bytes;
    }
    c.total.measured_s += r.measured_s;
    c.total.kernels += r.kernels;
    c.total.simulated_s += r.simulated_s;
    c.total.simulated_ops += r.simulated_ops;
    c.rows.push_back(r);
  }
  for (const auto& [cls, m] : measured.classes) {
    if (!is_comm_class(cls)) continue;
    ProfileRow r;
    r.cls = cls;
    r.measured_s = m.time_s;
    r.kernels = m.count;
    const std::string group = profile_compare::group_of(cls);
    if (const auto s = simulated.comm_busy_s.find(group); !group.empty() && s != simulated.comm_busy_s.end())
      r.simulated_s = s->second;
    c.comm_rows.push_back(r);
  }
  c.measured = std::move(measured);
  c.simulated = std::move(simulated);
  return c;
}

ProfileRow gemm_row(const ProfileComparison& c) {
  ProfileRow sum;
  sum.cls = "gemm";
  for (const ProfileRow& r : c.rows) {
    if (r.cls.rfind("gemm", 0) != 0) continue;
    sum.measured_s += r.measured_s;
    sum.kernels += r.kernels;
    sum.simulated_s += r.simulated_s;
    sum.simulated_ops += r.simulated_ops;
    sum.flops += r.flops;
    sum.trace_flops += r.trace_flops;
    sum.shaped += r.shaped;
  }
  return sum;
}

std::string profile_table(const ProfileComparison& c) {
  using profile_compare::row_text;
  std::ostringstream out;
  out << "stepsim profile: " << c.trace << " against " << c.scenario << "\n";
  const auto bound = [](int a, int b) {
    if (a < 0 && b < 0) return std::string("all");
    return std::to_string(a < 0 ? 0 : a) + "-" + (b < 0 ? std::string("last") : std::to_string(b));
  };
  std::string ranks = "rank " + std::to_string(c.window.rank);
  if (c.ranks.size() > 1) {
    ranks = "ranks";
    for (std::size_t i = 0; i < c.ranks.size(); ++i) ranks += (i ? ", " : " ") + std::to_string(c.ranks[i]);
    ranks += " (summed)";
  }
  out << "  window: " << ranks << ", layers " << bound(c.window.first_layer, c.window.last_layer)
      << ", micro-batches " << bound(c.window.first_microbatch, c.window.last_microbatch) << "; "
      << c.measured.kernels << " GPU kernels in the trace\n\n";
  out << "class                measured ms  kernels stepsim ms    error  TFLOP/s     GB/s\n";
  out << std::string(80, '-') << "\n";
  // Kernel names do not split GEMMs as the simulation does (a per-expert GEMM under a dense kernel
  // name), so FLOPs over measured time are shown for the two GEMM classes together only.
  const auto split_gemm = [](const std::string& cls) { return cls == "gemm_dense" || cls == "gemm_expert"; };
  for (const ProfileRow& r : c.rows)
    out << row_text(r.cls.c_str(), r.measured_s, r.kernels, r.simulated_s, r.error(),
                    split_gemm(r.cls) ? 0.0 : r.measured_tflops(), r.measured_s > 0.0, r.measured_gb_s());
  out << row_text("total", c.total.measured_s, c.total.kernels, c.total.simulated_s, c.total.error(), 0.0,
                  c.total.measured_s > 0.0);
  const ProfileRow gemm = gemm_row(c);
  if (gemm.kernels > 0 || gemm.simulated_ops > 0)
    out << row_text("(gemm, both classes)", gemm.measured_s, gemm.kernels, gemm.simulated_s, gemm.error(),
                    gemm.measured_tflops(), gemm.measured_s > 0.0);
  if (gemm.shaped > 0) {
    char line[200];
    std::snprintf(
        line, sizeof line,
        "(gemm, trace shapes)   %ld of %ld GEMM kernels shaped: %.2f TFLOP by the trace's shapes, %.2f "
        "by stepsim's",
        gemm.shaped, gemm.kernels, gemm.trace_flops * 1e-12, gemm.flops * 1e-12);
    out << line;
    if (gemm.shaped == gemm.kernels && gemm.measured_s > 0.0)
      out << ", " << static_cast<long>(gemm.trace_flops / gemm.measured_s * 1e-12 + 0.5)
          << " TFLOP/s achieved";
    out << "\n";
  }
  out << "(TFLOP/s: the simulation's FLOPs of the class over the measured time; for GEMMs only of both\n"
         " classes together: a grouped GEMM is gemm_expert by its kernel name, a per-expert GEMM under a\n"
         " dense kernel name is gemm_dense, where the simulation counts it as an expert's;\n"
         " GB/s: the simulation's HBM bytes of a bandwidth-bound class over the measured time)\n";
  if (!c.comm_rows.empty() || !c.simulated.comm_busy_s.empty()) {
    out << "\ncommunication        measured ms  kernels exposed ms   group  stepsim busy ms  exposed ms\n";
    out << std::string(87, '-') << "\n";
    for (const ProfileRow& r : c.comm_rows) {
      const std::string group = profile_compare::group_of(r.cls);
      const auto busy = c.simulated.comm_busy_s.find(group);
      const bool matched = !group.empty() && busy != c.simulated.comm_busy_s.end();
      char line[200], sim_busy[32] = "-", sim_exposed[32] = "-";
      if (matched) {
        std::snprintf(sim_busy, sizeof sim_busy, "%.3f", busy->second * 1e3);
        std::snprintf(sim_exposed, sizeof sim_exposed, "%.3f", c.simulated.comm_exposed_s.at(group) * 1e3);
      }
      std::snprintf(line, sizeof line, "%-20s %11.3f %8ld %11.3f %7s %16s %11s\n", r.cls.c_str(),
                    r.measured_s * 1e3, r.kernels, c.measured.exposed_comm_s.at(r.cls) * 1e3,
                    matched ? group.c_str() : "-", sim_busy, sim_exposed);
      out << line;
    }
    for (const auto& [group, busy] : c.simulated.comm_busy_s) {
      bool shown = false;
      for (const ProfileRow& r : c.comm_rows) shown = shown || profile_compare::group_of(r.cls) == group;
      if (shown) continue;
      char line[200];
      std::snprintf(line, sizeof line, "%-20s %11s %8s %11s %7s %16.3f %11.3f\n", "(not in the trace)", "-",
                    "-", "-", group.c_str(), busy * 1e3, c.simulated.comm_exposed_s.at(group) * 1e3);
      out << line;
    }
    out << "(exposed: time no other kernel of the device, or no compute op of the rank, ran)\n";
  }
  out << profile_compare::host_text(c);
  if (c.step.steps > 0) out << profile_compare::step_text(c.step);
  out << "\nunclassified kernels: " << c.measured.unclassified.size() << "\n";
  for (const UnclassifiedKernel& u : c.measured.unclassified) {
    char line[64];
    std::snprintf(line, sizeof line, "  %11.3f ms %6ld x  ", u.time_s * 1e3, u.count);
    out << line << u.name.substr(0, 140) << "\n";
  }
  return out.str();
}

nlohmann::json profile_json(const ProfileComparison& c) {
  using profile_compare::row_json;
  nlohmann::json j;
  j["trace"] = c.trace;
  j["scenario"] = c.scenario;
  j["window"] = {{"rank", c.window.rank},
                 {"first_layer", c.window.first_layer},
                 {"last_layer", c.window.last_layer},
                 {"first_microbatch", c.window.first_microbatch},
                 {"last_microbatch", c.window.last_microbatch}};
  j["ranks"] = c.ranks;
  j["kernels"] = c.measured.kernels;
  if (c.step.steps > 0)
    j["per_step"] = {{"steps", c.step.steps},
                     {"measured_step_ms", c.step.measured_step_s * 1e3},
                     {"simulated_step_ms", c.step.simulated_step_s * 1e3},
                     {"measured_compute_ms", c.step.measured_compute_s * 1e3},
                     {"simulated_compute_ms", c.step.simulated_compute_s * 1e3},
                     {"measured_exposed_comm_ms", c.step.measured_exposed_comm_s * 1e3},
                     {"simulated_exposed_comm_ms", c.step.simulated_exposed_comm_s * 1e3},
                     {"mfu_measured", c.step.mfu_measured},
                     {"mfu_simulated", c.step.mfu_simulated},
                     {"tokens_per_s_per_gpu_measured", c.step.tokens_per_s_per_gpu_measured},
                     {"tokens_per_s_per_gpu_simulated", c.step.tokens_per_s_per_gpu_simulated}};
  j["classes"] = nlohmann::json::array();
  for (const ProfileRow& r : c.rows) {
    nlohmann::json row = row_json(r);
    if (r.cls == "gemm_dense" || r.cls == "gemm_expert") row["measured_tflops"] = nullptr;  // see gemm_total
    j["classes"].push_back(std::move(row));
  }
  j["total"] = row_json(c.total);
  j["gemm_total"] = row_json(gemm_row(c));  // both GEMM classes together
  j["communication"] = nlohmann::json::array();
  for (const ProfileRow& r : c.comm_rows) {
    nlohmann::json row = row_json(r);
    row.erase("measured_tflops");
    row["measured_exposed_ms"] = c.measured.exposed_comm_s.at(r.cls) * 1e3;
    const std::string group = profile_compare::group_of(r.cls);
    const bool matched = !group.empty() && c.simulated.comm_busy_s.count(group) > 0;
    row["group"] = matched ? nlohmann::json(group) : nlohmann::json(nullptr);
    if (!matched) row["error"] = nullptr;
    row.erase("simulated_ops");
    j["communication"].push_back(row);
  }
  j["simulated_comm"] = nlohmann::json::object();
  for (const auto& [group, busy] : c.simulated.comm_busy_s)
    j["simulated_comm"][group] = {{"busy_ms", busy * 1e3},
                                  {"exposed_ms", c.simulated.comm_exposed_s.at(group) * 1e3}};
  const HostLaunches& h = c.measured.host;
  j["host"] = {{"launches", h.launches},
               {"measured_launching_ms", h.busy_s * 1e3},
               {"measured_us_per_launch", h.per_launch_s() * 1e6},
               {"waits", h.waits},
               {"measured_wait_ms", h.wait_s * 1e3},
               {"kernels_per_simulated_op", profile_compare::kernels_per_op(c)},
               {"simulated_host_ms", c.simulated.host_s * 1e3},
               {"simulated_host_ops", c.simulated.host_ops}};
  j["unclassified"] = nlohmann::json::array();
  for (const UnclassifiedKernel& u : c.measured.unclassified)
    j["unclassified"].push_back({{"name", u.name}, {"count", u.count}, {"time_ms", u.time_s * 1e3}});
  return j;
}

}  // namespace stepsim::out
