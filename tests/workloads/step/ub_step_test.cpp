// Transformer Engine userbuffers as configured per GEMM (parallelism.tp_overlap): the SM margins
// reach the step's GEMMs and the num_sm the collectives' kernels, so that the engine runs each GEMM
// on the SMs it is given and each collective on the SMs it holds.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/scenario.hpp"
#include "tests/support/catalog.hpp"
#include "workloads/simulate/simulate.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

/// TP 8 with sequence parallelism and userbuffers on one node of 8 H100 SXM.
JobSpec ub_job(bool te1) {
  JobSpec j;
  j.model.layers = 2;
  j.model.hidden = 4096;
  j.model.heads = 32;
  j.model.kv_heads = 8;
  j.model.head_dim = 128;
  j.model.ffn = 14336;
  j.model.vocab = 32000;
  j.model.activation = Activation::swiglu;
  j.workload.seq_len = 4096;
  j.workload.micro_batch = 1;
  j.workload.global_batch = 1;
  // Kernels replayed from CUDA graphs: the GPU, not the host's eager launches, sets the pace.
  j.workload.cuda_graphs = true;
  j.parallel.tp = 8;
  j.parallel.sequence_parallel = true;
  j.parallel.tp_comm_overlap = TpCommOverlap::userbuffers;
  j.parallel.ub_overlap = default_ub_overlap(te1);
  // The catalog's H100 SXM: 132 SMs, NCCL kernels holding their channels' SMs.
  j.cluster.gpu = *test::builtin_catalog().find_gpu("h100-sxm");
  j.cluster.nodes = 1;
  j.cluster.gpus_per_node = 8;
  j.cluster.nvlink_domain = 8;
  return j;
}

/// The SM margin of the first op whose label ends with `suffix` (-1: none).
double margin_of(const Simulation& s, std::string_view suffix) {
  const sim::StepGraph& g = s.plan.graph;
  for (sim::OpId i = 0; i < g.op_count(); ++i) {
    const std::string_view l = g.label(i);
    if (l.size() >= suffix.size() && l.substr(l.size() - suffix.size()) == suffix)
      return static_cast<double>(g.exec(i).sm_margin) * sim::kSmMarginUnit;
  }
  return -1.0;
}

}  // namespace

TEST_CASE("userbuffers' SM margins reach the step's GEMMs and cost step time", "[tp_overlap]") {
  // TE 2.x's defaults: the pipelined (proj, FC2 forward) and bulk (QKV and FC1 dgrad / wgrad)
  // GEMMs leave their 16 SMs to the communication kernels, 16 / 132 (to the margin's 2^-16 unit);
  // the ring exchanges' GEMMs (QKV, FC1 forward; proj, FC2 dgrad) take every SM.
  const Simulation te2 = simulate(ub_job(false));
  const double m16 = std::round(16.0 / 132.0 / sim::kSmMarginUnit) * sim::kSmMarginUnit;
  CHECK(margin_of(te2, "fwd.proj") == Approx(m16));
  CHECK(margin_of(te2, "fwd.mlp_down") == Approx(m16));
  CHECK(margin_of(te2, "bwd.qkv.dgrad") == Approx(m16));
  CHECK(margin_of(te2, "bwd.mlp_up.wgrad") == Approx(m16));
  CHECK(margin_of(te2, "fwd.qkv") == 0.0);
  CHECK(margin_of(te2, "bwd.proj.dgrad") == 0.0);
  // TE 1.x's defaults leave no margin: the same step runs its GEMMs on every SM, faster (GPU-bound
  // here: the host's eager launches would pace so small a step).
  const Simulation te1 = simulate(ub_job(true));
  CHECK(margin_of(te1, "fwd.proj") == 0.0);
  CHECK(margin_of(te1, "bwd.qkv.dgrad") == 0.0);
  CHECK(te1.metrics.step_time_s < te2.metrics.step_time_s);
}

TEST_CASE("userbuffers' collectives hold their num_sm SMs, the pipeline's last chunk 32", "[tp_overlap]") {
  // TE 1.x's defaults with QKV's wgrad reduce-scatter on 24: the TP reduce-scatters are the
  // pipelined chunks (16 CTAs, the last of each GEMM 32) and the bulk ones beside the wgrad GEMMs
  // (FC1's 16, QKV's 24); the gathers beside the dgrad GEMMs hold 16.
  JobSpec j = ub_job(true);
  j.parallel.ub_overlap[static_cast<std::size_t>(UbGemm::qkv_wgrad)].num_sm = 24;
  const Simulation s = simulate(j);
  int rs16 = 0, rs24 = 0, rs32 = 0, ag16 = 0;
  for (std::uint32_t i = 0; i < s.transfers->size(); ++i) {
    const topo::TransferInfo& t = s.transfers->info(i);
    if (t.op == topo::CollectiveOp::reduce_scatter) {
      rs16 += t.ctas == 16, rs24 += t.ctas == 24, rs32 += t.ctas == 32;
      CHECK((t.ctas == 16 || t.ctas == 24 || t.ctas == 32));
    }
    if (t.op == topo::CollectiveOp::all_gather) ag16 += t.ctas == 16;
  }
  CHECK(rs16 > 0);
  CHECK(rs24 > 0);
  CHECK(rs32 > 0);
  CHECK(ag16 > 0);
}
