#include "workloads/layout_space.hpp"

#include <algorithm>

#include "workloads/names.hpp"

namespace stepsim::work {
namespace {

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
    if (tp > 1 && job.workload.seq_len % tp != 0) continue;  // sequence parallelism splits the sequence
    out.push_back(tp);
  }
  return out;
}

std::vector<int> cp_choices(const JobSpec& job, const LayoutSpaceOptions& o) {
  std::vector<int> out{1};
  if (job.workload.attention_impl != AttentionImpl::flash) return out;
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

/// The per-layout knobs that do not change the rank grid: micro-batch, ZeRO and recomputation.
void add_knobs(const JobSpec& job, const LayoutSpaceOptions& o, Layout l, std::vector<Layout>& out) {
  for (int mb : o.micro_batches) {
    if (job.workload.global_batch % (mb * l.dp) != 0) continue;
    l.micro_batch = mb;
    for (int z : o.zero_stages) {
      l.zero_stage = z;
      for (Recompute r : o.recomputes) {
        l.recompute = r;
        out.push_back(l);
      }
    }
  }
}

}  // namespace

std::string Layout::text() const {
  std::string s = "tp " + std::to_string(tp) + ", pp " + std::to_string(pp);
  if (virtual_stages > 1) s += " (v " + std::to_string(virtual_stages) + ")";
  if (cp > 1) s += ", cp " + std::to_string(cp);
  if (ep > 1) s += ", ep " + std::to_string(ep);
  s += ", dp " + std::to_string(dp) + ", mb " + std::to_string(micro_batch) + ", zero " +
       std::to_string(zero_stage);
  s += recompute == Recompute::none ? ", no recompute" : ", " + std::string(name(recompute)) + " recompute";
  return s;
}

std::vector<Layout> enumerate_layouts(const JobSpec& job, const LayoutSpaceOptions& o) {
  std::vector<Layout> out;
  const int gpus = job.cluster.total_gpus();
  const int layers = job.model.layers;
  for (int tp : tp_choices(job, o))
    for (int pp : divisors(layers, std::min(o.max_pp, gpus / tp)))
      for (int v : divisors(layers / pp, pp > 1 ? o.max_virtual_stages : 1))
        for (int cp : cp_choices(job, o)) {
          if (gpus % (tp * pp * cp) != 0) continue;
          const int dp = gpus / (tp * pp * cp);
          for (int ep : ep_choices(job, dp, cp, tp)) {
            Layout l;
            l.tp = tp;
            l.pp = pp;
            l.virtual_stages = v;
            l.cp = cp;
            l.ep = ep;
            l.dp = dp;
            add_knobs(job, o, l, out);
          }
        }
  return out;
}

JobSpec with_layout(JobSpec job, const Layout& l) {
  ParallelSpec& p = job.parallel;
  p.tp = l.tp;
  p.pp = l.pp;
  p.virtual_stages = l.virtual_stages;
  p.cp = l.cp;
  p.ep = l.ep;
  p.dp = l.dp;
  p.expert_tp = 1;
  p.first_stage_layers = 0;
  p.last_stage_layers = 0;
  p.sequence_parallel = l.tp > 1;
  p.zero_stage = l.zero_stage;
  p.schedule = l.virtual_stages > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
  job.workload.micro_batch = l.micro_batch;
  job.recompute = l.recompute;
  return job;
}

std::vector<std::string> layout_overrides(const Layout& l) {
  const auto i = [](const char* key, int v) { return std::string(key) + "=" + std::to_string(v); };
  return {i("parallelism.tp", l.tp),
          i("parallelism.pp", l.pp),
          i("parallelism.virtual_stages", l.virtual_stages),
          i("parallelism.cp", l.cp),
          i("parallelism.ep", l.ep),
          i("parallelism.dp", l.dp),
          i("parallelism.zero_stage", l.zero_stage),
          std::string("parallelism.sequence_parallel=") + (l.tp > 1 ? "true" : "false"),
          std::string("parallelism.schedule=\"") + (l.virtual_stages > 1 ? "interleaved" : "1f1b") + "\"",
          i("workload.micro_batch", l.micro_batch),
          "workload.recompute=\"" + std::string(name(l.recompute)) + "\""};
}

}  // namespace stepsim::work
