#pragma once
// The GPU and model presets: the built-in catalog shipped in share/stepsim/catalog, extended or
// overridden by user files. Parse it once per process and pass it by const reference; a Catalog
// is an immutable value (with_file returns a new one), so threads can share it freely.

#include <array>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topology/gpu.hpp"
#include "workloads/model/job.hpp"
#include "workloads/model/model.hpp"

namespace stepsim::scen {

/// A model id as people write it, reduced to one spelling: lower case, without an `org/` prefix,
/// the `-Instruct`, `-chat`, `-hf`, `-Base` and `-it` suffixes or a leading "Meta-" before "Llama",
/// with letters and numbers split apart ("Llama-3.3-70B-Instruct" and "llama3.3-70b" are both
/// "llama-3.3-70-b"). A dot between digits stays: "1.7b" is not "17b".
std::string model_id_key(std::string_view id);

/// A named Transformer Engine userbuffers configuration (NeMo 2's tp_comm_overlap_cfg objects,
/// scenarios/catalog/tp_overlap.toml): every GEMM's settings, and where they come from.
struct TpOverlapConfig {
  std::string id;
  std::string source;
  std::array<work::UbOverlap, work::kUbGemms> gemms = work::default_ub_overlap(false);
};

class Catalog {
 public:
  /// An empty catalog.
  Catalog() = default;
  /// The built-in catalog: every *.toml under data_dir()/catalog, in name order.
  static Catalog load_builtin();
  /// Every *.toml directly under `dir`, in name order.
  static Catalog load_dir(const std::filesystem::path& dir);

  /// A copy with `file` applied: an entry whose id (or alias) exists overrides that entry field
  /// by field; a new id adds an entry. Throws UserError for unreadable or invalid files.
  Catalog with_file(const std::filesystem::path& file) const;
  /// with_file for each file in order.
  Catalog with_files(std::span<const std::filesystem::path> files) const;
  /// As with_file, from text; `name` stands in for the file name in messages.
  Catalog with_text(std::string_view toml_text, const std::string& name) const;

  /// The GPU with this id or alias, or null.
  const topo::GpuSpec* find_gpu(std::string_view id_or_alias) const;
  /// The GPU with this id or alias; a UserError for `option` (a command-line option, "--gpu")
  /// naming the nearest GPU otherwise. Readers of files report theirs at the key instead.
  const topo::GpuSpec& gpu_for_option(std::string_view id_or_alias, std::string_view option) const;
  /// The model with this id or alias, or null. Spellings of an id resolve too (model_id_key):
  /// "meta-llama/Llama-3.1-70B-Instruct", "llama3.1-70b" and "Llama-3.1-70B" name llama-3.1-70b.
  const work::ModelSpec* find_model(std::string_view id_or_alias) const;
  /// The userbuffers configuration with this id, or null.
  const TpOverlapConfig* find_tp_overlap(std::string_view id) const;
  const std::vector<TpOverlapConfig>& tp_overlaps() const { return tp_overlaps_; }
  std::vector<std::string> tp_overlap_names() const;
  /// All GPUs / models, in catalog file order (built-in first, then user additions).
  const std::vector<topo::GpuSpec>& gpus() const { return gpus_; }
  const std::vector<work::ModelSpec>& models() const { return models_; }
  /// Ids and aliases, for "did you mean" suggestions.
  std::vector<std::string> gpu_names() const;
  std::vector<std::string> model_names() const;
  /// Aliases of the entry with id `id` (empty if none), in name order.
  std::vector<std::string> gpu_aliases(std::string_view id) const;
  std::vector<std::string> model_aliases(std::string_view id) const;

 private:
  friend class CatalogFileReader;
  using AliasMap = std::map<std::string, std::string, std::less<>>;  // alias -> id

  std::vector<topo::GpuSpec> gpus_;
  std::vector<work::ModelSpec> models_;
  std::vector<TpOverlapConfig> tp_overlaps_;
  AliasMap gpu_alias_;
  AliasMap model_alias_;
};

}  // namespace stepsim::scen
