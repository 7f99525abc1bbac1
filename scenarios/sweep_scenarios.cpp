#include "scenarios/sweep_scenarios.hpp"

#include "scenarios/scenario_document.hpp"
#include "scenarios/toml_reader.hpp"

namespace stepsim::scen {
namespace {

/// A copy of `n` whose nodes carry no source position, so that messages about it use the
/// location recorded for its key (the sweep file) rather than a position in some other text.
std::unique_ptr<toml::node> fresh(const toml::node& n) {
  if (const auto* a = n.as_array()) {
    auto out = std::make_unique<toml::array>();
    for (const toml::node& el : *a) out->push_back(*fresh(el));
    return out;
  }
  if (const auto* t = n.as_table()) {
    auto out = std::make_unique<toml::table>();
    for (const auto& [k, v] : *t) out->insert(std::string(k.str()), *fresh(v));
    return out;
  }
  if (const auto* i = n.as_integer()) return std::make_unique<toml::value<std::int64_t>>(i->get());
  if (const auto* f = n.as_floating_point()) return std::make_unique<toml::value<double>>(f->get());
  if (const auto* b = n.as_boolean()) return std::make_unique<toml::value<bool>>(b->get());
  if (const auto* s = n.as_string()) return std::make_unique<toml::value<std::string>>(s->get());
  throw std::logic_error("sweep values are never dates");
}

void insert(toml::table& t, const std::string& key, const SweepValue& v) {
  switch (v.kind) {
    case ValueKind::integer: t.insert_or_assign(key, v.integer); return;
    case ValueKind::real: t.insert_or_assign(key, v.real); return;
    case ValueKind::text: t.insert_or_assign(key, v.text); return;
    case ValueKind::boolean: t.insert_or_assign(key, v.flag); return;
    case ValueKind::toml: {
      const toml::table parsed = toml::parse("v = " + v.text);
      t.insert_or_assign(key, *fresh(*parsed.get("v")));
      return;
    }
  }
}

/// Places `v` at dotted `key`, creating tables on the way.
void place(toml::table& doc, const std::string& key, const SweepValue& v, const std::string& file,
           KeyLocations& locations) {
  const SourceLocation where{file, v.where.line, v.where.column};
  toml::table* t = &doc;
  std::size_t start = 0;
  for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.', start)) {
    const std::string part = key.substr(start, dot - start);
    start = dot + 1;
    if (t->get(part) == nullptr) {
      // A table the base lacks: messages about it (cross-field checks) point at this axis value.
      t->insert(part, toml::table{});
      if (!locations.contains(key.substr(0, dot))) locations.add(key.substr(0, dot), where);
    }
    toml::table* next = t->get(part)->as_table();
    if (next == nullptr)
      throw UserError(where, key,
                      "`" + key.substr(0, dot) + "` is a value in the base scenario, not a table, so `" +
                          key + "` cannot be set",
                      "sweep the whole value instead");
    t = next;
  }
  insert(*t, key.substr(start), v);
  locations.add(key, where);
}

bool prefix_of(std::string_view prefix, std::string_view key) {
  return key == prefix ||
         (key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix && key[prefix.size()] == '.');
}

}  // namespace

/// How point messages name a file: its name alone, so that rows (and so results files) do not
/// depend on the folder a sweep was started from (a Slurm task and a local run must agree).
std::string stable_name(const std::filesystem::path& path, const std::string& display_name) {
  const std::filesystem::path p = path.empty() ? std::filesystem::path(display_name) : path;
  return p.filename().empty() ? display_name : p.filename().string();
}

struct SweepScenarios::Impl {
  const Sweep& sweep;
  const Catalog& catalog;
  std::string sweep_name;  ///< stable_name of the sweep file
  std::string base_name;   ///< stable_name of the base scenario (the sweep's for an inline base)

  /// The base scenario, parsed afresh: toml++ does not copy source positions with a table, and
  /// the scenario reader needs them (to know which keys were given, and where).
  toml::table parse_base() const {
    if (!sweep.base_inline) return parse_toml(sweep.base_text, base_name);
    toml::table doc = parse_toml(sweep.text, sweep_name);
    return std::move(*doc.get("base")->as_table());
  }

  /// Loads the first value of every axis and turns an "unknown key" about an axis key into an
  /// error at that axis: it would otherwise fail every point the same way.
  void check_keys(const SweepScenarios& self) const {
    std::vector<const SweepValue*> first;
    for (const SweepKey& k : sweep.keys) {
      for (const SweepAxis& a : sweep.axes)
        for (std::size_t i = 0; i < a.keys.size(); ++i)
          if (&sweep.keys[a.keys[i]] == &k) first.push_back(&a.tuples.front()[i]);
    }
    try {
      self.load(first);
    } catch (const UserError& e) {
      if (e.problem().rfind("unknown key", 0) != 0) return;  // the point may be infeasible; rows say why
      for (const SweepKey& k : sweep.keys)
        if (prefix_of(e.key(), k.key))
          throw UserError(k.where, k.key, "is not a key of the base scenario: " + e.problem(), e.hint());
    }
  }
};

SweepScenarios::SweepScenarios(const Sweep& sweep, const Catalog& catalog)
    : impl_(std::make_unique<Impl>(Impl{sweep, catalog, stable_name(sweep.path, sweep.display_name),
                                        sweep.base_inline
                                            ? stable_name(sweep.path, sweep.display_name)
                                            : stable_name(sweep.base_path, sweep.base_path.string())})) {
  impl_->parse_base();  // syntax errors in the base are the sweep's, not every point's
  impl_->check_keys(*this);
}

SweepScenarios::~SweepScenarios() = default;

Scenario SweepScenarios::load(std::span<const SweepValue* const> values) const {
  toml::table doc = impl_->parse_base();
  KeyLocations locations(impl_->base_name);
  for (std::size_t k = 0; k < values.size(); ++k)
    place(doc, impl_->sweep.keys[k].key, *values[k], impl_->sweep_name, locations);
  return load_scenario_document(std::move(doc), std::move(locations), impl_->catalog,
                                impl_->sweep.base_dir());
}

std::string SweepScenarios::cluster_key(std::span<const SweepValue* const> values) const {
  std::string key;
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::string& name = impl_->sweep.keys[k].key;
    // Only what builds the ClusterSpec: the launch mode (workload.cuda_graphs) changes no hardware.
    if (prefix_of("hardware", name) || prefix_of("fabric", name) || prefix_of("catalog", name))
      key += name + "=" + values[k]->toml_text() + "\n";
  }
  return key;
}

std::string SweepScenarios::program_key(std::span<const SweepValue* const> values) const {
  std::string key;
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::string& name = impl_->sweep.keys[k].key;
    if (name == "hardware.nic_gbps" || prefix_of("fabric", name)) continue;
    key += name + "=" + values[k]->toml_text() + "\n";
  }
  return key;
}

}  // namespace stepsim::scen
