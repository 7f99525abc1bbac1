// The keys and values of an [[axis]] table: lists, zipped tuples and generated ranges.
#include "scenarios/sweep_axes.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

namespace stepsim::scen {
namespace {

/// A range may generate at most this many values (a typo such as step = 0.001 would otherwise
/// expand into millions of points silently).
constexpr double kMaxRangeValues = 1e6;

SourceLocation location(const TableReader& r, const toml::node& n) {
  const auto& b = n.source().begin;
  if (b.line == 0) return r.where();
  return SourceLocation{r.context().file, static_cast<int>(b.line), static_cast<int>(b.column)};
}

SweepValue value_of(const TableReader& r, const toml::node& n, std::string_view field) {
  SweepValue v;
  v.where = location(r, n);
  if (const auto* i = n.as_integer()) {
    v.kind = ValueKind::integer;
    v.integer = i->get();
    v.real = static_cast<double>(v.integer);
  } else if (const auto* f = n.as_floating_point()) {
    v.kind = ValueKind::real;
    v.real = f->get();
    if (!std::isfinite(v.real)) r.fail_at(n, field, "values must be finite numbers");
  } else if (const auto* s = n.as_string()) {
    v.kind = ValueKind::text;
    v.text = s->get();
  } else if (const auto* b = n.as_boolean()) {
    v.kind = ValueKind::boolean;
    v.flag = b->get();
  } else if (n.is_array() || n.is_table()) {
    v.kind = ValueKind::toml;
    std::ostringstream os;
    if (n.is_array())
      os << *n.as_array();
    else
      os << toml::toml_formatter(*n.as_table(), toml::format_flags::none);
    v.text = os.str();
  } else {
    r.fail_at(n, field, "dates and times are not scenario values");
  }
  return v;
}

std::optional<std::pair<std::string, const toml::node*>> string_at(TableReader& a, std::string_view field) {
  const toml::node* n = a.node(field);
  if (n == nullptr) return std::nullopt;
  if (!n->is_string())
    a.fail_at(*n, field, "expected a string", "e.g. " + std::string(field) + " = \"parallelism.tp\"");
  return std::make_pair(n->as_string()->get(), n);
}

std::vector<std::pair<std::string, const toml::node*>> strings_at(TableReader& a, std::string_view field) {
  std::vector<std::pair<std::string, const toml::node*>> out;
  const toml::node* n = a.node(field);
  if (n == nullptr) return out;
  const auto* arr = n->as_array();
  if (arr == nullptr || arr->empty())
    a.fail_at(*n, field, "expected a non-empty array of strings",
              "e.g. keys = [\"hardware.gpu\", \"hardware.nic_gbps\"]");
  for (const toml::node& el : *arr) {
    if (!el.is_string()) a.fail_at(el, field, "expected every element to be a string");
    out.emplace_back(el.as_string()->get(), &el);
  }
  return out;
}

std::string last_part(const std::string& key) {
  const auto dot = key.find_last_of('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

struct RangeSpec {
  const toml::node* from = nullptr;
  const toml::node* to = nullptr;
  const toml::node* step = nullptr;
  const toml::node* times = nullptr;
};

double number(const TableReader& a, const toml::node* n, std::string_view field) {
  if (n->is_integer()) return static_cast<double>(n->as_integer()->get());
  if (n->is_floating_point() && std::isfinite(n->as_floating_point()->get()))
    return n->as_floating_point()->get();
  a.fail_at(*n, field, "expected a number");
}

std::vector<std::vector<SweepValue>> range_values(TableReader& a, const RangeSpec& r) {
  if (r.from == nullptr || r.to == nullptr || (r.step == nullptr) == (r.times == nullptr))
    a.fail("", "a range needs `from`, `to`, and one of `step` (arithmetic) or `times` (geometric)",
           "e.g. from = 8, to = 64, step = 8; or from = 1, to = 64, times = 2");
  const std::string_view gen_field = r.step ? "step" : "times";
  const toml::node* gen = r.step ? r.step : r.times;
  const double from = number(a, r.from, "from"), to = number(a, r.to, "to"), by = number(a, gen, gen_field);
  if (to < from)
    a.fail_at(*r.to, "to", "must be at least `from`", "ranges count upwards; list the values to go down");
  if (r.step && !(by > 0)) a.fail_at(*gen, "step", "must be positive");
  if (r.times && !(by > 1)) a.fail_at(*gen, "times", "must be greater than 1");
  if (r.times && !(from > 0)) a.fail_at(*r.from, "from", "must be positive for a geometric range (times)");
  const bool integers = r.from->is_integer() && r.to->is_integer() && gen->is_integer();
  const double count = r.step ? std::floor((to - from) / by + 1e-9) + 1
                              : std::floor(std::log(to / from) / std::log(by) + 1e-9) + 1;
  if (count > kMaxRangeValues)
    a.fail_at(*gen, gen_field,
              "generates " + std::to_string(static_cast<long long>(count)) + " values (at most 1,000,000)");
  std::vector<std::vector<SweepValue>> out;
  double v = from;
  for (std::int64_t i = 0; static_cast<double>(i) < count; ++i) {
    SweepValue sv;
    sv.where = a.where();
    // Each value from `from` directly, so float ranges do not accumulate rounding.
    v = r.step ? from + static_cast<double>(i) * by : from * std::pow(by, static_cast<double>(i));
    sv.kind = integers ? ValueKind::integer : ValueKind::real;
    sv.real = integers ? std::round(v) : v;
    sv.integer = static_cast<std::int64_t>(sv.real);
    out.push_back({std::move(sv)});
  }
  return out;
}

}  // namespace

AxisKeys read_axis_keys(TableReader& a) {
  AxisKeys k;
  auto one = string_at(a, "key");
  auto many = strings_at(a, "keys");
  if (one.has_value() == !many.empty())
    a.fail(one ? "keys" : "",
           one ? "give `key` (one key) or `keys` (keys that vary together), not both"
               : "missing `key` (the scenario key this axis sets)",
           "e.g. key = \"parallelism.tp\"");
  k.zipped = !many.empty();
  k.key_field = k.zipped ? "keys" : "key";
  k.name_field = k.zipped ? "names" : "name";
  if (one) many.push_back(*one);
  k.keys = many;
  std::vector<std::pair<std::string, const toml::node*>> names;
  if (k.zipped) {
    names = strings_at(a, "names");
    if (!names.empty() && names.size() != k.keys.size())
      a.fail("names",
             "has " + std::to_string(names.size()) + " names for " + std::to_string(k.keys.size()) + " keys");
  } else if (auto n = string_at(a, "name")) {
    names.push_back(*n);
  }
  for (std::size_t i = 0; i < k.keys.size(); ++i)
    k.names.push_back(i < names.size() ? names[i]
                                       : std::make_pair(last_part(k.keys[i].first), k.keys[i].second));
  return k;
}

std::vector<std::vector<SweepValue>> read_axis_values(TableReader& a, std::size_t key_count, bool zipped) {
  RangeSpec range{a.node("from"), a.node("to"), a.node("step"), a.node("times")};
  const toml::node* values = a.node("values");
  const bool ranged = range.from || range.to || range.step || range.times;
  if (values != nullptr && ranged)
    a.fail("values", "give `values` or a range (`from`, `to`, `step`/`times`), not both");
  if (values == nullptr && !ranged)
    a.fail("", "missing `values` (a list) or a range (`from`, `to`, `step` or `times`)",
           "e.g. values = [1, 2, 4, 8]");
  if (ranged) {
    if (zipped) a.fail("from", "zipped keys take `values` (a list of tuples), not a range");
    return range_values(a, range);
  }
  const auto* list = values->as_array();
  if (list == nullptr || list->empty())
    a.fail_at(*values, "values", "expected a non-empty array",
              zipped ? "e.g. values = [[\"h100-sxm\", 400], [\"h200\", 800]]" : "e.g. values = [1, 2, 4]");
  std::vector<std::vector<SweepValue>> out;
  for (const toml::node& el : *list) {
    std::vector<SweepValue> tuple;
    if (!zipped) {
      tuple.push_back(value_of(a, el, "values"));
    } else {
      const auto* t = el.as_array();
      if (t == nullptr || t->size() != key_count)
        a.fail_at(el, "values", "expected a tuple of " + std::to_string(key_count) + " values (one per key)",
                  "e.g. [\"h200\", 800] for keys = [\"hardware.gpu\", \"hardware.nic_gbps\"]");
      for (const toml::node& v : *t) tuple.push_back(value_of(a, v, "values"));
    }
    out.push_back(std::move(tuple));
  }
  return out;
}

std::string value_kind_phrase(ValueKind k) {
  switch (k) {
    case ValueKind::integer: return "integers";
    case ValueKind::real: return "numbers";
    case ValueKind::text: return "strings";
    case ValueKind::boolean: return "booleans";
    case ValueKind::toml: return "arrays or tables";
  }
  return "?";
}

ExprType expr_type(ValueKind k) {
  switch (k) {
    case ValueKind::integer:
    case ValueKind::real: return ExprType::number;
    case ValueKind::boolean: return ExprType::boolean;
    case ValueKind::text:
    case ValueKind::toml: return ExprType::string;
  }
  return ExprType::number;
}

std::string SweepValue::toml_text() const {
  switch (kind) {
    case ValueKind::integer: return std::to_string(integer);
    case ValueKind::real: {
      char buf[64];
      const auto r = std::to_chars(buf, buf + sizeof buf, real);
      std::string s(buf, r.ptr);
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // TOML floats need a fraction or exponent
      return s;
    }
    case ValueKind::boolean: return flag ? "true" : "false";
    case ValueKind::toml: return text;
    case ValueKind::text: {
      std::ostringstream os;
      os << toml::value<std::string>(text);
      return os.str();
    }
  }
  return {};
}

ExprValue SweepValue::expr_value() const {
  switch (kind) {
    case ValueKind::integer:
    case ValueKind::real: return real;
    case ValueKind::boolean: return flag;
    case ValueKind::text:
    case ValueKind::toml: return text;
  }
  return real;
}

}  // namespace stepsim::scen
