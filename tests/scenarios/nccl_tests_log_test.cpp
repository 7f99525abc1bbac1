// nccl-tests output as a cluster's own measurements: the reader, the clusters it maps runs to, and
// the link calibration fitted to them (scenarios/nccl_tests_log.hpp, collective_calibration.hpp).
#include "scenarios/nccl_tests_log.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "scenarios/collective_calibration.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"

using namespace stepsim;
using Catch::Detail::Approx;

namespace {

/// nccl-tests' header for `hosts` hosts of `per_host` ranks, each naming `device`.
std::string header(int hosts, int per_host, const std::string& device) {
  std::string s =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg "
      "iters: 1 "
      "validation: 1 graph: 0\n#\n# Using devices\n";
  for (int r = 0; r < hosts * per_host; ++r) {
    char line[160];
    std::snprintf(line, sizeof line, "#  Rank %2d Group  0 Pid %d on node%02d device %2d [0x%02x] %s\n", r,
                  4000 + r, r / per_host, r % per_host, 16 + r, device.c_str());
    s += line;
  }
  return s +
         "NCCL version 2.21.5+cuda12.4\n#\n#       size         count      type   redop    root     time   "
         "algbw   "
         "busbw #wrong     time   algbw   busbw #wrong\n";
}

/// One data row: the out-of-place figures, the in-place ones the same.
std::string data(double bytes, double time_us, double busbw) {
  char line[200];
  const double algbw = bytes / (time_us * 1e3);
  std::snprintf(line, sizeof line,
                "%12.0f %13.0f     float     sum      -1 %8.1f %7.2f %7.2f      0 %8.1f %7.2f %7.2f      0\n",
                bytes, bytes / 4, time_us, algbw, busbw, time_us, algbw, busbw);
  return line;
}

/// A log `file` of 2 hosts x 8 H100 with NCCL's `tuning` lines before its 1 MiB and 64 MiB rows.
scen::NcclTestsLog tuned_log(test::TempDir& dir, const std::string& file, const std::string& tuning) {
  return scen::read_nccl_tests_log(
      dir.write(file, header(2, 8, "NVIDIA H100 80GB HBM3") + tuning + data(1048576, 30.0, 32.8) +
                          data(67108864, 400.0, 157.3)),
      std::nullopt);
}

}  // namespace

TEST_CASE("an nccl-tests log reads as runs of ranks, hosts and message sizes", "[collectives]") {
  test::TempDir dir;
  // A job script's echo naming the binary, NCCL_DEBUG=INFO lines, two runs in one file.
  const auto file = dir.write("job-1234.out",
                              "srun ./build/all_gather_perf -b 8 -e 1G -f 2\nnode00:1:1 [0] NCCL INFO "
                              "NCCL_ALGO set by environment to Ring\n" +
                                  header(2, 4, "NVIDIA H100 80GB HBM3") + data(1048576, 50.0, 18.35) +
                                  data(1073741824, 4000.0, 234.9) + "# Avg bus bandwidth    : 1.0\n" +
                                  header(2, 4, "NVIDIA H100 80GB HBM3") + data(67108864, 300.0, 195.7));
  const auto log = scen::read_nccl_tests_log(file, std::nullopt);
  CHECK(log.op_name == "all_gather");
  CHECK(log.op_source == "the log's command line");
  CHECK(log.nccl_version == "2.21.5+cuda12.4");
  CHECK(log.forced_algorithm == "Ring");
  REQUIRE(log.runs.size() == 2);
  const auto& run = log.runs[0];
  CHECK(run.ranks() == 8);
  CHECK(run.distinct_hosts() == std::vector<std::string>{"node00", "node01"});
  CHECK(run.device == "NVIDIA H100 80GB HBM3");
  REQUIRE(run.rows.size() == 2);
  CHECK(run.rows[1].bytes == 1073741824.0);
  CHECK(run.rows[1].time_us == 4000.0);
  CHECK(run.rows[1].busbw_GBps == 234.9);
  CHECK(log.runs[1].rows.size() == 1);

  const auto rows = scen::measured_from_log(log, test::builtin_catalog(), {});
  REQUIRE(rows.size() == 3);
  const auto& big = rows[1];
  REQUIRE(big.not_expressible.empty());
  CHECK(big.cluster.gpu.id == "h100-sxm");
  CHECK(big.nodes == 2);
  CHECK(big.gpus_per_node == 4);
  CHECK(big.algorithm == topo::CollectiveAlgorithm::ring);  // NCCL_ALGO from the INFO line
  CHECK(big.nic_gbps == Approx(400.0));                     // the H100's catalog NIC
  // Bus bandwidth from the time, as nccl-tests computes it: an all-gather's factor is (p-1)/p:
  // 1073741824 B / 4000 us = 268.4 GB/s x 7/8 = 234.9 GB/s.
  CHECK(big.busbw_GBps == Approx(1073741824.0 / 4000e3 * 7.0 / 8.0));
}

TEST_CASE("NCCL's TUNING lines say which algorithm and protocol ran at each size", "[collectives]") {
  test::TempDir dir;
  // NCCL 2.25 and later name them; 2.23-2.24 print NCCL's indices (5 = NVLS_TREE, 2 = SIMPLE, 0 = LL).
  // An all-gather's line counts the bytes per rank: 1 MiB over 16 ranks is 65536.
  const std::string tuning =
      "node00:1:1 [0] NCCL INFO AllGather: 65536 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..15}\n"
      "node00:1:1 [0] NCCL INFO AllGather: 4194304 Bytes -> Algo 6 proto 2 time 110.25\n";
  const auto log = tuned_log(dir, "all_gather_perf.out", tuning);
  REQUIRE(log.runs.size() == 1);
  REQUIRE(log.runs[0].choices.size() == 2);
  CHECK(log.runs[0].choices[0].func == "AllGather");
  CHECK(log.runs[0].choices[1].algorithm == "PAT");
  CHECK(log.runs[0].choices[1].protocol == "SIMPLE");
  const auto rows = scen::measured_from_log(log, test::builtin_catalog(), {});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].choice == "RING/LL128");
  CHECK(rows[0].algorithm == topo::CollectiveAlgorithm::ring);
  CHECK(rows[0].protocol == topo::CollectiveProtocol::ll128);
  // 64 MiB / 16 = 4194304 B per rank: PAT, which needs one rank per node, so stepsim cannot run it
  // on 8 ranks per host and says so when it simulates the row.
  CHECK(rows[1].algorithm == topo::CollectiveAlgorithm::pat);
  CHECK(rows[1].protocol == topo::CollectiveProtocol::simple);
  // A forced NCCL_ALGO (or --algorithm) wins over nothing else: the TUNING lines are then not read.
  scen::LogCluster ring;
  ring.algorithm = "Ring";
  CHECK(scen::measured_from_log(log, test::builtin_catalog(), ring)[1].algorithm ==
        topo::CollectiveAlgorithm::ring);
}

TEST_CASE("NCCL's TUNING names map as NCCL_ALGO's do, CollNet Chain to stepsim's, CollNet enabled",
          "[collectives]") {
  test::TempDir dir;
  const std::string tuning =
      "node00:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo NVLS_TREE proto SIMPLE "
      "channel{Lo..Hi}={0..7}\n"
      "node00:1:1 [0] NCCL INFO AllReduce: 67108864 Bytes -> Algo COLLNET_CHAIN proto SIMPLE\n";
  const auto log = tuned_log(dir, "all_reduce_perf.out", tuning);
  const auto rows = scen::measured_from_log(log, test::builtin_catalog(), {});
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].algorithm == topo::CollectiveAlgorithm::nvls_tree);
  CHECK(rows[0].named_algorithm == "NVLS_TREE");  // NCCL's own spelling, as the log prints it
  CHECK(rows[1].algorithm == topo::CollectiveAlgorithm::collnet_chain);
  CHECK(rows[1].collnet);  // NCCL ran CollNet: it was enabled
  CHECK(rows[1].not_expressible.empty());
}

TEST_CASE("the collective comes from --op, then the log's binary, then the file name", "[collectives]") {
  test::TempDir dir;
  const std::string body = header(1, 8, "NVIDIA B200") + data(67108864, 200.0, 587.0);
  const auto named = dir.write("nccl-sendrecv-1node.out", body);
  CHECK(scen::read_nccl_tests_log(named, std::nullopt).op_name == "sendrecv");
  CHECK(scen::read_nccl_tests_log(named, std::nullopt).op_source == "the file name");
  CHECK(scen::read_nccl_tests_log(named, std::string("all-reduce")).op_name == "all_reduce");
  CHECK(scen::read_nccl_tests_log(named, std::string("alltoall_perf")).op_name == "alltoall");
  CHECK_THROWS_WITH(scen::read_nccl_tests_log(named, std::string("gather")),
                    Catch::Contains("unknown operation"));
  const auto unnamed = dir.write("run.out", body);
  CHECK_THROWS_WITH(scen::read_nccl_tests_log(unnamed, std::nullopt),
                    Catch::Contains("cannot tell which collective") && Catch::Contains("--op all_reduce"));
}

TEST_CASE("what a log cannot say stepsim asks for, and a log it cannot read is an error", "[collectives]") {
  test::TempDir dir;
  // A GPU the catalog does not hold: the rows name it and ask for --gpu.
  const auto pcie =
      dir.write("all_reduce.out", header(1, 2, "NVIDIA H100 PCIe") + data(67108864, 900.0, 74.6));
  const auto log = scen::read_nccl_tests_log(pcie, std::nullopt);
  const auto rows = scen::measured_from_log(log, test::builtin_catalog(), {});
  REQUIRE(rows.size() == 1);
  CHECK_THAT(rows[0].not_expressible, Catch::Contains("NVIDIA H100 PCIe") && Catch::Contains("--gpu"));
  scen::LogCluster as_h100;
  as_h100.gpu = "h100-sxm";
  CHECK(scen::measured_from_log(log, test::builtin_catalog(), as_h100)[0].not_expressible.empty());

  // One rank (found by fuzz_nccl_tests): a send/recv paired the rank with itself, an internal error.
  const auto lone = scen::read_nccl_tests_log(
      dir.write("sendrecv.out", header(1, 1, "NVIDIA B200") + data(67108864, 1500.0, 44.7)), std::nullopt);
  CHECK_THAT(scen::measured_from_log(lone, test::builtin_catalog(), {})[0].not_expressible,
             Catch::Contains("one rank"));

  // Ranks alternating between hosts: stepsim numbers GPUs host by host, so the run is refused.
  std::string mixed = header(1, 4, "NVIDIA H100 80GB HBM3");
  for (const char* h : {"node00 device  1", "node00 device  2", "node00 device  3"})
    mixed.replace(mixed.find(h), 6, "node01");
  mixed += data(67108864, 300.0, 335.5);
  const auto alternating = scen::read_nccl_tests_log(dir.write("all_reduce2.out", mixed), std::nullopt);
  CHECK_THAT(scen::measured_from_log(alternating, test::builtin_catalog(), {})[0].not_expressible,
             Catch::Contains("not in equal, consecutive blocks per host"));

  // The header above is 7 lines (nThread, #, Using devices, 2 ranks, NCCL version, #) plus the
  // column line: the first data row is line 9, the bad one line 10; `fast` is its 6th field.
  const auto bad =
      dir.write("all_reduce3.out",
                header(1, 2, "NVIDIA B200") + data(8, 20.0, 0.0) +
                    "        1024           256     float     sum      -1    fast    0.05    0.05      0\n");
  CHECK_THROWS_WITH(scen::read_nccl_tests_log(bad, std::nullopt),
                    Catch::Contains("all_reduce3.out:10:6: time:") &&
                        Catch::Contains("`fast` is not a non-negative number"));
  const auto cut = dir.write("all_reduce7.out", header(1, 2, "NVIDIA B200") + data(8, 20.0, 0.0) +
                                                    "        1024           256     float     sum\n");
  CHECK_THROWS_WITH(scen::read_nccl_tests_log(cut, std::nullopt),
                    Catch::Contains("all_reduce7.out:10:5: busbw:") && Catch::Contains("may be cut short"));
  CHECK_THROWS_WITH(scen::read_nccl_tests_log(dir.write("all_reduce4.out", "no data here\n"), std::nullopt),
                    Catch::Contains("holds no nccl-tests data row"));
  CHECK_THROWS_WITH(scen::read_nccl_tests_log(dir.write("all_reduce5.out", data(8, 20.0, 0.0)), std::nullopt),
                    Catch::Contains("a data row before any run"));
  const std::string no_ranks = "# nThread 1 nGpus 1\n" + data(8, 20.0, 0.0);
  CHECK_THROWS_WITH(scen::read_nccl_tests_log(dir.write("all_reduce6.out", no_ranks), std::nullopt),
                    Catch::Contains("lists no \"#  Rank N"));
}

TEST_CASE("CUDA device names map to catalog GPUs", "[collectives]") {
  CHECK(scen::catalog_gpu_of_device("NVIDIA H100 80GB HBM3") == "h100-sxm");
  CHECK(scen::catalog_gpu_of_device("NVIDIA H200") == "h200");
  CHECK(scen::catalog_gpu_of_device("NVIDIA H200 NVL").empty());  // the PCIe card
  CHECK(scen::catalog_gpu_of_device("NVIDIA B200") == "b200");
  CHECK(scen::catalog_gpu_of_device("NVIDIA GB200") == "gb200");
  CHECK(scen::catalog_gpu_of_device("NVIDIA A100-SXM4-80GB") == "a100-sxm-80gb");
  CHECK(scen::catalog_gpu_of_device("NVIDIA A100-SXM4-40GB").empty());
  CHECK(scen::catalog_gpu_of_device("NVIDIA H100 PCIe").empty());
  CHECK(scen::catalog_gpu_of_device("NVIDIA Graphics Device").empty());
}

namespace {

/// A log whose large rows are what stepsim simulates for the same runs with `key` at `scale`
/// times the catalog's figure: the calibration must find that figure again.
std::string log_at(int hosts, const std::string& key, double scale, const std::string& algorithm) {
  std::string text = header(hosts, 8, "NVIDIA H100 80GB HBM3");
  const std::string skeleton = text + data(67108864, 1000.0, 1.0);
  test::TempDir dir;
  const auto log = scen::read_nccl_tests_log(dir.write("all_reduce.out", skeleton), std::nullopt);
  scen::LogCluster lc;
  lc.algorithm = algorithm;
  scen::MeasuredCollective row = scen::measured_from_log(log, test::builtin_catalog(), lc).front();
  REQUIRE(row.not_expressible.empty());
  auto& e = row.cluster.gpu.eff;
  (key == "nic" ? e.nic : e.nvlink) *= scale;
  scen::MeasuredSimulator sim;
  for (double bytes : {1048576.0, 67108864.0, 268435456.0, 1073741824.0, 4294967296.0}) {
    row.bytes = bytes;
    const double t = sim.run(row, row.algorithm).time_s;
    text += data(bytes, t * 1e6, bytes / t / 1e9 * 2.0 * (8.0 * hosts - 1.0) / (8.0 * hosts));
  }
  return text;
}

/// The calibration of log_at's rings (NCCL_ALGO=Ring) against the built-in catalog.
scen::LinkCalibration calibrate_rings(const test::TempDir& dir, int hosts, const std::string& key,
                                      double scale) {
  const auto log =
      scen::read_nccl_tests_log(dir.write("all_reduce.out", log_at(hosts, key, scale, "Ring")), std::nullopt);
  scen::LogCluster lc;
  lc.algorithm = "Ring";
  return scen::calibrate_links(scen::measured_from_log(log, test::builtin_catalog(), lc),
                               test::builtin_catalog());
}

}  // namespace

TEST_CASE("the link calibration finds the efficiency that made a log", "[collectives]") {
  const auto& catalog = test::builtin_catalog();
  const double nic = catalog.find_gpu("h100-sxm")->eff.nic;
  const double nvlink = catalog.find_gpu("h100-sxm")->eff.nvlink;
  test::TempDir dir;
  SECTION("the NICs, from rings across two nodes") {
    const auto cal = calibrate_rings(dir, 2, "nic", 0.9);
    REQUIRE(cal.figures.size() == 1);
    const auto& f = cal.figures[0];
    CHECK(f.key == "nic");
    CHECK(f.rows == 4);  // 64 MiB to 4 GiB; the 1 MiB row is latency's
    CHECK(f.before == nic);
    // The log was made at 0.9 x the catalog's NIC figure; the rings there are NIC-bound, so the
    // fit lands on it (within the fit's 0.5% tolerance).
    CHECK(f.after == Approx(0.9 * nic).epsilon(0.01));
    CHECK(f.simulated_after_GBps == Approx(f.measured_GBps).epsilon(0.01));
    CHECK_THAT(cal.findings.back(), Catch::Contains("agree within 10% with efficiency.nic"));

    // The overlay, applied as a user would, carries the figure and its provenance.
    const std::string toml = scen::link_calibration_toml(cal, "test logs");
    CHECK_THAT(toml, Catch::Contains("[gpu.\"h100-sxm\".efficiency]\nnic = "));
    const auto applied = catalog.with_text(toml, "cal.toml");
    CHECK(applied.find_gpu("h100-sxm")->eff.nic == Approx(f.after).epsilon(1e-4));
    CHECK(applied.find_gpu("h100-sxm")->eff.nvlink == nvlink);  // the others kept
    CHECK_THAT(applied.find_gpu("h100-sxm")->source_of("efficiency.nic"),
               Catch::StartsWith("measured: from test logs by stepsim collective --write-calibration"));
  }
  SECTION("NVLink, from rings inside one node") {
    const auto cal = calibrate_rings(dir, 1, "nvlink", 0.8);
    REQUIRE(cal.figures.size() == 1);
    CHECK(cal.figures[0].key == "nvlink");
    CHECK(cal.figures[0].after == Approx(0.8 * nvlink).epsilon(0.01));
    // 20% below the catalog: the finding says the measurements contradict it, citing its source.
    CHECK_THAT(cal.findings.back(),
               Catch::Contains("contradict efficiency.nvlink = 0.820 (measured: nccl-tests"));
  }
  SECTION("NICs far below any working link's rate point at the NIC rate assumed") {
    // Half the catalog's figure: what a log of 400 Gb/s NICs reads as against 800 Gb/s ones.
    const auto cal = calibrate_rings(dir, 2, "nic", 0.5);
    REQUIRE(cal.figures.size() == 1);
    CHECK(cal.figures[0].after == Approx(0.5 * nic).epsilon(0.01));
    CHECK_THAT(cal.findings.back(), Catch::Contains("(400 Gb/s per GPU), give --nic-gbps"));
  }
  SECTION("nothing to fit is an error that says what to measure") {
    const auto small =
        dir.write("all_reduce.out", header(1, 8, "NVIDIA H100 80GB HBM3") + data(1048576, 30.0, 61.2));
    const auto rows = scen::measured_from_log(scen::read_nccl_tests_log(small, std::nullopt), catalog, {});
    CHECK_THROWS_WITH(scen::calibrate_links(rows, catalog),
                      Catch::Contains("no measured row of 64 MiB or more") && Catch::Contains("-e 8G"));
  }
}
