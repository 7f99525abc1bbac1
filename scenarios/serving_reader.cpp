// The [serving] table of a kind = "serve" scenario: the requests offered (a Poisson draw or a trace
// file) and the engine's scheduling limits.
#include <algorithm>
#include <climits>

#include "scenarios/scenario_sections.hpp"
#include "sim/error.hpp"

namespace stepsim::scen::detail {
namespace {

enum class Arrival : std::uint8_t { poisson, trace };
inline constexpr std::array<Choice<Arrival>, 2> kArrival{
    {{"poisson", Arrival::poisson}, {"trace", Arrival::trace}}};
inline constexpr std::array<Choice<work::Routing>, 2> kRouting{
    {{"round_robin", work::Routing::round_robin}, {"least_loaded", work::Routing::least_loaded}}};

/// `key = N` (every request N tokens) or `key = [MIN, MAX]` (uniform over the integers between).
work::LengthDistribution read_lengths(TableReader& r, std::string_view key, work::LengthDistribution dflt) {
  const toml::node* n = r.node(key);
  if (!n) return dflt;
  const auto positive = [](const toml::node* x) {
    return x && x->is_integer() && x->as_integer()->get() >= 1 && x->as_integer()->get() <= INT_MAX;
  };
  if (positive(n)) return work::LengthDistribution::fixed(int(n->as_integer()->get()));
  const toml::array* a = n->as_array();
  if (a && a->size() == 2 && positive(a->get(0)) && positive(a->get(1))) {
    const int lo = int(a->get(0)->as_integer()->get()), hi = int(a->get(1)->as_integer()->get());
    if (lo <= hi) return {lo, hi};
  }
  r.fail(key, "expected a positive number of tokens, or [MIN, MAX] with 1 <= MIN <= MAX",
         "e.g. " + std::string(key) + " = 2048, or " + std::string(key) + " = [128, 4096]");
}

}  // namespace

void read_serving_section(TableReader r, Scenario& s, const std::filesystem::path& base_dir) {
  work::ServeSpec spec;
  Arrival arrival = Arrival::poisson;
  r.read("arrival", arrival, kArrival);
  work::PoissonWorkload p;
  p.requests = 1000;
  const bool rate = r.read("rate_per_s", p.rate_per_s, kPositive);
  r.read("requests", p.requests, IntRange{1, 10'000'000});
  int seed = 1;
  r.read("seed", seed, IntRange{0, INT_MAX});
  p.seed = static_cast<std::uint64_t>(seed);
  p.input = read_lengths(r, "input_len", p.input);
  p.output = read_lengths(r, "output_len", p.output);
  std::string trace;
  const bool has_trace = r.read("trace", trace);
  r.read("max_batch", spec.config.max_batch, IntRange{1, 1 << 20});
  r.read("max_num_tokens", spec.config.max_num_tokens, IntRange{1, 1 << 24});
  r.read("chunked_prefill", spec.config.chunked_prefill);
  r.read("routing", spec.config.routing, kRouting);
  r.read("kv_memory_fraction", spec.kv_memory_fraction, kFraction);
  r.read("prefill_replicas", spec.prefill_replicas, IntRange{1, 1 << 20});
  if (arrival == Arrival::poisson) {
    if (has_trace)
      r.fail("trace", "is read with arrival = \"trace\"", "set arrival = \"trace\", or remove trace");
    if (!rate) r.fail("rate_per_s", "arrival = \"poisson\" needs the arrival rate", "e.g. rate_per_s = 20");
    spec.poisson = p;
    spec.requests = work::poisson_requests(p);
  } else {
    for (const char* key : {"rate_per_s", "requests", "seed", "input_len", "output_len"})
      if (r.has(key)) r.fail(key, "comes from the trace with arrival = \"trace\"", "remove it");
    if (!has_trace)
      r.fail("arrival", "arrival = \"trace\" needs `trace`, a CSV file", "e.g. trace = \"requests.csv\"");
    const std::filesystem::path path =
        std::filesystem::path(trace).is_absolute() ? std::filesystem::path(trace) : base_dir / trace;
    spec.requests = work::parse_request_trace(read_text_file(path), path.string());
  }
  r.finish();
  s.serve = std::move(spec);
}

}  // namespace stepsim::scen::detail
