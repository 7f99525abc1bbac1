// Statistics over serving results and the search for the highest rate that meets a latency SLO.

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/error.hpp"
#include "workloads/serving/serving.hpp"

namespace stepsim::work {

namespace {

void check_search(const RateSearch& s, const ServingSlo& slo) {
  auto require = [](bool ok, const std::string& problem) {
    if (!ok) throw UserError(SourceLocation{}, "serving.slo_search", problem);
  };
  require(s.start_rate_per_s > 0.0 && std::isfinite(s.start_rate_per_s),
          "the start rate must be finite and > 0");
  require(s.min_rate_per_s > 0.0 && s.min_rate_per_s <= s.start_rate_per_s,
          "the minimum rate must be > 0 and at most the start rate");
  require(s.max_rate_per_s >= s.start_rate_per_s && std::isfinite(s.max_rate_per_s),
          "the maximum rate must be finite and at least the start rate");
  require(s.relative_tolerance > 0.0 && s.relative_tolerance < 1.0,
          "the relative tolerance must lie in (0, 1)");
  require(slo.percentile >= 0.0 && slo.percentile <= 100.0, "the SLO percentile must lie in [0, 100]");
  require(slo.ttft_s || slo.tpot_s, "the SLO needs a TTFT or a TPOT bound");
}

/// One search. Invariant: `meets_` is the highest rate tried that meets the SLO and `fails_` the lowest
/// that fails it (each empty until one is tried); every phase only moves them towards each other.
class RateSearcher {
 public:
  RateSearcher(const RequestsAtRate& requests_at, const ServingConfig& config, const IterationCost& cost,
               const ServingSlo& slo, const RateSearch& search)
      : requests_at_(requests_at), config_(config), cost_(cost), slo_(slo), search_(search) {}

  SloSearchResult run() {
    const RateSearch& s = search_;
    if (meets_at(s.start_rate_per_s)) {
      for (double r = s.start_rate_per_s; !fails_ && r < s.max_rate_per_s;)
        meets_at(r = std::min(2 * r, s.max_rate_per_s));
    } else {
      for (double r = s.start_rate_per_s; !meets_ && r > s.min_rate_per_s;)
        meets_at(r = std::max(r / 2, s.min_rate_per_s));
    }
    if (!meets_) return finish(SloSearchOutcome::none_met, *fails_, std::move(fails_result_));
    if (!fails_) return finish(SloSearchOutcome::all_met, *meets_, std::move(meets_result_));
    while (*fails_ > *meets_ * (1.0 + s.relative_tolerance)) meets_at(0.5 * (*meets_ + *fails_));
    return finish(SloSearchOutcome::bracketed, *meets_, std::move(meets_result_));
  }

 private:
  bool meets_at(double rate_per_s) {
    ++simulations_;
    ServingResult r = simulate_serving(requests_at_(rate_per_s), config_, cost_);
    const bool ok = meets_slo(r, slo_);
    (ok ? meets_ : fails_) = rate_per_s;
    (ok ? meets_result_ : fails_result_) = std::move(r);
    return ok;
  }

  SloSearchResult finish(SloSearchOutcome outcome, double rate_per_s, ServingResult result) const {
    SloSearchResult out;
    out.outcome = outcome;
    out.rate_per_s = rate_per_s;
    out.failing_rate_per_s = fails_.value_or(0.0);
    out.result = std::move(result);
    out.simulations = simulations_;
    return out;
  }

  const RequestsAtRate& requests_at_;
  const ServingConfig& config_;
  const IterationCost& cost_;
  const ServingSlo& slo_;
  const RateSearch& search_;
  std::optional<double> meets_, fails_;
  ServingResult meets_result_, fails_result_;
  int simulations_ = 0;
};

}  // namespace

bool meets_slo(const ServingResult& result, const ServingSlo& slo) {
  std::vector<double> ttft, tpot;
  ttft.reserve(result.records.size());
  for (const RequestRecord& r : result.records) {
    ttft.push_back(r.ttft_s());
    if (const auto t = r.tpot_s()) tpot.push_back(*t);
  }
  if (slo.ttft_s && percentile(std::move(ttft), slo.percentile) > *slo.ttft_s) return false;
  return !(slo.tpot_s && percentile(std::move(tpot), slo.percentile) > *slo.tpot_s);
}

SloSearchResult max_rate_meeting_slo(const RequestsAtRate& requests_at, const ServingConfig& config,
                                     const IterationCost& cost, const ServingSlo& slo,
                                     const RateSearch& search) {
  check_search(search, slo);
  return RateSearcher(requests_at, config, cost, slo, search).run();
}

}  // namespace stepsim::work
