#include "sim/error.hpp"

#include <utility>

namespace stepsim {
namespace {
std::string format(const SourceLocation& where, const std::string& key, const std::string& problem,
                   const std::string& hint) {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) {
      out += ':' + std::to_string(where.line);
      if (where.column > 0) out += ':' + std::to_string(where.column);
    }
    out += ": ";
  }
  if (!key.empty()) out += key + ": ";
  out += problem;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}
}  // namespace

UserError::UserError(SourceLocation where, std::string key, std::string problem, std::string hint)
    : std::runtime_error(format(where, key, problem, hint)),
      where_(std::move(where)),
      key_(std::move(key)),
      problem_(std::move(problem)),
      hint_(std::move(hint)) {}

UserError time_range_error(const std::string& cause) {
  return UserError({}, "",
                   "the step exceeds the simulator's time range (about 106 days in picoseconds): " + cause,
                   "no real step takes this long: an input is far outside its plausible range, e.g. a "
                   "latency in seconds instead of microseconds, a bandwidth near zero, a huge "
                   "oversubscription or a tiny efficiency (docs/scenarios.md lists the plausible ranges)");
}

UserError::UserError(std::string message) : std::runtime_error(message), problem_(std::move(message)) {}

}  // namespace stepsim
