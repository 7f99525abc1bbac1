#pragma once
// The bad-input catalogue (issue 16): each defect the reliability audit found, as a row that runs
// the real stepsim binary on hostile input and states what a user must see. A row names the files
// it writes into a private folder, the command line ({dir} stands for that folder, already
// shell-quoted), the exit code it expects (2 for a user's mistake, never 1 or a signal) and text
// the standard error must contain (a location, the key, a hint).
//
// Every area of the hardening work adds its own table in its own *_test.cpp next to this header
// and runs it with check_bad_input().
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "tests/support/temp_files.hpp"

namespace stepsim::test::bad {

struct BadInput {
  std::string name;                                       ///< the defect, as the audit named it
  std::vector<std::pair<std::string, std::string>> files; ///< (relative name, contents)
  std::string args;                                       ///< command line after `stepsim`; {dir}
  int exit_code = 2;                                      ///< expected exit status
  std::vector<std::string> stderr_contains;               ///< each must appear in stderr
  std::vector<std::string> stderr_lacks = {"internal error"};  ///< none may appear
};

inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// Runs one row and checks its exit code and messages; returns the result for further checks.
inline CliResult check_bad_input(const BadInput& row) {
  TempDir dir;
  for (const auto& [name, text] : row.files) {
    std::filesystem::create_directories((dir.path() / name).parent_path());
    dir.write(name, text);
  }
  const std::string args = replace_all(row.args, "{dir}", "'" + dir.path().string() + "'");
  const CliResult r = run_stepsim(args);
  INFO(row.name << "\n$ stepsim " << args << "\nexit " << r.exit_code << "\nstderr:\n" << r.err
                << "\nstdout:\n" << r.out.substr(0, 2000));
  CHECK(r.exit_code == row.exit_code);
  for (const auto& s : row.stderr_contains) CHECK(r.err.find(s) != std::string::npos);
  for (const auto& s : row.stderr_lacks) CHECK(r.err.find(s) == std::string::npos);
  return r;
}

}  // namespace stepsim::test::bad
