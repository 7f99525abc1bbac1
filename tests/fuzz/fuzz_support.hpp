#pragma once
// Shared by the libFuzzer targets: what counts as a finding, and the built-in catalog.
//
// A target feeds its input to one reader and whatever it leads to. A UserError is the right answer
// to bad input and is swallowed; any other exception is an internal error (exit 1 in the CLI) and
// is a finding, as are crashes and sanitizer reports. std::bad_alloc is a finding too: input must
// be refused by a limit before it can exhaust memory.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string_view>

#include "scenarios/catalog.hpp"
#include "sim/error.hpp"

namespace stepsim::fuzz {

inline const scen::Catalog& catalog() {
  static const scen::Catalog c = scen::Catalog::load_dir(std::filesystem::path(STEPSIM_DATA_BUILD_DIR) / "catalog");
  return c;
}

/// Runs `body`; returns normally for success or a UserError, aborts (a finding) on anything else.
template <class F>
void expect_user_errors_only(F&& body) {
  try {
    body();
  } catch (const UserError&) {
    // the right answer to bad input
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "internal error: unknown exception\n");
    std::abort();
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace stepsim::fuzz
