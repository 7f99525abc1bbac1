// The simulated sizing as a terminal report and as JSON.
#include "output/views/size_view.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "output/common/format.hpp"
#include "output/common/text_table.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

Json sizing_number(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

std::string_view sizing_outcome_name(SizingOutcome o) {
  switch (o) {
    case SizingOutcome::sized: return "sized";
    case SizingOutcome::does_not_fit: return "does_not_fit";
    case SizingOutcome::unreachable: return "unreachable";
  }
  return "?";
}

std::string sizing_usd(double v, int decimals) {
  return std::isfinite(v) ? "$" + format_number(v, decimals) : "n/a (no GPU price in the catalog)";
}

/// "TP8 PP4x5": the model-parallel shape that stays fixed.
std::string shape_text(const KeptLayout& k) {
  std::string s = "TP" + std::to_string(k.tp) + " PP" + std::to_string(k.pp);
  if (k.virtual_stages > 1) s += "x" + std::to_string(k.virtual_stages);
  if (k.cp > 1) s += " CP" + std::to_string(k.cp);
  if (k.ep > 1) s += " EP" + std::to_string(k.ep);
  if (k.expert_tp > 1) s += " expert-TP" + std::to_string(k.expert_tp);
  return s;
}

/// "32 micro-batches of 1 sequence" or "batch 64" per replica.
std::string replica_batch_text(const KeptLayout& k) {
  if (k.micro_batches == 0) return "batch " + std::to_string(k.batch) + " per replica";
  return std::to_string(k.micro_batches) + (k.micro_batches == 1 ? " micro-batch" : " micro-batches") +
         " of " + std::to_string(k.micro_batch) + (k.micro_batch == 1 ? " sequence" : " sequences") +
         " per replica";
}

std::string verdict_line(const SizingResult& r) {
  switch (r.outcome) {
    case SizingOutcome::sized:
      return "sized: " + format_number(r.chosen.gpus, 0) + " GPUs (" + format_number(r.chosen.nodes, 0) +
             " nodes, DP " + std::to_string(r.chosen.dp) + "), fits in memory, simulated " +
             format_number(r.chosen.tokens_per_s, 0) + " tokens/s\n";
    case SizingOutcome::does_not_fit: return "INFEASIBLE, not sized: " + r.message + "\n";
    case SizingOutcome::unreachable: return "UNREACHABLE, not sized: " + r.message + "\n";
  }
  return {};
}

void add_run_row(TextTable& t, std::string label, const SizedRun& s, const std::string& note) {
  t.add_row({std::move(label), format_number(s.gpus, 0), std::to_string(s.dp),
             s.global_batch > 0 ? format_number(s.global_batch, 0) : "-", format_number(s.tokens_per_s, 0),
             format_number(s.tokens_per_s_per_gpu, 1), format_seconds(s.step_time_s),
             s.fits ? "fits" : "DOES NOT FIT", note});
}

std::string sizes_table(const SizingResult& r) {
  TextTable t({"", "GPUs", "DP", "global batch", "tokens/s", "per GPU", "step", "memory", ""},
              {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
               Align::right, Align::left, Align::left});
  const auto meets = [](const SizedRun& s) { return std::string(s.meets_target ? "meets target" : "short"); };
  const std::string chosen = r.outcome == SizingOutcome::unreachable ? "largest tried"
                             : r.outcome == SizingOutcome::sized     ? "sized"
                                                                     : "reaches target";
  if (r.chosen.dp == r.given.dp) {
    add_run_row(t,
                r.outcome == SizingOutcome::sized ? "sized = as given (simulated)" : "as given (simulated)",
                r.given, meets(r.given));
  } else {
    add_run_row(t, "as given (simulated)", r.given, meets(r.given));
    add_run_row(t, chosen + " (simulated)", r.chosen, meets(r.chosen));
  }
  if (r.smaller && r.smaller->dp != r.given.dp)
    add_run_row(t, "next smaller (simulated)", *r.smaller, "short");
  const ClosedFormSizing& c = r.closed_form;
  if (c.reachable && c.gpus > 0)
    t.add_row({"closed form (estimate)", format_number(c.gpus, 0), c.dp > 0 ? std::to_string(c.dp) : "-",
               r.given.global_batch > 0 ? format_number(r.given.global_batch, 0) : "-",
               format_number(c.tokens_per_s_per_gpu * c.gpus, 0), format_number(c.tokens_per_s_per_gpu, 1),
               "-", "-", "not simulated"});
  return t.render();
}

std::string closed_form_line(const SizingResult& r) {
  const ClosedFormSizing& c = r.closed_form;
  if (!c.reachable) return "closed form: unreachable (" + c.note + ")\n";
  if (c.gpus == 0) return {};
  std::string s = "closed form: `stepsim estimate --target` says " + format_number(c.gpus, 0) + " GPUs";
  const double short_by = r.closed_form_shortfall();
  if (r.outcome == SizingOutcome::sized && std::isfinite(short_by)) {
    char buf[96];
    std::snprintf(buf, sizeof buf,
                  short_by >= 0.0 ? "; it under-sizes by %.1f%%" : "; it over-sizes by %.1f%%",
                  100.0 * std::fabs(short_by));
    s += buf;
  }
  s += r.layout.micro_batches > 0 ? " (it keeps the global batch fixed and does not simulate)\n"
                                  : " (it does not simulate)\n";
  if (!c.note.empty()) s += "  estimate: " + c.note + "\n";
  return s;
}

std::string money_lines(const SizingResult& r) {
  if (r.outcome != SizingOutcome::sized) return {};
  std::string s = "cost: " + sizing_usd(r.cluster_per_hour(), 2) + "/h for " +
                  format_number(r.chosen.gpus, 0) + " GPUs at " + sizing_usd(r.price_per_gpu_hour, 2) +
                  " per GPU-hour, " + sizing_usd(r.per_million_tokens(), 4) + " per million tokens\n";
  if (!r.run) return s;
  char days[64];
  std::snprintf(days, sizeof days, "%.1f", r.run_days());
  s += "run: " + format_number(r.run->tokens, 0) + " tokens in " + format_number(r.run->days, 1) +
       " days needs " + format_number(r.target_tokens_per_s, 0) + " tokens/s; the sized cluster takes " +
       days + " days, " + format_number(r.run_gpu_hours(), 0) + " GPU-hours, " + sizing_usd(r.run_usd(), 0) +
       "\n";
  return s;
}

std::string simulated_line(const SizingResult& r) {
  std::string s = "simulated sizes (DP, in order):";
  for (const SizedRun& x : r.simulated) s += " " + std::to_string(x.dp);
  const std::size_t n = r.simulated.size();
  return s + " (" + std::to_string(n) + (n == 1 ? " simulation)\n" : " simulations)\n");
}

Json sized_run_json(const SizedRun& s) {
  return Json{
      {"dp", s.dp},
      {"gpus", s.gpus},
      {"nodes", s.nodes},
      {"global_batch", s.global_batch > 0 ? Json(s.global_batch) : Json(nullptr)},
      {"tokens_per_s", s.tokens_per_s},
      {"tokens_per_s_per_gpu", s.tokens_per_s_per_gpu},
      {"step_time_s", s.step_time_s},
      {"mfu", s.mfu},
      {"meets_target", s.meets_target},
      {"memory", {{"fits", s.fits}, {"peak_bytes", s.peak_bytes}, {"capacity_bytes", s.capacity_bytes}}},
      {"closed_form_tokens_per_s", sizing_number(s.closed_form_tokens_per_s)}};
}

Json kept_layout_json(const KeptLayout& k) {
  return Json{{"tp", k.tp},
              {"pp", k.pp},
              {"cp", k.cp},
              {"ep", k.ep},
              {"expert_tp", k.expert_tp},
              {"virtual_stages", k.virtual_stages},
              {"gpus_per_replica", k.gpus_per_replica},
              {"micro_batch", k.micro_batch > 0 ? Json(k.micro_batch) : Json(nullptr)},
              {"micro_batches_per_replica", k.micro_batches > 0 ? Json(k.micro_batches) : Json(nullptr)},
              {"batch_per_replica", k.batch > 0 ? Json(k.batch) : Json(nullptr)},
              {"dp_step", k.dp_step}};
}

Json sizing_closed_form_json(const SizingResult& r) {
  const ClosedFormSizing& c = r.closed_form;
  const bool sized = r.outcome == SizingOutcome::sized;
  return Json{{"reachable", c.reachable},
              {"gpus", c.gpus},
              {"dp", c.dp > 0 ? Json(c.dp) : Json(nullptr)},
              {"tokens_per_s_per_gpu", sizing_number(c.tokens_per_s_per_gpu)},
              {"tokens_per_s", sizing_number(c.tokens_per_s_per_gpu * c.gpus)},
              {"undersized_by", sized ? sizing_number(r.closed_form_shortfall()) : Json(nullptr)},
              {"note", c.note}};
}

Json sizing_cost_json(const SizingResult& r) {
  const bool sized = r.outcome == SizingOutcome::sized;
  Json run = nullptr;
  if (sized && r.run)
    run = Json{{"days", r.run_days()}, {"gpu_hours", r.run_gpu_hours()}, {"usd", sizing_number(r.run_usd())}};
  return Json{{"price_per_gpu_hour", r.price_per_gpu_hour > 0.0 ? Json(r.price_per_gpu_hour) : Json(nullptr)},
              {"cluster_per_hour", sized ? sizing_number(r.cluster_per_hour()) : Json(nullptr)},
              {"per_million_tokens", sized ? sizing_number(r.per_million_tokens()) : Json(nullptr)},
              {"run", std::move(run)}};
}

}  // namespace

std::string size_table(const SizingResult& r) {
  std::string s = "stepsim size: " + r.scenario + "\n";
  s += "  " + r.model + " on " + r.gpu + "; kept: " + shape_text(r.layout) + " (" +
       std::to_string(r.layout.gpus_per_replica) + " GPUs per replica), " + replica_batch_text(r.layout) +
       "; DP scales in steps of " + std::to_string(r.layout.dp_step) + "\n";
  s += "  target " + format_number(r.target_tokens_per_s, 0) + " tokens/s";
  if (r.run)
    s += " (" + format_number(r.run->tokens, 0) + " tokens in " + format_number(r.run->days, 1) + " days)";
  s += "\n\n" + verdict_line(r) + "\n";
  s += sizes_table(r) + "\n";
  if (r.outcome == SizingOutcome::sized)
    s += "sized job: step " + format_seconds(r.chosen.step_time_s) + ", " +
         format_number(r.chosen.tokens_per_s_per_gpu, 1) + " tokens/s per GPU, busiest GPU " +
         format_bytes(r.chosen.peak_bytes) + " of " + format_bytes(r.chosen.capacity_bytes) + " usable\n";
  s += closed_form_line(r);
  s += money_lines(r);
  s += simulated_line(r);
  return s;
}

std::string size_json_text(const SizingResult& r) {
  const bool sized = r.outcome == SizingOutcome::sized;
  Json j;
  j["scenario"] = r.scenario;
  j["model"] = r.model;
  j["gpu"] = r.gpu;
  j["status"] = std::string(sizing_outcome_name(r.outcome));
  j["feasible"] = r.chosen.fits;
  j["message"] = r.message;
  j["target"] = {{"tokens_per_s", r.target_tokens_per_s},
                 {"tokens", r.run ? Json(r.run->tokens) : Json(nullptr)},
                 {"days", r.run ? Json(r.run->days) : Json(nullptr)}};
  j["gpus"] = sized ? Json(r.chosen.gpus) : Json(nullptr);
  j["dp"] = sized ? Json(r.chosen.dp) : Json(nullptr);
  j["tokens_per_s"] = sized ? Json(r.chosen.tokens_per_s) : Json(nullptr);
  j["tokens_per_s_per_gpu"] = sized ? Json(r.chosen.tokens_per_s_per_gpu) : Json(nullptr);
  j["step_time_s"] = sized ? Json(r.chosen.step_time_s) : Json(nullptr);
  j["layout"] = kept_layout_json(r.layout);
  j["given"] = sized_run_json(r.given);
  j["chosen"] = sized_run_json(r.chosen);
  j["smaller"] = r.smaller ? sized_run_json(*r.smaller) : Json(nullptr);
  j["closed_form"] = sizing_closed_form_json(r);
  j["cost"] = sizing_cost_json(r);
  Json sims = Json::array();
  for (const SizedRun& x : r.simulated) sims.push_back(sized_run_json(x));
  j["simulated"] = std::move(sims);
  return j.dump(2) + "\n";
}

}  // namespace stepsim::out
