#pragma once
// The small expression language of sweep filters: numbers, strings and booleans; arithmetic
// (+ - * / %), comparisons, `and`/`or`/`not` (also && || !), parentheses and four functions
// (min, max, abs, divides). Names are bound when an expression is compiled, and types are checked
// then, so a filter that would fail at run time is rejected when the sweep file is read.
// Evaluation cannot fail, allocate (for number and boolean expressions) or touch anything but the
// values it is given: a filter is data, never code.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace stepsim::scen {

enum class ExprType : std::uint8_t { number, string, boolean };
std::string_view name(ExprType t);

/// A value an expression reads or produces.
using ExprValue = std::variant<double, std::string, bool>;
ExprType type_of(const ExprValue& v);

/// A problem in an expression's text; `offset` is the 0-based character where it starts.
class ExprError : public std::runtime_error {
 public:
  ExprError(std::size_t offset, const std::string& message, std::string hint = {})
      : std::runtime_error(message), offset_(offset), hint_(std::move(hint)) {}
  std::size_t offset() const { return offset_; }
  const std::string& hint() const { return hint_; }

 private:
  std::size_t offset_;
  std::string hint_;
};

/// A name an expression may use: `slot` indexes the values passed to evaluate().
struct ExprBinding {
  std::uint32_t slot = 0;
  ExprType type = ExprType::number;
};

/// Resolves a name to its binding, or nullopt when unknown (the compiler then suggests one of
/// `known`). May throw ExprError itself (a predicate that refers to itself).
using ExprResolver = std::function<std::optional<ExprBinding>(std::string_view name)>;

class Expr {
 public:
  /// Parentheses, function calls, `not`, unary `-` and predicates inside one another: each level
  /// costs the parser about ten stack frames, so a hostile filter (thousands of `(`) must stop here.
  static constexpr int kMaxNesting = 64;
  /// Operators from the root to a leaf (`a + b + c + ...` is a chain as long as its terms):
  /// evaluation recurses that deep.
  static constexpr int kMaxChain = 1000;

  /// Parses and type-checks `text`. Throws ExprError for syntax errors, unknown names (with a
  /// did-you-mean among `known`) and type errors ("`tp` is a number; `and` needs booleans").
  static Expr compile(std::string_view text, const ExprResolver& resolve, std::span<const std::string> known);

  ExprType type() const { return nodes_[root_].type; }
  /// The value for `slots` (indexed by ExprBinding::slot). Division by zero gives inf or nan, whose
  /// comparisons are false, so such a filter rejects the point.
  ExprValue evaluate(std::span<const ExprValue> slots) const;
  /// The names the expression reads, each once, in order of first use.
  const std::vector<std::string>& names() const { return names_; }

  enum class Op : std::uint8_t {
    constant,
    variable,
    neg,
    not_,
    add,
    sub,
    mul,
    div,
    mod,
    eq,
    ne,
    lt,
    le,
    gt,
    ge,
    and_,
    or_,
    min,
    max,
    abs,
    divides
  };
  struct Node {
    Op op = Op::constant;
    ExprType type = ExprType::number;
    std::uint32_t a = 0, b = 0;       ///< operand node indices (unary: a)
    std::vector<std::uint32_t> args;  ///< min/max arguments
    ExprValue value;                  ///< constant
    std::uint32_t slot = 0;           ///< variable
  };

 private:
  friend class ExprParser;
  ExprValue eval(std::uint32_t node, std::span<const ExprValue> slots) const;

  std::vector<Node> nodes_;
  std::uint32_t root_ = 0;
  std::vector<std::string> names_;
};

}  // namespace stepsim::scen
