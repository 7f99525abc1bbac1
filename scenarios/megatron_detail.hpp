#pragma once
// Inside the Megatron-LM / NeMo importer (megatron_args.hpp): both readers turn their file into a
// list of RunArguments named as Megatron-LM's options are (snake_case), megatron_flags.cpp reads
// them against one table into RunSettings, and megatron_resolve.cpp applies Megatron's defaults
// and derivations to make an ImportedRun.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/catalog.hpp"
#include "scenarios/megatron_args.hpp"
#include "sim/error.hpp"

namespace YAML {
class Node;
}

namespace stepsim::scen::megatron {

/// Which spelling the arguments came in: they differ in a few defaults (NeMo's num_query_groups
/// alone sets grouped-query attention; Megatron needs --group-query-attention too).
enum class Dialect { megatron, nemo };

/// One argument as written, under Megatron-LM's option name.
struct RunArgument {
  std::string name;                 ///< "num_layers", "tensor_model_parallel_size"
  std::string spelled;              ///< as written: "--num-layers", "model.num_layers"
  std::vector<std::string> values;  ///< none for a Megatron switch (`--bf16`)
  SourceLocation where;
  /// How a comment shows it: "--num-layers 80", "model.bias = false".
  std::string shown() const;
};

/// The arguments read against the table: typed values by option name, and where each was given.
struct RunSettings {
  Dialect dialect = Dialect::megatron;
  std::string source;                                    ///< the file, for errors about what it lacks
  std::map<std::string, long long, std::less<>> whole;   ///< whole numbers
  std::map<std::string, double, std::less<>> number;     ///< fractions
  std::map<std::string, bool, std::less<>> flag;         ///< switches and booleans
  std::map<std::string, std::string, std::less<>> word;  ///< one word (a choice, a path, a list expression)
  std::map<std::string, std::vector<std::string>, std::less<>> words;  ///< several (--recompute-modules)
  std::map<std::string, RunArgument, std::less<>> given;               ///< the argument that set each option
  std::vector<std::string> not_used;
  std::vector<std::string> no_effect;

  bool has(std::string_view name) const { return given.find(name) != given.end(); }
  bool on(std::string_view name, bool fallback = false) const;
  std::optional<long long> whole_of(std::string_view name) const;
  /// A UserError at the argument that set `name` (or without a place when none did).
  [[noreturn]] void fail(std::string_view name, const std::string& problem,
                         const std::string& hint = {}) const;
  /// How messages name the option: as written, else Megatron's flag ("--num-layers").
  std::string spelled(std::string_view name) const;
};

/// Transformer Engine userbuffers' per-GEMM configuration (TE's ub_cfgs: a mapping from GEMM names
/// such as proj_fprop to their method, num_sm, set_sm_margin, ...), as Megatron-LM reads it from
/// --tp-comm-overlap-cfg's YAML file and NeMo 1 from model.ub_tp_comm_overlap_cfg, into
/// `r.tp_overlap`; `spelled` names the mapping in notes ("model.ub_tp_comm_overlap_cfg"). Names and
/// keys stepsim does not read are noted in `r.not_used`; a value of the wrong type is a UserError
/// at `file`'s line and column.
void read_ub_cfg(const YAML::Node& map, const std::string& file, const std::string& spelled, ImportedRun& r);

/// The text of `file` (a regular file of at most 16 MiB); a UserError naming `what` it should be.
std::string read_run_file(const std::filesystem::path& file, const std::string& what);

/// How many values an option takes on a command line: a switch none, most one, a list (e.g.
/// --recompute-modules) all words up to the next option; an option the table does not know takes
/// all words up to the next option too, so that none is mistaken for an argument of its own.
enum class Arity { none, one, many, unknown };
Arity arity_of(std::string_view name);

/// Reads `args` against the table. A later argument of the same name replaces an earlier one (as
/// argparse does, noted). Throws UserError at the argument for a malformed value.
RunSettings read_settings(const std::vector<RunArgument>& args, Dialect dialect, const std::string& source);

/// The model (dimensions, MoE, MLA, the padded vocabulary, which needs `r.tp`) into `r.model`,
/// with Megatron's defaults; derivations and unused arguments are noted in `r`.
void resolve_model(const RunSettings& s, const ImportCluster& cluster, const Catalog& catalog,
                   ImportedRun& r);

/// Megatron's defaults and derivations: the model, the layout on `cluster`, batch, recompute,
/// precision. Throws UserError for a missing dimension, a value Megatron would refuse, a layout
/// that does not fit the cluster, an unknown GPU.
ImportedRun resolve_run(const RunSettings& s, const ImportCluster& cluster, const Catalog& catalog);

}  // namespace stepsim::scen::megatron
