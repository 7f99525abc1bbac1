// A simulated step as a readable terminal report.
#include <cstdio>
#include <sstream>

#include "output/common/format.hpp"
#include "output/common/text_table.hpp"
#include "output/run/run_figures.hpp"
#include "output/views/accuracy_view.hpp"
#include "output/views/job_json.hpp"
#include "output/views/run_view.hpp"
#include "workloads/model/names.hpp"
#include "workloads/simulate/explain.hpp"

namespace stepsim::out {
namespace {

std::string pct(double part, double whole) {
  return format_percent(whole > 0 ? part / whole : 0.0);
}

/// The rows the verdict (work::step_verdict) ranks, in the same words.
void breakdown_rows(TextTable& t, const work::Breakdown& b, double step) {
  for (const auto& e : work::breakdown_entries(b))
    t.add_row({e.label, format_seconds(e.seconds), pct(e.seconds, step)});
}

std::string critical_line(const work::StepReport& r) {
  std::string out;
  for (std::size_t i = 0; i < r.critical_s.size(); ++i) {
    if (r.critical_s[i] < 0.005 * r.step_time_s) continue;
    if (!out.empty()) out += ", ";
    out +=
        std::string(topo::name(static_cast<topo::Resource>(i))) + " " + pct(r.critical_s[i], r.step_time_s);
  }
  return out;
}

/// Inference: latency, per-replica rate and the KV-cache headroom.
void inference_lines(std::ostringstream& o, const work::JobSpec& job, const work::Simulation& s,
                     const std::string& mark) {
  if (job.workload.kind == work::WorkloadKind::train) return;
  const bool prefill = job.workload.kind == work::WorkloadKind::prefill;
  const auto& kv = s.plan.kv;
  o << (prefill ? "first token " : "per token   ") << format_seconds(s.metrics.latency_s) << "  ("
    << format_number(s.metrics.tokens_per_s_per_replica, 1) << " tokens/s per replica, batch "
    << format_number(job.workload.batch, 0) << ")" << mark << "\n";
  o << "KV cache    " << format_bytes(s.plan.static_memory[s.report.peak_rank].kv_cache)
    << " per GPU; fits up to batch " << format_number(kv.max_batch, 0) << " at this context, or context "
    << format_number(kv.max_context, 0) << " at this batch\n";
}

/// MoE: what routing imbalance costs the busiest expert rank.
void moe_line(std::ostringstream& o, const work::JobSpec& job, const work::Simulation& s) {
  if (!job.model.is_moe()) return;
  const auto& r = s.plan.routing;
  char buf[160];
  std::snprintf(buf, sizeof buf, "expert load max/mean %.2f (rank %.2f), %.1f%% of copies dropped; ",
                r.expert_imbalance, r.rank_imbalance, 100.0 * r.dropped_fraction);
  o << "MoE routing " << buf << "imbalance costs " << format_seconds(s.metrics.imbalance_s) << "\n";
}

}  // namespace

std::string parallel_layout(const work::JobSpec& j) {
  const auto& p = j.parallel;
  std::string s = "TP" + std::to_string(p.tp) + " PP" + std::to_string(p.pp);
  if (p.virtual_stages > 1) s += "x" + std::to_string(p.virtual_stages);
  if (p.pp > 1 && p.schedule == work::PipelineSchedule::dualpipe) s += " DualPipe";
  if (p.pp > 1 && p.schedule == work::PipelineSchedule::dualpipev) s += " DualPipeV";
  if (p.cp > 1) s += " CP" + std::to_string(p.cp);
  if (p.ep > 1) s += " EP" + std::to_string(p.ep);
  s += " DP" + std::to_string(p.dp);
  if (p.zero_stage > 0) s += " ZeRO-" + std::to_string(p.zero_stage);
  if (p.sequence_parallel) s += " SP";
  if (p.tp_comm_overlap == work::TpCommOverlap::userbuffers && p.tp > 1) s += " TP-overlap";
  if (p.tp_comm_overlap == work::TpCommOverlap::async_tp && p.tp > 1) s += " AsyncTP";
  return s;
}

namespace {

/// How busy the busiest simulated GPU's host is (eager launches and framework code): a floor no
/// faster kernel can take the step below; from half the step it is worth saying what removes it.
void host_line(std::ostringstream& o, const work::Simulation& s, const RunFigures& f) {
  const double busy = f.host_busy_s;
  const double step = s.metrics.step_time_s;
  if (busy <= 0.0 || step <= 0.0) return;
  o << "host        " << format_seconds(busy) << " of the step launching kernels and running framework code ("
    << pct(busy / step, 1.0) << ", busiest GPU's host): no faster kernel takes the step below it\n";
  // Where the host already paces the step, the bottleneck line says what removes it.
  if (busy >= 0.5 * step && work::critical_bottleneck(s.report) != topo::Resource::host)
    o << "            faster kernels (FP8, a faster GPU) gain less than their speed-up here; "
         "workload.cuda_graphs = true removes the launches\n";
}

/// "MFU / HFU" and which peak they divide by; a low-precision run also gets its MFU against the
/// BF16 peak, the figure most published MFUs use.
void utilisation_lines(std::ostringstream& o, const work::JobSpec& job, const work::Simulation& s,
                       const RunFigures& f) {
  const auto& m = s.metrics;
  o << "MFU / HFU   " << pct(m.mfu, 1.0) << " / " << pct(m.hfu, 1.0) << " of the " << f.mfu_peak
    << " dense peak (" << format_number(f.mfu_peak_flops / 1e12, 0) << " TFLOP/s per GPU); "
    << format_number(m.model_tflops_per_gpu, 1) << " model TFLOP/s per GPU\n";
  const double bf16 = job.cluster.gpu.bf16_peak.value();
  if (job.precision.low_precision_linears() && bf16 > 0.0)
    o << "            MFU against the BF16 dense peak (" << format_number(bf16 / 1e12, 0)
      << " TFLOP/s): " << pct(m.mfu * f.mfu_peak_flops / bf16, 1.0) << "\n";
  if (s.clock.duty >= 0.0)
    o << "clock       " << format_number(s.clock.clock, 3)
      << " of the short-run SM clock at the power limit, "
      << "tensor cores busy " << pct(s.clock.duty, 1.0) << " of the step (the GPU's clock_duty curve)\n";
  host_line(o, s, f);
}

/// Whether the step fits in memory: said before any rate, so that an impossible configuration
/// never reads as a result.
void feasibility_lines(std::ostringstream& o, const work::Simulation& s, const RunFigures& f) {
  const auto& peak = s.report.ranks[s.report.peak_rank];
  o << "memory      " << feasibility_text(f) << " (busiest rank: stage " << peak.stage << ")\n";
  if (!f.fits) o << "            the rates below are not achievable as configured\n";
  o << "\n";
}

/// The header and the headline figures: feasibility, step time, rates, MFU, the verdict,
/// inference and MoE lines.
void headline(std::ostringstream& o, const work::JobSpec& job, const work::Simulation& s,
              const RunLabels& labels) {
  const auto& m = s.metrics;
  const RunFigures f = run_figures(job, s);
  o << "stepsim run: " << labels.scenario << "\n"
    << "  " << labels.model << " on " << format_number(s.plan.world, 0) << " x " << labels.gpu << ", "
    << parallel_layout(job) << ", " << format_count(s.plan.microbatches, "micro-batch", "micro-batches")
    << " per step";
  if (job.pipeline_flushes() > 1) o << " in " << job.pipeline_flushes() << " pipeline schedules";
  o << " (" << format_count(static_cast<long long>(s.plan.ranks.size()), "rank", "ranks") << " simulated)\n";
  if (!job.workload.attention_note.empty())
    o << "  attention: unfused; " << job.workload.attention_note << "\n";
  const auto& c = job.cluster;
  if (c.rack_gpus > 0) {
    const int domains = (s.plan.world + c.nvlink_domain - 1) / c.nvlink_domain;
    o << "  NVLink: the job uses " << format_count(c.nvlink_domain, "GPU", "GPUs") << " of each "
      << c.rack_gpus << "-GPU domain (" << format_count(domains, "domain", "domains") << ")\n";
  }
  if (const std::string ep = ep_kernels_text(job); !ep.empty()) o << "  EP communication: " << ep << "\n";
  o << "\n";
  feasibility_lines(o, s, f);
  const auto line = [&o](const char* label, const std::string& value) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%-12s", label);
    o << buf << value << "\n";
  };
  const std::string mark = f.fits ? "" : std::string("  [") + kNotAchievable + "]";
  line("step time", format_seconds(m.step_time_s) + mark + "  (closed-form estimate " +
                        format_seconds(s.estimate.step_time_s) + ", " +
                        std::string(topo::name(s.estimate.bound)) + "-bound)");
  line("tokens/s", format_number(m.tokens_per_s_per_gpu, 1) + " per GPU, " +
                       format_number(m.tokens_per_s, 0) + " for the job" + mark);
  utilisation_lines(o, job, s, f);
  // The verdict ranks the breakdown table below; the critical path says which resource bounded
  // the longest chain of ops, a different question, and supports it.
  line("bottleneck", f.bottleneck);
  line("", "critical path: " + critical_line(s.report));
  // Stages that wait for a host-bound neighbour count as bubble in the breakdown: say what paces them.
  if (work::critical_bottleneck(s.report) == topo::Resource::host && f.verdict.primary.key != "host_bound")
    line(
        "",
        "the host's kernel launches pace the step (eager PyTorch); workload.cuda_graphs = true removes them");
  inference_lines(o, job, s, mark);
  moe_line(o, job, s);
  if (labels.validated) validated_lines(o, *labels.validated, m.step_time_s, 12);
  o << "\n";
}

/// Communication time per group and the share of it that compute hides.
std::string overlap_table(const work::Simulation& s) {
  TextTable ov({"communication", "busy per rank", "hidden under compute"});
  for (std::size_t d = 0; d < work::kDimCount; ++d) {
    const double busy = s.report.mean_overlap.busy_s[d];
    if (busy <= 0.0) continue;
    ov.add_row({std::string(work::name(static_cast<work::ParallelDim>(d))), format_seconds(busy),
                pct(busy - s.report.mean_overlap.exposed_s[d], busy)});
  }
  return ov.render();
}

/// The busiest rank's memory at its peak, and whether it fits.
std::string memory_table(const work::Simulation& s) {
  const auto& peak = s.report.ranks[s.report.peak_rank];
  const auto& st = s.plan.static_memory[s.report.peak_rank];
  TextTable mem({"memory (busiest rank: stage " + std::to_string(peak.stage) + ")", "bytes"});
  mem.add_row({"weights", format_bytes(st.weights)});
  mem.add_row({"gradients", format_bytes(st.gradients)});
  mem.add_row({"optimizer state", format_bytes(st.optimizer)});
  if (st.low_precision_weights > 0.0)
    mem.add_row({"FP8 weight copies", format_bytes(st.low_precision_weights)});
  mem.add_row({"activations at peak", format_bytes(peak.memory.activations)});
  mem.add_row({"peak / usable", format_bytes(peak.memory.peak) + " / " + format_bytes(s.usable_hbm)});
  const std::string usable = "  usable: " + format_gib(s.device_hbm) + " of device memory less " +
                             format_gib(s.device_hbm - s.usable_hbm) +
                             " (CUDA context, workspaces, NCCL buffers, fragmentation)\n";
  return mem.render() + usable +
         (s.fits ? "  fits\n"
                 : "  DOES NOT FIT: " + format_bytes(peak.memory.peak - s.usable_hbm) + " over capacity\n");
}

/// Why the simulation and the closed-form estimate differ, largest effect first.
void differences(std::ostringstream& o, const work::Simulation& s) {
  const auto diffs = work::explain_differences(s);
  if (diffs.empty()) return;
  o << "why the simulation differs from the closed-form estimate:\n";
  for (const auto& d : diffs)
    o << "  - " << d.effect << " (" << format_seconds(d.seconds) << "): " << d.detail << "\n";
  o << "\n";
}

/// Several steps under [variability]: the distribution, the nominal step, what the slowest waited on.
void steps_section(std::ostringstream& o, const work::JobSpec& job, const work::Simulation& s) {
  const work::StepDistribution& d = s.steps;
  if (d.empty()) return;
  const double n = static_cast<double>(d.steps.size());
  if (d.replayed && job.cluster.has_degradation())
    o << "steps       " << format_count(static_cast<long long>(d.steps.size()), "step", "steps")
      << " of every GPU (" << format_count(s.plan.world, "GPU", "GPUs")
      << ") replayed over the representative step on healthy links, with [variability]'s draws; the "
      << format_count(static_cast<long long>(d.degraded_copies), "GPU's copy", "GPUs' copies") << " of "
      << format_count(static_cast<long long>(d.degraded_ops), "collective", "collectives")
      << " whose groups the degraded links reach take up to x" << format_number(d.degraded_max_factor, 3)
      << " as long, the others their representative durations; the report above and below is the "
         "representative step\n";
  else if (d.replayed)
    o << "steps       " << format_count(static_cast<long long>(d.steps.size()), "step", "steps")
      << " of every GPU (" << format_count(s.plan.world, "GPU", "GPUs")
      << ") replayed over the representative step with [variability]'s draws (collectives at their "
         "representative durations); the report above and below is the representative step\n";
  else
    o << "steps       " << format_count(static_cast<long long>(d.steps.size()), "step", "steps")
      << " simulated with [variability]'s draws; the report above and below is the median step (step "
      << d.median_step << ")\n";
  TextTable t(
      {"step time over " + format_count(static_cast<long long>(n), "step", "steps"), "time", "vs nominal"});
  const auto row = [&](const std::string& label, double v) {
    t.add_row({label, format_seconds(v),
               d.nominal_s > 0 ? (v >= d.nominal_s ? "+" : "") + format_percent(v / d.nominal_s - 1.0)
                               : std::string("-")});
  };
  t.add_row({!job.cluster.has_degradation() ? "nominal (nothing varying)"
                                            : "nominal (healthy links, nothing varying)",
             format_seconds(d.nominal_s), ""});
  row("mean", d.mean_s);
  row("p50", d.p50_s);
  row("p90", d.p90_s);
  row("p99", d.p99_s);
  row("max (step " + std::to_string(d.slowest_step) + ")", d.max_s);
  o << t.render();
  if (d.mean_s > 0)
    o << "  at the mean step: " << format_number(s.metrics.tokens_per_step / d.mean_s / s.plan.world, 1)
      << " tokens/s per GPU\n";
  if (!job.cluster.degraded.empty()) {
    o << "  degraded links:";
    for (std::size_t i = 0; i < job.cluster.degraded.size(); ++i) {
      const auto& l = job.cluster.degraded[i];
      o << (i ? ", " : " ") << "rank " << l.gpu
        << (l.part == topo::LinkDegradation::Part::nic ? " NIC" : " NVLink")
        << (l.bandwidth > 0 ? " at " + format_percent(l.bandwidth, 0) : std::string(" down"));
    }
    o << "\n";
  }
  if (!job.cluster.degraded_switches.empty()) {
    o << "  degraded switches:";
    for (std::size_t i = 0; i < job.cluster.degraded_switches.size(); ++i) {
      const auto& w = job.cluster.degraded_switches[i];
      o << (i ? ", " : " ")
        << (w.tier == topo::SwitchDegradation::Tier::leaf    ? "leaf "
            : w.tier == topo::SwitchDegradation::Tier::spine ? "spine "
                                                             : "core ")
        << w.index << (w.bandwidth > 0 ? " at " + format_percent(w.bandwidth, 0) : std::string(" down"));
    }
    o << "\n";
  }
  if (d.gpus_varied > 0) {
    o << "  " << format_count(d.gpus_varied, "GPU differs", "GPUs differ") << " from nominal; slowest:";
    for (std::size_t i = 0; i < d.slow_gpus.size() && i < 5; ++i)
      o << (i ? ", " : " ") << "rank " << d.slow_gpus[i].rank << " x"
        << format_number(d.slow_gpus[i].factor, 3);
    o << "\n";
  }
  if (!d.slowest.ranks.empty()) {
    TextTable r({"slowest step waited on (GPU)", "kernels on its critical path", "time factor"});
    for (const auto& w : d.slowest.ranks)
      r.add_row({"rank " + std::to_string(w.rank), format_seconds(w.kernel_s), format_number(w.factor, 3)});
    o << r.render();
  }
  if (!d.slowest.ops.empty()) {
    TextTable k({"kernels variation lengthened most on that path", "rank", "time", "added"});
    for (const auto& w : d.slowest.ops)
      k.add_row({w.label + (w.stalled ? " (host stall)" : ""), std::to_string(w.rank),
                 format_seconds(w.duration_s), format_seconds(w.added_s)});
    o << k.render();
  }
  o << "\n";
}

}  // namespace

std::string run_table(const work::JobSpec& job, const work::Simulation& s, const RunLabels& labels) {
  std::ostringstream o;
  headline(o, job, s, labels);
  steps_section(o, job, s);
  TextTable bd({"where the time goes (mean over ranks)", "time", "share"});
  breakdown_rows(bd, s.report.mean, s.metrics.step_time_s);
  o << bd.render() << "\n" << overlap_table(s) << "\n" << memory_table(s) << "\n";
  differences(o, s);
  const double per_hour = job.cluster.gpu.price_per_hour * s.plan.world;
  const double tokens_per_s = s.metrics.tokens_per_s;
  o << "cost: $" << format_number(per_hour, 2) << " per hour for "
    << format_count(s.plan.world, "GPU", "GPUs") << ", $"
    << format_number(tokens_per_s > 0 ? per_hour / 3600.0 / tokens_per_s * 1e6 : 0.0, 3)
    << " per million tokens" << (s.fits ? "" : std::string("  [") + kNotAchievable + "]") << "\n";
  return o.str();
}

}  // namespace stepsim::out
