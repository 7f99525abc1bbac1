#include "output/search/advise.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <optional>
#include <set>

#include "output/common/format.hpp"
#include "sim/error.hpp"
#include "sim/parallel_for.hpp"
#include "workloads/layout/deepep.hpp"
#include "workloads/layout/layout_space.hpp"
#include "workloads/layout/rank_layout.hpp"
#include "workloads/simulate/simulate.hpp"

namespace stepsim::out {

std::string_view name(ChangeFamily f) {
  switch (f) {
    case ChangeFamily::layout: return "layout";
    case ChangeFamily::runtime: return "runtime";
    case ChangeFamily::precision: return "precision";
    case ChangeFamily::hardware: return "hardware";
    case ChangeFamily::combined: return "combined";
  }
  return "?";
}

namespace {

using work::Knob;
using work::Layout;

/// The base job's own layout, as the layout space writes layouts.
Layout layout_of_job(const work::JobSpec& j) {
  const work::ParallelSpec& p = j.parallel;
  Layout l;
  l.tp = p.tp;
  l.pp = p.pp;
  l.virtual_stages = p.virtual_stages;
  l.cp = p.cp;
  l.ep = p.ep;
  l.dp = p.dp;
  l.first_stage_layers = p.first_stage_layers;
  l.last_stage_layers = p.last_stage_layers;
  l.knob(Knob::micro_batch) = j.workload.micro_batch;
  l.knob(Knob::zero_stage) = p.zero_stage;
  l.knob(Knob::recompute) = static_cast<int>(j.recompute);
  l.knob(Knob::tp_comm_overlap) = static_cast<int>(p.tp_comm_overlap);
  l.knob(Knob::cp_comm) = static_cast<int>(p.cp_comm);
  return l;
}

// The fields a layout move changes, dp aside (it takes the GPUs the others leave).
enum Field : std::size_t { f_tp, f_pp, f_vs, f_cp, f_ep, f_mb, f_zero, f_rc, f_tpo, f_cpc, kFields };

std::array<int, kFields> fields_of(const Layout& l) {
  return {
      l.tp,
      l.pp * 1000003 + l.first_stage_layers * 1009 + l.last_stage_layers,  // a split, uneven ends included
      l.virtual_stages,
      l.cp,
      l.ep,
      l.micro_batch(),
      l.zero_stage(),
      l.knob(Knob::recompute),
      l.knob(Knob::tp_comm_overlap),
      l.knob(Knob::cp_comm)};
}

/// The layouts one step from `c` in `space`: one ordered field (TP, PP, interleaving, CP, EP,
/// micro-batch) to its next smaller or larger value, one enum knob (ZeRO, recompute, TP overlap, CP method)
/// to any value, or TP traded for PP at the same model-parallel size (x2 one way, /2 the other).
std::vector<Layout> layout_neighbours(const std::vector<Layout>& space, const Layout& c) {
  const auto fc = fields_of(c);
  std::vector<Layout> out;
  // Per ordered field: the nearest value below and above among layouts differing in it alone.
  std::array<const Layout*, kFields> below{}, above{};
  const auto value = [](const Layout& l, std::size_t f) { return f == f_pp ? l.pp : fields_of(l)[f]; };
  for (const Layout& l : space) {
    const auto fl = fields_of(l);
    std::size_t differing = 0, which = 0;
    for (std::size_t f = 0; f < kFields; ++f)
      if (fl[f] != fc[f]) ++differing, which = f;
    if (differing == 1) {
      if (which == f_zero || which == f_rc || which == f_tpo || which == f_cpc) {
        out.push_back(l);
        continue;
      }
      const int v = value(l, which), cv = value(c, which);
      if (v < cv && (below[which] == nullptr || v > value(*below[which], which))) below[which] = &l;
      if (v > cv && (above[which] == nullptr || v < value(*above[which], which))) above[which] = &l;
    } else if (differing == 2 && fl[f_tp] != fc[f_tp] && fl[f_pp] != fc[f_pp] && l.tp * l.pp == c.tp * c.pp &&
               (l.tp == 2 * c.tp || 2 * l.tp == c.tp) && l.first_stage_layers == 0 &&
               l.last_stage_layers == 0) {
      out.push_back(l);
    }
  }
  for (std::size_t f = 0; f < kFields; ++f) {
    if (below[f] != nullptr) out.push_back(*below[f]);
    if (above[f] != nullptr) out.push_back(*above[f]);
  }
  return out;
}

/// "tp 8 -> 4, dp 16 -> 32": the fields that differ, in words.
std::string layout_move_text(const Layout& from, const Layout& to) {
  std::vector<std::string> parts;
  const auto num = [&](const char* what, int a, int b) {
    if (a != b) parts.push_back(std::string(what) + " " + std::to_string(a) + " -> " + std::to_string(b));
  };
  num("TP", from.tp, to.tp);
  num("PP", from.pp, to.pp);
  if (to.pp == from.pp &&
      (to.first_stage_layers != from.first_stage_layers || to.last_stage_layers != from.last_stage_layers))
    parts.push_back(to.first_stage_layers + to.last_stage_layers > 0 ? "uneven end stages" : "even stages");
  num("interleaving", from.virtual_stages, to.virtual_stages);
  num("CP", from.cp, to.cp);
  num("EP", from.ep, to.ep);
  num("micro-batch", from.micro_batch(), to.micro_batch());
  num("ZeRO", from.zero_stage(), to.zero_stage());
  for (Knob k : {Knob::recompute, Knob::tp_comm_overlap, Knob::cp_comm})
    if (from.knob(k) != to.knob(k)) parts.push_back(std::string(work::knob_info(k).text(to.knob(k))));
  if (from.dp != to.dp) num("DP", from.dp, to.dp);
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

AdviceChange layout_change(const work::JobSpec& base, const Layout& base_layout, const Layout& l) {
  AdviceChange c;
  c.family = ChangeFamily::layout;
  c.title = layout_move_text(base_layout, l);
  // Only the edits that differ from the base's own layout written the same way: the others
  // restate what the scenario already resolves to.
  const work::LayoutOverrides o = work::layout_overrides(base, l);
  const work::LayoutOverrides same = work::layout_overrides(base, base_layout);
  const auto absent = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) == v.end();
  };
  for (const std::string& e : o.set)
    if (absent(same.set, e)) c.set.push_back(e);
  for (const std::string& e : o.unset)
    if (absent(same.unset, e)) c.unset.push_back(e);
  c.costs = "none: the same GPUs";
  if (l.knob(Knob::recompute) > base_layout.knob(Knob::recompute))
    c.costs = "recomputes activations in backward (more FLOPs per step)";
  return c;
}

AdviceChange setting(ChangeFamily family, std::string title, std::vector<std::string> set,
                     std::string costs) {
  AdviceChange c;
  c.family = family;
  c.title = std::move(title);
  c.set = std::move(set);
  c.costs = std::move(costs);
  return c;
}

/// Runtime, precision and hardware changes that apply to `j` (settings it leaves off).
std::vector<AdviceChange> setting_changes(const work::JobSpec& j, const work::Simulation& base) {
  std::vector<AdviceChange> out;
  const work::ParallelSpec& p = j.parallel;
  const bool train = j.workload.kind == work::WorkloadKind::train;
  if (train && p.dp > 1 && !p.dp_overlap)
    out.push_back(setting(ChangeFamily::runtime, "overlap the gradient reduction with the backward pass",
                          {"parallelism.dp_overlap=true"},
                          "none: Megatron --overlap-grad-reduce, PyTorch DDP"));
  if (train && p.dp > 1 && (p.zero_stage == 1 || p.zero_stage == 2) && !p.overlap_param_gather)
    out.push_back(setting(ChangeFamily::runtime, "overlap the parameter all-gather with the next forward",
                          {"parallelism.overlap_param_gather=true"},
                          "none: Megatron --overlap-param-gather"));
  if (train && j.model.is_moe() && p.ep > 1 && !p.ep_overlap && j.recompute != work::Recompute::full &&
      p.schedule_pairs_microbatches())
    out.push_back(setting(ChangeFamily::runtime, "overlap expert-parallel all-to-alls across micro-batches",
                          {"parallelism.ep_overlap=true", "moe.shared_expert_overlap=false"},
                          "a second micro-batch's activations in flight (Megatron "
                          "--overlap-moe-expert-parallel-comm)"));
  if (j.model.is_moe() && j.model.shared_experts > 0 && !j.moe.shared_expert_overlap && !p.ep_overlap)
    out.push_back(setting(ChangeFamily::runtime, "run the shared experts under the dispatch all-to-all",
                          {"moe.shared_expert_overlap=true"}, "none: Megatron --moe-shared-expert-overlap"));
  if (j.model.is_moe() && p.ep > 1 && j.cluster.gpu.sms > 0 && !j.moe.ep_comm_sms_deepep_v2) {
    // DeepEP V2 sizes the SMs its kernels hold to the EP layout (4-12 where V1 takes 20-24 and
    // NCCL's all-to-all the GPU's comm_sm_fraction): fewer SMs away from the compute beside it.
    work::JobSpec v2 = j;
    v2.moe.ep_comm_sms_deepep_v2 = true;
    const int sms = work::ep_comm_sms(v2, work::RankLayout(p));
    const double now =
        j.moe.ep_comm_sms > 0 ? j.moe.ep_comm_sms : j.cluster.gpu.comm_sm_fraction * j.cluster.gpu.sms;
    if (sms < now)
      out.push_back(
          setting(ChangeFamily::runtime,
                  "DeepEP V2's kernels for the expert-parallel all-to-all (" + std::to_string(sms) + " SMs)",
                  {"moe.ep_comm_sms=\"deepep-v2\""},
                  "DeepEP V2 with NCCL 2.30.4 or later (Megatron --moe-flex-dispatcher-backend deepepv2)"));
  }
  if (!j.workload.cuda_graphs && base.report.mean.host_bound_s > 0.005 * base.metrics.step_time_s)
    out.push_back(setting(ChangeFamily::runtime, "replay kernels from CUDA graphs",
                          {"workload.cuda_graphs=true"},
                          "static shapes and graph capture in the training or serving loop"));
  if (j.workload.pointwise == work::Pointwise::eager)
    out.push_back(setting(ChangeFamily::runtime, "fused kernels around the GEMMs (torch.compile)",
                          {"workload.pointwise=\"fused\""},
                          "compiling the model (torch.compile), or Transformer Engine's fused modules"));
  // The loss over the logits in one fused pass, where the job runs Megatron's op by op or compiled.
  if (train && j.workload.pointwise == work::Pointwise::fused &&
      j.workload.cross_entropy != work::CrossEntropy::fused)
    out.push_back(
        setting(ChangeFamily::runtime, "a fused cross-entropy kernel for the loss",
                {"workload.cross_entropy=\"fused\""},
                "none: Transformer Engine's Triton cross-entropy (Megatron --cross-entropy-loss-fusion "
                "--cross-entropy-fusion-impl te), or flash-attn's or Liger's elsewhere"));
  // The fastest fused attention kernel the GPU has a figure for, where the job runs a slower one
  // (MLA's unequal head widths rule FlashAttention-2 out).
  if (j.workload.attention_impl == work::AttentionImpl::flash) {
    const topo::Efficiency& e = j.cluster.gpu.eff;
    topo::AttentionKernel best = j.workload.attention_kernel;
    for (topo::AttentionKernel k : {topo::AttentionKernel::cudnn, topo::AttentionKernel::fa3})
      if (e.attention_of(k) > e.attention_of(best)) best = k;
    if (best != j.workload.attention_kernel)
      out.push_back(
          setting(ChangeFamily::runtime,
                  best == topo::AttentionKernel::fa3 ? "FlashAttention-3 attention kernels"
                                                     : "cuDNN's fused attention (Transformer Engine)",
                  {"workload.attention_kernel=\"" + std::string(topo::name(best)) + "\""},
                  best == topo::AttentionKernel::fa3 ? "the flash-attn Hopper build (FlashAttention-3)"
                                                     : "Transformer Engine's attention, or PyTorch's cuDNN "
                                                       "SDPA backend"));
  }
  if (j.precision.compute == topo::Precision::bf16 && j.cluster.gpu.fp8_peak.value() > 0.0)
    out.push_back(setting(ChangeFamily::precision, "FP8 linear layers (Transformer Engine)",
                          {"precision.compute=\"fp8\""},
                          "FP8 numerics: the recipe's convergence must be checked on the model"));
  if (!train && j.precision.kv_bytes > 1.0 && j.workload.kind == work::WorkloadKind::decode)
    out.push_back(setting(ChangeFamily::precision, "FP8 KV cache", {"precision.kv_cache=\"fp8\""},
                          "FP8 attention numerics"));
  if (j.cluster.total_gpus() > j.cluster.gpus_per_node) {
    const double gbps = units::in_gbit_per_s(j.cluster.nic_bw());
    out.push_back(
        setting(ChangeFamily::hardware, "NICs of twice the bandwidth",
                {"hardware.nic_gbps=" + std::to_string(static_cast<long long>(std::llround(2.0 * gbps)))},
                "hardware: " + format_number(2.0 * gbps, 0) + " Gb/s NICs per GPU instead of " +
                    format_number(gbps, 0)));
    const auto& os = j.cluster.fabric.oversubscription;
    if (std::any_of(os.begin(), os.end(), [](double x) { return x > 1.0; }))
      out.push_back(setting(ChangeFamily::hardware, "a non-blocking fabric", {"fabric.oversubscription=1"},
                            "hardware: more spine (and core) switch ports"));
  }
  return out;
}

/// Inference steps: TP one step either way (the replicas take the GPUs left) and the batch x2, /2.
std::vector<AdviceChange> inference_changes(const work::JobSpec& j) {
  std::vector<AdviceChange> out;
  const int tp = j.parallel.tp;
  for (int t : {tp / 2, tp * 2}) {
    if (t < 1 || t == tp || j.cluster.total_gpus() % t != 0) continue;
    out.push_back(setting(ChangeFamily::layout, "TP " + std::to_string(tp) + " -> " + std::to_string(t),
                          {"parallelism.tp=" + std::to_string(t)}, "none: the same GPUs"));
    out.back().unset = {"parallelism.dp"};
  }
  const int b = j.workload.batch;
  if (b > 1)
    out.push_back(setting(ChangeFamily::layout, "batch " + std::to_string(b) + " -> " + std::to_string(b / 2),
                          {"workload.batch=" + std::to_string(b / 2)}, "fewer concurrent sequences"));
  out.push_back(setting(ChangeFamily::layout, "batch " + std::to_string(b) + " -> " + std::to_string(2 * b),
                        {"workload.batch=" + std::to_string(2 * b)},
                        "each sequence waits longer per token (latency)"));
  return out;
}

/// Loads the base scenario with the change's edits and simulates it.
void simulate_change(AdviceChange& c, const std::filesystem::path& path, const scen::Catalog& catalog,
                     const scen::LoadOptions& base, const AdviceOptions& o, double base_tokens_per_s) {
  scen::LoadOptions load = base;
  load.set.insert(load.set.end(), c.set.begin(), c.set.end());
  load.unset.insert(load.unset.end(), c.unset.begin(), c.unset.end());
  try {
    const scen::Scenario s = scen::load_scenario(path, catalog, load);
    work::SimulateOptions options;
    options.max_ops = o.max_ops;
    const work::Simulation sim = work::simulate(s.job, options);
    c.sim = simulated_figures(s.job, sim, o.headroom_bytes);
    c.simulated = true;
    c.gain = base_tokens_per_s > 0 ? c.sim.tokens_per_s / base_tokens_per_s : 0.0;
  } catch (const UserError& e) {
    c.problem = e.what();
  }
}

/// A change helps when it fits and gains; when the base does not fit, any change that fits helps
/// (the base's rate is not achievable, so it is no yardstick).
bool helps(const AdviceChange& c, const AdviceOptions& o, bool base_fits) {
  return c.simulated && c.sim.fits && (!base_fits || c.gain >= 1.0 + o.min_gain);
}

/// Whether `a` beats `b`: more tokens/s; ties broken by lower $ per million tokens, then by order.
bool better(const AdviceChange& a, const AdviceChange& b) {
  return a.gain > b.gain;
}

}  // namespace

Advice advise(const std::filesystem::path& path, const scen::Catalog& catalog, const scen::LoadOptions& load,
              const AdviceOptions& o) {
  const scen::Scenario s = scen::load_scenario(path, catalog, load);
  const auto kind = s.job.workload.kind;
  if (kind == work::WorkloadKind::serve || kind == work::WorkloadKind::generate)
    throw UserError(s.where("workload.kind"), "workload.kind",
                    "--advise simulates changes to one step, and this scenario is many",
                    "advise on one prefill or decode step (kind = \"prefill\" / \"decode\")");
  work::SimulateOptions options;
  options.max_ops = o.max_ops;
  return advise(path, catalog, load, s.job, work::simulate(s.job, options), o);
}

Advice advise(const std::filesystem::path& path, const scen::Catalog& catalog, const scen::LoadOptions& load,
              const work::JobSpec& job, const work::Simulation& base_sim, const AdviceOptions& o) {
  const auto kind = job.workload.kind;
  Advice a;
  a.base = simulated_figures(job, base_sim, o.headroom_bytes);
  a.min_gain = o.min_gain;
  const bool train = kind == work::WorkloadKind::train;
  const Layout base_layout = layout_of_job(job);
  a.base_layout = train ? base_layout.compact() : "TP" + std::to_string(job.parallel.tp);

  std::mutex mutex;
  std::size_t done = 0, planned = 0;
  const auto run_batch = [&](std::vector<AdviceChange> batch) {
    {
      std::lock_guard lock(mutex);
      planned += batch.size();
    }
    parallel_for(batch.size(), o.jobs, [&](std::size_t i) {
      simulate_change(batch[i], path, catalog, load, o, a.base.tokens_per_s);
      std::lock_guard lock(mutex);
      ++done;
      if (o.progress) o.progress(done, planned);
    });
    a.tried.insert(a.tried.end(), batch.begin(), batch.end());
    return batch;
  };

  // Layouts: a local search, each round around the best fitting layout found so far.
  if (train) {
    const std::vector<Layout> space = work::enumerate_layouts(job);
    std::vector<Layout> seen{base_layout};
    Layout centre = base_layout;
    double best_gain = a.base.fits ? 1.0 : 0.0;
    for (int round = 0; round < o.rounds; ++round) {
      std::vector<AdviceChange> batch;
      std::vector<Layout> layouts;
      for (const Layout& l : layout_neighbours(space, centre)) {
        if (std::find(seen.begin(), seen.end(), l) != seen.end()) continue;
        seen.push_back(l);
        layouts.push_back(l);
        batch.push_back(layout_change(job, base_layout, l));
      }
      if (batch.empty()) break;
      const auto ran = run_batch(std::move(batch));
      std::optional<std::size_t> best;
      for (std::size_t i = 0; i < ran.size(); ++i)
        if (ran[i].simulated && ran[i].sim.fits && ran[i].gain > best_gain) best_gain = ran[i].gain, best = i;
      if (!best) break;
      centre = layouts[*best];
    }
  } else {
    run_batch(inference_changes(job));
  }
  run_batch(setting_changes(job, base_sim));

  // The best layout with every helpful runtime setting: changes that need no hardware and no
  // numerics change, taken together (their gains need not add up, so it is simulated too).
  std::vector<const AdviceChange*> software;
  const AdviceChange* best_layout = nullptr;
  for (const AdviceChange& c : a.tried) {
    if (!helps(c, o, a.base.fits)) continue;
    if (c.family == ChangeFamily::layout && (best_layout == nullptr || better(c, *best_layout)))
      best_layout = &c;
    if (c.family == ChangeFamily::runtime) software.push_back(&c);
  }
  if (best_layout != nullptr) software.insert(software.begin(), best_layout);
  if (software.size() >= 2) {
    AdviceChange all;
    all.family = ChangeFamily::combined;
    for (const AdviceChange* c : software) {
      all.title += (all.title.empty() ? "" : "; ") + c->title;
      all.set.insert(all.set.end(), c->set.begin(), c->set.end());
      all.unset.insert(all.unset.end(), c->unset.begin(), c->unset.end());
    }
    all.title = "together: " + all.title;
    all.costs = "as its parts";
    run_batch({std::move(all)});
  }

  for (const AdviceChange& c : a.tried)
    if (helps(c, o, a.base.fits)) a.helpful.push_back(c);
  std::stable_sort(a.helpful.begin(), a.helpful.end(), better);
  // Changes that run the same step as a better-placed one add nothing (ZeRO-2 where ZeRO-1 already
  // hides its communication, selective recompute that FlashAttention makes a no-op): the first,
  // found in an earlier round or with fewer edits, stays.
  std::vector<AdviceChange> distinct;
  for (AdviceChange& c : a.helpful)
    if (std::none_of(distinct.begin(), distinct.end(), [&](const AdviceChange& d) {
          return std::abs(d.sim.step_time_s - c.sim.step_time_s) <= 1e-9 * c.sim.step_time_s &&
                 d.sim.tokens_per_s == c.sim.tokens_per_s;
        }))
      distinct.push_back(std::move(c));
  a.helpful = std::move(distinct);
  if (a.helpful.size() > o.top) a.helpful.resize(o.top);
  return a;
}

}  // namespace stepsim::out
