#pragma once
// Errors a user caused (bad input, impossible configuration) versus bugs.
//
// Anything the user can fix is a UserError: the CLI prints it and exits with code 2. Every other
// exception is an internal error (exit code 1). A UserError carries where the problem is (file,
// line, column, key) when it is known, so messages read "run.toml:12:5: parallelism.tp: ...".

#include <stdexcept>
#include <string>

namespace stepsim {

/// A position in an input file; line and column are 1-based, 0 when unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// An error in the user's input or configuration. what() is the full formatted message.
class UserError : public std::runtime_error {
 public:
  /// `key` is the dotted key path ("parallelism.tp"), `problem` says what is wrong and what was
  /// expected, `hint` (optional) says what to do ("did you mean `tp`?").
  UserError(SourceLocation where, std::string key, std::string problem, std::string hint = {});
  /// An error with no file position (command-line arguments, cross-field checks without a table).
  explicit UserError(std::string message);

  const SourceLocation& where() const { return where_; }
  const std::string& key() const { return key_; }
  const std::string& problem() const { return problem_; }
  const std::string& hint() const { return hint_; }

 private:
  SourceLocation where_;
  std::string key_;
  std::string problem_;
  std::string hint_;
};

/// The error for a step whose simulated time would pass the end of the simulator's time range
/// (kTimeRangeEnd, about 106 days in picoseconds): `cause` says what would have ended past it
/// ("op 12 \"fwd.qkv\" on [gpu0.compute], started at 1.5 s, would end past it"); the hint names the
/// inputs to check.
UserError time_range_error(const std::string& cause);

}  // namespace stepsim
