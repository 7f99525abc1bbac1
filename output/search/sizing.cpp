#include "output/search/sizing.hpp"

#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

#include "output/common/format.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "workloads/model/names.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::out {
namespace {

constexpr double kSizingNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kSecondsPerDay = 86400.0;
/// Scenario keys a size replaces; --set values for them describe only the scenario as given.
constexpr std::string_view kSizeKeys[] = {"hardware.nodes", "hardware.gpus", "parallelism.dp",
                                          "workload.global_batch"};
constexpr const char* kUnreachableHint =
    " (raise --max-gpus, or make each GPU faster: stepsim search finds better layouts)";
/// Sizes the scenario reader may refuse before the search gives up (each refusal is a cheap load).
constexpr int kMaxRefusals = 16;
/// Rate-guided proposals before the search falls back to bisecting its bracket.
constexpr int kGuidedProbes = 4;

std::string goal_value_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// `value` of option `option` must be positive and finite.
double positive_goal_value(const std::optional<double>& value, const char* option, const char* what,
                           const char* example) {
  if (!(*value > 0.0) || !std::isfinite(*value))
    throw UserError(std::string(option) + ": expected a positive " + what + ", got " +
                    goal_value_text(*value) + " (e.g. " + option + " " + example + ")");
  return *value;
}

bool is_size_key(const std::string& assignment) {
  const std::string_view key = std::string_view(assignment).substr(0, assignment.find('='));
  for (std::string_view k : kSizeKeys)
    if (key == k) return true;
  return false;
}

/// work::simulate, its refusal prefixed with the size that was refused.
work::Simulation simulate_or_explain(const work::JobSpec& job, const work::SimulateOptions& options) {
  try {
    return work::simulate(job, options);
  } catch (const UserError& e) {
    throw UserError("size: the scenario at dp = " + std::to_string(job.parallel.dp) + " (" +
                    std::to_string(job.parallel.world()) + " GPUs) cannot be simulated: " + e.what());
  }
}

/// The search's view of one job size: the scenario at `dp` replicas, loaded through the reader.
class SizeLoader {
 public:
  SizeLoader(const std::filesystem::path& path, const scen::Catalog& catalog, const SizingOptions& o,
             const KeptLayout& layout)
      : path_(path), catalog_(catalog), layout_(layout), ranks_(o.ranks), max_ops_(o.max_ops) {
    for (const std::string& s : o.set)
      if (!is_size_key(s)) set_.push_back(s);
  }

  /// The scenario at `dp` replicas, or the reader's objection.
  std::optional<scen::Scenario> load(int dp, std::string& problem) const {
    scen::LoadOptions load;
    load.set = set_;
    load.unset.assign(std::begin(kSizeKeys), std::end(kSizeKeys) - 1);
    load.set.push_back("hardware.gpus=" + std::to_string(dp * layout_.gpus_per_replica));
    load.set.push_back("parallelism.dp=" + std::to_string(dp));
    if (layout_.micro_batches > 0)
      load.set.push_back("workload.global_batch=" +
                         std::to_string(dp * layout_.micro_batch * layout_.micro_batches));
    try {
      return scen::load_scenario(path_, catalog_, load);
    } catch (const UserError& e) {
      problem = e.what();
      return std::nullopt;
    }
  }

  SizedRun simulate(const scen::Scenario& s, double target) const {
    const work::JobSpec& job = s.job;
    work::SimulateOptions options;
    options.ranks = ranks_;
    options.max_ops = max_ops_;
    const work::Simulation sim = simulate_or_explain(job, options);
    SizedRun r;
    r.dp = job.parallel.dp;
    r.gpus = job.parallel.world();
    r.nodes = job.cluster.nodes;
    r.global_batch = job.workload.kind == work::WorkloadKind::train ? job.workload.global_batch : 0;
    r.tokens_per_s = sim.metrics.tokens_per_s;
    r.tokens_per_s_per_gpu = sim.metrics.tokens_per_s_per_gpu;
    r.step_time_s = sim.metrics.step_time_s;
    r.mfu = sim.metrics.mfu;
    r.peak_bytes = sim.report.ranks[sim.report.peak_rank].memory.peak.value();
    r.capacity_bytes = sim.usable_hbm.value();
    r.fits = sim.fits;
    // The same relative tolerance as the closed-form sizing: a rate equal to the target meets it.
    r.meets_target = r.tokens_per_s >= target * (1.0 - 1e-9);
    r.closed_form_tokens_per_s = sim.estimate.tokens_per_s_cluster;
    return r;
  }

 private:
  std::filesystem::path path_;
  const scen::Catalog& catalog_;
  KeptLayout layout_;
  work::RankMode ranks_;
  std::uint64_t max_ops_;
  std::vector<std::string> set_;
};

KeptLayout kept_layout(const work::JobSpec& job) {
  const work::ParallelSpec& p = job.parallel;
  KeptLayout k;
  k.tp = p.tp;
  k.pp = p.pp;
  k.cp = p.cp;
  k.ep = p.ep;
  k.expert_tp = p.expert_tp;
  k.virtual_stages = p.virtual_stages;
  k.gpus_per_replica = p.tp * p.pp * p.cp;
  if (job.workload.kind == work::WorkloadKind::train) {
    k.micro_batch = job.workload.micro_batch;
    k.micro_batches = job.workload.global_batch / (job.workload.micro_batch * p.dp);
  } else {
    k.batch = job.workload.batch;
  }
  // Whole nodes: gpus_per_replica x dp a multiple of gpus_per_node. Expert groups: ep x expert_tp
  // divides tp x cp x dp (Megatron-Core's expert grid over a stage's ranks).
  const int gpn = job.cluster.gpus_per_node;
  const int nodes_step = gpn / std::gcd(gpn, k.gpus_per_replica);
  const int experts = p.ep * p.expert_tp;
  const int experts_step = experts / std::gcd(experts, p.tp * p.cp);
  k.dp_step = std::lcm(nodes_step, experts_step);
  return k;
}

ClosedFormSizing closed_form_of(work::JobSpec job, double target) {
  job.estimate.target_tokens_per_s = target;
  const work::Estimate e = work::estimate(job);
  ClosedFormSizing c;
  if (!e.sizing) return c;
  c.reachable = e.sizing->feasible;
  c.gpus = e.sizing->gpus_needed;
  c.dp = e.sizing->dp_needed;
  c.tokens_per_s_per_gpu = e.sizing->tokens_per_s_per_gpu;
  c.note = e.sizing->note;
  return c;
}

/// The bracketing search over multiples of the DP step: `lo` is the largest DP simulated short of
/// the target (0 before any), `hi` the smallest simulated reaching it. Proposals come from the last
/// simulated size's rate per replica, nearly constant under data parallelism; after a few the bracket
/// is bisected, so the search always ends. Sizes the scenario reader refuses are skipped.
class DpSearch {
 public:
  DpSearch(const SizeLoader& loader, const KeptLayout& layout, double target, int max_gpus)
      : loader_(loader),
        step_(layout.dp_step),
        target_(target),
        max_dp_(max_gpus / layout.gpus_per_replica / layout.dp_step * layout.dp_step) {}

  void record(const SizedRun& r) {
    runs_[r.dp] = r;
    order_.push_back(r);
    if (r.meets_target) {
      if (!hi_ || r.dp < *hi_) hi_ = r.dp;
    } else if (r.dp > lo_) {
      lo_ = r.dp;
    }
  }

  /// Simulates sizes from `proposal` on until the bracket closes or the largest size falls short.
  void run(long long proposal) {
    for (int probes = 0;; ++probes) {
      long long cand = align_up(proposal);
      if (hi_ && probes >= kGuidedProbes) cand = align_up((lo_ + *hi_) / 2);
      cand = std::min<long long>(cand, hi_ ? *hi_ - step_ : max_dp_);
      cand = std::max<long long>(cand, lo_ + step_);
      std::optional<int> dp = valid_from(static_cast<int>(cand), step_);
      if (!dp) dp = valid_from(static_cast<int>(cand) - step_, -step_);
      if (!dp) return;  // nothing left between lo and hi (or up to the largest size)
      const SizedRun& r = simulate(*dp);
      proposal = static_cast<long long>(std::ceil(std::min(r.dp * target_ / r.tokens_per_s, 1e9)));
      if (!r.meets_target) proposal = std::max<long long>(proposal, r.dp + step_);
    }
  }

  const std::optional<int>& hi() const { return hi_; }
  int max_dp() const { return max_dp_; }
  const std::vector<SizedRun>& order() const { return order_; }
  const std::string& first_refusal() const { return first_refusal_; }
  /// The largest simulated size below `dp`, if any.
  std::optional<SizedRun> simulated_below(int dp) const {
    const auto it = runs_.lower_bound(dp);
    if (it == runs_.begin()) return std::nullopt;
    return std::prev(it)->second;
  }

 private:
  long long align_up(long long dp) const {
    return std::max<long long>((dp + step_ - 1) / step_ * step_, step_);
  }

  /// The first size from `dp` on, moving by `by`, strictly inside the bracket (and at most the
  /// largest size) that the scenario reader accepts.
  std::optional<int> valid_from(int dp, int by) {
    for (; dp > lo_ && (hi_ ? dp < *hi_ : dp <= max_dp_); dp += by) {
      if (runs_.count(dp)) continue;  // simulated already: the bracket excludes it unless it is lo or hi
      auto [it, fresh] = loaded_.try_emplace(dp);
      if (fresh) {
        std::string problem;
        it->second = loader_.load(dp, problem);
        if (!it->second) refused(dp, problem);
      }
      if (it->second) return dp;
    }
    return std::nullopt;
  }

  void refused(int dp, const std::string& problem) {
    if (first_refusal_.empty()) first_refusal_ = "at dp = " + std::to_string(dp) + ": " + problem;
    if (++refusals_ > kMaxRefusals)
      throw UserError("size: the scenario reader refuses " + std::to_string(refusals_) +
                      " data-parallel sizes; the first " + first_refusal_);
  }

  const SizedRun& simulate(int dp) {
    record(loader_.simulate(*loaded_.at(dp), target_));
    return runs_.at(dp);
  }

  const SizeLoader& loader_;
  int step_;
  double target_;
  int max_dp_;
  int lo_ = 0;
  std::optional<int> hi_;
  std::map<int, SizedRun> runs_;
  std::map<int, std::optional<scen::Scenario>> loaded_;  ///< nullopt: refused
  std::vector<SizedRun> order_;
  std::string first_refusal_;
  int refusals_ = 0;
};

std::string sizing_gb(double bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
  return buf;
}

/// Fills the outcome, the chosen size and the message from a finished search.
void conclude_sizing(SizingResult& r, const DpSearch& search) {
  if (!search.hi()) {
    r.outcome = SizingOutcome::unreachable;
    r.chosen = *search.simulated_below(search.max_dp() + 1);
    r.message = "no data-parallel size reaches " + format_number(r.target_tokens_per_s, 0) +
                " tokens/s: the largest, dp = " + std::to_string(r.chosen.dp) + " (" +
                format_number(r.chosen.gpus, 0) + " GPUs), gives " + format_number(r.chosen.tokens_per_s, 0) +
                " tokens/s" + kUnreachableHint;
    if (!search.first_refusal().empty())
      r.message += "; the scenario reader refused a size " + search.first_refusal();
    return;
  }
  r.chosen = *search.simulated_below(*search.hi() + 1);
  r.smaller = search.simulated_below(*search.hi());
  if (r.chosen.fits) {
    r.outcome = SizingOutcome::sized;
    return;
  }
  r.outcome = SizingOutcome::does_not_fit;
  r.message = "does not fit: dp = " + std::to_string(r.chosen.dp) + " (" + std::to_string(r.chosen.gpus) +
              " GPUs) reaches the target but its busiest GPU needs " + sizing_gb(r.chosen.peak_bytes) +
              " of " + sizing_gb(r.chosen.capacity_bytes) +
              " usable; change the layout (stepsim search), recomputation or ZeRO stage first";
}

/// What the result takes from the scenario as given: names, price, the kept layout, the closed form.
/// Throws UserError for a workload that is not one step.
SizingResult describe_sizing(const scen::Scenario& base, double target) {
  const work::JobSpec& job = base.job;
  const work::WorkloadKind kind = job.workload.kind;
  if (kind != work::WorkloadKind::train && kind != work::WorkloadKind::prefill &&
      kind != work::WorkloadKind::decode)
    throw UserError(base.where("workload.kind"), "workload.kind",
                    "size scales the data-parallel replicas of one step; kind = \"" +
                        std::string(work::name(kind)) + "\" is not one step",
                    "size a train, prefill or decode scenario");
  SizingResult r;
  r.target_tokens_per_s = target;
  r.scenario = base.label();
  r.model = job.model.id;
  r.gpu = job.cluster.gpu.id;
  r.price_per_gpu_hour = job.cluster.gpu.price_per_hour;
  r.layout = kept_layout(job);
  r.closed_form = closed_form_of(job, target);
  return r;
}

/// The target is above what `max_dp` replicas could do even at the given per-GPU rate (`ceiling`
/// tokens/s): unreachable without simulating a cluster that large.
void unreachable_at_any_size(SizingResult& r, double ceiling, int max_dp) {
  r.outcome = SizingOutcome::unreachable;
  r.chosen = r.given;
  const int gpus = max_dp * r.layout.gpus_per_replica;
  r.message = "no data-parallel size reaches " + format_number(r.target_tokens_per_s, 0) +
              " tokens/s: at the " + "scenario's " + format_number(r.given.tokens_per_s_per_gpu, 1) +
              " tokens/s per GPU, which only falls as replicas are added, the largest size, dp = " +
              std::to_string(max_dp) + " (" + format_number(gpus, 0) + " GPUs), gives at most " +
              format_number(ceiling, 0) + " tokens/s" + kUnreachableHint;
}

}  // namespace

double SizingGoal::target_tokens_per_s() const {
  const bool budget = tokens || days;
  if (tokens_per_s && budget)
    throw UserError(
        "--tokens-per-s and --tokens/--days: expected one target, got both (size for a rate with "
        "--tokens-per-s 1e6, or for a run with --tokens 15e12 --days 30)");
  if (tokens_per_s)
    return positive_goal_value(tokens_per_s, "--tokens-per-s", "cluster-wide rate in tokens/s", "1e6");
  if (!budget)
    throw UserError(
        "missing a target: expected --tokens-per-s RATE, or --tokens N with --days D (e.g. stepsim size "
        "SCENARIO --tokens-per-s 1e6)");
  if (!tokens)
    throw UserError("--days: expected --tokens with it, the tokens to train (e.g. --tokens 15e12)");
  if (!days) throw UserError("--tokens: expected --days with it, the days the run may take (e.g. --days 30)");
  const double n = positive_goal_value(tokens, "--tokens", "token count", "15e12");
  const double d = positive_goal_value(days, "--days", "number of days", "30");
  return TokenBudget{n, d}.tokens_per_s();
}

std::optional<TokenBudget> SizingGoal::budget() const {
  if (!tokens || !days) return std::nullopt;
  return TokenBudget{*tokens, *days};
}

double SizingResult::closed_form_shortfall() const {
  return chosen.gpus > 0 && closed_form.reachable ? 1.0 - double(closed_form.gpus) / chosen.gpus : kSizingNaN;
}

double SizingResult::cluster_per_hour() const {
  return price_per_gpu_hour > 0.0 ? price_per_gpu_hour * chosen.gpus : kSizingNaN;
}

double SizingResult::per_million_tokens() const {
  return chosen.tokens_per_s > 0.0 ? cluster_per_hour() / 3600.0 / chosen.tokens_per_s * 1e6 : kSizingNaN;
}

double SizingResult::run_days() const {
  return run && chosen.tokens_per_s > 0.0 ? run->tokens / chosen.tokens_per_s / kSecondsPerDay : kSizingNaN;
}

double SizingResult::run_gpu_hours() const {
  return run_days() * 24.0 * chosen.gpus;
}

double SizingResult::run_usd() const {
  return price_per_gpu_hour > 0.0 ? run_gpu_hours() * price_per_gpu_hour : kSizingNaN;
}

SizingResult size_cluster(const std::filesystem::path& path, const scen::Catalog& catalog,
                          const SizingOptions& options) {
  const double target = options.goal.target_tokens_per_s();
  if (options.max_gpus < 1)
    throw UserError("--max-gpus: expected at least 1 GPU, got " + std::to_string(options.max_gpus));
  scen::LoadOptions base_load;
  base_load.set = options.set;
  const scen::Scenario base = scen::load_scenario(path, catalog, base_load);
  SizingResult r = describe_sizing(base, target);
  r.run = options.goal.budget();
  const int smallest = r.layout.dp_step * r.layout.gpus_per_replica;
  if (options.max_gpus < smallest)
    throw UserError("--max-gpus: expected at least the smallest size, " + std::to_string(smallest) +
                    " GPUs (dp = " + std::to_string(r.layout.dp_step) + " replicas of " +
                    std::to_string(r.layout.gpus_per_replica) + "), got " + std::to_string(options.max_gpus));
  const SizeLoader loader(path, catalog, options, r.layout);
  DpSearch search(loader, r.layout, target, options.max_gpus);
  r.given = loader.simulate(base, target);
  r.simulated = {r.given};
  if (!(r.given.tokens_per_s > 0.0))
    throw std::logic_error("size: the scenario's simulated step produced no tokens");
  const double replica_rate = r.given.tokens_per_s_per_gpu * r.layout.gpus_per_replica;
  // Each replica's work is fixed and its gradient reduction only grows with DP, so per-GPU rates only
  // fall as replicas are added: the given rate bounds what the largest allowed cluster can do.
  if (r.given.dp <= search.max_dp() && replica_rate * search.max_dp() < target) {
    unreachable_at_any_size(r, replica_rate * search.max_dp(), search.max_dp());
    return r;
  }
  if (r.given.dp % r.layout.dp_step == 0 && r.given.dp <= search.max_dp()) search.record(r.given);
  search.run(static_cast<long long>(std::ceil(std::min(target / replica_rate, 1e9))));
  if (!search.order().empty()) r.simulated = search.order();
  if (r.simulated.front().dp != r.given.dp) r.simulated.insert(r.simulated.begin(), r.given);
  if (!search.simulated_below(search.max_dp() + 1))
    throw UserError(
        "size: no data-parallel size up to " + std::to_string(options.max_gpus) + " GPUs loads" +
        (search.first_refusal().empty() ? std::string() : "; the first refused " + search.first_refusal()));
  conclude_sizing(r, search);
  return r;
}

}  // namespace stepsim::out
