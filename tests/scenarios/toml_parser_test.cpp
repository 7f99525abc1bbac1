// The vendored TOML parser on input that broke earlier versions (issue 16, item 9).
//
// Debian 12's toml++ 3.3.0 sends every code point of U+00A1..U+049A and U+FBE6..U+FEFE that is not
// whitespace into __builtin_unreachable() (its is_non_ascii_horizontal_whitespace: the 1,018-wide
// blocks 0 and 63 of its lookup, (c - 0xA0) / 0x3FA, are neither excluded by the bit mask nor
// handled by the switch). The vendored toml++ (third_party/tomlplusplus) returns false there, so
// each such input is an ordinary syntax error. Under UBSan (CI's sanitizer build compiles the parser
// with it) the old code stops with "execution reached an unreachable program point".
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"

namespace toml_unicode_rows {

/// `cp` as UTF-8 (cp < 0x10000).
std::string utf8(char32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

}  // namespace toml_unicode_rows

TEST_CASE("non-ASCII code points where whitespace may stand are syntax errors, not undefined behaviour") {
  using toml_unicode_rows::utf8;
  // The first and last code points of both blocks, and some inside them (none is whitespace except
  // U+00A0 and U+FEFF, which are outside them or handled).
  for (const char32_t cp : {char32_t{0xA1}, char32_t{0xE9}, char32_t{0x3A9}, char32_t{0x49A},
                            char32_t{0xFBE6}, char32_t{0xFC00}, char32_t{0xFEFE}}) {
    for (const std::string& text :
         {"[model]\npreset " + utf8(cp) + "= \"llama-3.1-8b\"\n",
          "[model]\npreset = " + utf8(cp) + "\"llama-3.1-8b\"\n", "[model]" + utf8(cp) + "\n"}) {
      INFO("code point U+" << std::hex << static_cast<unsigned>(cp));
      try {
        (void)stepsim::scen::load_scenario_string(text, "u.toml", stepsim::test::builtin_catalog());
        FAIL("accepted");
      } catch (const stepsim::UserError& e) {
        CHECK(std::string(e.what()).find("u.toml:") != std::string::npos);
        CHECK(std::string(e.what()).find("invalid TOML") != std::string::npos);
      }
    }
  }
}

TEST_CASE("a closing brace where an array value should stand is a syntax error") {
  // Found by fuzz_sweep and fuzz_scenario: toml++ handed the `}` to parse_value(), which asserts
  // that no value starts with a terminator (abort in a debug build, undefined behaviour in a clang
  // release build). third_party/tomlplusplus carries the fix.
  for (const std::string text :
       {"[hardware]\nnvlink_domain = [}\n", "[hardware]\nnvlink_domain = [[[1, }]]]\n",
        "[hardware]\nnvlink_domain = [1, }\n"}) {
    INFO(text);
    try {
      (void)stepsim::scen::load_scenario_string(text, "b.toml", stepsim::test::builtin_catalog());
      FAIL("accepted");
    } catch (const stepsim::UserError& e) {
      CHECK(std::string(e.what()).find("b.toml:2:") != std::string::npos);
    }
  }
}

TEST_CASE("a date-like value followed by a space, one digit and a terminator is a syntax error") {
  // Found by fuzz_scenario: ten characters that could be a date (`7c--------`) then ` 1` made toml++
  // scan for the time part starting on the terminator after the digit, which asserts like the
  // case above. third_party/tomlplusplus carries the fix (its second `stepsim patch`).
  for (const std::string text :
       {"[hardware]\nnodes = [7c-------- 1 ]\n", "[hardware]\nnodes = 7c-------- 1\n",
        "[hardware]\nnodes = [0,7c-------- 1 [0~a\n"}) {
    INFO(text);
    try {
      (void)stepsim::scen::load_scenario_string(text, "d.toml", stepsim::test::builtin_catalog());
      FAIL("accepted");
    } catch (const stepsim::UserError& e) {
      CHECK(std::string(e.what()).find("d.toml:2:") != std::string::npos);
    }
  }
}
