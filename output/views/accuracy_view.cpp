#include "output/views/accuracy_view.hpp"

#include <algorithm>
#include <cmath>

#include "output/common/format.hpp"

namespace stepsim::out {
namespace {

/// "13.2% below" / "0.8% above": a signed error (simulated - measured) / measured in words.
std::string side(double error) {
  return format_percent(std::abs(error), 1) + (error < 0.0 ? " below" : " above");
}

}  // namespace

std::string validated_text(const scen::AccuracyMatch& m, double predicted_s) {
  if (!m.band)
    return "no published run like this one (" + m.cls.text() +
           ") is in stepsim's validation set: this prediction is unchecked against measurements";
  const scen::AccuracyBand& b = *m.band;
  std::string s;
  if (!m.via.empty())
    s = "no published run on " + m.cls.gpu + " (a preset variant of " + m.via + "); on " + m.via + ", ";
  s += format_count(b.runs, "published run", "published runs") + " like this one (" + b.cls.text() +
       "): simulated ";
  if (b.runs == 1) {
    s += side(b.mean_error) + " the measurement";
  } else {
    s += side(b.min_error) + " to " + side(b.max_error) + " the measurements (mean " + side(b.mean_error) +
         ")";
  }
  const auto [low, high] = m.implied_s(predicted_s);
  s += "\nerring as they did, this run would measure " +
       (b.runs == 1 ? format_seconds(low) : format_seconds(low) + " to " + format_seconds(high)) +
       " (`stepsim validate`; README, Accuracy)";
  if (!m.via.empty()) s += "; what " + m.cls.gpu + " changes is unchecked";
  return s;
}

std::string validated_cell(const scen::AccuracyMatch& m) {
  if (!m.band) return "no published run";
  const scen::AccuracyBand& b = *m.band;
  const std::string on = m.via.empty() ? "" : "on " + m.via + ": ";
  if (b.runs == 1) return on + side(b.mean_error) + " (1 run)";
  return on + "mean " + side(b.mean_error) + " (" + std::to_string(b.runs) + " runs, " + side(b.min_error) +
         " to " + side(b.max_error) + ")";
}

void validated_lines(std::ostream& o, const scen::AccuracyMatch& m, double predicted_s, int width) {
  const std::string pad(static_cast<std::size_t>(width), ' ');
  std::string label = "validated";
  label.resize(std::max(label.size(), pad.size()), ' ');
  std::string text = validated_text(m, predicted_s);
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1 + pad.size()))
    text.insert(at + 1, pad);
  o << label << text << "\n";
}

nlohmann::ordered_json validated_json(const scen::AccuracyMatch& m, double predicted_s) {
  nlohmann::ordered_json j;
  j["class"] = {{"gpu", m.cls.gpu},
                {"workload", m.cls.workload},
                {"moe", m.cls.moe},
                {"precision", m.cls.precision},
                {"size", m.cls.size}};
  if (!m.band) {
    j["runs"] = 0;
    return j;
  }
  const scen::AccuracyBand& b = *m.band;
  const auto [low, high] = m.implied_s(predicted_s);
  if (!m.via.empty()) j["via_preset"] = m.via;  // the runs are of this base part, not of the GPU
  j["runs"] = b.runs;
  j["mean_error"] = b.mean_error;
  j["min_error"] = b.min_error;
  j["max_error"] = b.max_error;
  j["mape"] = b.mape;
  j["groups"] = b.groups;
  j["implied_s"] = {low, high};
  return j;
}

}  // namespace stepsim::out
