#pragma once
// Models from Hugging Face `config.json` files: `[model] hf_config = "config.json"` and
// `stepsim import`. A config is read into the same ModelSpec the catalog presets give; every key is
// mapped to a dimension, reported as not used by stepsim (HfModel::notes), or known to be
// irrelevant to a simulation (token ids, dtype, RoPE scaling details, versions).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/error.hpp"
#include "workloads/model/model.hpp"

namespace stepsim::scen {

/// A config.json read into stepsim's model description.
struct HfModel {
  work::ModelSpec model;     ///< id and name from the file name (or `_name_or_path`)
  std::string architecture;  ///< `architectures[0]`, e.g. "LlamaForCausalLM"
  std::string family;        ///< the supported family it was read as, e.g. "Llama 2/3/3.1/3.3"
  /// One line per key (or structural feature) of the config that stepsim does not simulate, e.g.
  /// "`sliding_window` = 4096 not used by stepsim (...)"; `stepsim check` prints them.
  std::vector<std::string> notes;
};

/// Where a config was named (a scenario's `model.hf_config`): errors about the file as a whole (not
/// found, an architecture stepsim cannot read) point there rather than into the JSON.
struct HfReference {
  SourceLocation where;
  std::string key;
};

/// Reads and maps `file`. Throws UserError: a missing file, malformed JSON (file:line:column as
/// the JSON parser reports it), an unsupported architecture (with the supported ones), a missing
/// required field, or a dimension that is not a positive whole number (at its key in the file).
HfModel load_hf_config(const std::filesystem::path& file, const std::optional<HfReference>& from = {});

/// As load_hf_config, from text; `file_name` names it in messages.
HfModel parse_hf_config(std::string_view json_text, const std::string& file_name,
                        const std::optional<HfReference>& from = {});

/// "LlamaForCausalLM (Llama 2/3/3.1/3.3), ..." for messages and `--help`.
std::string supported_hf_architectures();

/// The `[model]` table (explicit dimensions, a comment naming `source` and the architecture, the
/// notes as comments) that reads back into the same model: `stepsim import`.
std::string hf_model_toml(const HfModel& m, const std::string& source);

/// The [model] keys of a model's local attention (attention_window and its layers), "" without a
/// window: the lines `stepsim import` writes for Hugging Face configs and Megatron runs alike.
std::string attention_window_toml(const work::ModelSpec& m);
/// The attention's output gate, and a hybrid model's `hybrid_layers` line with its [model.mamba] and
/// [model.gated_delta] tables ("" for a plain transformer): last in a [model] table, since the
/// sub-tables end its plain keys.
std::string hybrid_toml(const work::ModelSpec& m);

}  // namespace stepsim::scen
