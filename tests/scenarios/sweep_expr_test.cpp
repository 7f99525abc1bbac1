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
