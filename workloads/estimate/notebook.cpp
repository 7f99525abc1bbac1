// The seed notebook's formulas, exactly as it computes them (reference.md section 1), kept for
// parity: F_tok = gamma kappa N; M_tok = alpha_opt N / B_g + c_act L d b;
// M_net = 2 (p-1) N b_grad / B_g; r = e x peak / demand; G = ceil(R / r); cost = G x price.
#include <limits>
#include <string>

#include "sim/error.hpp"
#include "workloads/estimate/estimate_parts.hpp"

namespace stepsim::work {

namespace {

void check(const NotebookInputs& nb) {
  auto positive = [](double v, const char* key) {
    if (!(v > 0.0))
      throw UserError("estimate.notebook." + std::string(key) +
                      " must be positive for formulas = \"notebook\"");
  };
  positive(nb.n_params, "n_params");
  positive(nb.kappa, "kappa");
  positive(nb.gamma, "gamma");
  positive(nb.tokens_per_step, "tokens_per_step");
  if (nb.dp < 1) throw UserError("estimate.notebook.dp must be at least 1");
}

ResourceRate rate(topo::Resource r, double demand, double usable) {
  const double tokens = demand > 0.0 ? usable / demand : std::numeric_limits<double>::infinity();
  return {r, demand, usable, tokens};
}

}  // namespace

Estimate estimate_notebook(const JobSpec& job) {
  const NotebookInputs& nb = job.estimate.notebook;
  check(nb);
  const topo::GpuSpec& g = job.cluster.gpu;
  const double N = nb.n_params;
  const double Bg = nb.tokens_per_step;
  Estimate e;
  e.formulas = EstimateFormulas::notebook;
  e.kind = job.workload.kind;
  e.gpus = job.parallel.world();
  e.tokens_per_step = Bg;
  e.params = e.active_params = N;
  e.flops.model = nb.kappa * N;
  e.flops.hardware = e.flops.busiest_gpu = nb.gamma * nb.kappa * N;
  e.flops.recompute = e.flops.hardware - e.flops.model;
  e.hbm.optimizer = nb.alpha_opt * N / Bg;
  e.hbm.activations = nb.c_act * job.model.layers * job.model.hidden * job.precision.activation_bytes;
  const double net = 2.0 * (nb.dp - 1) * N * nb.grad_bytes / Bg;
  const double peak = g.peak_flops(job.precision.compute).value();
  e.rates = {rate(topo::Resource::compute, e.flops.hardware, g.eff.estimate_compute * peak),
             rate(topo::Resource::hbm, e.hbm.total(), g.eff.estimate_memory * g.hbm_bw.value()),
             rate(topo::Resource::nic, net, g.eff.estimate_network * job.cluster.nic_bw().value())};
  const ResourceRate* best = &e.rates.front();
  for (const ResourceRate& r : e.rates)
    if (r.tokens_per_s < best->tokens_per_s) best = &r;
  e.bound = best->resource;
  e.tokens_per_s_per_gpu = best->tokens_per_s;
  e.tokens_per_s_cluster = e.tokens_per_s_per_gpu * e.gpus;
  e.step_time_s = Bg / e.tokens_per_s_cluster;
  e.mfu = e.flops.model * e.tokens_per_s_per_gpu / peak;
  e.intensity_flops_per_byte = e.flops.hardware / e.hbm.total();
  e.ridge_flops_per_byte = peak / g.hbm_bw.value();
  e.cost = cost_lines(job, e.tokens_per_s_per_gpu);
  if (job.estimate.target_tokens_per_s) {
    Sizing s;
    s.target_tokens_per_s = *job.estimate.target_tokens_per_s;
    s.gpus_needed = ceil_count(s.target_tokens_per_s / e.tokens_per_s_per_gpu);
    s.tokens_per_s_per_gpu = e.tokens_per_s_per_gpu;
    s.cluster_cost_per_hour = s.gpus_needed * g.price_per_hour;
    s.cluster_hbm_Bps = s.target_tokens_per_s * e.hbm.total();
    s.note =
        "the notebook keeps p = " + std::to_string(nb.dp) + " data-parallel ranks whatever the GPU count";
    e.sizing = s;
  }
  e.notes.push_back(
      "notebook formulas: no memory-capacity check, one network term (data-parallel "
      "all-reduce over the NIC), optimizer traffic amortised over the global batch");
  return e;
}

}  // namespace stepsim::work
