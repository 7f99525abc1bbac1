// Reading a sweep file: [sweep], the base scenario, [[axis]] tables and [predicates], each value
// checked where it was written.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "scenarios/suggest.hpp"
#include "scenarios/sweep.hpp"
#include "scenarios/sweep_axes.hpp"
#include "scenarios/toml_reader.hpp"

namespace stepsim::scen {
namespace {

/// Top-level tables of a scenario: the first part of every axis key must be one of them.
const std::vector<std::string> kScenarioTables = {"catalog",   "meta",     "model",  "hardware",
                                                  "fabric",    "workload", "moe",    "parallelism",
                                                  "precision", "estimate", "target", "validation"};
constexpr std::array<Choice<SweepMode>, 2> kModes{
    {{"simulate", SweepMode::simulate}, {"estimate", SweepMode::estimate}}};

SourceLocation location(const ReadContext& ctx, const toml::node& n) {
  const auto& b = n.source().begin;
  return SourceLocation{ctx.file, static_cast<int>(b.line), static_cast<int>(b.column)};
}

/// A UserError for an expression problem: the position of the string in the file, then the
/// character inside it ("at column 5 of `tpp * pp <= 64`").
[[noreturn]] void expr_fail(const ReadContext& ctx, const toml::node& n, const std::string& key,
                            std::string_view text, const ExprError& e) {
  SourceLocation where = location(ctx, n);
  if (where.line > 0) where.column += 1 + static_cast<int>(e.offset());  // past the opening quote
  // A long filter is quoted around the problem only, so that the message stays one line.
  constexpr std::size_t kQuote = 60;
  const std::size_t from = e.offset() > kQuote / 2 ? e.offset() - kQuote / 2 : 0;
  const std::string quoted = (from > 0 ? "..." : "") + std::string(text.substr(from, kQuote)) +
                             (from + kQuote < text.size() ? "..." : "");
  throw UserError(
      where, key,
      std::string(e.what()) + " in `" + quoted + "` (character " + std::to_string(e.offset() + 1) + ")",
      e.hint());
}

void read_sweep_table(TableReader& r, Sweep& s,
                      std::vector<std::pair<std::string, const toml::node*>>& where) {
  r.read("name", s.name);
  r.read("mode", s.mode, kModes);
  if (const toml::node* base = r.node("base")) {
    const auto* path = base->as_string();
    if (path == nullptr)
      r.fail_at(*base, "base", "expected the path of a scenario file (a string)",
                "or give the scenario inline as a [base] table with [base.model], [base.hardware], ...");
    if (path->get().find('\0') != std::string::npos)
      r.fail_at(*base, "base", "contains a NUL character (\\u0000)",
                "a path cannot hold one; remove the \\u0000 escape");
    s.base_path = std::filesystem::path(path->get());
  }
  if (const toml::node* w = r.node("where")) {
    const auto* one = w->as_string();
    const auto* many = w->as_array();
    if (one != nullptr) {
      where.emplace_back(r.path("where"), w);
    } else if (many != nullptr) {
      for (std::size_t i = 0; i < many->size(); ++i) {
        if (!(*many)[i].is_string())
          r.fail_at((*many)[i], "where",
                    "expected every filter to be a string expression, e.g. \"tp * pp <= 64\"");
        where.emplace_back(r.path("where") + "[" + std::to_string(i) + "]", &(*many)[i]);
      }
    } else {
      r.fail_at(*w, "where", "expected a filter expression or an array of them",
                "e.g. where = [\"tp * pp <= 64\"]");
    }
  }
  r.finish();
}

void check_key_text(const TableReader& r, const toml::node& n, std::string_view field,
                    const std::string& key) {
  const bool ok = !key.empty() && key.front() != '.' && key.back() != '.' &&
                  key.find("..") == std::string::npos && std::all_of(key.begin(), key.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
                  });
  if (!ok)
    r.fail_at(n, field, "`" + key + "` is not a dotted scenario key",
              "e.g. \"parallelism.tp\" or \"hardware.nic_gbps\"");
  const std::string table = key.substr(0, key.find('.'));
  if (std::find(kScenarioTables.begin(), kScenarioTables.end(), table) == kScenarioTables.end()) {
    std::string hint = did_you_mean(table, kScenarioTables);
    if (hint.empty()) hint = "scenario tables: " + join_names(kScenarioTables);
    r.fail_at(n, field, "`" + key + "`: `" + table + "` is not a scenario table", hint);
  }
}

bool valid_name(std::string_view n) {
  static constexpr std::string_view kReserved[] = {"and", "or", "not", "true", "false"};
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (auto r : kReserved)
    if (n == r) return false;
  return std::all_of(n.begin(), n.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

/// Registers the keys of one axis (names checked for clashes) and returns their indices.
std::vector<std::uint32_t> add_keys(TableReader& r, Sweep& s, const AxisKeys& keys) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < keys.keys.size(); ++i) {
    const auto& [key, key_node] = keys.keys[i];
    const auto& [nm, name_node] = keys.names[i];
    check_key_text(r, *key_node, keys.key_field, key);
    if (!valid_name(nm))
      r.fail_at(*name_node, keys.name_field, "`" + nm + "` cannot name a value in filters",
                "use letters, digits and _ (not and/or/not/true/false), e.g. name = \"nic\"");
    for (const SweepKey& k : s.keys) {
      if (k.key == key)
        r.fail_at(*key_node, keys.key_field,
                  "`" + key + "` is already swept by the axis at line " + std::to_string(k.where.line),
                  "put the values in one axis, or zip the keys that vary together");
      if (k.name == nm)
        r.fail_at(*name_node, keys.name_field, "the name `" + nm + "` is already used by `" + k.key + "`",
                  "give one of them a different name = \"...\"");
    }
    s.keys.push_back(SweepKey{key, nm, ValueKind::integer, location(r.context(), *key_node)});
    out.push_back(static_cast<std::uint32_t>(s.keys.size() - 1));
  }
  return out;
}

/// Sets each key's column kind from its values: one type per key (integers widen to real).
void settle_kinds(const TableReader& r, Sweep& s, const SweepAxis& axis) {
  for (std::size_t k = 0; k < axis.keys.size(); ++k) {
    SweepKey& key = s.keys[axis.keys[k]];
    const SweepValue& first = axis.tuples.front()[k];
    key.kind = first.kind;
    for (const auto& tuple : axis.tuples) {
      const SweepValue& v = tuple[k];
      const bool numbers = (key.kind == ValueKind::integer || key.kind == ValueKind::real) &&
                           (v.kind == ValueKind::integer || v.kind == ValueKind::real);
      if (numbers) {
        if (v.kind == ValueKind::real) key.kind = ValueKind::real;
      } else if (v.kind != key.kind) {
        throw UserError(v.where, r.path(),
                        "values of `" + key.key + "` mix types (" + value_kind_phrase(first.kind) + " and " +
                            value_kind_phrase(v.kind) + ")",
                        "give every value of one key the same type");
      }
    }
  }
}

/// Compiles predicates in dependency order: a predicate is compiled when first referenced.
class PredicateCompiler {
 public:
  PredicateCompiler(Sweep& s, TableReader r) : s_(s), r_(std::move(r)) {
    for (const auto& [k, v] : r_.raw()) {
      if (!v.is_string())
        r_.fail_at(v, k.str(), "expected a boolean expression (a string), e.g. \"tp * pp <= 64\"");
      if (!valid_name(k.str()))
        r_.fail_at(v, k.str(), "`" + std::string(k.str()) + "` cannot name a predicate");
      for (const SweepKey& key : s.keys)
        if (key.name == k.str() || key.key == k.str())
          r_.fail_at(v, k.str(),
                     "`" + std::string(k.str()) + "` already names the axis key `" + key.key + "`");
      pending_[std::string(k.str())] = &v;
    }
    for (const SweepKey& k : s.keys) known_.insert(known_.end(), {k.name, k.key});
    for (const auto& [name, node] : pending_) known_.push_back(name);
  }
  void compile_all() {
    std::vector<std::string> names;
    for (const auto& [name, node] : pending_) names.push_back(name);
    for (const auto& n : names) ensure(n);
  }
  std::optional<ExprBinding> resolve(std::string_view name) {
    for (std::uint32_t i = 0; i < s_.keys.size(); ++i)
      if (s_.keys[i].name == name || s_.keys[i].key == name)
        return ExprBinding{i, expr_type(s_.keys[i].kind)};
    if (pending_.count(std::string(name)) == 0) return std::nullopt;
    return ExprBinding{ensure(std::string(name)), ExprType::boolean};
  }
  Expr compile(const toml::node& n, const std::string& key) {
    const std::string text = n.as_string()->get();
    try {
      return Expr::compile(
          text, [this](std::string_view nm) { return resolve(nm); }, known_);
    } catch (const ExprError& e) {
      expr_fail(r_.context(), n, key, text, e);
    }
  }

 private:
  std::uint32_t ensure(const std::string& name) {
    for (const auto& p : s_.predicates)
      if (p.name == name) return p.slot;
    if (std::find(active_.begin(), active_.end(), name) != active_.end())
      throw ExprError(0, "predicate `" + name + "` refers to itself",
                      "predicates may use axes and other predicates, without cycles");
    if (active_.size() >= static_cast<std::size_t>(Expr::kMaxNesting))
      throw ExprError(0,
                      "predicates use one another more than " + std::to_string(Expr::kMaxNesting) + " deep",
                      "let predicates use axes directly");
    active_.push_back(name);
    const toml::node& n = *pending_.at(name);
    Expr e = compile(n, r_.path(name));
    if (e.type() != ExprType::boolean)
      r_.fail_at(n, name, "a predicate must be true or false; this is " + std::string(scen::name(e.type())),
                 "compare it, e.g. \"" + n.as_string()->get() + " > 0\"");
    active_.pop_back();
    const auto slot = static_cast<std::uint32_t>(s_.keys.size() + s_.predicates.size());
    s_.predicates.push_back(SweepPredicate{name, slot, std::move(e)});
    return slot;
  }

  Sweep& s_;
  TableReader r_;
  std::map<std::string, const toml::node*> pending_;
  std::vector<std::string> active_;
  std::vector<std::string> known_;
};

/// The base scenario: `[sweep] base = "file"` (read now, relative to the sweep) or a [base] table.
void read_base(TableReader& root, const TableReader& sweep, Sweep& s, const std::filesystem::path& base_dir) {
  s.base_inline = root.table("base").has_value();
  if (s.base_inline == !s.base_path.empty())
    sweep.fail("base",
               s.base_inline ? "the base scenario is given twice: as [sweep] base and as a [base] table"
                             : "missing the base scenario",
               "set [sweep] base = \"scenario.toml\", or write the scenario inline under [base]");
  if (s.base_inline) return;
  if (s.base_path.is_relative()) s.base_path = base_dir / s.base_path;
  if (const std::string problem = file_problem(s.base_path); !problem.empty())
    sweep.fail("base", "scenario file `" + s.base_path.string() + "` " + problem,
               "paths are relative to the sweep file");
  s.base_text = read_text_file(s.base_path);
}

void read_axes(TableReader& root, Sweep& s) {
  for (TableReader& a : root.tables("axis")) {
    SweepAxis axis;
    axis.where = a.where();
    const AxisKeys keys = read_axis_keys(a);
    axis.keys = add_keys(a, s, keys);
    axis.tuples = read_axis_values(a, keys.keys.size(), keys.zipped);
    a.finish();
    settle_kinds(a, s, axis);
    s.axes.push_back(std::move(axis));
  }
}

/// Compiles [predicates] and the `where` filters (after the axes, whose names they use).
void read_filters(TableReader& root, Sweep& s,
                  const std::vector<std::pair<std::string, const toml::node*>>& where) {
  const toml::table no_predicates;
  const std::optional<TableReader> given = root.table("predicates");
  PredicateCompiler predicates(s, given ? *given : TableReader(no_predicates, "predicates", root.context()));
  predicates.compile_all();
  for (const auto& [key, node] : where) {
    s.filters.push_back(predicates.compile(*node, key));
    s.filter_text.push_back(node->as_string()->get());
    if (s.filters.back().type() != ExprType::boolean)
      throw UserError(location(root.context(), *node), key,
                      "a filter must be true or false; this is " + std::string(name(s.filters.back().type())),
                      "compare it, e.g. \"tp * pp <= 64\"");
  }
}

Sweep read_sweep(Sweep s, const std::filesystem::path& base_dir) {
  const toml::table doc = parse_toml(s.text, s.display_name);
  const ReadContext ctx{s.display_name, nullptr, nullptr};
  TableReader root(doc, "", ctx);
  std::vector<std::pair<std::string, const toml::node*>> where;
  auto sweep = root.table("sweep");
  if (!sweep) root.fail("", "missing the [sweep] table", "add [sweep] with base = \"scenario.toml\"");
  read_sweep_table(*sweep, s, where);
  read_base(root, *sweep, s, base_dir);
  read_axes(root, s);
  read_filters(root, s, where);
  root.finish();
  if (s.name.empty()) s.name = s.path.empty() ? s.display_name : s.path.stem().string();
  // The text's terminating NUL separates the two files, so moving bytes between them changes the hash.
  s.hash = fnv1a64(s.base_text, fnv1a64(std::string_view(s.text.data(), s.text.size() + 1)));
  return s;
}

}  // namespace

Sweep load_sweep(const std::filesystem::path& path) {
  Sweep s;
  s.text = read_text_file(path);
  s.path = path;
  s.display_name = path.string();
  return read_sweep(std::move(s), path.parent_path());
}

Sweep load_sweep_string(std::string_view text, const std::string& name,
                        const std::filesystem::path& base_dir) {
  Sweep s;
  s.text = std::string(text);
  s.display_name = name;
  return read_sweep(std::move(s), base_dir);
}

}  // namespace stepsim::scen
