// The sweep filter language: parsing, precedence, types checked when compiled, safe evaluation.
#include <catch2/catch.hpp>

#include <cmath>

#include "scenarios/sweep_expr.hpp"

using namespace stepsim::scen;

namespace {

// Slots: tp = 4, pp = 2, gpu = "h100-sxm", nvls = true.
const std::vector<std::string> kNames = {"tp", "pp", "gpu", "nvls", "parallelism.tp"};
const std::vector<ExprValue> kSlots = {4.0, 2.0, std::string("h100-sxm"), true};

std::optional<ExprBinding> resolve(std::string_view n) {
  if (n == "tp" || n == "parallelism.tp") return ExprBinding{0, ExprType::number};
  if (n == "pp") return ExprBinding{1, ExprType::number};
  if (n == "gpu") return ExprBinding{2, ExprType::string};
  if (n == "nvls") return ExprBinding{3, ExprType::boolean};
  return std::nullopt;
}

ExprValue eval(const std::string& text) {
  return Expr::compile(text, resolve, kNames).evaluate(kSlots);
}

/// The offset and message of the ExprError `text` raises.
std::pair<std::size_t, std::string> expr_error_of(const std::string& text) {
  try {
    Expr::compile(text, resolve, kNames);
  } catch (const ExprError& e) {
    return {e.offset(), std::string(e.what()) + " | " + e.hint()};
  }
  FAIL("no error for " << text);
  return {};
}

}  // namespace

TEST_CASE("Filter arithmetic, comparison and logic follow the usual precedence") {
  CHECK(std::get<double>(eval("tp * pp + 1")) == 9.0);     // 4 x 2 + 1
  CHECK(std::get<double>(eval("tp * (pp + 1)")) == 12.0);  // 4 x 3
  CHECK(std::get<double>(eval("-tp + 10 % 4")) == -2.0);   // -4 + 2
  CHECK(std::get<double>(eval("tp / pp / 2")) == 1.0);     // left to right: (4 / 2) / 2
  CHECK(std::get<bool>(eval("tp * pp <= 8")));             // 8 <= 8
  CHECK_FALSE(std::get<bool>(eval("tp * pp < 8")));
  CHECK(std::get<bool>(eval("tp == 4 and pp == 2 or false")));   // (true and true) or false
  CHECK(std::get<bool>(eval("false or tp == 4 && !(pp > 2)")));  // and binds tighter than or
  CHECK(std::get<bool>(eval("not nvls == false")));  // not (nvls == false): comparison binds tighter
  CHECK(std::get<bool>(eval("gpu == \"h100-sxm\" && gpu != 'h200'")));
  CHECK(std::get<bool>(eval("parallelism.tp == tp")));  // dotted keys are names too
}

TEST_CASE("Filter functions") {
  CHECK(std::get<double>(eval("min(tp, pp, 3)")) == 2.0);
  CHECK(std::get<double>(eval("max(tp, pp * 3)")) == 6.0);
  CHECK(std::get<double>(eval("abs(pp - tp)")) == 2.0);
  CHECK(std::get<bool>(eval("divides(pp, tp)")));       // 4 % 2 == 0
  CHECK_FALSE(std::get<bool>(eval("divides(3, tp)")));  // 4 % 3 == 1
}

TEST_CASE("Division by zero rejects rather than fails") {
  // 4 / 0 = inf and 4 % 0 = nan: comparisons with nan are false, so such a filter drops the point.
  CHECK(std::isinf(std::get<double>(eval("tp / 0"))));
  CHECK_FALSE(std::get<bool>(eval("tp % 0 == 0")));
  CHECK_FALSE(std::get<bool>(eval("tp % 0 != 0 and tp % 0 < 1")));
}

TEST_CASE("Filter errors name the place and suggest a fix") {
  auto [at, what] = expr_error_of("tpp * pp <= 64");
  CHECK(at == 0);
  CHECK_THAT(what, Catch::Contains("unknown name `tpp`") && Catch::Contains("did you mean `tp`?"));

  std::tie(at, what) = expr_error_of("tp * pp <=");
  CHECK(at == 10);  // the end of the text
  CHECK_THAT(what, Catch::Contains("expected a value"));

  std::tie(at, what) = expr_error_of("tp and pp");
  CHECK(at == 3);
  CHECK_THAT(what, Catch::Contains("`and` needs a boolean, got a number"));

  std::tie(at, what) = expr_error_of("gpu == 4");
  CHECK(at == 4);
  CHECK_THAT(what, Catch::Contains("compares a string with a number"));

  std::tie(at, what) = expr_error_of("gpu < \"h200\"");
  CHECK_THAT(what, Catch::Contains("`<` needs a number, got a string"));

  std::tie(at, what) = expr_error_of("log(tp)");
  CHECK_THAT(what, Catch::Contains("unknown function `log`"));

  std::tie(at, what) = expr_error_of("divides(tp)");
  CHECK_THAT(what, Catch::Contains("`divides` takes 2 arguments, got 1"));

  std::tie(at, what) = expr_error_of("tp == 4)");
  CHECK(at == 7);
  CHECK_THAT(what, Catch::Contains("unexpected `)`"));

  std::tie(at, what) = expr_error_of("tp = 4");
  CHECK(at == 3);
  CHECK_THAT(what, Catch::Contains("unexpected character `=`"));

  std::tie(at, what) = expr_error_of("gpu == \"h100");
  CHECK(at == 7);
  CHECK_THAT(what, Catch::Contains("unterminated string"));
}

TEST_CASE("An expression lists the names it reads") {
  const Expr e = Expr::compile("tp * pp <= 64 and tp > 1 and nvls", resolve, kNames);
  CHECK(e.names() == std::vector<std::string>{"tp", "pp", "nvls"});
  CHECK(e.type() == ExprType::boolean);
}

namespace sweep_expr_test {
std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}
}  // namespace sweep_expr_test

TEST_CASE("Filters nested too deep are refused, not a stack overflow") {
  using sweep_expr_test::repeat;
  // 64 levels are fine; the 65th `(` (offset 64) is where the error points.
  CHECK(std::get<bool>(eval(repeat("(", 64) + "tp > 1" + repeat(")", 64))));
  auto [at, what] = expr_error_of(repeat("(", 65) + "tp > 1" + repeat(")", 65));
  CHECK(at == 64);
  CHECK_THAT(what, Catch::Contains("nested more than 64 levels deep"));
  // What crashed the parser: 10,000 parentheses, or as many `not`, `-` or calls.
  std::tie(at, what) = expr_error_of(repeat("(", 10000) + "tp > 1" + repeat(")", 10000));
  CHECK_THAT(what, Catch::Contains("nested more than 64"));
  std::tie(at, what) = expr_error_of(repeat("not ", 50000) + "nvls");
  CHECK(at == 4 * 64);  // the 65th `not`
  CHECK_THAT(what, Catch::Contains("nested more than 64"));
  std::tie(at, what) = expr_error_of(repeat("-", 50000) + "tp > 1");
  CHECK_THAT(what, Catch::Contains("nested more than 64"));
  std::tie(at, what) = expr_error_of(repeat("abs(", 5000) + "tp" + repeat(")", 5000) + " > 1");
  CHECK_THAT(what, Catch::Contains("nested more than 64"));
}

TEST_CASE("Filters with chains too long to evaluate are refused") {
  using sweep_expr_test::repeat;
  // `tp + 1 + ... + 1 > 0` with n additions is n + 2 operators from the root (`>`) to `tp`.
  CHECK(std::get<bool>(eval("tp" + repeat(" + 1", 998) + " > 0")));  // 1,000: the limit
  auto [at, what] = expr_error_of("tp" + repeat(" + 1", 999) + " > 0");
  CHECK_THAT(what, Catch::Contains("more than 1000 operators in one chain"));
  std::tie(at, what) = expr_error_of("tp" + repeat(" + 1", 200000) + " > 0");  // crashed evaluation
  CHECK_THAT(what, Catch::Contains("more than 1000 operators"));
  CHECK(at < 4 * 1000 + 8);  // found where the chain passed the limit, not at the end
}
