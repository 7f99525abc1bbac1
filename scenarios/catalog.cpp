#include "scenarios/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "scenarios/choices.hpp"
#include "scenarios/data_dir.hpp"
#include "scenarios/spec_readers.hpp"
#include "scenarios/suggest.hpp"
#include "scenarios/toml_reader.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::scen {

/// Applies one parsed catalog file to a Catalog under construction.
class CatalogFileReader {
 public:
  CatalogFileReader(Catalog& catalog, const ReadContext& ctx) : cat_(catalog), ctx_(ctx) {}

  void apply(const toml::table& doc) {
    TableReader root(doc, "", ctx_);
    if (auto gpus = root.table("gpu"))
      for (auto& [id, entry] : entries(*gpus)) apply_gpu(id, entry);
    if (auto models = root.table("model"))
      for (auto& [id, entry] : entries(*models)) apply_model(id, entry);
    if (auto configs = root.table("tp_overlap"))
      for (auto& [id, entry] : entries(*configs)) apply_tp_overlap(id, entry);
    root.finish();
  }

 private:
  /// The sub-tables of `group` in file order (toml++ keeps keys sorted, we want the author's order).
  static std::vector<std::pair<std::string, TableReader>> entries(TableReader& group) {
    std::vector<std::pair<toml::source_position, std::string>> keys;
    for (const auto& [k, v] : group.raw()) keys.emplace_back(v.source().begin, std::string(k.str()));
    std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
      return a.first.line != b.first.line ? a.first.line < b.first.line : a.first.column < b.first.column;
    });
    std::vector<std::pair<std::string, TableReader>> out;
    for (const auto& [pos, key] : keys) {
      check_id(group, key);
      out.emplace_back(key, *group.table(key));
    }
    return out;
  }

  static void check_id(const TableReader& group, const std::string& id) {
    const bool ok = !id.empty() && std::isalnum(static_cast<unsigned char>(id[0])) &&
                    std::all_of(id.begin(), id.end(), [](char c) {
                      return std::islower(static_cast<unsigned char>(c)) ||
                             std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
                    });
    if (ok) return;
    std::string lower = id;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    group.fail(id, "catalog ids are lower-case letters, digits, '-', '.' and '_'",
               "write it as `" + lower + "`");
  }

  /// Index of the entry `key` names (by id or alias), or size() for a new entry.
  template <class Spec>
  static std::size_t find(const std::vector<Spec>& specs, const Catalog::AliasMap& aliases,
                          std::string_view key) {
    std::string_view id = key;
    if (auto it = aliases.find(key); it != aliases.end()) id = it->second;
    const auto pos = std::find_if(specs.begin(), specs.end(), [&](const Spec& s) { return s.id == id; });
    return static_cast<std::size_t>(pos - specs.begin());
  }

  template <class Spec>
  static void add_aliases(TableReader& r, const std::string& id, const std::vector<Spec>& specs,
                          Catalog::AliasMap& aliases) {
    std::vector<std::string> names;
    if (!r.read("aliases", names)) return;
    for (const auto& a : names) {
      const bool taken_by_id =
          std::any_of(specs.begin(), specs.end(), [&](const Spec& s) { return s.id == a && s.id != id; });
      const auto it = aliases.find(a);
      if (taken_by_id || (it != aliases.end() && it->second != id))
        r.fail("aliases", "alias `" + a + "` already names `" + (taken_by_id ? a : it->second) + "`",
               "aliases must be unique across the catalog");
      aliases.insert_or_assign(a, id);
    }
  }

  void apply_gpu(const std::string& key, TableReader& r) {
    const std::size_t i = find(cat_.gpus_, cat_.gpu_alias_, key);
    topo::GpuSpec spec;
    if (i < cat_.gpus_.size()) {
      refuse_preset(r, key, "GPU");
      spec = cat_.gpus_[i];
    } else if (std::string base; r.read("preset", base)) {
      spec = preset_gpu(r, base, key);
    } else {
      spec.id = key;
      spec.name = key;
    }
    add_aliases(r, spec.id, cat_.gpus_, cat_.gpu_alias_);
    read_gpu_fields(r, spec);
    r.finish();
    validate_gpu(spec, r);
    if (i < cat_.gpus_.size())
      cat_.gpus_[i] = std::move(spec);
    else
      cat_.gpus_.push_back(std::move(spec));
  }

  /// `preset` starts a new entry; on an entry that exists (by id or alias) it is an error.
  static void refuse_preset(const TableReader& r, const std::string& key, std::string_view what) {
    if (r.has("preset"))
      r.fail(
          "preset", "starts a new entry from another, and `" + key + "` is an entry already",
          "drop `preset` to change this entry, or give the new " + std::string(what) + " an id of its own");
  }

  /// A new entry that starts from `base`'s figures (`preset = "<id>"`): a variant of a part the
  /// catalog has (another memory size, power limit or board). Every figure it does not set keeps
  /// the base's value, and its source says so: "assumed: as <base> (<kind>: <the base's source>)",
  /// since a figure measured or derived for one part is an assumption for another.
  topo::GpuSpec preset_gpu(TableReader& r, const std::string& base, const std::string& key) const {
    const topo::GpuSpec* b = cat_.find_gpu(base);
    if (b == nullptr) {
      const std::string hint = did_you_mean(base, cat_.gpu_names());
      r.fail("preset", "unknown GPU `" + base + "`",
             (hint.empty() ? "" : hint + " ") + "`stepsim catalog gpus` lists them");
    }
    topo::GpuSpec spec = *b;
    for (auto& s : spec.sources) {
      if (s.kind == topo::SourceKind::user) {
        s.text = "as " + spec.id + ", whose figure is set at " + s.text;
        continue;
      }
      s.text = "as " + spec.id + " (" + std::string(topo::name(s.kind)) + ": " + s.text + ")";
      s.kind = topo::SourceKind::assumed;
    }
    spec.preset_lineage.insert(spec.preset_lineage.begin(), spec.id);
    spec.id = key;
    spec.name = key;
    return spec;
  }

  /// A new model entry that starts from `base`'s dimensions (`preset = "<id>"`, spelled as a
  /// scenario's [model] preset may be): the fields it sets replace the base's, and what the base
  /// derived (head_dim, kv_heads) follows them. The published counts are the base's, which a
  /// variant does not have: it keeps none unless it gives its own.
  work::ModelSpec preset_model(TableReader& r, const std::string& base, const std::string& key) const {
    const work::ModelSpec* b = cat_.find_model(base);
    if (b == nullptr) {
      const std::string hint = did_you_mean(base, cat_.model_names());
      r.fail("preset", "unknown model `" + base + "`",
             (hint.empty() ? "" : hint + " ") + "`stepsim catalog models` lists them");
    }
    work::ModelSpec spec = *b;
    mark_derived_model_fields(spec);
    spec.id = key;
    spec.name = key;
    spec.published_params = 0.0;
    spec.published_active_params = 0.0;
    return spec;
  }

  void apply_model(const std::string& key, TableReader& r) {
    const std::size_t i = find(cat_.models_, cat_.model_alias_, key);
    work::ModelSpec spec;
    if (i < cat_.models_.size()) {
      refuse_preset(r, key, "model");
      spec = cat_.models_[i];
      mark_derived_model_fields(spec);
    } else if (std::string base; r.read("preset", base)) {
      spec = preset_model(r, base, key);
    } else {
      spec.id = key;
      spec.name = key;
    }
    add_aliases(r, spec.id, cat_.models_, cat_.model_alias_);
    read_model_fields(r, spec, FieldSet::catalog);
    r.finish();
    finalize_model(spec, r);
    if (i < cat_.models_.size())
      cat_.models_[i] = std::move(spec);
    else
      cat_.models_.push_back(std::move(spec));
  }

  /// [tp_overlap.<id>]: `source` (required for a new entry), `defaults` ("te2" or "te1": what the
  /// GEMMs it does not list take) and one table per GEMM. An existing id is changed key by key.
  void apply_tp_overlap(const std::string& id, TableReader& r) {
    auto it = std::find_if(cat_.tp_overlaps_.begin(), cat_.tp_overlaps_.end(),
                           [&](const TpOverlapConfig& c) { return c.id == id; });
    TpOverlapConfig c;  // a new id starts from TE 2.x's defaults (TpOverlapConfig::gemms)
    if (it != cat_.tp_overlaps_.end())
      c = *it;
    else
      c.id = id;
    bool te1 = false;
    if (r.read("defaults", te1, choices::kUbDefaults)) c.gemms = work::default_ub_overlap(te1);
    r.read("source", c.source);
    if (c.source.empty())
      r.fail("source", "is missing: a userbuffers configuration says where it comes from",
             "e.g. source = \"NeMo userbuffers.py at 6f2c6fda\"");
    for (std::size_t i = 0; i < work::kUbGemms; ++i) {
      const auto g = static_cast<work::UbGemm>(i);
      if (auto t = r.table(work::name(g))) {
        read_ub_gemm_fields(*t, g, c.gemms[i]);
        t->finish();
      }
    }
    r.finish();
    if (it != cat_.tp_overlaps_.end())
      *it = std::move(c);
    else
      cat_.tp_overlaps_.push_back(std::move(c));
  }

  Catalog& cat_;
  const ReadContext& ctx_;
};

namespace {

std::vector<std::string> names_of(const auto& specs, const auto& aliases) {
  std::vector<std::string> out;
  for (const auto& s : specs) out.push_back(s.id);
  for (const auto& [alias, id] : aliases) out.push_back(alias);
  return out;
}

enum class CharKind : std::uint8_t { letter, digit, separator };

CharKind kind_at(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (std::isalpha(c)) return CharKind::letter;
  if (std::isdigit(c)) return CharKind::digit;
  // A dot inside a number ("3.1") belongs to it.
  if (c == '.' && i > 0 && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i - 1])) &&
      std::isdigit(static_cast<unsigned char>(s[i + 1])))
    return CharKind::digit;
  return CharKind::separator;
}

template <class Spec>
const Spec* find_spec(const std::vector<Spec>& specs, const auto& aliases, std::string_view key) {
  std::string_view id = key;
  if (auto it = aliases.find(key); it != aliases.end()) id = it->second;
  for (const auto& s : specs)
    if (s.id == id) return &s;
  return nullptr;
}

std::vector<std::string> aliases_of(const auto& aliases, std::string_view id) {
  std::vector<std::string> out;
  for (const auto& [alias, target] : aliases)
    if (target == id) out.push_back(alias);
  return out;
}

}  // namespace

Catalog Catalog::load_builtin() {
  return load_dir(data_dir() / "catalog");
}

Catalog Catalog::load_dir(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UserError(SourceLocation{dir.string(), 0, 0}, "", "the catalog folder does not exist",
                    "set STEPSIM_DATA_DIR to the folder holding catalog/");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return Catalog().with_files(files);
}

Catalog Catalog::with_file(const std::filesystem::path& file) const {
  std::string text;
  const toml::table doc = parse_toml_file(file, text);
  Catalog out = *this;
  const ReadContext ctx{file.string(), nullptr, nullptr};
  CatalogFileReader(out, ctx).apply(doc);
  return out;
}

Catalog Catalog::with_files(std::span<const std::filesystem::path> files) const {
  Catalog out = *this;
  for (const auto& f : files) out = out.with_file(f);
  return out;
}

Catalog Catalog::with_text(std::string_view toml_text, const std::string& name) const {
  const toml::table doc = parse_toml(toml_text, name);
  Catalog out = *this;
  const ReadContext ctx{name, nullptr, nullptr};
  CatalogFileReader(out, ctx).apply(doc);
  return out;
}

const topo::GpuSpec* Catalog::find_gpu(std::string_view key) const {
  return find_spec(gpus_, gpu_alias_, key);
}
std::string model_id_key(std::string_view id) {
  if (const auto slash = id.rfind('/'); slash != std::string_view::npos) id.remove_prefix(slash + 1);
  std::vector<std::string> tokens;
  CharKind previous = CharKind::separator;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const CharKind k = kind_at(id, i);
    if (k == CharKind::separator) {
      previous = k;
      continue;
    }
    if (k != previous) tokens.emplace_back();
    tokens.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(id[i])));
    previous = k;
  }
  constexpr std::string_view kSuffixes[] = {"instruct", "chat", "hf", "base", "it"};
  while (tokens.size() > 1 &&
         std::find(std::begin(kSuffixes), std::end(kSuffixes), tokens.back()) != std::end(kSuffixes))
    tokens.pop_back();
  if (tokens.size() > 1 && tokens[0] == "meta" && tokens[1] == "llama") tokens.erase(tokens.begin());
  std::string out;
  for (const auto& t : tokens) out += (out.empty() ? "" : "-") + t;
  return out;
}

const work::ModelSpec* Catalog::find_model(std::string_view key) const {
  if (const work::ModelSpec* exact = find_spec(models_, model_alias_, key)) return exact;
  const std::string wanted = model_id_key(key);
  if (wanted.empty()) return nullptr;
  for (const auto& m : models_)
    if (model_id_key(m.id) == wanted) return &m;
  for (const auto& [alias, id] : model_alias_)
    if (model_id_key(alias) == wanted) return find_spec(models_, model_alias_, id);
  return nullptr;
}
const TpOverlapConfig* Catalog::find_tp_overlap(std::string_view id) const {
  for (const auto& c : tp_overlaps_)
    if (c.id == id) return &c;
  return nullptr;
}

std::vector<std::string> Catalog::tp_overlap_names() const {
  std::vector<std::string> out;
  for (const auto& c : tp_overlaps_) out.push_back(c.id);
  return out;
}

const topo::GpuSpec& Catalog::gpu_for_option(std::string_view id, std::string_view option) const {
  if (const topo::GpuSpec* g = find_gpu(id)) return *g;
  const std::string hint = did_you_mean(id, gpu_names());
  throw UserError({}, std::string(option), "unknown GPU `" + std::string(id) + "`",
                  (hint.empty() ? "" : hint + " ") + "`stepsim catalog gpus` lists them");
}

std::vector<std::string> Catalog::gpu_names() const {
  return names_of(gpus_, gpu_alias_);
}
std::vector<std::string> Catalog::model_names() const {
  return names_of(models_, model_alias_);
}
std::vector<std::string> Catalog::gpu_aliases(std::string_view id) const {
  return aliases_of(gpu_alias_, id);
}
std::vector<std::string> Catalog::model_aliases(std::string_view id) const {
  return aliases_of(model_alias_, id);
}

}  // namespace stepsim::scen
