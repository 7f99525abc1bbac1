// The entry points of the cross-field checks: resolve what several tables decide together, then
// apply every rule, and point each refusal at the key as the scenario wrote it. The rules
// themselves live in cross_checks_{hardware,parallel,moe,workload}.cpp (cross_checks_rules.hpp).
#include "scenarios/cross_checks.hpp"

#include <utility>

#include "scenarios/cross_checks_rules.hpp"
#include "scenarios/scenario_sections.hpp"

namespace stepsim::scen {
namespace cross_checks {

/// A rule names the key whose value broke it; where that key was left at its default, the
/// location goes to the key written with it that did (max_batch above the default max_num_tokens).
constexpr std::pair<std::string_view, std::string_view> kWrittenInstead[] = {
    {"serving.max_num_tokens", "serving.max_batch"},
};

/// `e` located at its key as `s` wrote it (already located errors pass unchanged).
UserError located(const Scenario& s, const UserError& e) {
  if (!e.where().file.empty() || e.key().empty()) return e;
  std::string_view key = e.key();
  if (!detail::given(s, key))
    for (const auto& [rule_key, instead] : kWrittenInstead)
      if (rule_key == key && detail::given(s, instead)) key = instead;
  return UserError(s.where(key), std::string(key), e.problem(), e.hint());
}

}  // namespace cross_checks

void check_job_rules(const work::JobSpec& job, const work::ServeSpec* serve) {
  detail::check_hardware_rules(job);
  detail::check_parallel_rules(job);
  detail::check_moe_rules(job);
  detail::check_workload_rules(job, serve);
  detail::check_collective_rules(job);  // last: it plans the step on a valid configuration
}

namespace detail {

void resolve_and_check(Scenario& s) {
  try {
    resolve_precision(s);
    resolve_attention(s);
    resolve_recipe(s);
    resolve_nvlink_domain(s);
    resolve_schedule(s);
    resolve_dp(s);
    resolve_sharding(s);
    check_moe_keys(s);
    check_workload_keys(s);
    check_job_rules(s.job, s.serve ? &*s.serve : nullptr);
  } catch (const UserError& e) {
    throw cross_checks::located(s, e);
  }
}

}  // namespace detail
}  // namespace stepsim::scen
