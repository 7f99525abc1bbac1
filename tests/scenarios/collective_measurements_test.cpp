// The multi-node collective measurements (scenarios/validation/collectives-multinode.csv): how
// rows map to clusters, the reader's errors, and the simulated bus bandwidth against the measured.
#include "scenarios/collective_measurements.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>

#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"
#include "topology/collective_sweep.hpp"

using namespace stepsim;
using Catch::Detail::Approx;
namespace fs = std::filesystem;

namespace {
const fs::path kCsv = fs::path(STEPSIM_SOURCE_DIR) / "scenarios/validation/collectives-multinode.csv";
const std::string kHeader =
    "id,source,gpu,nodes,gpus_per_node,nics_per_node,nic_gbps,fabric,op,bytes,busbw_GBps,algbw_GBps,time_us,"
    "notes\n";

const scen::MeasuredCollective& row(const std::vector<scen::MeasuredCollective>& rows,
                                    const std::string& id) {
  for (const auto& r : rows)
    if (r.id == id) return r;
  FAIL("no row " << id);
  throw;
}
}  // namespace

TEST_CASE("measured collectives map to the clusters and collectives they describe", "[collectives]") {
  const auto rows = scen::read_collective_measurements(kCsv, stepsim::test::builtin_catalog());
  CHECK(rows.size() == 102 + 36);      // the shared file's rows, then the B200 send/recv sweep (301-336)
  const auto& ring = row(rows, "74");  // B200, 1 node, Ring forced, SHARP-capable fabric
  CHECK(ring.not_expressible.empty());
  CHECK(ring.cluster.gpu.id == "b200");
  CHECK(ring.cluster.total_gpus() == 8);
  CHECK(ring.cluster.fabric.sharp);
  CHECK(ring.cluster.nic_bw().value() == Approx(50e9));  // 400 Gb/s
  CHECK(ring.algorithm == topo::CollectiveAlgorithm::ring);
  CHECK(ring.bytes == 17179869184.0);
  CHECK(row(rows, "80").algorithm == topo::CollectiveAlgorithm::collnet_direct);  // "CollNet SHARP"
  CHECK(row(rows, "78").algorithm == topo::CollectiveAlgorithm::nvls_tree);       // "NVLSTree"
  CHECK(row(rows, "80").collnet);  // forcing CollNet means enabling it
  CHECK_FALSE(row(rows, "78").collnet);
  // "NVLS" on one node is NVLS; across nodes NCCL would run it only with CollNet enabled, so those
  // rows are NCCL's own choice without CollNet (their figures equal the Ring rows'), and say so.
  CHECK(row(rows, "75").algorithm == topo::CollectiveAlgorithm::nvls);
  CHECK(row(rows, "75").substitution.empty());
  for (const char* id : {"77", "82", "109", "124"}) {
    INFO("row " << id);
    CHECK(row(rows, id).algorithm == topo::CollectiveAlgorithm::automatic);
    CHECK_FALSE(row(rows, id).collnet);
    CHECK_THAT(row(rows, id).substitution, Catch::Contains("only with CollNet enabled"));
  }
  const auto& rack = row(rows, "156");  // GB200, 2 NVL72 racks: 36 trays of 4
  CHECK(rack.cluster.nvlink_domain == 72);
  CHECK(rack.cluster.total_gpus() == 144);
  CHECK(rack.algorithm == topo::CollectiveAlgorithm::automatic);  // NCCL chose
  CHECK(rack.cluster.nvls);
  // The 20-rack table ran with NVLink SHARP off (its notes: the README commit's GB200 jobs set
  // NCCL_NVLS_ENABLE=0), so NCCL had rings and trees only.
  for (const char* id : {"162", "167"}) {
    INFO("row " << id);
    CHECK_FALSE(row(rows, id).cluster.nvls);
    CHECK(row(rows, id).cluster.total_gpus() == 1440);
  }
  CHECK_THAT(row(rows, "223").not_expressible, Catch::Contains("DeepEP"));
  // DeepEP's rows are checked where the MoE layer requests the kernels, whatever GPU they name.
  CHECK_THAT(row(rows, "243").not_expressible,
             Catch::Contains("DeepEP V2") && Catch::Contains("deepep_h800_test.cpp"));
  // An NCCL row on a GPU the catalog lacks is reported as such.
  test::TempDir dir;
  const auto other =
      dir.write("g.csv", kHeader + "1,src,H800/H100-class,2,8,8,400,IB,all_reduce,1024,10,,,\n");
  const auto unknown = scen::read_collective_measurements(other, stepsim::test::builtin_catalog());
  CHECK_THAT(row(unknown, "1").not_expressible, Catch::Contains("`H800/H100-class` is not one catalog GPU"));
  // sendrecv_perf: every rank sends to the next; the measured pair is the first to cross nodes.
  const auto pairs = scen::measured_groups(row(rows, "127"));  // 2 nodes x 8
  REQUIRE(pairs.size() == 16);
  CHECK(pairs.front() == std::vector<topo::GpuId>{7, 8});
  CHECK(pairs.back() == std::vector<topo::GpuId>{6, 7});
}

TEST_CASE("a malformed measurements file is reported at its line and column", "[collectives]") {
  test::TempDir dir;
  const auto bad = dir.write("m.csv", kHeader + "1,src,B200,x,8,8,400,IB,all_reduce,1024,10,,,\n");
  CHECK_THROWS_WITH(
      scen::read_collective_measurements(bad, stepsim::test::builtin_catalog()),
      Catch::Contains("m.csv:2:4: nodes:") && Catch::Contains("`x` is not a non-negative number"));
  const auto short_row = dir.write("s.csv", kHeader + "1,src,B200,2,8\n");
  CHECK_THROWS_WITH(scen::read_collective_measurements(short_row, stepsim::test::builtin_catalog()),
                    Catch::Contains("has 5 fields, not 14"));
  const auto header = dir.write("h.csv", "id,source,gpu\n");
  CHECK_THROWS_WITH(scen::read_collective_measurements(header, stepsim::test::builtin_catalog()),
                    Catch::Contains("h.csv:1:4"));
  CHECK_THROWS_WITH(
      scen::read_collective_measurements(dir.path() / "none.csv", stepsim::test::builtin_catalog()),
      Catch::Contains("cannot be read"));
  // inf and 1e10 nodes were cast to int (undefined behaviour) before the range was checked.
  for (const std::string nodes : {"inf", "1e10", "2.5", "0"}) {
    const auto p =
        dir.write("n.csv", kHeader + "1,src,B200," + nodes + ",8,8,400,IB,all_reduce,1024,10,,,\n");
    CHECK_THROWS_WITH(scen::read_collective_measurements(p, stepsim::test::builtin_catalog()),
                      Catch::Contains("n.csv:2:4: nodes:"));
  }
}

// Every expressible row simulated alone, the table printed; the checks hold the rows whose
// mechanism stepsim models (docs/topology.md lists the residuals of the others and why).
TEST_CASE("multi-node bus bandwidth against nccl-tests", "[collectives][nccl]") {
  const auto rows = scen::read_collective_measurements(kCsv, stepsim::test::builtin_catalog());
  std::map<std::string, double> error;
  for (const auto& r : rows) {
    if (!r.not_expressible.empty()) continue;
    topo::CollectiveSample s;
    try {
      s = topo::sweep_collective(std::make_shared<const topo::Topology>(r.cluster),
                                 scen::measured_sweep(r, r.algorithm))
              .front();
    } catch (const UserError& e) {  // none today; printed, and then missing from `error` below
      std::printf("  %-4s not simulated: %s\n", r.id.c_str(), e.what());
      continue;
    }
    error[r.id] = s.busbw_GBps / r.busbw_GBps - 1.0;
    std::printf(
        "  %-4s %-6s %3d x %d %-11s %-14s %12.0f B: measured %7.1f, simulated %7.1f GB/s (%s/%s) %+6.1f%%\n",
        r.id.c_str(), r.gpu.c_str(), r.nodes, r.gpus_per_node, r.op_name.c_str(), r.named_algorithm.c_str(),
        r.bytes, r.busbw_GBps, s.busbw_GBps, std::string(topo::name(s.algorithm)).c_str(),
        std::string(topo::name(s.protocol)).c_str(), error[r.id] * 100.0);
  }
  const auto within = [&](const std::string& id, double bound) {
    INFO("row " << id << " error " << error.at(id));
    CHECK(std::abs(error.at(id)) <= bound);
  };
  // Trees: NCCL's per-channel tree ceilings (Blackwell, 2 and more nodes) on 8 tree channels.
  for (const char* id : {"79", "84", "89", "94", "99", "104"}) within(id, 0.10);
  // CollNet Direct all-reduce over SHARP: one stream per NIC and switch link at NCCL's 0.85.
  for (const char* id : {"80", "85", "90", "95", "100", "105"}) within(id, 0.10);
  // Rings up to 8 nodes (all-reduce and all-gather), NVLS on one node, send/recv on 2 and 4.
  for (const char* id : {"74", "76", "81", "86", "106", "108", "111", "114", "75", "127", "128"})
    within(id, 0.10);
  // "NVLS" across 4 and 8 nodes: NCCL's own choice without CollNet, a ring in both NCCL and stepsim
  // (before, stepsim ran NVLS with SHARP there: +96% to +118%).
  for (const char* id : {"82", "109", "112", "115"}) within(id, 0.10);
  // NVLS all-gather on one node: multimem stores the switch forwards without reducing, at the
  // NVLink's efficiency (before, at the all-reduce's eff.nvls: -20.9%).
  within("107", 0.10);
  // Send/recv from 8 nodes: NCCL's channels per network peer fall with the communicator (4 up to
  // 32 ranks, 2 at 64, 1 from 128), each at NCCL's 14 GB/s (before: +67% to +182%, the NIC's 42.5).
  // Measured 25.4 and 15.1-15.6 GB/s against 28 and 14: within 10.5%.
  for (const char* id : {"129", "130", "131", "132"}) within(id, 0.105);
  // The send/recv sweep, 64 KiB to 64 MiB on 2 to 64 nodes (rows 301-336): NCCL's fixed cost of a
  // send/recv across nodes (33 us, from another cluster's nccl-tests) and its channels by message
  // size and communicator. Every row within 11% (before both: up to +490% at 64 KiB).
  for (int id = 301; id <= 336; ++id) within(std::to_string(id), 0.11);
  // GB200 NVL72, one rack (NVLS, 72 ranks) and two (NVLS-tree, 144 ranks), 512 MiB to 16 GiB: NVLS
  // bus bandwidth flat in the rank count as in NCCL's model, and the fixed cost of its pipeline,
  // 2 loops x 32 heads x 128 KiB x NCCL's NVLS channels (before: +23% to +79%). Within 10% from
  // 64 MB, row 157 (2 racks, 1 GiB) within 11%.
  for (const char* id : {"151", "152", "153", "154", "155", "156", "158", "159", "160", "161"})
    within(id, 0.10);
  within("157", 0.11);
  // 20 racks with NVLS off: stepsim's ring at 512 MiB within 10% (its 2 x 1,439 steps of latency
  // are most of the 7.1 ms); the ring's bandwidth is about 1.6 times the measured from 4 GiB up (a
  // known miss, docs/topology.md), so only the small end is checked.
  within("162", 0.10);
  CHECK(error.size() == 70 + 6 + 36);  // every expressible row ran, the six NVLS all-gathers included
}
