#include "scenarios/toml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>

#include "scenarios/suggest.hpp"

namespace stepsim::scen {

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string range_text(const RealRange& r) {
  const bool unbounded = std::isinf(r.max);
  if (unbounded) return (r.min_open ? "greater than " : "at least ") + number_text(r.min);
  return std::string("in ") + (r.min_open ? "(" : "[") + number_text(r.min) + ", " + number_text(r.max) + "]";
}

std::string file_problem(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found || ec == std::errc::no_such_file_or_directory ||
      ec == std::errc::not_a_directory)
    return "not found";
  if (ec == std::errc::filename_too_long)
    return "has a name too long for the file system (at most 255 bytes per folder or file name)";
  if (ec) return ec.message();
  if (std::filesystem::is_directory(st)) return "is a directory, not a file";
  if (!std::filesystem::is_regular_file(st)) return "is not a regular file";
  return {};
}

bool in_range(double v, const RealRange& r) {
  if (r.min_open ? !(v > r.min) : !(v >= r.min)) return false;
  return v <= r.max;
}

namespace {

std::string_view type_phrase(toml::node_type t) {
  switch (t) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number with a fraction";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

/// "a string (\"8\")": the node's type and, for scalars, its value.
std::string describe(const toml::node& n) {
  std::string out(type_phrase(n.type()));
  if (const auto* s = n.as_string()) {
    std::string v = s->get();
    if (v.size() > 40) v = v.substr(0, 37) + "...";
    out += " (\"" + v + "\")";
  } else if (const auto* i = n.as_integer()) {
    out += " (" + std::to_string(i->get()) + ")";
  } else if (const auto* f = n.as_floating_point()) {
    out += " (" + number_text(f->get()) + ")";
  } else if (const auto* b = n.as_boolean()) {
    out += b->get() ? " (true)" : " (false)";
  }
  return out;
}

std::string range_text(IntRange r) {
  if (r.max >= INT_MAX) return "at least " + std::to_string(r.min);
  return "between " + std::to_string(r.min) + " and " + std::to_string(r.max);
}

/// A hint for a string where a number or boolean was expected: the user probably quoted it.
std::string unquote_hint(const toml::node& n, std::string_view key) {
  if (const auto* s = n.as_string()) return "write it without quotes: " + std::string(key) + " = " + s->get();
  return {};
}

bool needs_quotes(std::string_view key) {
  if (key.empty()) return true;
  return !std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// A NUL ends a C string: a path holding one would name another file without a word.
constexpr const char* kNulProblem = "contains a NUL character (\\u0000)";
constexpr const char* kNulHint = "no name or path may hold one; remove the \\u0000 escape";

/// `text` with each NUL written as \0, for messages.
std::string path_for_message(std::string_view text) {
  std::string out;
  for (const char c : text) out += c == '\0' ? std::string("\\0") : std::string(1, c);
  return out;
}

/// The text between the first pair of single quotes in `what` ("... string 'tp'" gives tp).
std::string quoted_name_in_toml_error(std::string_view what) {
  const auto open = what.find('\'');
  const auto close = open == std::string_view::npos ? open : what.find('\'', open + 1);
  return close == std::string_view::npos ? std::string()
                                         : std::string(what.substr(open + 1, close - open - 1));
}

/// A hint that fits the toml++ parse error `what` ("Error while parsing SCOPE: PROBLEM"), or a
/// general one when no rule matches. Rules are checked in order; the first that matches wins.
std::string toml_syntax_hint(std::string_view what) {
  const auto has = [what](std::string_view s) { return what.find(s) != std::string_view::npos; };
  const bool in_string = has("parsing string") || has("parsing literal string");
  if (has("cannot redefine existing") && has("parsing key-value pair"))
    return "`" + quoted_name_in_toml_error(what.substr(what.find("cannot redefine"))) +
           "` is already set in this table: keep one of the two lines";
  if (has("cannot redefine existing"))
    return "each table may appear once: merge its keys under one header ([[name]] starts a list of tables)";
  if (has("escape sequence") || (in_string && has("hex digit")) || has("unicode scalar"))
    return "in \"...\" a backslash starts an escape (\\n, \\t, \\\\, \\\", \\uXXXX): write \\\\ for a "
           "backslash, or use single quotes for text taken as it is, e.g. 'C:\\data'";
  if (in_string && has("control characters"))
    return "the string has no closing quote on its line: add it, or use \"\"\"...\"\"\" for text over "
           "several lines";
  if (in_string && has("end-of-file")) return "the file ends inside a string: add its closing quotes";
  if (has("parsing key-value pair") && has("expected a comment or whitespace"))
    return "only a # comment may follow a value on its line; text with spaces or units needs quotes, e.g. "
           "\"400 Gb/s\"";
  if (has("expected '='"))
    return "write each key and its value on one line as key = value; a key with dots or spaces in its name "
           "needs quotes";
  if (has("could not determine value type") || has("expected value,") || has("parsing boolean"))
    return "text needs double quotes, e.g. gpu = \"h100-sxm\"; numbers, true and false, [arrays] and "
           "{ inline tables } are written without them";
  if (has("value-terminator"))
    return "a value ends at the end of its line, at a # comment, or at , ] } inside an array or inline "
           "table; text with spaces or units needs quotes, e.g. \"400 Gb/s\"";
  if (has("parsing table header"))
    return "a table header is [name] on its own line; a name with dots or spaces needs quotes, e.g. "
           "[model.\"llama-3.1-70b\"]";
  if (has("parsing array") || has("closing ']'"))
    return "separate the elements of an array with commas and close it with ]";
  if (has("parsing inline table") || has("closing '}'"))
    return "an inline table is { key = value, ... } on one line, with no comma after the last pair";
  if (has("expected keys, tables, whitespace or comments") || has("expected a comment or whitespace"))
    return "each line holds one key = value, a [table] header, or a # comment";
  if (has("end-of-file")) return "the file ends inside a value: close the string, array or inline table";
  return "keys containing dots need quotes, e.g. [model.\"llama-3.1-70b\"]; strings need quotes";
}

}  // namespace

toml::table parse_toml(std::string_view text, const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    const std::string what(e.description());
    throw UserError(SourceLocation{file, static_cast<int>(b.line), static_cast<int>(b.column)}, "",
                    "invalid TOML: " + what, toml_syntax_hint(what));
  }
}

std::string read_text_file(const std::filesystem::path& path) {
  const std::string& name = path.native();
  if (name.find('\0') != std::string::npos)
    throw UserError(SourceLocation{path_for_message(name), 0, 0}, "", std::string("the path ") + kNulProblem,
                    kNulHint);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UserError(SourceLocation{name, 0, 0}, "", "is a directory, not a file",
                    "give the path of a file inside it");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UserError(SourceLocation{name, 0, 0}, "", "cannot read the file",
                    std::filesystem::exists(path, ec) ? "check its permissions" : "no such file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

toml::table parse_toml_file(const std::filesystem::path& path, std::string& text) {
  text = read_text_file(path);
  return parse_toml(text, path.string());
}

std::string child_path(std::string_view path, std::string_view key) {
  std::string k = needs_quotes(key) ? "\"" + std::string(key) + "\"" : std::string(key);
  if (path.empty()) return k;
  return std::string(path) + "." + k;
}

TableReader::TableReader(const toml::table& table, std::string path, const ReadContext& ctx)
    : table_(&table), path_(std::move(path)), ctx_(&ctx) {}

const toml::node* TableReader::mark(std::string_view key) {
  known_.emplace_back(key);
  const toml::node* n = table_->get(key);
  // Nodes without a position were injected (--set); their entry, made by the injector, stays.
  if (n != nullptr && ctx_->locations != nullptr && n->source().begin.line > 0)
    ctx_->locations->add(path(key), location_of(n->source()));
  return n;
}

void TableReader::accept(std::initializer_list<std::string_view> keys) {
  for (auto k : keys) mark(k);
}

bool TableReader::read(std::string_view key, int& out, IntRange range) {
  const toml::node* n = mark(key);
  if (n == nullptr) return false;
  double v = 0.0;
  if (const auto* i = n->as_integer()) {
    v = static_cast<double>(i->get());
  } else if (const auto* f = n->as_floating_point()) {
    v = f->get();
    if (!std::isfinite(v) || std::floor(v) != v)
      fail_at(*n, key, "expected a whole number, got " + number_text(v), "this count cannot be fractional");
  } else {
    fail_at(*n, key, "expected an integer, got " + describe(*n), unquote_hint(*n, key));
  }
  if (v > static_cast<double>(range.max) && range.max >= INT_MAX)
    fail_at(*n, key, "must be at most " + std::to_string(range.max) + ", got " + number_text(v));
  if (v < static_cast<double>(range.min) || v > static_cast<double>(range.max))
    fail_at(*n, key, "must be " + range_text(range) + ", got " + number_text(v));
  out = static_cast<int>(v);
  return true;
}

bool TableReader::read(std::string_view key, double& out, RealRange range, double scale) {
  const toml::node* n = mark(key);
  if (n == nullptr) return false;
  double v = 0.0;
  if (const auto* i = n->as_integer())
    v = static_cast<double>(i->get());
  else if (const auto* f = n->as_floating_point())
    v = f->get();
  else
    fail_at(*n, key, "expected a number, got " + describe(*n), unquote_hint(*n, key));
  if (!std::isfinite(v)) fail_at(*n, key, "must be a finite number, got " + number_text(v));
  if (!in_range(v, range))
    fail_at(*n, key, "must be " + range_text(range) + ", got " + number_text(v), std::string(range.hint));
  out = v * scale;
  return true;
}

bool TableReader::read(std::string_view key, bool& out) {
  const toml::node* n = mark(key);
  if (n == nullptr) return false;
  const auto* b = n->as_boolean();
  if (b == nullptr) fail_at(*n, key, "expected true or false, got " + describe(*n), unquote_hint(*n, key));
  out = b->get();
  return true;
}

bool TableReader::read(std::string_view key, std::string& out) {
  const toml::node* n = mark(key);
  if (n == nullptr) return false;
  const auto* s = n->as_string();
  if (s == nullptr)
    fail_at(*n, key, "expected a string, got " + describe(*n), "put the value in double quotes");
  if (s->get().find('\0') != std::string::npos) fail_at(*n, key, kNulProblem, kNulHint);
  out = s->get();
  return true;
}

bool TableReader::read(std::string_view key, std::vector<std::string>& out) {
  const toml::node* n = mark(key);
  if (n == nullptr) return false;
  const auto* a = n->as_array();
  if (a == nullptr)
    fail_at(*n, key, "expected an array of strings, got " + describe(*n), "write it as [\"a\", \"b\"]");
  out.clear();
  for (const toml::node& el : *a) {
    const auto* s = el.as_string();
    if (s == nullptr) fail_at(el, key, "expected every element to be a string, got " + describe(el));
    if (s->get().find('\0') != std::string::npos) fail_at(el, key, kNulProblem, kNulHint);
    out.push_back(s->get());
  }
  return true;
}

bool TableReader::read(std::string_view key, std::vector<double>& out, RealRange range) {
  const toml::node* n = mark(key);
  if (n == nullptr) return false;
  const auto* a = n->as_array();
  if (a == nullptr)
    fail_at(*n, key, "expected an array of numbers, got " + describe(*n), "write it as [1.0, 2.0]");
  out.clear();
  for (const toml::node& el : *a) {
    double v = 0.0;
    if (const auto* i = el.as_integer())
      v = static_cast<double>(i->get());
    else if (const auto* f = el.as_floating_point())
      v = f->get();
    else
      fail_at(el, key, "expected every element to be a number, got " + describe(el));
    if (!std::isfinite(v) || !in_range(v, range))
      fail_at(el, key, "every element must be " + range_text(range) + ", got " + number_text(v),
              std::string(range.hint));
    out.push_back(v);
  }
  return true;
}

std::optional<std::size_t> TableReader::choice_index(std::string_view key,
                                                     std::span<const std::string_view> names) {
  std::string value;
  if (!read(key, value)) return std::nullopt;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == value) return i;
  std::vector<std::string> options(names.begin(), names.end());
  std::string hint = did_you_mean(value, options);
  fail(key, "unknown value \"" + value + "\"; expected one of " + join_names(options), hint);
}

std::optional<TableReader> TableReader::table(std::string_view key) {
  const toml::node* n = mark(key);
  if (n == nullptr) return std::nullopt;
  const auto* t = n->as_table();
  if (t == nullptr)
    fail_at(*n, key, "expected a table, got " + describe(*n), "write [" + path(key) + "] on its own line");
  return TableReader(*t, path(key), *ctx_);
}

std::vector<TableReader> TableReader::tables(std::string_view key) {
  std::vector<TableReader> out;
  const toml::node* n = mark(key);
  if (n == nullptr) return out;
  const auto* a = n->as_array();
  if (a == nullptr)
    fail_at(*n, key, "expected an array of tables, got " + describe(*n),
            "write each entry as [[" + path(key) + "]] followed by its keys");
  for (std::size_t i = 0; i < a->size(); ++i) {
    const auto* t = (*a)[i].as_table();
    if (t == nullptr) fail_at((*a)[i], key, "expected every element to be a table, got " + describe((*a)[i]));
    out.emplace_back(*t, path(key) + "[" + std::to_string(i) + "]", *ctx_);
  }
  return out;
}

const toml::node* TableReader::node(std::string_view key) {
  return mark(key);
}

void TableReader::finish() const {
  const toml::key* first = nullptr;
  toml::source_position first_pos{};
  for (const auto& [k, v] : *table_) {
    if (std::find(known_.begin(), known_.end(), k.str()) != known_.end()) continue;
    const toml::source_position pos = k.source().begin.line > 0 ? k.source().begin : v.source().begin;
    const bool earlier =
        pos.line < first_pos.line || (pos.line == first_pos.line && pos.column < first_pos.column);
    if (first == nullptr || earlier) {
      first = &k;
      first_pos = pos;
    }
  }
  if (first == nullptr) return;
  const std::string name(first->str());
  // A key that is valid elsewhere (or a known foreign spelling) is an exact answer; prefer it.
  std::string hint = ctx_->elsewhere != nullptr ? ctx_->elsewhere(path_, name) : std::string();
  if (hint.empty()) hint = did_you_mean(name, known_);
  if (hint.empty()) hint = "valid keys here: " + join_names(known_);
  SourceLocation loc = location_of(first->source());
  if (loc.line == 0) loc = where(name);
  throw UserError(loc, path(name), "unknown key `" + name + "` in " + table_label(), hint);
}

void TableReader::fail(std::string_view key, const std::string& problem, const std::string& hint) const {
  throw UserError(where(key), key.empty() ? path_ : path(key), problem, hint);
}

void TableReader::fail_at(const toml::node& node, std::string_view key, const std::string& problem,
                          const std::string& hint) const {
  SourceLocation loc = location_of(node.source());
  if (loc.line == 0) loc = where(key);
  if (loc.line == 0 && ctx_->locations != nullptr) loc = ctx_->locations->find(path(key));
  throw UserError(loc, key.empty() ? path_ : path(key), problem, hint);
}

SourceLocation TableReader::where(std::string_view key) const {
  if (!key.empty()) {
    const toml::node* n = table_->get(key);
    if (n != nullptr && n->source().begin.line > 0) return location_of(n->source());
    if (n != nullptr && ctx_->locations != nullptr) {
      SourceLocation injected = ctx_->locations->find(path(key));
      if (injected.file != ctx_->file) return injected;
    }
  }
  return where();
}

SourceLocation TableReader::where() const {
  if (table_->source().begin.line > 0) return location_of(table_->source());
  if (ctx_->locations != nullptr) return ctx_->locations->find(path_);
  return SourceLocation{ctx_->file, 0, 0};
}

std::string TableReader::table_label() const {
  return path_.empty() ? "the top level" : "[" + path_ + "]";
}

SourceLocation TableReader::location_of(const toml::source_region& r) const {
  // Values injected by --set carry their own source name; everything else is in ctx_->file.
  std::string file = r.path && !r.path->empty() ? *r.path : ctx_->file;
  return SourceLocation{std::move(file), static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
}

}  // namespace stepsim::scen
