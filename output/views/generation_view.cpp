// A simulated static-batch generation as a terminal report and a JSON document.
#include "output/views/generation_view.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "output/common/format.hpp"
#include "output/common/text_table.hpp"
#include "output/views/accuracy_view.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

/// The busiest rank's memory peak over the generation: the larger of the prefill's and the
/// longest-context decode step's.
std::pair<double, double> memory_peak(const work::Generation& g) {
  const auto peak_of = [](const work::Simulation& s) {
    return s.report.ranks.empty() ? 0.0 : s.report.ranks[s.report.peak_rank].memory.peak.value();
  };
  return {std::max(peak_of(g.prefill), g.last_decode ? peak_of(*g.last_decode) : 0.0),
          g.prefill.usable_hbm.value()};
}

std::string fit_line(const work::Generation& g) {
  const auto [peak, usable] = memory_peak(g);
  const std::string figures = format_bytes(peak) + " / " + format_bytes(usable) + " usable per GPU";
  return g.fits ? "fits: " + figures + " at the longest context\n"
                : "DOES NOT FIT: " + figures + " (" + format_bytes(peak - usable) +
                      " over); the figures below are what the batch would take with enough memory\n";
}

std::string tpot_line(const work::Generation& g) {
  if (g.output_len <= 1) return "none (output_len = 1: the prefill yields the only token)";
  const auto& first = g.points.front();
  const auto& last = g.points.back();
  return format_seconds(g.tpot_s) + " mean (" + format_seconds(first.step_s) + " at output token " +
         std::to_string(first.output_position) + ", " + format_seconds(last.step_s) + " at token " +
         std::to_string(last.output_position) + ")";
}

void headline(std::ostringstream& o, const work::JobSpec& job, const work::Generation& g,
              const RunLabels& labels) {
  o << "stepsim run: " << labels.scenario << "\n"
    << "  " << labels.model << " on " << job.parallel.world() << " x " << labels.gpu << ", "
    << parallel_layout(job) << ", static batch of " << g.batch << " prompts, " << g.input_len << " in / "
    << g.output_len << " out\n\n"
    << fit_line(g);
  const auto line = [&o](const char* label, const std::string& value) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%-13s", label);
    o << buf << value << "\n";
  };
  line("whole batch", format_seconds(g.total_s) + "  (prefill " + format_seconds(g.ttft_s) + " + " +
                          std::to_string(g.output_len - 1) + " decode steps " + format_seconds(g.decode_s) +
                          "; " + std::to_string(g.points.size()) + " simulated, integration error about " +
                          format_seconds(g.integration_error_s) + ")");
  line("first token", format_seconds(g.ttft_s));
  line("per token", tpot_line(g));
  line("tokens/s", format_number(g.output_tokens_per_s_per_gpu, 1) + " output tokens/s per GPU, " +
                       format_number(g.output_tokens_per_s, 0) + " for the job");
  if (!g.points.empty())
    line("KV cache", format_bytes(g.points.front().kv_bytes_per_gpu) + " per GPU at the first decode step, " +
                         format_bytes(g.points.back().kv_bytes_per_gpu) + " at the last");
  if (labels.validated) validated_lines(o, *labels.validated, g.total_s, 13);
  o << "\n";
}

std::string points_table(const work::Generation& g) {
  TextTable t({"output token", "cached tokens", "decode step", "KV cache per GPU", "memory peak"});
  for (const auto& p : g.points)
    t.add_row({std::to_string(p.output_position), std::to_string(p.context_tokens), format_seconds(p.step_s),
               format_bytes(p.kv_bytes_per_gpu), format_bytes(p.memory_peak_bytes)});
  return t.render();
}

std::string step_share(const char* what, const work::Simulation& s) {
  const auto& b = s.report.mean;
  const double step = s.metrics.step_time_s;
  double comm = 0.0;
  for (double c : b.exposed_comm_s) comm += c;
  const auto share = [step](double x) { return format_number(step > 0 ? 100.0 * x / step : 0.0, 1) + "%"; };
  return std::string(what) + format_seconds(step) + ": compute " + share(b.compute_s) + ", memory-bound " +
         share(b.memory_bound_s) + ", exposed communication " + share(comm) + ", host-bound " +
         share(b.host_bound_s) + ", waiting " + share(b.bubble_s) + "\n";
}

Json points_json(const work::Generation& g) {
  Json a = Json::array();
  for (const auto& p : g.points)
    a.push_back({{"output_position", p.output_position},
                 {"context_tokens", p.context_tokens},
                 {"step_s", p.step_s},
                 {"kv_cache_bytes_per_gpu", p.kv_bytes_per_gpu},
                 {"memory_peak_bytes", p.memory_peak_bytes}});
  return a;
}

}  // namespace

nlohmann::ordered_json generation_json(const work::JobSpec& job, const work::Generation& g,
                                       const RunLabels& labels) {
  const auto [peak, usable] = memory_peak(g);
  Json j;
  j["scenario"] = labels.scenario;
  j["model"] = labels.model;
  j["gpu"] = labels.gpu;
  j["kind"] = "generate";
  j["gpus"] = job.parallel.world();
  j["fits"] = g.fits;
  j["memory_peak_bytes"] = peak;
  j["memory_usable_bytes"] = usable;
  j["batch"] = g.batch;
  j["input_len"] = g.input_len;
  j["output_len"] = g.output_len;
  j["total_s"] = g.total_s;
  j["time_to_first_token_s"] = g.ttft_s;
  j["decode_s"] = g.decode_s;
  j["time_per_output_token_s"] = g.tpot_s;
  j["integration_error_s"] = g.integration_error_s;
  j["output_tokens_per_s"] = g.output_tokens_per_s;
  j["output_tokens_per_s_per_gpu"] = g.output_tokens_per_s_per_gpu;
  j["decode_steps"] = points_json(g);
  if (labels.validated) j["validated"] = validated_json(*labels.validated, g.total_s);
  // The steps inside the batch are not runs of their own: no accuracy line of their own kind.
  RunLabels step_labels = labels;
  step_labels.validated = std::nullopt;
  j["prefill"] = run_json(work::prefill_job(job), g.prefill, step_labels);
  j["last_decode"] = g.last_decode ? run_json(work::decode_job(job, g.points.back().context_tokens),
                                              *g.last_decode, step_labels)
                                   : Json(nullptr);
  return j;
}

std::string generation_json_text(const work::JobSpec& job, const work::Generation& g,
                                 const RunLabels& labels) {
  return generation_json(job, g, labels).dump(2) + "\n";
}

std::string generation_table(const work::JobSpec& job, const work::Generation& g, const RunLabels& labels) {
  std::ostringstream o;
  headline(o, job, g, labels);
  if (!g.points.empty()) o << points_table(g) << "\n";
  o << step_share("prefill ", g.prefill);
  if (g.last_decode) o << step_share("last decode step ", *g.last_decode);
  const double per_hour = job.cluster.gpu.price_per_hour * job.parallel.world();
  o << "\ncost: $" << format_number(per_hour, 2) << " per hour for " << job.parallel.world() << " GPUs, $"
    << format_number(g.output_tokens_per_s > 0 ? per_hour / 3600.0 / g.output_tokens_per_s * 1e6 : 0.0, 3)
    << " per million output tokens\n";
  return o.str();
}

}  // namespace stepsim::out
