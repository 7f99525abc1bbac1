// Transformer Engine userbuffers' per-GEMM configuration in the YAML Megatron-LM and NeMo 1 take
// (TE's ub_cfgs, transformer_engine/pytorch/module/base.py initialize_ub): each GEMM's name maps to
// its overlap method and settings. Read for `stepsim import` into [parallelism.tp_overlap.<gemm>].
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "scenarios/megatron_detail.hpp"
#include "scenarios/suggest.hpp"
#include "scenarios/toml_text.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::scen::megatron {
namespace {

/// Transformer Engine's names of the overlapped GEMMs (work::name(UbGemm)).
std::vector<std::string> ub_gemm_names() {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < work::kUbGemms; ++i) out.emplace_back(work::name(static_cast<work::UbGemm>(i)));
  return out;
}

enum class UbKey { word, whole, flag };
struct UbKeyRow {
  std::string_view name;
  UbKey kind;
};
/// The keys stepsim reads; cga_size is carried over (accepted without a modelled effect).
constexpr auto kUbKeys = std::to_array<UbKeyRow>({{"method", UbKey::word},
                                                  {"num_sm", UbKey::whole},
                                                  {"cga_size", UbKey::whole},
                                                  {"set_sm_margin", UbKey::flag},
                                                  {"num_splits", UbKey::whole},
                                                  {"aggregate", UbKey::flag},
                                                  {"fp8_buf", UbKey::flag}});

SourceLocation where_at(const YAML::Node& n, const std::string& file) {
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return SourceLocation{file};
  return SourceLocation{file, m.line + 1, m.column + 1};
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// A value as TOML, checked against its key's kind.
std::string toml_value(const YAML::Node& v, UbKey kind, const std::string& file, const std::string& key) {
  if (!v.IsScalar())
    throw UserError(where_at(v, file), key, "expected a value, got a table or list", "e.g. num_sm: 16");
  const std::string text = v.Scalar();
  switch (kind) {
    case UbKey::word: return toml_string(text);
    case UbKey::whole: {
      const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                       [](unsigned char c) { return std::isdigit(c) != 0; });
      if (!digits || text.size() > 6)
        throw UserError(where_at(v, file), key, "expected a whole number, got `" + text + "`", "e.g. 16");
      return text;
    }
    case UbKey::flag: {
      const std::string t = lower(text);
      if (t == "1" || t == "true") return "true";
      if (t == "0" || t == "false") return "false";
      throw UserError(where_at(v, file), key, "expected true / false (or 1 / 0), got `" + text + "`",
                      "TE's configs write 0 / 1 or a bool");
    }
  }
  return text;
}

}  // namespace

void read_ub_cfg(const YAML::Node& map, const std::string& file, const std::string& spelled, ImportedRun& r) {
  if (!map.IsMap())
    throw UserError(where_at(map, file), spelled, "expected a mapping of GEMM names (proj_fprop: {...})",
                    "Transformer Engine's ub_cfgs: one table per GEMM");
  const std::vector<std::string> names = ub_gemm_names();
  for (const auto& entry : map) {
    const std::string gemm = entry.first.as<std::string>();
    const std::string at = spelled + "." + gemm;
    if (std::find(names.begin(), names.end(), gemm) == names.end()) {
      const std::string hint = did_you_mean(gemm, names);
      r.not_used.push_back(at + " (not one of Transformer Engine's overlapped GEMMs" +
                           (hint.empty() ? "" : "; " + hint) + ")");
      continue;
    }
    if (entry.second.IsNull()) continue;
    if (!entry.second.IsMap())
      throw UserError(where_at(entry.second, file), at, "expected the GEMM's settings as a mapping",
                      "e.g. proj_fprop: {method: pipeline, num_sm: 24, set_sm_margin: 1}");
    ImportedRun::UbGemmConfig c{gemm, {}};
    for (const auto& kv : entry.second) {
      const std::string key = kv.first.as<std::string>();
      if (kv.second.IsNull()) continue;
      const auto row =
          std::find_if(kUbKeys.begin(), kUbKeys.end(), [&](const UbKeyRow& k) { return k.name == key; });
      if (row != kUbKeys.end()) {
        c.keys.emplace_back(key, toml_value(kv.second, row->kind, file, at + "." + key));
      } else if (key == "atomic_gemm" && toml_value(kv.second, UbKey::flag, file, at + "." + key) == "true") {
        r.not_used.push_back(at +
                             ".atomic_gemm (atomic GEMM overlap is not modelled: the GEMM runs its "
                             "method without it)");
      } else if (key != "atomic_gemm") {
        // use_ce, comm_priority, gemm_priority, pipeline_rs_overlap_first_gemm, ...
        r.not_used.push_back(at + "." + key + " (no modelled effect on the overlap)");
      }
    }
    r.tp_overlap.push_back(std::move(c));
  }
}

}  // namespace stepsim::scen::megatron
