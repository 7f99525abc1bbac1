#include "scenarios/sweep_expr.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "scenarios/suggest.hpp"

namespace stepsim::scen {

std::string_view name(ExprType t) {
  switch (t) {
    case ExprType::number: return "a number";
    case ExprType::string: return "a string";
    case ExprType::boolean: return "a boolean";
  }
  return "?";
}

ExprType type_of(const ExprValue& v) {
  if (std::holds_alternative<double>(v)) return ExprType::number;
  if (std::holds_alternative<std::string>(v)) return ExprType::string;
  return ExprType::boolean;
}

namespace expr_detail {

enum class Tok : std::uint8_t { end, number, string, name, punct };

struct Token {
  Tok kind = Tok::end;
  std::string text;  ///< name, punctuation, or the string literal's contents
  double number = 0.0;
  std::size_t offset = 0;
};

bool name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

constexpr std::string_view kTwoCharPunct[] = {"==", "!=", "<=", ">=", "&&", "||"};
constexpr std::string_view kOneCharPunct = "+-*/%()<>!,";

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(s[i + 1]))) {
      // strtod reads from a copy of the number's characters only: copying the rest of the text
      // for every number would make a long filter quadratic.
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
                              ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
      const std::string digits(s.substr(i, j - i));
      char* end = nullptr;
      const double v = std::strtod(digits.c_str(), &end);
      out.push_back({Tok::number, digits.substr(0, static_cast<std::size_t>(end - digits.c_str())), v, i});
      i += out.back().text.size();
    } else if (c == '"' || c == '\'') {
      const std::size_t close = s.find(c, i + 1);
      if (close == std::string_view::npos)
        throw ExprError(i, "unterminated string", "close it with " + std::string(1, c));
      out.push_back({Tok::string, std::string(s.substr(i + 1, close - i - 1)), 0.0, i});
      i = close + 1;
    } else if (name_start(c)) {
      std::size_t j = i + 1;
      while (j < s.size() && name_char(s[j])) ++j;  // dotted keys are names too: parallelism.tp
      out.push_back({Tok::name, std::string(s.substr(i, j - i)), 0.0, i});
      i = j;
    } else {
      std::string p;
      for (auto two : kTwoCharPunct)
        if (s.substr(i, 2) == two) p = two;
      if (p.empty() && kOneCharPunct.find(c) != std::string_view::npos) p = std::string(1, c);
      if (p.empty()) throw ExprError(i, "unexpected character `" + std::string(1, c) + "`");
      out.push_back({Tok::punct, p, 0.0, i});
      i += p.size();
    }
  }
  out.push_back({Tok::end, "", 0.0, s.size()});
  return out;
}

}  // namespace expr_detail

using expr_detail::Tok;
using expr_detail::Token;
using expr_detail::tokenize;

/// Recursive descent over the grammar (lowest precedence first):
///   or := and (("or" | "||") and)*      and := not (("and" | "&&") not)*
///   not := ("not" | "!") not | cmp      cmp := sum (("==" | "!=" | "<" | "<=" | ">" | ">=") sum)?
///   sum := prod (("+" | "-") prod)*     prod := unary (("*" | "/" | "%") unary)*
///   unary := "-" unary | atom           atom := number | string | true | false | name | call | "(" or ")"
class ExprParser {
 public:
  ExprParser(std::string_view text, const ExprResolver& resolve, std::span<const std::string> known)
      : tokens_(tokenize(text)), resolve_(resolve), known_(known) {}

  Expr run() {
    expr_.root_ = parse_or();
    if (peek().kind != Tok::end)
      throw ExprError(peek().offset, "unexpected `" + peek().text + "`", "an operator is missing?");
    return std::move(expr_);
  }

 private:
  using Op = Expr::Op;
  const Token& peek() const { return tokens_[pos_]; }
  bool accept(std::string_view p) {
    const Token& t = peek();
    if ((t.kind == Tok::punct || t.kind == Tok::name) && t.text == p) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(std::string_view p) {
    if (!accept(p))
      throw ExprError(peek().offset, "expected `" + std::string(p) + "`, found " + describe(peek()));
  }
  static std::string describe(const Token& t) {
    return t.kind == Tok::end ? std::string("the end") : "`" + t.text + "`";
  }

  /// One level deeper for the lifetime of the guard; throws past kMaxNesting.
  class Nested {
   public:
    Nested(ExprParser& p, std::size_t offset) : p_(p) {
      if (++p_.nesting_ > Expr::kMaxNesting)
        throw ExprError(offset,
                        "nested more than " + std::to_string(Expr::kMaxNesting) +
                            " levels deep (parentheses, function calls, `not` and `-` count)",
                        "simplify it, or name parts of it in [predicates]");
    }
    ~Nested() { --p_.nesting_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    ExprParser& p_;
  };

  std::uint32_t add(Expr::Node n) {
    std::uint32_t depth = 1;
    const auto below = [&](std::uint32_t i) { depth = std::max(depth, depth_[i] + 1); };
    if (n.op != Op::constant && n.op != Op::variable) {
      for (const std::uint32_t a : n.args) below(a);
      if (n.args.empty()) below(n.a);
      if (n.args.empty() && n.op != Op::neg && n.op != Op::not_) below(n.b);
    }
    if (depth > Expr::kMaxChain)
      throw ExprError(peek().offset,
                      "too long: more than " + std::to_string(Expr::kMaxChain) + " operators in one chain",
                      "name parts of it in [predicates], or give the values as an axis");
    expr_.nodes_.push_back(std::move(n));
    depth_.push_back(depth);
    return static_cast<std::uint32_t>(expr_.nodes_.size() - 1);
  }
  ExprType type(std::uint32_t n) const { return expr_.nodes_[n].type; }
  void need(std::uint32_t n, ExprType t, std::size_t offset, std::string_view what) const {
    if (type(n) != t)
      throw ExprError(offset, std::string(what) + " needs " + std::string(name(t)) + ", got " +
                                  std::string(name(type(n))));
  }
  std::uint32_t binary(Op op, ExprType t, std::uint32_t a, std::uint32_t b) {
    Expr::Node n;
    n.op = op;
    n.type = t;
    n.a = a;
    n.b = b;
    return add(std::move(n));
  }

  std::uint32_t parse_or() {
    std::uint32_t a = parse_and();
    for (std::size_t at = peek().offset; accept("or") || accept("||"); at = peek().offset) {
      const std::uint32_t b = parse_and();
      need(a, ExprType::boolean, at, "`or`");
      need(b, ExprType::boolean, at, "`or`");
      a = binary(Op::or_, ExprType::boolean, a, b);
    }
    return a;
  }
  std::uint32_t parse_and() {
    std::uint32_t a = parse_not();
    for (std::size_t at = peek().offset; accept("and") || accept("&&"); at = peek().offset) {
      const std::uint32_t b = parse_not();
      need(a, ExprType::boolean, at, "`and`");
      need(b, ExprType::boolean, at, "`and`");
      a = binary(Op::and_, ExprType::boolean, a, b);
    }
    return a;
  }
  std::uint32_t parse_not() {
    const std::size_t at = peek().offset;
    if (accept("not") || accept("!")) {
      const Nested level(*this, at);
      const std::uint32_t a = parse_not();
      need(a, ExprType::boolean, at, "`not`");
      return binary(Op::not_, ExprType::boolean, a, 0);
    }
    return parse_cmp();
  }
  std::uint32_t parse_cmp() {
    static constexpr std::pair<std::string_view, Op> kCmp[] = {{"==", Op::eq}, {"!=", Op::ne}, {"<=", Op::le},
                                                               {">=", Op::ge}, {"<", Op::lt},  {">", Op::gt}};
    const std::uint32_t a = parse_sum();
    const std::size_t at = peek().offset;
    for (const auto& [text, op] : kCmp) {
      if (!accept(text)) continue;
      const std::uint32_t b = parse_sum();
      if (op == Op::eq || op == Op::ne) {
        if (type(a) != type(b))
          throw ExprError(at,
                          "`" + std::string(text) + "` compares " + std::string(name(type(a))) + " with " +
                              std::string(name(type(b))),
                          "compare values of one type; strings need quotes");
      } else {
        need(a, ExprType::number, at, "`" + std::string(text) + "`");
        need(b, ExprType::number, at, "`" + std::string(text) + "`");
      }
      return binary(op, ExprType::boolean, a, b);
    }
    return a;
  }
  std::uint32_t parse_arith(std::uint32_t (ExprParser::*next)(),
                            std::initializer_list<std::pair<std::string_view, Op>> ops) {
    std::uint32_t a = (this->*next)();
    for (bool more = true; more;) {
      more = false;
      const std::size_t at = peek().offset;
      for (const auto& [text, op] : ops) {
        if (!accept(text)) continue;
        const std::uint32_t b = (this->*next)();
        need(a, ExprType::number, at, "`" + std::string(text) + "`");
        need(b, ExprType::number, at, "`" + std::string(text) + "`");
        a = binary(op, ExprType::number, a, b);
        more = true;
        break;
      }
    }
    return a;
  }
  std::uint32_t parse_sum() { return parse_arith(&ExprParser::parse_prod, {{"+", Op::add}, {"-", Op::sub}}); }
  std::uint32_t parse_prod() {
    return parse_arith(&ExprParser::parse_unary, {{"*", Op::mul}, {"/", Op::div}, {"%", Op::mod}});
  }
  std::uint32_t parse_unary() {
    const std::size_t at = peek().offset;
    if (accept("-")) {
      const Nested level(*this, at);
      const std::uint32_t a = parse_unary();
      need(a, ExprType::number, at, "`-`");
      return binary(Op::neg, ExprType::number, a, 0);
    }
    return parse_atom();
  }
  std::uint32_t parse_atom() {
    const Token t = peek();
    Expr::Node n;
    if (t.kind == Tok::number || t.kind == Tok::string) {
      ++pos_;
      n.type = t.kind == Tok::number ? ExprType::number : ExprType::string;
      n.value = t.kind == Tok::number ? ExprValue(t.number) : ExprValue(t.text);
      return add(std::move(n));
    }
    if (accept("(")) {
      const Nested level(*this, t.offset);
      const std::uint32_t a = parse_or();
      expect(")");
      return a;
    }
    if (t.kind != Tok::name) throw ExprError(t.offset, "expected a value, found " + describe(t));
    ++pos_;
    if (t.text == "true" || t.text == "false") {
      n.type = ExprType::boolean;
      n.value = t.text == "true";
      return add(std::move(n));
    }
    if (accept("(")) return parse_call(t);
    return parse_name(t);
  }
  std::uint32_t parse_name(const Token& t) {
    const std::optional<ExprBinding> b = resolve_(t.text);
    if (!b) {
      std::string hint = did_you_mean(t.text, known_);
      if (hint.empty() && !known_.empty()) hint = "names here: " + join_names(known_);
      throw ExprError(t.offset, "unknown name `" + t.text + "`", hint);
    }
    bool seen = false;
    for (const auto& n : expr_.names_) seen = seen || n == t.text;
    if (!seen) expr_.names_.push_back(t.text);
    Expr::Node n;
    n.op = Op::variable;
    n.type = b->type;
    n.slot = b->slot;
    return add(std::move(n));
  }
  std::uint32_t parse_call(const Token& fn) {
    static constexpr std::pair<std::string_view, Op> kFunctions[] = {
        {"min", Op::min}, {"max", Op::max}, {"abs", Op::abs}, {"divides", Op::divides}};
    Expr::Node n;
    bool found = false;
    for (const auto& [text, op] : kFunctions)
      if (fn.text == text) n.op = op, found = true;
    if (!found)
      throw ExprError(fn.offset, "unknown function `" + fn.text + "`", "functions: min, max, abs, divides");
    const Nested level(*this, fn.offset);
    if (!accept(")")) {
      do {
        const std::size_t at = peek().offset;
        n.args.push_back(parse_or());
        need(n.args.back(), ExprType::number, at, "`" + fn.text + "`");
      } while (accept(","));
      expect(")");
    }
    const std::size_t want = n.op == Op::abs ? 1 : n.op == Op::divides ? 2 : 0;
    if ((want > 0 && n.args.size() != want) || n.args.empty())
      throw ExprError(fn.offset, "`" + fn.text + "` takes " +
                                     (want ? std::to_string(want) : std::string("at least 1")) + " argument" +
                                     (want == 1 ? "" : "s") + ", got " + std::to_string(n.args.size()));
    n.type = n.op == Op::divides ? ExprType::boolean : ExprType::number;
    return add(std::move(n));
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  const ExprResolver& resolve_;
  std::span<const std::string> known_;
  Expr expr_;
  std::vector<std::uint32_t> depth_;  ///< per node: operators from it down to its deepest leaf
  int nesting_ = 0;
};

Expr Expr::compile(std::string_view text, const ExprResolver& resolve, std::span<const std::string> known) {
  return ExprParser(text, resolve, known).run();
}

ExprValue Expr::evaluate(std::span<const ExprValue> slots) const {
  return eval(root_, slots);
}

ExprValue Expr::eval(std::uint32_t index, std::span<const ExprValue> slots) const {
  const Node& n = nodes_[index];
  const auto num = [&](std::uint32_t i) { return std::get<double>(eval(i, slots)); };
  const auto boolean = [&](std::uint32_t i) { return std::get<bool>(eval(i, slots)); };
  switch (n.op) {
    case Op::constant: return n.value;
    case Op::variable: return slots[n.slot];
    case Op::neg: return -num(n.a);
    case Op::not_: return !boolean(n.a);
    case Op::add: return num(n.a) + num(n.b);
    case Op::sub: return num(n.a) - num(n.b);
    case Op::mul: return num(n.a) * num(n.b);
    case Op::div: return num(n.a) / num(n.b);
    case Op::mod: return std::fmod(num(n.a), num(n.b));
    case Op::eq: return eval(n.a, slots) == eval(n.b, slots);
    case Op::ne: return eval(n.a, slots) != eval(n.b, slots);
    case Op::lt: return num(n.a) < num(n.b);
    case Op::le: return num(n.a) <= num(n.b);
    case Op::gt: return num(n.a) > num(n.b);
    case Op::ge: return num(n.a) >= num(n.b);
    case Op::and_: return boolean(n.a) && boolean(n.b);
    case Op::or_: return boolean(n.a) || boolean(n.b);
    case Op::abs: return std::fabs(num(n.args[0]));
    case Op::divides: return std::fmod(num(n.args[1]), num(n.args[0])) == 0.0;
    case Op::min:
    case Op::max: {
      double v = num(n.args[0]);
      for (std::size_t i = 1; i < n.args.size(); ++i)
        v = n.op == Op::min ? std::fmin(v, num(n.args[i])) : std::fmax(v, num(n.args[i]));
      return v;
    }
  }
  return false;
}

}  // namespace stepsim::scen
