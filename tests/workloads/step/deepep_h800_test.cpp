// Expert-parallel dispatch and combine against DeepEP's published bandwidths on H800.
//
// Source: deepseek-ai/DeepEP docs/legacy.md @ dd758caf451848bd150e1046af3d0a73e5fff38d, "Normal kernels
// with NVLink and RDMA forwarding": H800 (~160 GB/s NVLink), one CX7 400 Gb/s NIC per GPU; 4096 tokens
// per rank, hidden 7168, 256 experts, top-8, tokens limited to min(nodes, 4) nodes (the test's default
// `num_topk_groups`, one group per node), FP8 dispatch, BF16 combine. Row ids are those of the project's
// validation table (collectives-multinode.csv, ids 223-230), copied here so the test reads nothing outside
// the repository.
//
// DeepEP's metric (tests/legacy/test_intranode.py and test_internode.py at the same commit) is bytes its
// test counts divided by the kernel time:
//  - intranode (EP8), "NVL": recv_x.numel() x 2 x fp8_factor, the tokens a rank receives, one per (token,
//    rank) pair, its own included, times the bytes of one token;
//  - internode, "RDMA": num_rdma_token_sent x hidden x 2 x fp8_factor, one per (token, node) pair with
//    the token's own node included (num_rdma_token_sent counts every node a token reaches; the kernel
//    skips the NIC for its own node: internode.cu "Lighter fence for local RDMA rank").
// fp8_factor = (1 + 4/128) / 2: FP8 dispatch sends 7168 bytes plus 7168/128 fp32 scales, 7392 bytes per
// token; the BF16 combine sends 14336.
//
// The simulated figure is the same counters (their expected values under DeepEP's routing, derived
// below) divided by stepsim's time for the all-to-all as the MoE layer requests it: route_layer with
// node-limited balanced routing, the dispatch matrix (combine: its transpose) as the pair bytes of one
// all-to-all over the EP group, on the catalog's H800 and a rail-optimised fabric (every scale-out flow of
// node-limited routing goes to the rail peer, so a fat-tree carries the same flows).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "scenarios/scenario.hpp"
#include "tests/support/catalog.hpp"
#include "tests/topology/test_cluster.hpp"
#include "topology/compute_model.hpp"
#include "workloads/layout/deepep.hpp"
#include "workloads/layout/rank_layout.hpp"
#include "workloads/layout/topology_planner.hpp"
#include "workloads/model/names.hpp"
#include "workloads/simulate/simulate.hpp"
#include "workloads/step/moe_layer.hpp"
#include "workloads/step/routing.hpp"

using namespace stepsim;

namespace {

constexpr double kTokens = 4096, kHidden = 7168;
constexpr int kExperts = 256, kTopK = 8;
constexpr double kDispatchBytes = kHidden + kHidden / 128 * 4;  // FP8 + fp32 scales: 7392
constexpr double kCombineBytes = kHidden * 2;                   // BF16: 14336

enum class Direction : std::uint8_t { dispatch, combine };

struct DeepEpRow {
  int id;  ///< row of collectives-multinode.csv
  int ep;
  Direction direction;
  double measured_GBps;  ///< "bottleneck bandwidth": NVL for EP8, RDMA beyond
};

constexpr DeepEpRow kRows[] = {
    {223, 8, Direction::dispatch, 153}, {224, 8, Direction::combine, 158},
    {225, 16, Direction::dispatch, 43}, {226, 16, Direction::combine, 43},
    {227, 32, Direction::dispatch, 58}, {228, 32, Direction::combine, 57},
    {229, 64, Direction::dispatch, 51}, {230, 64, Direction::combine, 50},
};

/// P(a token's top-k of E experts misses a block of `block` experts): C(E - block, k) / C(E, k).
double miss(int block) {
  double p = 1.0;
  for (int i = 0; i < kTopK; ++i) p *= double(kExperts - block - i) / double(kExperts - i);
  return p;
}

/// Expected (token, unit) pairs DeepEP's test counts per rank: EP8 ranks reached by the tokens a rank
/// receives; beyond, nodes reached by the rank's own tokens.
///  EP8: 8 ranks x 4096 x (1 - C(224, 8) / C(256, 8)) = 8 x 4096 x 0.6617 = 21,683 tokens.
///  EP16, 32 (N <= 4 nodes, no limit): nodes per token N (1 - C(256 - 256/N, 8) / C(256, 8)):
///  2 x (1 - 0.00355) = 1.9929 and 4 x (1 - 0.0963) = 3.6147.
///  EP64 (8 nodes, M = 4): the test picks the 4 nodes with the highest maximum score, then the top 8
///  experts among theirs; a picked node misses all 8 copies rarely: 3.983 nodes per token (a Monte Carlo
///  of that gating over 200,000 tokens; 4 would be every picked node used).
double deepep_units(int ep) {
  const int nodes = ep / 8;
  if (nodes == 1) return 8 * kTokens * (1.0 - miss(kExperts / 8));
  if (nodes <= 4) return kTokens * nodes * (1.0 - miss(kExperts / nodes));
  return kTokens * 3.983;
}

const topo::GpuSpec& h800() {
  return *test::builtin_catalog().find_gpu("h800");
}

/// `nodes` nodes of 8 catalog H800s on a rail-optimised fabric.
topo::ClusterSpec h800_cluster(int nodes) {
  topo::ClusterSpec spec = test::cluster(nodes, 8, topo::FabricKind::rail_optimized);
  spec.gpu = h800();
  return spec;
}

/// An all-to-all of `kind` over EP ranks 0 .. ep-1, `bytes` per rank, as the MoE layer requests it.
work::CommRequest ep_request(work::CollectiveKind kind, int ep, double bytes) {
  work::CommRequest req;
  req.kind = kind;
  req.dim = work::ParallelDim::ep;
  req.bytes = bytes;
  req.groups = {std::vector<int>(static_cast<std::size_t>(ep))};
  for (int r = 0; r < ep; ++r) req.groups[0][static_cast<std::size_t>(r)] = r;
  return req;
}

/// DeepEP's low-latency benchmark routed over EP ranks in nodes of 8: `tokens` per rank, top-8 of
/// 256, FP8 dispatch, BF16 combine.
work::RoutingInputs ll_inputs(int ep, double tokens) {
  work::RoutingInputs in;
  in.experts = kExperts;
  in.top_k = kTopK;
  in.tokens_per_rank = tokens;
  in.vector_bytes = kCombineBytes;
  in.dispatch_vector_bytes = kDispatchBytes;
  in.moe.dispatcher = work::MoeDispatcher::low_latency;
  for (int r = 0; r < ep; ++r) in.node_of.push_back(r / 8);
  return in;
}

struct Simulated {
  double time_s = 0.0;
  double units = 0.0;  ///< stepsim's own value of the counter DeepEP divides by the time
};

Simulated simulate(int ep, Direction direction) {
  const int nodes = ep / 8;
  const topo::ClusterSpec spec = h800_cluster(nodes);
  work::RoutingInputs in;
  in.experts = kExperts;
  in.top_k = kTopK;
  in.tokens_per_rank = kTokens;
  in.vector_bytes = direction == Direction::dispatch ? kDispatchBytes : kCombineBytes;
  in.moe.max_nodes_per_token = 4;
  for (int r = 0; r < ep; ++r) in.node_of.push_back(r / 8);
  const work::LayerRouting routing = work::route_layer(in, 0, work::HotRank::as_drawn);

  // As MoeLayer::all_to_all requests it: the mean row as the size, the matrix when not uniform.
  work::CommRequest req = ep_request(work::CollectiveKind::all_to_all, ep, routing.mean_sent_bytes);
  if (!routing.uniform)
    req.pair_bytes = direction == Direction::dispatch ? routing.dispatch_bytes : routing.combine_bytes;
  auto topology = std::make_shared<const topo::Topology>(spec);
  const double t = test::simulate_one(spec, work::planned_collective(*topology, req)).time_s;

  // stepsim's counter: EP8, what rank 0 receives (its column, its own share included); beyond, the
  // nodes rank 0's tokens reach: its rail peer on each other node gets one vector per token reaching
  // that node, and balanced routing reaches its own node as often as any other.
  double units = routing.received(0);
  if (nodes > 1) {
    double remote = 0.0;
    for (int n = 1; n < nodes; ++n) remote += routing.dispatch[static_cast<std::size_t>(8 * n)];
    units = remote * nodes / (nodes - 1);
  }
  return {t, units};
}

}  // namespace

TEST_CASE("expert-parallel dispatch and combine follow DeepEP's H800 bandwidths", "[routing][deepep]") {
  std::printf("  id  EP  op        measured GB/s  simulated GB/s  error   stepsim/DeepEP units\n");
  for (const DeepEpRow& row : kRows) {
    const Simulated s = simulate(row.ep, row.direction);
    const double bytes = row.direction == Direction::dispatch ? kDispatchBytes : kCombineBytes;
    const double deepep = deepep_units(row.ep);
    const double simulated_GBps = deepep * bytes / s.time_s / 1e9;
    const double error = simulated_GBps / row.measured_GBps - 1.0;
    std::printf("  %d %3d  %-8s  %13.0f  %14.1f  %+5.1f%%  %.3f\n", row.id, row.ep,
                row.direction == Direction::dispatch ? "dispatch" : "combine", row.measured_GBps,
                simulated_GBps, error * 100.0, s.units / deepep);
    INFO("row " << row.id << " EP" << row.ep << ": simulated " << simulated_GBps << " GB/s, measured "
                << row.measured_GBps);
    // 10%: row 223 set the H800's NVLink efficiency (0.67 = 7/8 x 153 / 200), so it lands near 0 by
    // construction; EP16 is NVLink-bound inside DeepEP at 123 GB/s against 134 intranode (+9% at most);
    // EP32 and EP64 are NIC-bound, where DeepEP reaches 43.5-44.6 GB/s on the wire (2.71 and 3.48
    // remote vectors per token) against the catalog's 0.85 x 50 = 42.5 (-2% to -5%) and the latency
    // rounds add ~1.5%. Before node-limited dispatch sent one copy per GPU in a single node and counted
    // missed nodes, EP8 was at -21% and EP16 at +24%.
    CHECK(std::abs(error) <= 0.10);
    // The routing itself: stepsim's counter against DeepEP's expected one (the model uses copies drawn
    // with replacement: 0.656 against 0.662 of the ranks at EP8, 0.900 against 0.904 of the nodes at EP32).
    CHECK(s.units / deepep == Approx(1.0).epsilon(0.02));
  }
}

TEST_CASE("the low-latency dispatcher sends every copy to its expert's rank", "[routing][deepep]") {
  // DeepEP's low-latency kernels at EP16 (two nodes of 8), 128 tokens per rank, top-8 of 256
  // experts, FP8 dispatch: every (token, expert) copy is a message to the expert's rank, with no
  // per-GPU merging and no node limit. Balanced routing gives each rank 1/16 of every sender's
  // 128 x 8 = 1,024 copies: 64 per pair, 64 x 7,392 = 473,088 bytes; 1,024 x 7,392 = 7,569,408 per
  // rank in all (its own 64 copies included).
  work::RoutingInputs in = ll_inputs(16, 128);
  in.moe.max_nodes_per_token = 4;  // the normal kernels' node limit: the low-latency ones ignore it
  const work::LayerRouting routing = work::route_layer(in, 0, work::HotRank::as_drawn);
  CHECK(routing.uniform);
  CHECK(routing.dispatch_bytes[5] == Approx(64 * kDispatchBytes));
  CHECK(routing.dispatch_bytes[9 * 16 + 2] == Approx(64 * kDispatchBytes));
  CHECK(routing.combine_bytes[3] == Approx(64 * kCombineBytes));
  CHECK(routing.mean_sent_bytes == Approx(1024 * kDispatchBytes));
  // The MoE layer asks for the low-latency kernels; the planner runs them as DeepEP does.
  const auto req = ep_request(work::CollectiveKind::all_to_all_low_latency, 16, routing.mean_sent_bytes);
  const topo::ClusterSpec spec = h800_cluster(2);
  const auto topology = std::make_shared<const topo::Topology>(spec);
  const auto planned = work::planned_collective(*topology, req);
  CHECK(planned.algorithm == topo::CollectiveAlgorithm::deepep_ll);
  // Half the copies leave the node, from the GPU's own NIC: 7,569,408 / 2 / 42.5 GB/s = 89.05 us,
  // plus the launch (1.24 us) and two rounds of the longest route (NIC pair 2 us + leaf, spine,
  // leaf 1.5 us: rails differ, no PXN) = 8.24 us.
  const double t = test::simulate_one(spec, planned).time_s;
  // Exact but for event times rounded up to whole picoseconds (relative 1e-8 of 97 us at most).
  CHECK(t == Approx(8.24e-6 + 1024 * kDispatchBytes / 2 / 42.5e9).epsilon(1e-6));
}

namespace {

// DeepEP's low-latency kernels: docs/legacy.md @ dd758caf (the source above), "Low-latency kernels":
// 128 tokens per rank, hidden 7168, top-8 of 256 experts, FP8 dispatch, BF16 combine, one CX7
// 400 Gb/s NIC per GPU, EP/8 nodes of 8 (rows 231-242 of collectives-multinode.csv). The figure is
// each kernel's latency.
struct LlRow {
  int id;
  int ep;
  Direction direction;
  double measured_us;
};
constexpr LlRow kLlRows[] = {
    {231, 8, Direction::dispatch, 77},    {232, 8, Direction::combine, 114},
    {233, 16, Direction::dispatch, 118},  {234, 16, Direction::combine, 195},
    {235, 32, Direction::dispatch, 155},  {236, 32, Direction::combine, 273},
    {237, 64, Direction::dispatch, 173},  {238, 64, Direction::combine, 314},
    {239, 128, Direction::dispatch, 192}, {240, 128, Direction::combine, 369},
    {241, 256, Direction::dispatch, 194}, {242, 256, Direction::combine, 360},
};
constexpr double kLlTokens = 128;

/// The transfer of one low-latency dispatch or combine, as the MoE layer requests it.
double ll_transfer_s(int ep, Direction direction) {
  const work::LayerRouting routing = work::route_layer(ll_inputs(ep, kLlTokens), 0, work::HotRank::as_drawn);
  const auto req = ep_request(work::CollectiveKind::all_to_all_low_latency, ep,
                              direction == Direction::dispatch ? routing.mean_sent_bytes : routing.mean_combine_bytes);
  const topo::ClusterSpec spec = h800_cluster(ep / 8);
  const auto topology = std::make_shared<const topo::Topology>(spec);
  return test::simulate_one(spec, work::planned_collective(*topology, req)).time_s;
}

}  // namespace

TEST_CASE("DeepEP's low-latency kernels against their latencies, as the MoE layer prices them",
          "[routing][deepep]") {
  // A low-latency dispatch kernel (csrc/kernels/legacy/internode_ll.cu) casts each token to FP8 and
  // sends each copy in its send phase, and packs the received copies per expert in its receive
  // phase; the combine sends the copies back and sums each token's weighted copies in its receive
  // phase. The MoE layer prices that local work as kernels of its own beside the transfer
  // (MoeLayer::ffn_forward): the permute and the FP8 cast before the dispatch, the unpermute after
  // the combine. So the comparison is their sum. For 128 tokens and 1,024 copies on the catalog's
  // H800 (3.35 TB/s; hbm 0.84, hbm_quantize 0.39, 1.24 us a launch):
  //  permute: (128 + 1,024) x 7,168 x 2 = 16.52 MB / 2.814 TB/s = 5.87 us + 1.24;
  //  cast: 128 x 7,168 elements x (2 + 1 + 4/128) bytes = 2.78 MB / 1.307 TB/s = 2.13 us + 1.24;
  //  unpermute: 16.52 MB + 128 x 8 x 4 probabilities = 5.87 us + 1.24.
  work::LayerDims d;
  d.h = kHidden;
  d.act_bytes = 2;
  d.linear = topo::Precision::fp8;
  d.recipe = work::LowPrecisionRecipe::blockwise;  // DeepEP casts per 1 x 128 block, fp32 scales
  d.phase = work::WorkloadKind::decode;            // one cast copy, no transposed one
  const double copies = kLlTokens * kTopK;
  // Priced as the op sink prices the layer's kernels: the kind from the kernel's name.
  const auto seconds = [&](std::string_view name, topo::KernelWork w) {
    w.kind = work::kernel_kind(name, w.op_class);
    return to_seconds(topo::kernel_time(h800(), w).duration);
  };
  const double permute = seconds("permute", work::permute_work(d, kLlTokens, copies, d.act_bytes));
  const double cast =
      seconds("dispatch.quantize", work::quantize_work(d, kLlTokens * kHidden, work::QuantOperand::input));
  const double unpermute =
      seconds("unpermute", work::unpermute_work(d, kLlTokens, copies, kLlTokens * kTopK, true));
  CHECK(permute == Approx(16.52e6 / (3.35e12 * 0.84) + 1.24e-6).epsilon(0.002));
  CHECK(cast == Approx(128 * kHidden * (3 + 4.0 / 128) / (3.35e12 * 0.39) + 1.24e-6).epsilon(0.002));
  CHECK(unpermute == Approx((16.52e6 + 4096) / (3.35e12 * 0.84) + 1.24e-6).epsilon(0.002));

  std::printf("  id   EP  kernel    measured us  transfer us  + local us  simulated us  error\n");
  for (const LlRow& row : kLlRows) {
    const bool dispatch = row.direction == Direction::dispatch;
    const double transfer = ll_transfer_s(row.ep, row.direction);
    const double local = dispatch ? permute + cast : unpermute;
    const double t = (transfer + local) * 1e6;
    const double error = t / row.measured_us - 1.0;
    std::printf("  %d %4d  %-8s  %11.0f  %11.1f  %10.1f  %12.1f  %+5.1f%%\n", row.id, row.ep,
                dispatch ? "dispatch" : "combine", row.measured_us, transfer * 1e6, local * 1e6, t,
                error * 100.0);
    INFO("row " << row.id << ": simulated " << t << " us, measured " << row.measured_us);
    // Within 15% (issue 22's bound), all but the EP8 dispatch (-18%): all NVLink, its 6.6 MB of
    // copies take 77 us in DeepEP where NVLink at the catalog's 0.67 moves them in 50; DeepEP's
    // warp-by-warp stores of 7.4 KB messages to peer GPUs are priced as NCCL's copies are.
    if (row.ep > 8 || !dispatch) CHECK(std::abs(error) <= 0.15);
    CHECK(error > -0.20);
    CHECK(error < 0.10);
  }
}

namespace {

// DeepEP V2 (deepseek-ai/DeepEP README.md @ dd758caf, "Performance"; rows 243-248 of
// collectives-multinode.csv): ElasticBuffer's hybrid mode (RDMA once per (token, node) to the rail
// peer, then NVLink), 8,192 tokens per rank, hidden 7168, top-8 of 256 experts, FP8 dispatch, BF16
// combine, one CX7 400 Gb/s NIC per GPU. tests/elastic/test_ep.py at that commit:
//  - routing is plain top-8 of random scores, no group limit ("TODO: support top-k groups");
//  - the figure is num_scaleout_send_tokens x bytes per token / t: one per (token, node) pair, the
//    token's own node included ("logical bandwidth ... contains local rank traffic"), t the
//    dispatch_impl (combine_impl) kernel alone, its copy (reduce) epilogue timed apart;
//  - bytes per token count_bytes(recv_x, recv_topk_idx, recv_topk_weights): 7,168 FP8 + 56 fp32
//    scales + 8 int64 indices + 8 fp32 weights = 7,488 for the dispatch; the combine's recv_x in BF16
//    and its weights, 14,336 + 32 = 14,368.
// The README names the architecture (SM90, SM100) and the NIC, not the GPU. SM90 is taken as the
// H100, not the H800 of the V1 rows: V2's own traffic model (ElasticBuffer.get_theoretical_num_sms)
// puts 0.875 / 0.154 = 5.7 bytes on NVLink per RDMA byte at EP 8 x 2, so 45 GB/s on the wire (90
// logical) needs 256 GB/s of NVLink per GPU, more than the H800's 200 per direction. SM100 is the
// catalog's B200 with the row's 400 Gb/s NIC (the catalog's B200 has 800).
constexpr double kV2Tokens = 8192;
constexpr double kV2DispatchBytes = kHidden + kHidden / 128 * 4 + kTopK * 8 + kTopK * 4;  // 7,488
constexpr double kV2CombineBytes = kHidden * 2 + kTopK * 4;                               // 14,368

struct DeepEpV2Row {
  int id;
  const char* gpu;
  int ep;
  Direction direction;
  double measured_GBps;  ///< logical: (token, node) pairs, own node included
};

constexpr DeepEpV2Row kV2Rows[] = {
    {243, "h100-sxm", 16, Direction::dispatch, 90}, {244, "h100-sxm", 16, Direction::combine, 81},
    {245, "h100-sxm", 32, Direction::dispatch, 61}, {246, "h100-sxm", 32, Direction::combine, 61},
    {247, "b200", 16, Direction::dispatch, 90},     {248, "b200", 16, Direction::combine, 91},
};

}  // namespace

TEST_CASE("expert-parallel dispatch and combine follow DeepEP V2's hybrid-mode bandwidths",
          "[routing][deepep]") {
  std::printf("  id  gpu       EP  op        measured GB/s  simulated GB/s  error\n");
  for (const DeepEpV2Row& row : kV2Rows) {
    const int nodes = row.ep / 8;
    topo::ClusterSpec spec = test::cluster(nodes, 8, topo::FabricKind::rail_optimized);
    spec.gpu = *test::builtin_catalog().find_gpu(row.gpu);
    spec.fabric.nic_bw = units::gbit_per_s(400);  // CX7
    const bool dispatch = row.direction == Direction::dispatch;
    const double bytes = dispatch ? kV2DispatchBytes : kV2CombineBytes;
    work::RoutingInputs in;
    in.experts = kExperts;
    in.top_k = kTopK;
    in.tokens_per_rank = kV2Tokens;
    in.vector_bytes = bytes;
    in.moe.max_nodes_per_token = nodes;  // hybrid forwarding, no limit: every node may be reached
    for (int r = 0; r < row.ep; ++r) in.node_of.push_back(r / 8);
    const work::LayerRouting routing = work::route_layer(in, 0, work::HotRank::as_drawn);
    work::CommRequest req = ep_request(work::CollectiveKind::all_to_all, row.ep, routing.mean_sent_bytes);
    if (!routing.uniform) req.pair_bytes = dispatch ? routing.dispatch_bytes : routing.combine_bytes;
    const auto topology = std::make_shared<const topo::Topology>(spec);
    const double t = test::simulate_one(spec, work::planned_collective(*topology, req)).time_s;
    // DeepEP's counter: nodes per token N (1 - C(256 - 256/N, 8) / C(256, 8)), 1.9929 at N = 2 and
    // 3.6147 at N = 4 (deepep_units above, at 8,192 tokens).
    const double units = kV2Tokens * nodes * (1.0 - miss(kExperts / nodes));
    const double simulated_GBps = units * bytes / t / 1e9;
    const double error = simulated_GBps / row.measured_GBps - 1.0;
    std::printf("  %d %-9s %3d  %-8s  %13.0f  %14.1f  %+5.1f%%\n", row.id, row.gpu, row.ep,
                dispatch ? "dispatch" : "combine", row.measured_GBps, simulated_GBps, error * 100.0);
    INFO("row " << row.id << " EP" << row.ep << ": simulated " << simulated_GBps << " GB/s, measured "
                << row.measured_GBps);
    // Issue 22's bound for DeepEP rows, 15%. NIC-bound in stepsim: the remote share of the counter
    // (1/2 at EP16, 2.711 / 3.615 at EP32) at the catalog's 0.85 x 50 = 42.5 GB/s on the wire gives
    // 85 and 56.7 logical, less about 1% for the latency rounds. V2 reaches 45-46 GB/s on the wire
    // (0.90-0.92 of the line rate; V1's normal kernels 43.5-44.6 at EP32 and EP64), so five rows are
    // 7% low; the H100's EP16 combine measured 81, below its dispatch, and is 4% high.
    CHECK(std::abs(error) <= 0.15);
  }
}

TEST_CASE("DeepEP V2's SM count follows its own rule and its README's figures", "[routing][deepep]") {
  // ElasticBuffer.get_theoretical_num_sms at 256 experts, top-8, 400 Gb/s NICs (50 GB/s line
  // rate), NVLink 0.9 x 450 (H100) or 0.9 x 900 (B200) GB/s. EP 8 x 2: expected ranks per token
  // 16 (1 - C(240, 8) / C(256, 8)) = 6.474, nodes 1.9929; RDMA per copy 1.9929 x 0.5 / 6.474 = 0.1539
  // against NVLink 0.875: RDMA binds (0.1539 / 50 > 0.875 / 405). SM writes per copy
  // 1/6.474 + 1.9929/2/6.474 + 1 = 1.3084: 50 / 0.1539 x 1.3084 / 50 = 8.50 SMs (the reads'
  // 0.4623 x 50 / 0.1539 / 200 = 0.75 do not bind), x 1.25 = 10.6, up to 11, even: 12.
  work::DeepEpV2Group g;
  g.experts = kExperts;
  g.top_k = kTopK;
  g.scaleout = 2;
  g.scaleup = 8;
  g.rdma_GBps = 50;
  g.nvlink_GBps = 0.9 * 450;
  g.device_sms = 132;
  CHECK(work::deepep_v2_sms(g) == 12);  // README: SM90, EP 8 x 2, 12 SMs
  // EP 8 x 4: 7.245 ranks and 3.6147 nodes per token; RDMA 3.6147 x 0.75 / 7.245 = 0.3742; writes
  // 1/7.245 + 3.6147/4/7.245 + 1 = 1.2627: 50 / 0.3742 x 1.2627 / 50 = 3.37, x 1.25 = 4.2: 5, even: 6.
  g.scaleout = 4;
  CHECK(work::deepep_v2_sms(g) == 6);  // README: SM90, EP 8 x 4, 6 SMs
  g.scaleout = 2;
  g.nvlink_GBps = 0.9 * 900;
  g.device_sms = 148;
  CHECK(work::deepep_v2_sms(g) == 12);  // README: SM100, EP 8 x 2, 12 SMs
  // One NVLink domain of 8: 5.294 ranks per token; NVLink 0.875 per copy, one write each:
  // 810 / 0.875 x 1 / 50 = 18.5, x 1.25 = 23.1: 24.
  g.scaleout = 1;
  CHECK(work::deepep_v2_sms(g) == 24);  // README: SM100, EP 8 NVLink, 24 (Min #SM)
  g.prefer_overlap = false;
  CHECK(work::deepep_v2_sms(g) == 64);  // README: 64 (Max perf): at least 64 without overlap
}

TEST_CASE("the SMs the EP kernels hold slow only what runs beside them", "[routing][deepep]") {
  // Mixtral 8x7B on 64 H100 (EP 8 in one node, NCCL-like default: the GPU's comm_sm_fraction, 0.15
  // of the SMs, while any communication runs), with EP overlap, so that the other micro-batch's
  // kernels run beside each all-to-all. Giving the EP kernels DeepEP V2's 12 SMs (0.091) speeds the
  // compute that runs beside the all-to-alls and nothing else; 40 SMs (0.303) slows it.
  const auto file =
      std::filesystem::path(STEPSIM_SOURCE_DIR) / "scenarios/examples/mixtral-8x7b-64xh100.toml";
  work::JobSpec base = scen::load_scenario(file, test::builtin_catalog()).job;
  base.parallel.ep_overlap = true;
  const auto step = [&](int sms, bool v2) {
    work::JobSpec job = base;
    job.moe.ep_comm_sms = sms;
    job.moe.ep_comm_sms_deepep_v2 = v2;
    return work::simulate(job, std::make_shared<const topo::Topology>(job.cluster)).metrics.step_time_s;
  };
  CHECK(work::ep_comm_sms(base, work::RankLayout(base.parallel)) == 0);
  work::JobSpec v2 = base;
  v2.moe.ep_comm_sms_deepep_v2 = true;
  CHECK(work::ep_comm_sms(v2, work::RankLayout(v2.parallel)) == 12);  // one NVLink domain of 8 on H100
  const double nccl = step(0, false), deepep = step(0, true), wide = step(40, false);
  CHECK(deepep < nccl);
  CHECK(wide > nccl);
  // 20 SMs (0.1515) is within 1% of the default share: nearly the same step.
  CHECK(step(20, false) == Approx(nccl).epsilon(0.002));
  // Too few SMs pace the all-to-all itself: 2 SMs keep 2 / (9.26 x 0.77) = 28% of the rate the
  // NVLink ports allow (deepep_rate_fraction), and the step is slower than with V2's 12.
  CHECK(step(2, false) > deepep);
}

TEST_CASE("an all-to-all run by kernels with too few SMs keeps their fraction of the links' rate",
          "[routing][deepep]") {
  // The planner's fraction for EP 8 inside one H100 node: DeepEP's need 9.26 SMs (NVLink-bound),
  // NCCL's all-to-all at nvlink_p2p 0.77: 4 SMs keep 4 / (9.26 x 0.77) = 0.561.
  topo::ClusterSpec spec = test::cluster(1, 8, topo::FabricKind::rail_optimized);
  spec.gpu = *test::builtin_catalog().find_gpu("h100-sxm");
  const auto topology = std::make_shared<const topo::Topology>(spec);
  work::CommRequest req = ep_request(work::CollectiveKind::all_to_all, 8, 256e6);
  const double alone = test::simulate_one(spec, work::planned_collective(*topology, req)).time_s;
  req.ep_kernels = {4, kExperts, kTopK};
  const topo::CollectiveRequest capped = work::planned_collective(*topology, req);
  const double need = 0.9 * 450 / 0.875 / 50;
  CHECK(capped.kernel_rate_fraction == Approx(4 / (need * 0.77)).epsilon(1e-3));
  // The body takes 1 / 0.561 as long; the fixed latency (microseconds of milliseconds) barely moves.
  CHECK(test::simulate_one(spec, capped).time_s == Approx(alone / capped.kernel_rate_fraction).epsilon(0.01));
  // Enough SMs: no limit.
  req.ep_kernels.sms = 12;
  CHECK(work::planned_collective(*topology, req).kernel_rate_fraction == 0.0);
}
