// Network terms of the stepsim formulas: bytes per token of every parallel dimension and the tier
// each crosses. Bus factors (nccl-tests): all-reduce 2(n-1)/n, reduce-scatter / all-gather /
// all-to-all (n-1)/n of the buffer per rank.
#include <catch2/catch.hpp>

#include <limits>
#include <string>

#include "tests/support/fixtures.hpp"
#include "workloads/estimate/estimate.hpp"
#include "workloads/estimate/estimate_parts.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

const NetworkTerm& term(const Estimate& e, const std::string& name) {
  for (const NetworkTerm& t : e.network)
    if (t.name == name) return t;
  FAIL("no network term " << name);
  return e.network.front();
}

bool has_term(const Estimate& e, const std::string& name) {
  for (const NetworkTerm& t : e.network)
    if (t.name == name) return true;
  return false;
}

double rate_of(const Estimate& e, topo::Resource r) {
  for (const ResourceRate& x : e.rates)
    if (x.resource == r) return x.tokens_per_s;
  FAIL("no rate " << topo::name(r));
  return 0.0;
}

}  // namespace

TEST_CASE("collective_bytes: ring inside a domain, hierarchical across domains") {
  GroupPlacement inside{8, 8, 1};
  CHECK(collective_bytes(Collective::all_reduce, 800.0, inside).scale_up == 1400.0);  // 2 x 7/8 x 800
  CHECK(collective_bytes(Collective::all_gather, 800.0, inside).scale_up == 700.0);   // 7/8 x 800
  GroupPlacement spread{16, 8, 2};  // 8 ranks in each of 2 domains
  const TierBytes ar = collective_bytes(Collective::all_reduce, 800.0, spread);
  CHECK(ar.scale_up == 1400.0);  // reduce-scatter + all-gather inside the domain: 2 x 7/8 x 800
  CHECK(ar.scale_out == 100.0);  // 1/8 of the buffer all-reduced over 2 domains: 2 x 1/2 x 100
  GroupPlacement apart{4, 1, 4};
  CHECK(collective_bytes(Collective::all_reduce, 800.0, apart).scale_out == 1200.0);  // 2 x 3/4 x 800
  GroupPlacement half{8, 4, 2};
  const TierBytes a2a = collective_bytes(Collective::all_to_all, 800.0, half);
  CHECK(a2a.scale_up == 300.0);   // 3 of 8 peers share the domain
  CHECK(a2a.scale_out == 400.0);  // 4 of 8 are elsewhere; 1/8 stays on the rank
  CHECK(collective_bytes(Collective::send_recv, 800.0, apart).scale_out == 800.0);
  CHECK(collective_bytes(Collective::all_reduce, 800.0, GroupPlacement{}).scale_up == 0.0);  // n = 1
}

TEST_CASE("DP and TP terms of tiny_training, all on NVLink") {
  JobSpec j = test::tiny_training();
  Estimate e = estimate(j);
  // DP: gradients of 57,938,432 params x 2 B = 115,876,864 B all-reduced over dp 4 (ranks 0,2,4,6):
  // 2 x 3/4 x 115,876,864 / 16,384 tokens per GPU = 10,608.84375 B/token.
  const NetworkTerm& dp = term(e, "dp.grad_all_reduce");
  CHECK(dp.placement.inside_domain());
  CHECK(dp.message_bytes == 115'876'864.0);
  CHECK(dp.scale_up_bytes_per_token == 10'608.84375);
  CHECK(dp.scale_out_bytes_per_token == 0.0);
  // TP: 2 all-reduces per layer forward, 2 backward, of b s h x 2 B = 4,096 x 1,024 x 2 = 8,388,608 B;
  // 8 micro-batches x 2 passes x 8 = 128 calls; ring over 2 ranks sends the buffer once:
  // 128 x 8,388,608 / 16,384 = 65,536 B/token.
  const NetworkTerm& tp = term(e, "tp.all_reduce");
  CHECK(tp.calls_per_step == 128.0);
  CHECK(tp.scale_up_bytes_per_token == 65'536.0);
  // NVLink demand 76,144.84375 B/token at 0.5 x 400 GB/s.
  CHECK(rate_of(e, topo::Resource::nvlink) == Approx(200e9 / 76'144.84375));
  CHECK(rate_of(e, topo::Resource::nic) == std::numeric_limits<double>::infinity());
  SECTION("sequence parallelism: reduce-scatter + all-gather, the same bytes") {
    j.parallel.sequence_parallel = true;
    e = estimate(j);
    CHECK_FALSE(has_term(e, "tp.all_reduce"));
    CHECK(term(e, "tp.reduce_scatter").scale_up_bytes_per_token == 32'768.0);
    CHECK(term(e, "tp.all_gather").scale_up_bytes_per_token == 32'768.0);
  }
  SECTION("full recompute repeats the forward all-reduces") {
    j.recompute = Recompute::full;
    CHECK(term(estimate(j), "tp.all_reduce").calls_per_step == 192.0);  // 8 x 3 x 8
  }
  SECTION("ZeRO-1: reduce-scatter gradients, all-gather weights: the all-reduce's bytes") {
    j.parallel.zero_stage = 1;
    e = estimate(j);
    CHECK(term(e, "dp.grad_reduce_scatter").scale_up_bytes_per_token ==
          5'304.421875);  // 3/4 x 115,876,864 / 16,384
    CHECK(term(e, "dp.param_all_gather").scale_up_bytes_per_token == 5'304.421875);
  }
  SECTION("ZeRO-3: weights gathered for forward and backward of every micro-batch") {
    j.parallel.zero_stage = 3;
    e = estimate(j);
    CHECK(term(e, "dp.param_all_gather").calls_per_step == 16.0);  // 8 micro-batches x 2
    CHECK(term(e, "dp.grad_reduce_scatter").calls_per_step == 8.0);
  }
}

TEST_CASE("DP across nodes goes through the NIC, a split group uses both tiers") {
  JobSpec j = test::tiny_training();
  j.cluster.nodes = 2;
  SECTION("tp 8 fills the node: each DP rank in another domain") {
    j.parallel.tp = 8;
    j.parallel.dp = 2;
    const Estimate e = estimate(j);
    // Params per GPU: 50,340,864 / 8 + 65,536,000 / 8 = 14,484,608; grads 28,969,216 B;
    // all-reduce over 2: 2 x 1/2 x 28,969,216 per step / 8,192 tokens per GPU = 3,536.28125 on the NIC.
    const NetworkTerm& dp = term(e, "dp.grad_all_reduce");
    CHECK(dp.scale_up_bytes_per_token == 0.0);
    CHECK(dp.scale_out_bytes_per_token == 3'536.28125);
    CHECK(rate_of(e, topo::Resource::nic) == Approx(25e9 / 3'536.28125));  // 0.5 x 50 GB/s
  }
  SECTION("dp 16 over two 8-GPU domains") {
    j.parallel.tp = 1;
    j.parallel.dp = 16;
    const Estimate e = estimate(j);
    // Grads 115,876,864 params x 2 B = 231,753,728 B. In-domain: 2 x 7/8 x G = 405,569,024;
    // across: 2 x 1/2 x G / 8 = 28,969,216; per 8,192 tokens per GPU.
    const NetworkTerm& dp = term(e, "dp.grad_all_reduce");
    CHECK(dp.scale_up_bytes_per_token == 405'569'024.0 / 8'192.0);
    CHECK(dp.scale_out_bytes_per_token == 3'536.28125);
  }
}

TEST_CASE("Pipeline, context-parallel and expert-parallel terms") {
  JobSpec j = test::tiny_training();
  // 8 experts of 1,024, top-2, EP 8 over two 4-GPU domains (one expert per GPU).
  const auto ep8_over_two_domains = [&j] {
    j.model.experts = 8;
    j.model.top_k = 2;
    j.model.expert_ffn = 1024;
    j.cluster.gpus_per_node = 4;
    j.cluster.nodes = 2;
    j.cluster.nvlink_domain = 4;
    j.parallel.tp = 1;
    j.parallel.dp = 8;
    j.parallel.ep = 8;
  };
  SECTION("pp 2: activations forward and gradients backward, 1/tp of the tensor per rank") {
    j.parallel.pp = 2;
    j.parallel.dp = 2;
    const Estimate e = estimate(j);
    // m = 64 / (2 x 2) = 16; message 4,096 x 1,024 x 2 B / tp 2 = 4,194,304; 2 x 16 calls;
    // 32 x 4,194,304 / 16,384 = 8,192 B/token; stages {0, 2} share the domain.
    const NetworkTerm& pp = term(e, "pp.send_recv");
    CHECK(pp.message_bytes == 4'194'304.0);
    CHECK(pp.calls_per_step == 32.0);
    CHECK(pp.scale_up_bytes_per_token == 8'192.0);
    CHECK(e.pipeline_bubble == 1.0 / 16.0);  // (p - 1) / m
  }
  SECTION("cp 2: K and V of the local chunk gathered forward and backward, gradients reduce-scattered") {
    j.parallel.cp = 2;
    j.parallel.dp = 2;
    const Estimate e = estimate(j);
    // Chunk per rank: 4,096 / 2 tokens x (2 x 8 heads per TP rank x 64) x 2 B = 4,194,304 B;
    // all-gather of 2 chunks sends one: 4,194,304 per call; m 16 x 4 layers x 2 = 128 calls.
    const NetworkTerm& ag = term(e, "cp.kv_all_gather");
    CHECK(ag.calls_per_step == 128.0);
    CHECK(ag.scale_up_bytes_per_token == 32'768.0);  // 128 x 4,194,304 / 16,384
    CHECK(term(e, "cp.kv_grad_reduce_scatter").scale_up_bytes_per_token == 16'384.0);
  }
  SECTION("cp 2 as an all-to-all: queries, keys, values and the output, each forward and backward pass") {
    j.parallel.cp = 2;
    j.parallel.dp = 2;
    j.parallel.cp_comm = CpComm::a2a;
    const Estimate e = estimate(j);
    // Per call: 4,096 / 2 tokens x (q + k + v + o = 4 x 1,024) / tp 2 x 2 B = 8,388,608 B;
    // m 16 x 4 layers x 2 passes = 128 calls; one of the 2 peers is another rank (half the buffer
    // moves): 128 x 8,388,608 / 2 / 16,384 = 32,768 B per token over NVLink.
    CHECK_FALSE(has_term(e, "cp.kv_all_gather"));
    const NetworkTerm& a2a = term(e, "cp.qkvo_all_to_all");
    CHECK(a2a.collective == Collective::all_to_all);
    CHECK(a2a.message_bytes == 8'388'608.0);
    CHECK(a2a.calls_per_step == 128.0);
    CHECK(a2a.scale_up_bytes_per_token == 32'768.0);
  }
  SECTION("ep 8 over two 4-GPU domains: dispatch + combine, forward + backward") {
    ep8_over_two_domains();
    Estimate e = estimate(j);
    // m = 64 / (8 x 2) = 4; per call 4,096 tokens x 1,024 x top-2 x 2 B = 16,777,216 B; calls
    // 4 x 4 MoE layers x 2 x 2 = 64. Of 8 peers 3 share the domain, 4 do not:
    // NVLink 64 x 16,777,216 x 3/8 / 16,384 = 24,576; NIC 64 x 16,777,216 x 4/8 / 16,384 = 32,768.
    const NetworkTerm& ep = term(e, "ep.all_to_all");
    CHECK(ep.scale_up_bytes_per_token == 24'576.0);
    CHECK(ep.scale_out_bytes_per_token == 32'768.0);
    // Experts are fully sharded (ep = dp): no expert-data-parallel reduction.
    CHECK_FALSE(has_term(e, "expert_dp.grad_all_reduce"));
    // An imbalance of 1.5 makes the busiest rank move and compute 1.5x the routed share.
    j.moe.imbalance = 1.5;
    e = estimate(j);
    CHECK(term(e, "ep.all_to_all").scale_out_bytes_per_token == 49'152.0);
    // Routed active: 2 experts x (2 x 1,024^2) x 4 layers = 16,777,216; x 2 FLOPs x 3 passes x 0.5.
    CHECK(e.flops.busiest_gpu - e.flops.hardware == 0.5 * 2.0 * 16'777'216.0 * 3.0);
  }
  SECTION("ep 8 over two 4-GPU domains through DeepEP's node-limited dispatch") {
    ep8_over_two_domains();
    j.moe.max_nodes_per_token = 2;
    // One expert per GPU. A token moves once per GPU holding its experts (2 of them) over NVLink
    // unless that GPU is the sender or its rail peer (1 in 4): 2 x 3/4 = 1.5 copies; once per remote
    // domain through the NIC. Random routing over both domains' 8 experts misses a domain (its 4)
    // with C(4, 2) / C(8, 2) = 6/28: 2 x 22/28 = 11/7 domains, remote in 1 of 2: 11/14 copies.
    // 64 calls x 4,096 tokens x 1,024 x 2 B / 16,384 tokens = 32,768 B per copy per token.
    Estimate e = estimate(j);
    CHECK_FALSE(has_term(e, "ep.all_to_all"));
    const NetworkTerm& ep = term(e, "ep.dispatch_combine");
    CHECK(ep.scale_up_bytes_per_token == Approx(32'768.0 * 1.5).epsilon(1e-12));
    CHECK(ep.scale_out_bytes_per_token == Approx(32'768.0 * 11.0 / 14.0).epsilon(1e-12));
    // AutoModel's round-robin gate: windows {0,1} {2,3} {4,5} {6,7}, each inside one domain:
    // 1 domain (remote in 1 of 2: 0.5 copies) and 2 GPUs (1.5 copies) per token.
    j.moe.routing = MoeRouting::round_robin;
    e = estimate(j);
    CHECK(term(e, "ep.dispatch_combine").scale_up_bytes_per_token == Approx(32'768.0 * 1.5).epsilon(1e-12));
    CHECK(term(e, "ep.dispatch_combine").scale_out_bytes_per_token == Approx(16'384.0).epsilon(1e-12));
    // DeepEP's low-latency kernels send every (token, expert) copy: the plain all-to-all's bytes.
    j.moe.dispatcher = MoeDispatcher::low_latency;
    e = estimate(j);
    CHECK(term(e, "ep.all_to_all").scale_up_bytes_per_token == 24'576.0);
    CHECK(term(e, "ep.all_to_all").scale_out_bytes_per_token == 32'768.0);
  }
}
