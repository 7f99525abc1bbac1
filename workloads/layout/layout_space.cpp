#include "workloads/layout/layout_space.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/error.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::work {
namespace {

/// With one data-parallel replica (and, for MoE, one expert-data-parallel one) ZeRO has nothing to
/// shard or reduce: every stage runs ZeRO-0's step.
int canonical_zero(const JobSpec& job, int stage) {
  const ParallelSpec& p = job.parallel;
  const bool one_replica = p.dp * p.cp == 1 && (!job.model.is_moe() || p.expert_dp() == 1);
  return one_replica ? 0 : stage;
}

/// TP-communication overlap needs TP with sequence parallelism: off wherever tp = 1.
int canonical_tp_overlap(const JobSpec& job, int mode) {
  return job.parallel.tp > 1 && job.parallel.sequence_parallel ? mode : 0;
}

/// A method other than the ring needs context parallelism; the all-to-all splits each TP rank's
/// query and key/value heads over the cp ranks.
bool cp_comm_fits(const JobSpec& job, int method) {
  if (static_cast<CpComm>(method) == CpComm::p2p) return true;
  if (job.parallel.cp <= 1) return false;
  return static_cast<CpComm>(method) != CpComm::a2a ||
         job.model.splits_heads(job.parallel.tp * job.parallel.cp);
}

/// The batch splits into micro-batches of `mb` per replica; interleaving needs their count per
/// pipeline to be a multiple of pp (pipeline_schedule.hpp).
bool micro_batch_fits(const JobSpec& job, int mb) {
  const ParallelSpec& p = job.parallel;
  if (job.workload.global_batch % (mb * p.dp) != 0) return false;
  return p.virtual_stages == 1 || (job.workload.global_batch / (mb * p.dp)) % p.pp == 0;
}

// One row per knob, in Knob order. A new knob: its enum entry, a row, and (when it needs one) its
// JobSpec field; see KnobInfo for what each field does.
const std::array<KnobInfo, kKnobCount>& knob_table() {
  static const std::array<KnobInfo, kKnobCount> table{{
      {.knob = Knob::micro_batch,
       .name = "micro_batch",
       .option = "micro-batches",
       .key = "workload.micro_batch",
       .choices = {},
       .min = 1,
       .max = 1 << 20,
       .defaults = {1, 2, 4, 8},
       .apply = [](JobSpec& j, int v) { j.workload.micro_batch = v; },
       .admits = micro_batch_fits,
       .labels = {"mb%d"},
       .texts = {"mb %d"}},
      {.knob = Knob::zero_stage,
       .name = "zero_stage",
       .option = "zero",
       .key = "parallelism.zero_stage",
       .choices = {},
       .min = 0,
       .max = 3,
       .defaults = {0, 1, 2, 3},
       .apply = [](JobSpec& j, int v) { j.parallel.zero_stage = v; },
       .canonical = canonical_zero,
       .labels = {"Z%d"},
       .texts = {"zero %d"}},
      {.knob = Knob::recompute,
       .name = "recompute",
       .option = "recompute",
       .key = "workload.recompute",
       .choices = {"none", "selective", "full"},
       .defaults = {0, 1, 2},
       .emitters_only = true,
       .apply = [](JobSpec& j, int v) { j.recompute = static_cast<Recompute>(v); },
       .labels = {"", "rc-sel", "rc-full"},
       .texts = {"no recompute", "selective recompute", "full recompute"}},
      {.knob = Knob::tp_comm_overlap,
       .name = "tp_comm_overlap",
       .option = "tp-overlap",
       .key = "parallelism.tp_comm_overlap",
       .choices = {"off", "userbuffers", "async_tp"},
       .defaults = {0, 1},
       .apply = [](JobSpec& j, int v) { j.parallel.tp_comm_overlap = static_cast<TpCommOverlap>(v); },
       .canonical = canonical_tp_overlap,
       .labels = {"", "ub", "async-tp"},
       .texts = {"no TP overlap", "TP overlap (userbuffers)", "AsyncTP"}},
      {.knob = Knob::cp_comm,
       .name = "cp_comm",
       .option = "cp-comm",
       .key = "parallelism.cp_comm",
       .choices = {"p2p", "all_gather", "a2a"},
       .defaults = {0, 1, 2},
       .emitters_only = true,
       .apply = [](JobSpec& j, int v) { j.parallel.cp_comm = static_cast<CpComm>(v); },
       .admits = cp_comm_fits,  // so no value needs a canonical one
       .labels = {"", "cp-ag", "cp-a2a"},
       .texts = {"ring CP", "all-gather CP", "all-to-all CP"}},
  }};
  return table;
}

std::vector<int> divisors(int n, int cap) {
  std::vector<int> out;
  for (int d = 1; d <= std::min(n, cap); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::vector<int> tp_choices(const JobSpec& job, const LayoutSpaceOptions& o) {
  const ModelSpec& m = job.model;
  const int cap = o.max_tp > 0 ? o.max_tp : std::max(1, job.cluster.nvlink_domain);
  std::vector<int> out;
  for (int tp : divisors(job.cluster.total_gpus(), cap)) {
    if (m.heads % tp != 0) continue;
    if (m.attention == AttentionKind::standard && m.kv_heads % tp != 0) continue;
    // Mamba-2 mixers split their heads and B/C groups over TP.
    if (m.mamba_layers() > 0 && (m.mamba.heads % tp != 0 || m.mamba.groups % tp != 0)) continue;
    if (m.gated_delta_layers() > 0 &&
        (m.gated_delta.key_heads % tp != 0 || m.gated_delta.value_heads % tp != 0))
      continue;
    if (tp > 1 && job.workload.seq_len % tp != 0) continue;  // sequence parallelism splits the sequence
    out.push_back(tp);
  }
  return out;
}

/// Pipeline splits: every pp dividing the layers, and the base's uneven end stages at its own pp.
std::vector<Layout> pp_choices(const JobSpec& job, int cap) {
  std::vector<Layout> out;
  for (int pp : divisors(job.model.layers, cap)) {
    Layout l;
    l.pp = pp;
    out.push_back(l);
  }
  const ParallelSpec& base = job.parallel;
  if ((base.first_stage_layers > 0 || base.last_stage_layers > 0) && base.pp <= cap) {
    Layout l;
    l.pp = base.pp;
    l.first_stage_layers = base.first_stage_layers;
    l.last_stage_layers = base.last_stage_layers;
    const auto at = std::find_if(out.begin(), out.end(), [&](const Layout& x) { return x.pp > l.pp; });
    out.insert(at, l);
  }
  return out;
}

std::vector<int> cp_choices(const JobSpec& job, const LayoutSpaceOptions& o) {
  std::vector<int> out{1};
  // No context parallelism for Mamba layers (refused by the scenario checks).
  if (job.workload.attention_impl != AttentionImpl::flash || job.model.state_layers() > 0) return out;
  for (int cp = 2; cp <= o.max_cp; cp *= 2)
    if (job.workload.seq_len % cp == 0 && job.workload.seq_len / cp >= o.min_cp_tokens) out.push_back(cp);
  return out;
}

std::vector<int> ep_choices(const JobSpec& job, int dp, int cp, int tp) {
  if (!job.model.is_moe()) return {1};
  std::vector<int> out;
  for (int ep : divisors(job.model.experts, job.model.experts))
    if ((dp * cp) % ep == 0 && (tp * dp * cp) % ep == 0) out.push_back(ep);
  return out;
}

/// Every combination of knob values from knob `k` on, for the rank grid of `l`.
void add_knobs(const JobSpec& job, const LayoutSpaceOptions& o, std::size_t k, Layout& l,
               std::vector<Layout>& out) {
  if (k == kKnobCount) {
    out.push_back(l);
    return;
  }
  const KnobInfo& info = knobs()[k];
  const JobSpec grid = with_layout(job, l);
  for (int v : o.values(info.knob)) {
    if (info.admits != nullptr && !info.admits(grid, v)) continue;
    l.knobs[k] = v;
    add_knobs(job, o, k + 1, l, out);
  }
}

/// The overlapped weight all-gather exists only with ZeRO-1/2's distributed optimizer.
bool drops_param_gather_overlap(const JobSpec& base, const Layout& l) {
  return base.parallel.overlap_param_gather && (l.zero_stage() < 1 || l.zero_stage() > 2);
}

}  // namespace

std::span<const KnobInfo> knobs() {
  return knob_table();
}

const KnobInfo& knob_info(Knob k) {
  return knob_table()[static_cast<std::size_t>(k)];
}

std::string KnobInfo::toml(int value) const {
  if (choices.empty()) return std::to_string(value);
  return "\"" + std::string(choices.at(static_cast<std::size_t>(value))) + "\"";
}

namespace {
/// An enum's entry for `value`, or an integer knob's one format with the value in place of %d.
std::string form(const std::vector<std::string_view>& forms, bool is_enum, int value) {
  if (is_enum) return std::string(forms.at(static_cast<std::size_t>(value)));
  const std::string_view f = forms.at(0);
  const auto at = f.find("%d");
  return std::string(f.substr(0, at)) + std::to_string(value) + std::string(f.substr(at + 2));
}
}  // namespace

std::string KnobInfo::label(int value) const {
  return form(labels, !choices.empty(), value);
}

std::string KnobInfo::text(int value) const {
  return form(texts, !choices.empty(), value);
}

int KnobInfo::parse(std::string_view word, std::string_view option) const {
  if (!choices.empty()) {
    for (std::size_t i = 0; i < choices.size(); ++i)
      if (choices[i] == word) return static_cast<int>(i);
    std::string names;
    for (std::size_t i = 0; i < choices.size(); ++i) names += (i ? ", " : "") + std::string(choices[i]);
    throw UserError(std::string(option) + ": expected " + names + " separated by commas, got `" +
                    std::string(word) + "`");
  }
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(std::string(word), &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != word.size() || word.empty() || v < min || v > max)
    throw UserError(std::string(option) + ": expected integers from " + std::to_string(min) + " to " +
                    std::to_string(max) + " separated by commas, got `" + std::string(word) + "`");
  return v;
}

const std::vector<int>& LayoutSpaceOptions::values(Knob k) const {
  const auto& v = knob_values[static_cast<std::size_t>(k)];
  return v.empty() ? knob_info(k).defaults : v;
}

std::string Layout::text() const {
  std::string s = "tp " + std::to_string(tp) + ", pp " + std::to_string(pp);
  if (virtual_stages > 1) s += " (v " + std::to_string(virtual_stages) + ")";
  if (first_stage_layers > 0 || last_stage_layers > 0)
    s += " (end stages " + std::to_string(first_stage_layers) + " + " + std::to_string(last_stage_layers) +
         " layers)";
  if (cp > 1) s += ", cp " + std::to_string(cp);
  if (ep > 1) s += ", ep " + std::to_string(ep);
  s += ", dp " + std::to_string(dp);
  for (const KnobInfo& k : work::knobs())
    if (k.knob != Knob::cp_comm || cp > 1) s += ", " + k.text(knob(k.knob));  // a CP method needs CP
  return s;
}

std::string Layout::compact() const {
  std::string s = "TP" + std::to_string(tp) + " PP" + std::to_string(pp);
  if (virtual_stages > 1) s += "x" + std::to_string(virtual_stages);
  if (first_stage_layers > 0 || last_stage_layers > 0)
    s += "[" + std::to_string(first_stage_layers) + ".." + std::to_string(last_stage_layers) + "]";
  if (cp > 1) s += " CP" + std::to_string(cp);
  if (ep > 1) s += " EP" + std::to_string(ep);
  s += " DP" + std::to_string(dp);
  for (const KnobInfo& k : work::knobs())
    if (const std::string l = k.label(knob(k.knob)); !l.empty()) s += " " + l;
  return s;
}

std::vector<Layout> enumerate_layouts(const JobSpec& job, const LayoutSpaceOptions& o) {
  std::vector<Layout> out;
  const int gpus = job.cluster.total_gpus();
  for (int tp : tp_choices(job, o))
    for (Layout split : pp_choices(job, std::min(o.max_pp, gpus / tp))) {
      const bool uneven = split.first_stage_layers > 0 || split.last_stage_layers > 0;
      const int per_stage = uneven ? 1 : job.model.layers / split.pp;
      for (int v : divisors(per_stage, split.pp > 1 ? o.max_virtual_stages : 1))
        for (int cp : cp_choices(job, o)) {
          if (gpus % (tp * split.pp * cp) != 0) continue;
          const int dp = gpus / (tp * split.pp * cp);
          for (int ep : ep_choices(job, dp, cp, tp)) {
            Layout l = split;
            l.tp = tp;
            l.virtual_stages = v;
            l.cp = cp;
            l.ep = ep;
            l.dp = dp;
            add_knobs(job, o, 0, l, out);
          }
        }
    }
  return out;
}

JobSpec with_layout(JobSpec job, const Layout& l) {
  const bool no_overlap = drops_param_gather_overlap(job, l);
  ParallelSpec& p = job.parallel;
  p.tp = l.tp;
  p.pp = l.pp;
  p.virtual_stages = l.virtual_stages;
  p.cp = l.cp;
  p.ep = l.ep;
  p.dp = l.dp;
  p.expert_tp = 1;
  p.first_stage_layers = l.first_stage_layers;
  p.last_stage_layers = l.last_stage_layers;
  // Layouts split the layers evenly (or keep the base's end stages): no embedding/loss slots, no
  // chunk-by-chunk split, one pipeline schedule per step.
  p.embedding_in_split = false;
  p.loss_in_split = false;
  p.pipeline_layers.clear();
  p.sequence_parallel = l.tp > 1;
  p.schedule = l.virtual_stages > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
  for (const KnobInfo& k : knobs()) k.apply(job, l.knob(k.knob));
  if (no_overlap) p.overlap_param_gather = false;
  return job;
}

LayoutOverrides layout_overrides(const JobSpec& base, const Layout& l) {
  const auto i = [](const char* key, int v) { return std::string(key) + "=" + std::to_string(v); };
  LayoutOverrides o;
  o.set = {i("parallelism.tp", l.tp),
           i("parallelism.pp", l.pp),
           i("parallelism.virtual_stages", l.virtual_stages),
           i("parallelism.cp", l.cp),
           i("parallelism.ep", l.ep),
           i("parallelism.dp", l.dp),
           "parallelism.expert_tp=1",
           std::string("parallelism.sequence_parallel=") + (l.tp > 1 ? "true" : "false"),
           std::string("parallelism.schedule=\"") + (l.virtual_stages > 1 ? "interleaved" : "1f1b") + "\""};
  for (const KnobInfo& k : knobs()) o.set.push_back(std::string(k.key) + "=" + k.toml(l.knob(k.knob)));
  if (l.first_stage_layers > 0) o.set.push_back(i("parallelism.first_stage_layers", l.first_stage_layers));
  if (l.last_stage_layers > 0) o.set.push_back(i("parallelism.last_stage_layers", l.last_stage_layers));
  if (l.first_stage_layers == 0) o.unset.push_back("parallelism.first_stage_layers");
  if (l.last_stage_layers == 0) o.unset.push_back("parallelism.last_stage_layers");
  o.unset.push_back("parallelism.account_for_embedding_in_pipeline_split");
  o.unset.push_back("parallelism.account_for_loss_in_pipeline_split");
  o.unset.push_back("parallelism.pipeline_layers");
  if (drops_param_gather_overlap(base, l)) o.set.push_back("parallelism.overlap_param_gather=false");
  return o;
}

std::vector<std::string> layout_adaptations(const JobSpec& base) {
  const ParallelSpec& p = base.parallel;
  std::vector<std::string> out;
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0)
    out.push_back(
        "the base's uneven end stages (first_stage_layers = " + std::to_string(p.first_stage_layers) +
        ", last_stage_layers = " + std::to_string(p.last_stage_layers) + ") are kept for layouts with pp " +
        std::to_string(p.pp) + " and no interleaving; every other layout splits the layers evenly");
  if (base.workload.local_batch > 0)
    out.push_back("the base's local_batch = " + std::to_string(base.workload.local_batch) +
                  " (sequences per data-parallel rank in one pipeline schedule) is kept: layouts whose dp x "
                  "local_batch does not divide global_batch are invalid");
  if (!p.pipeline_layers.empty())
    out.push_back(
        "the base's chunk-by-chunk split (pipeline_layers) is not searched: the layouts split the layers "
        "evenly");
  if (p.embedding_in_split || p.loss_in_split)
    out.push_back(
        "the base counts the embedding/loss as pipeline layers (account_for_*_in_pipeline_split); the "
        "layouts searched split the transformer layers evenly without them");
  if (p.overlap_param_gather)
    out.push_back(
        "overlap_param_gather is turned off for ZeRO stages 0 and 3 (it overlaps ZeRO-1/2's gather)");
  if (p.expert_tp > 1)
    out.push_back("expert_tp = " + std::to_string(p.expert_tp) + " is replaced by 1 (experts are not split)");
  if (p.schedule == PipelineSchedule::gpipe)
    out.push_back("the gpipe schedule is replaced by 1F1B (interleaved with virtual stages)");
  if (is_dualpipe(p.schedule))
    out.push_back("the " + std::string(name(p.schedule)) +
                  " schedule is replaced by 1F1B (interleaved with virtual stages): the layouts searched do "
                  "not run DualPipe");
  return out;
}

Layout canonical_layout(const JobSpec& job, Layout l) {
  for (const KnobInfo& k : knobs())
    if (k.canonical != nullptr) l.knob(k.knob) = k.canonical(job, l.knob(k.knob));
  return l;
}

}  // namespace stepsim::work
