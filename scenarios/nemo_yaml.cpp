// `stepsim import --nemo FILE.yaml`: a NeMo (1.x, Megatron-style) training config into the same
// RunArguments as a Megatron-LM command line. model.* keys mostly carry Megatron's option names
// in snake_case; the others are renamed here (encoder_seq_length -> seq_length, bias ->
// add_bias_linear, optim.name -> the optimizer, ...). trainer.num_nodes, trainer.devices and
// trainer.precision give the cluster and precision. `${a.b}` resolves to another key of the file.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <utility>

#include "scenarios/megatron_detail.hpp"

namespace stepsim::scen {
namespace nemo_yaml {

using megatron::RunArgument;

struct Rename {
  std::string_view nemo;  ///< path under model (or trainer)
  std::string_view name;  ///< Megatron-LM's option name
};

constexpr auto kRenames = std::to_array<Rename>({
    {"activations_checkpoint_granularity", "recompute_granularity"},
    {"activations_checkpoint_method", "recompute_method"},
    {"activations_checkpoint_num_layers", "recompute_num_layers"},
    {"bias", "add_bias_linear"},
    {"encoder_seq_length", "seq_length"},
    {"fp8_params", "fp8_param_gather"},
    {"num_moe_experts", "num_experts"},
    {"optim.bucket_cap_mb", "bucket_cap_mb"},
    {"optim.name", "nemo_optimizer"},
    {"optim.overlap_grad_sync", "overlap_grad_reduce"},
    {"optim.overlap_param_sync", "overlap_param_gather"},
    {"rotary_percentage", "rotary_percent"},
    {"tokenizer.type", "tokenizer_model"},
    {"ub_tp_comm_overlap", "tp_comm_overlap"},
});

/// Tables under model that only hold settings without effect on a step.
constexpr auto kNoEffectTables =
    std::to_array<std::string_view>({"data", "nsys_profile", "optim", "tokenizer", "peft", "memory_profile"});

std::string canonical(const std::string& path) {
  for (const auto& r : kRenames)
    if (r.nemo == path) return std::string(r.name);
  return path;
}

SourceLocation where_of(const YAML::Node& n, const std::string& file) {
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return SourceLocation{file};
  return SourceLocation{file, m.line + 1, m.column + 1};
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at <= path.size();) {
    const std::size_t dot = std::min(path.find('.', at), path.size());
    out.emplace_back(path.substr(at, dot - at));
    at = dot + 1;
  }
  return out;
}

/// Resolves `${a.b}` (absolute) and `${.b}` / `${..b}` (relative to the key's table, as OmegaConf
/// does) in the values of the keys stepsim reads.
class Interpolator {
 public:
  Interpolator(const YAML::Node& root, std::string file) : root_(root), file_(std::move(file)) {}

  std::string resolve(const std::string& text, const std::string& key, const YAML::Node& at,
                      int depth = 0) const {
    std::string out;
    std::size_t from = 0;
    for (std::size_t open = text.find("${"); open != std::string::npos; open = text.find("${", from)) {
      const std::size_t close = text.find('}', open);
      if (close == std::string::npos) fail(key, at, "`" + text + "` opens `${` without closing it", "");
      out += text.substr(from, open - from) + lookup(text.substr(open + 2, close - open - 2), key, at, depth);
      from = close + 1;
    }
    return out + text.substr(from);
  }

 private:
  std::string lookup(const std::string& ref, const std::string& key, const YAML::Node& at, int depth) const {
    if (depth > 16) fail(key, at, "`${" + ref + "}` goes round in a loop of interpolations", "");
    if (ref.find(':') != std::string::npos)
      fail(key, at, "`${" + ref + "}` calls a resolver stepsim cannot evaluate", "write its value instead");
    std::vector<std::string> parts = split_path(key);
    parts.pop_back();  // the key's own table
    std::string_view rest = ref;
    if (!rest.empty() && rest[0] == '.') {
      rest.remove_prefix(1);
      for (; !rest.empty() && rest[0] == '.'; rest.remove_prefix(1))
        if (!parts.empty()) parts.pop_back();
    } else {
      parts.clear();
    }
    for (auto& p : split_path(rest)) parts.push_back(std::move(p));
    // Node::operator= would overwrite the node it refers to: walk with reset(), on const views.
    YAML::Node node = root_;
    std::string path;
    for (const auto& p : parts) {
      path += (path.empty() ? "" : ".") + p;
      const YAML::Node next = node.IsMap() ? std::as_const(node)[p] : YAML::Node(YAML::NodeType::Undefined);
      if (!next.IsDefined())
        fail(key, at, "`${" + ref + "}` names `" + path + "`, a key the file does not have",
             "interpolations must name another key of this file");
      if (next.IsNull())
        fail(key, at, "`${" + ref + "}` names `" + path + "`, which is null", "give it a value");
      node.reset(next);
    }
    if (!node.IsScalar()) fail(key, at, "`${" + ref + "}` names a table or list, not a value", "");
    return resolve(node.Scalar(), path, node, depth + 1);
  }

  [[noreturn]] void fail(const std::string& key, const YAML::Node& at, const std::string& problem,
                         const std::string& hint) const {
    throw UserError(where_of(at, file_), key, problem, hint);
  }

  YAML::Node root_;
  std::string file_;
};

/// Turns model.* and trainer.* into RunArguments (values of the keys stepsim reads resolved).
class Flattener {
 public:
  Flattener(const YAML::Node& root, std::string file, ImportedRun& notes)
      : interpolator_(root, file), file_(std::move(file)), notes_(notes) {}

  std::vector<RunArgument> arguments;

  void table(const YAML::Node& map, const std::string& section, const std::string& prefix) {
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      const std::string rel = prefix.empty() ? key : prefix + "." + key;
      const std::string spelled = section + "." + rel;
      const YAML::Node& value = kv.second;
      if (value.IsNull()) continue;  // null: not given
      if (value.IsMap()) {
        sub_table(value, section, prefix, key, spelled);
        continue;
      }
      if (section == "trainer") {
        trainer_key(key, spelled, value);
        continue;
      }
      const std::string name = canonical(rel);
      if (rel.find('.') != std::string::npos && name == rel) {
        no_effect(spelled);  // optim.lr, tokenizer.library, ...
        continue;
      }
      add(name, spelled, value);
    }
  }

 private:
  void sub_table(const YAML::Node& value, const std::string& section, const std::string& prefix,
                 const std::string& key, const std::string& spelled) {
    const bool model_top = section == "model" && prefix.empty();
    if (model_top && key == "ub_tp_comm_overlap_cfg") {
      megatron::read_ub_cfg(value, file_, spelled, notes_);
      notes_.tp_overlap_from = spelled;
    } else if (model_top && (key == "optim" || key == "tokenizer"))
      table(value, section, key);
    else if (section == "trainer" || !prefix.empty() ||
             std::find(kNoEffectTables.begin(), kNoEffectTables.end(), key) != kNoEffectTables.end())
      no_effect(spelled);
    else
      notes_.not_used.push_back(spelled + " (a table stepsim does not read)");
  }

  void trainer_key(const std::string& key, const std::string& spelled, const YAML::Node& value) {
    if (key == "num_nodes" || key == "devices" || key == "precision") {
      add(key, spelled, value);
    } else if (key == "accumulate_grad_batches" && !(value.IsScalar() && value.Scalar() == "1")) {
      add(key, spelled, value);
    } else {
      no_effect(spelled);
    }
  }

  void add(const std::string& name, const std::string& spelled, const YAML::Node& value) {
    RunArgument a;
    a.name = name;
    a.spelled = spelled;
    a.where = where_of(value, file_);
    const bool read = megatron::arity_of(name) != megatron::Arity::unknown;
    const auto text = [&](const YAML::Node& n) {
      if (!n.IsScalar()) return std::string("(a table)");
      return read ? interpolator_.resolve(n.Scalar(), spelled, n) : n.Scalar();
    };
    if (value.IsSequence()) {
      std::string list;
      for (const auto& item : value) {
        a.values.push_back(text(item));
        list += (list.empty() ? "" : ",") + a.values.back();
      }
      if (name == "moe_layer_freq") a.values = {"[" + list + "]"};
    } else {
      a.values.push_back(text(value));
    }
    arguments.push_back(std::move(a));
  }

  void no_effect(const std::string& spelled) { notes_.no_effect.push_back(spelled); }

  Interpolator interpolator_;
  std::string file_;
  ImportedRun& notes_;
};

YAML::Node parse(std::string_view text, const std::string& file) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    const SourceLocation where =
        e.mark.is_null() ? SourceLocation{file} : SourceLocation{file, e.mark.line + 1, e.mark.column + 1};
    throw UserError(where, "", "is not valid YAML: " + e.msg,
                    "a NeMo config is a YAML mapping with model: and trainer:");
  }
}

}  // namespace nemo_yaml

ImportedRun import_nemo_text(std::string_view text, const std::string& file_name,
                             const ImportCluster& cluster, const Catalog& catalog) {
  using namespace nemo_yaml;
  const YAML::Node root = parse(text, file_name);
  // An absent key is an invalid node, which throws on every question but IsDefined().
  if (!root.IsMap() || !root["model"].IsDefined() || !root["model"].IsMap())
    throw UserError(
        SourceLocation{file_name}, "", "has no `model:` table",
        "a NeMo (1.x) Megatron GPT config: model.num_layers, model.hidden_size, ..., trainer.num_nodes");
  ImportedRun notes;
  Flattener flat(root, file_name, notes);
  std::string other;
  try {
    for (const auto& kv : root) {
      const std::string key = kv.first.as<std::string>();
      if ((key == "model" || key == "trainer") && kv.second.IsMap())
        flat.table(kv.second, key, "");
      else
        other += (other.empty() ? "" : ", ") + key;
    }
  } catch (const YAML::Exception& e) {  // a key that is not a scalar, e.g. `? [a, b]`
    throw UserError(SourceLocation{file_name, e.mark.line + 1, e.mark.column + 1}, "",
                    "has a key stepsim cannot read: " + e.msg, "keys are plain names");
  }
  ImportedRun r = megatron::resolve_run(
      megatron::read_settings(flat.arguments, megatron::Dialect::nemo, file_name), cluster, catalog);
  r.not_used.insert(r.not_used.begin(), notes.not_used.begin(), notes.not_used.end());
  r.no_effect.insert(r.no_effect.end(), notes.no_effect.begin(), notes.no_effect.end());
  r.tp_overlap = std::move(notes.tp_overlap);
  r.tp_overlap_from = std::move(notes.tp_overlap_from);
  if (!r.tp_comm_overlap && !r.tp_overlap.empty())
    r.not_used.push_back(r.tp_overlap_from +
                         " (configures userbuffers, but model.ub_tp_comm_overlap is off)");
  if (!other.empty()) r.skipped.push_back("the file's other sections (" + other + ")");
  r.format = "NeMo config";
  r.model.name = std::filesystem::path(file_name).stem().string();
  return r;
}

ImportedRun import_nemo_config(const std::filesystem::path& file, const ImportCluster& cluster,
                               const Catalog& catalog) {
  const std::string text = megatron::read_run_file(file, "a NeMo YAML config");
  return import_nemo_text(text, file.string(), cluster, catalog);
}

}  // namespace stepsim::scen
