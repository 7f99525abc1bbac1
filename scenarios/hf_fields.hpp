#pragma once
// Internal to the Hugging Face config reader (hf_config.cpp, hf_architectures.cpp): typed access to
// one JSON object of a config.json that remembers which keys were read, so that every key left
// over can be classified (ignored, not used by stepsim, unknown) instead of silently dropped.

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/error.hpp"
#include "workloads/model/model.hpp"

namespace stepsim::scen::hf {

/// The file being read: its name as messages print it and its text, to locate keys.
struct Source {
  std::string file;
  std::string_view text;
};

/// Where the key at `path` ("text_config", "num_hidden_layers") is written in `src`: the first
/// `"key":` after its parent's; the file alone when it is not written there.
SourceLocation locate(const Source& src, std::span<const std::string> path);

/// A value transformers' config class fills in when the file leaves the key out.
struct Default {
  std::string_view key;
  nlohmann::json value;
};

/// One JSON object of a config, read key by key.
class Fields {
 public:
  /// `path` is the object's place in the file ({} for the top level, {"text_config"} below it).
  Fields(const nlohmann::json& object, std::vector<std::string> path, const Source& src,
         std::vector<Default> defaults = {});

  /// Whether `key` is written with a value other than null (or has a default).
  bool has(std::string_view key) const;
  /// A required positive whole number (a layer count, a width); missing, zero or negative is a
  /// UserError naming the key and the file.
  int dim(std::string_view key, std::string_view what);
  /// A positive whole number when written, else nullopt.
  std::optional<int> opt_dim(std::string_view key);
  /// A whole number >= 0, `fallback` when absent or null.
  int count(std::string_view key, int fallback);
  bool flag(std::string_view key, bool fallback);
  double number(std::string_view key, double fallback);
  std::optional<std::string> text(std::string_view key);
  /// A list of whole numbers >= 0 (layer indices), nullopt when absent or null.
  std::optional<std::vector<int>> indices(std::string_view key);
  /// A list of strings (layer_types), nullopt when absent or null.
  std::optional<std::vector<std::string>> words(std::string_view key);
  /// The nested object at `key` (text_config), marked read, with `defaults` for its absent keys;
  /// a UserError when absent or not an object.
  Fields object(std::string_view key, std::vector<Default> defaults = {});
  /// Adds values for keys this object leaves out (transformers' config-class defaults).
  void add_defaults(std::vector<Default> defaults);
  /// flag() and number() without marking the key read: for keys that stay unread (and get a
  /// note) unless their value says the feature is off.
  bool peek_flag(std::string_view key, bool fallback) const;
  double peek_number(std::string_view key, double fallback) const;
  /// Marks keys as read without reading them (they were handled another way).
  void use(std::initializer_list<std::string_view> keys);

  /// Keys written here that nothing read, in the file's (alphabetical, as parsed) order.
  std::vector<std::string> unread() const;
  const nlohmann::json& raw() const { return *object_; }
  /// "num_hidden_layers" or "text_config.num_hidden_layers".
  std::string dotted(std::string_view key) const;
  [[noreturn]] void fail(std::string_view key, const std::string& problem,
                         const std::string& hint = {}) const;

 private:
  const nlohmann::json* get(std::string_view key);
  const nlohmann::json* find(std::string_view key) const;

  const nlohmann::json* object_;
  std::vector<std::string> path_;
  const Source* src_;
  std::vector<Default> defaults_;
  std::set<std::string, std::less<>> read_;
};

/// What a config says about the model, with the notes on what stepsim leaves out.
struct Mapped {
  work::ModelSpec model;
  std::vector<std::string> notes;
};

/// Reads one architecture's config into `out.model`; adds notes for structure it cannot express.
using ArchitectureReader = void (*)(Fields& top, Mapped& out);

/// One supported architecture: its `architectures[0]` class, its `model_type`, and its reader.
struct Architecture {
  std::string_view class_name;
  std::string_view model_type;
  std::string_view family;  ///< for messages and docs: "Llama 2/3/3.1/3.3"
  ArchitectureReader read;
};

/// Every supported architecture (hf_architectures.cpp).
std::span<const Architecture> architectures();

/// Adds to `out.notes` one line for each key of `f` that nothing read and that matters to a
/// simulation (not-used keys with a value, unknown keys); irrelevant keys are passed over.
void note_unread(const Fields& f, std::vector<std::string>& notes);

}  // namespace stepsim::scen::hf
