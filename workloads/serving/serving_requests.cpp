// Request sets for the serving simulator: a seeded Poisson generator and a CSV trace parser.

#include <charconv>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <system_error>

#include "sim/error.hpp"
#include "workloads/serving/serving.hpp"

namespace stepsim::work {

namespace {

/// Uniform in [0, 1) from the top 53 bits: exact doubles, the same on every platform.
double uniform01(std::mt19937_64& g) {
  return static_cast<double>(g() >> 11) * 0x1.0p-53;
}

/// Inverse CDF: -ln(1 - u) / rate; 1 - u lies in (0, 1], so the logarithm is finite.
double exponential(std::mt19937_64& g, double rate_per_s) {
  return -std::log1p(-uniform01(g)) / rate_per_s;
}

/// Uniform integer in [d.min_tokens, d.max_tokens] by rejection: draws at or above the largest multiple
/// of the range are redrawn, so no residue is favoured (a plain modulo would bias small values).
int uniform_length(std::mt19937_64& g, const LengthDistribution& d) {
  const std::uint64_t range = static_cast<std::uint64_t>(d.max_tokens - d.min_tokens) + 1;
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / range * range;
  std::uint64_t x = g();
  while (x >= limit) x = g();
  return d.min_tokens + static_cast<int>(x % range);
}

void check_lengths(const LengthDistribution& d, const char* key) {
  if (d.min_tokens < 1 || d.min_tokens > d.max_tokens)
    throw UserError(SourceLocation{}, key,
                    "needs 1 <= min_tokens <= max_tokens, got [" + std::to_string(d.min_tokens) + ", " +
                        std::to_string(d.max_tokens) + "]");
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

/// Splits a row into exactly three trimmed fields; false when the count differs.
bool split3(std::string_view line, std::string_view (&fields)[3]) {
  for (int f = 0; f < 3; ++f) {
    const auto comma = line.find(',');
    if ((comma == std::string_view::npos) != (f == 2)) return false;
    fields[f] = trim(line.substr(0, comma));
    if (comma != std::string_view::npos) line.remove_prefix(comma + 1);
  }
  return true;
}

/// One trace row being read, so every error names its place.
struct TraceRow {
  std::string_view source;
  int line = 0;

  [[noreturn]] void fail(const std::string& problem) const {
    throw UserError(SourceLocation{std::string(source), line, 0}, "", problem);
  }

  int positive_int(std::string_view field, const char* name) const {
    int v = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec != std::errc{} || end != field.data() + field.size() || v < 1)
      fail(std::string(name) + " must be an integer >= 1, got '" + std::string(field) + "'");
    return v;
  }

  double arrival(std::string_view field) const {
    double v = 0.0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec != std::errc{} || end != field.data() + field.size() || !std::isfinite(v) || v < 0.0)
      fail("arrival_s must be a finite number of seconds >= 0, got '" + std::string(field) + "'");
    return v;
  }
};

/// Reads one data row; `previous_s` is the arrival before it (arrivals must not go back in time).
Request parse_row(const TraceRow& row, std::string_view text, double previous_s) {
  std::string_view fields[3];
  if (!split3(text, fields))
    row.fail("expected 3 fields arrival_s,input_len,output_len, got '" + std::string(text) + "'");
  const Request r{row.arrival(fields[0]), row.positive_int(fields[1], "input_len"),
                  row.positive_int(fields[2], "output_len")};
  if (r.arrival_s < previous_s)
    row.fail("arrival_s " + std::string(fields[0]) + " is earlier than the row before (" +
             std::to_string(previous_s) + " s); the trace must be in arrival order");
  return r;
}

}  // namespace

std::vector<Request> poisson_requests(const PoissonWorkload& w) {
  if (!(std::isfinite(w.rate_per_s) && w.rate_per_s > 0.0))
    throw UserError(SourceLocation{}, "serving.rate_per_s",
                    "must be finite and > 0, got " + std::to_string(w.rate_per_s));
  if (w.requests < 1)
    throw UserError(SourceLocation{}, "serving.requests",
                    "must be at least 1, got " + std::to_string(w.requests));
  check_lengths(w.input, "serving.input_len");
  check_lengths(w.output, "serving.output_len");
  std::mt19937_64 g(w.seed);
  std::vector<Request> out;
  out.reserve(static_cast<std::size_t>(w.requests));
  double t_s = 0.0;
  for (int i = 0; i < w.requests; ++i) {
    t_s += exponential(g, w.rate_per_s);
    const int input = uniform_length(g, w.input);
    out.push_back(Request{t_s, input, uniform_length(g, w.output)});
  }
  return out;
}

std::vector<Request> parse_request_trace(std::string_view csv_text, std::string_view source_name) {
  std::vector<Request> out;
  TraceRow row{source_name, 0};
  bool header_seen = false;
  while (!csv_text.empty()) {
    const auto eol = csv_text.find('\n');
    const std::string_view text = trim(csv_text.substr(0, eol));
    csv_text.remove_prefix(eol == std::string_view::npos ? csv_text.size() : eol + 1);
    ++row.line;
    if (text.empty()) continue;
    if (header_seen) {
      out.push_back(parse_row(row, text, out.empty() ? 0.0 : out.back().arrival_s));
      continue;
    }
    std::string_view fields[3];
    if (!split3(text, fields) || fields[0] != "arrival_s" || fields[1] != "input_len" ||
        fields[2] != "output_len")
      row.fail("expected the header 'arrival_s,input_len,output_len', got '" + std::string(text) + "'");
    header_seen = true;
  }
  if (out.empty())
    throw UserError(SourceLocation{std::string(source_name), 0, 0}, "", "the trace has no requests");
  return out;
}

}  // namespace stepsim::work
