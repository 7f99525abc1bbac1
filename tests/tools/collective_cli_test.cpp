// `stepsim collective` end to end: the binary, its JSON, its determinism and its errors.
#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/temp_files.hpp"

namespace {

struct Result {
  int exit_code = -1;
  std::string out;  // stdout and stderr
};

Result run(const std::string& args) {
  const std::string cmd = std::string(STEPSIM_BINARY) + " collective " + args + " 2>&1";
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST_CASE("stepsim collective prints nccl-tests style JSON", "[cli][collective]") {
  const auto r =
      run("--gpu h100-sxm --nodes 1 --gpus-per-node 8 --op all-reduce --bytes 1048576,67108864,8589934592 "
          "--format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 3);
  for (const auto& s : j) {
    // busbw = algbw x 2 (p-1)/p = algbw x 1.75 for an all-reduce on 8 GPUs; algbw = bytes / time.
    CHECK(s["busbw_GBps"].get<double>() == Approx(1.75 * s["algbw_GBps"].get<double>()));
    CHECK(s["algbw_GBps"].get<double>() ==
          Approx(s["bytes"].get<double>() / s["time_s"].get<double>() / 1e9));
    CHECK(s["algorithm"].is_string());
  }
}

TEST_CASE("stepsim collective output is byte-identical run after run", "[cli][collective]") {
  const std::string args = "--nodes 4 --op all-to-all --bytes 1e3,1e6,1e9 --format json";
  const auto a = run(args), b = run(args);
  REQUIRE(a.exit_code == 0);
  CHECK(a.out == b.out);
  const auto t1 = run("--nodes 2 --topology fat-tree --oversubscription 2 --compare-nccl-h100");
  const auto t2 = run("--nodes 2 --topology fat-tree --oversubscription 2 --compare-nccl-h100");
  CHECK(t1.out == t2.out);
}

TEST_CASE("8 x H100 all-reduce is within the targets of the nccl-tests curve", "[cli][collective][nccl]") {
  const auto r = run("--gpu h100-sxm --compare-nccl-h100 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 8);
  for (const auto& s : j) {
    const double bytes = s["bytes"], error = s["error"];
    INFO("bytes " << bytes << " error " << error);
    if (bytes >= 64e6) CHECK(std::abs(error) <= 0.10);       // bandwidth regime: within 10%
    if (bytes <= 8) CHECK((error >= -0.5 && error <= 1.0));  // latency floor: within 2x
  }
}

TEST_CASE("stepsim collective --compare runs a row with NVLS off when its notes say so",
          "[cli][collective]") {
  // Two B200 nodes, NCCL's own choice at 1 GiB: NVLS-tree with NVLink SHARP, the ring or tree
  // without (NCCL has no NVLS algorithm then); the second row says so in its notes and is marked.
  stepsim::test::TempDir dir;
  const std::string row = "B200,2,8,8,400,InfiniBand NDR,all_reduce,1073741824,600,,,";
  const auto csv =
      dir.write("rows.csv",
                "id,source,gpu,nodes,gpus_per_node,nics_per_node,nic_gbps,fabric,op,bytes,busbw_GBps,"
                "algbw_GBps,time_us,notes\n"
                "1,test," +
                    row +
                    "NCCL chose\n"
                    "2,test," +
                    row + "\"NCCL chose; NCCL_NVLS_ENABLE=0 in the job\"\n");
  const auto r = run("--compare '" + csv.string() + "' --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 2);
  CHECK(j[0]["algorithm"] == "nvls-tree");
  CHECK_FALSE(j[0].contains("nvls"));
  CHECK(j[1]["algorithm"] != "nvls-tree");
  CHECK(j[1]["nvls"] == false);
  const auto table = run("--compare '" + csv.string() + "'");
  CHECK_THAT(table.out, Catch::Contains("[o] rows 2: run with NVLink SHARP off"));
}

TEST_CASE("stepsim collective rejects bad input with exit code 2", "[cli][collective]") {
  const auto op = run("--op all-reduse");
  CHECK(op.exit_code == 2);
  CHECK_THAT(op.out, Catch::Contains("--op"));
  const auto nvls = run("--topology fat-tree --nodes 2 --nvls off --algorithm nvls --bytes 1e6");
  CHECK(nvls.exit_code == 2);
  CHECK_THAT(nvls.out, Catch::Contains("nvls"));
  CHECK(run("--ranks 9").exit_code == 2);
  CHECK(run("--bytes 12,abc").exit_code == 2);
  const auto collnet = run("--nodes 2 --collnet --bytes 1e6");
  CHECK(collnet.exit_code == 2);
  CHECK_THAT(collnet.out, Catch::Contains("--collnet") && Catch::Contains("add --sharp"));
  // NVLS across two nodes is what NCCL runs only with CollNet enabled.
  const auto across = run("--gpu b200 --nodes 2 --sharp --algorithm nvls --bytes 1e9");
  CHECK(across.exit_code == 2);
  CHECK_THAT(across.out, Catch::Contains("collective.collnet = true"));
  CHECK(run("--gpu b200 --nodes 2 --sharp --collnet --algorithm nvls --bytes 1e9").exit_code == 0);
  // A send-recv needs two ranks; one is a user error, not an internal one.
  const auto lone = run("--op send-recv --ranks 1");
  CHECK(lone.exit_code == 2);
  CHECK_THAT(lone.out, Catch::Contains("2 or more ranks"));
  CHECK(run("--op send-recv --gpus-per-node 1").exit_code == 2);
  // --nvls auto turns NVLS off where there is no switch to reduce in (one GPU per node).
  CHECK(run("--gpus-per-node 1 --nodes 2 --bytes 1e6").exit_code == 0);
  CHECK(run("--op send-recv --gpus-per-node 1 --nodes 2 --bytes 1e6").exit_code == 0);
}

TEST_CASE("stepsim collective --rank-stride takes one rank per node, where NCCL's PAT applies",
          "[cli][collective]") {
  // 64 nodes of 8 H100, GPUs 0, 8, ..., 504: one rank on each node (rail 0). NCCL's terms make PAT the
  // fastest all-gather at 1 MiB there (docs/topology.md, "PAT"), the ring at 256 MiB; with PAT off,
  // the ring (or LL's) everywhere. busbw = algbw x (p-1)/p = algbw x 63/64.
  const auto r =
      run("--gpu h100-sxm --nodes 64 --rank-stride 8 --op all-gather --bytes 1048576,268435456 "
          "--format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 2);
  CHECK(j[0]["algorithm"] == "pat");
  CHECK(j[1]["algorithm"] == "ring");
  for (const auto& s : j)
    CHECK(s["busbw_GBps"].get<double>() == Approx(63.0 / 64.0 * s["algbw_GBps"].get<double>()));
  const auto off =
      run("--gpu h100-sxm --nodes 64 --rank-stride 8 --op all-gather --bytes 1048576 --no-pat "
          "--format json");
  REQUIRE(off.exit_code == 0);
  const auto k = nlohmann::json::parse(off.out);
  CHECK(k[0]["algorithm"] == "ring");
  CHECK(k[0]["time_s"].get<double>() > j[0]["time_s"].get<double>());
  // Every 8th of 16 GPUs is 2 ranks, not 3.
  const auto bad = run("--nodes 2 --rank-stride 8 --ranks 3 --op all-gather");
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.find("taken at a stride of 8 (2 of them)") != std::string::npos);
}

namespace {

/// nccl-tests output of all_reduce_perf on 2 hosts of 8 H100: four sizes at a flat 300 GB/s of bus
/// bandwidth (time = bytes x 2 x 15/16 / 300 GB/s), one small size at 40 us.
std::string all_reduce_log() {
  std::string s =
      "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1073741824 step: 4(factor) warmup iters: 5\n";
  for (int r = 0; r < 16; ++r)
    s += "#  Rank " + std::to_string(r) + " Group  0 Pid 100 on host" + std::to_string(r / 8) + " device " +
         std::to_string(r % 8) + " [0x1a] NVIDIA H100 80GB HBM3\n";
  s += "NCCL version 2.21.5+cuda12.4\n#       size         count      type   redop    root     time   algbw  "
       " busbw\n";
  char line[160];
  std::snprintf(line, sizeof line, "%12d %10d float sum -1 %10.1f 0 0 0 %10.1f 0 0 0\n", 1048576, 262144,
                40.0, 40.0);
  s += line;
  for (double bytes : {67108864.0, 268435456.0, 1073741824.0, 4294967296.0}) {
    const double us = bytes * 2.0 * 15.0 / 16.0 / 300e9 * 1e6;
    std::snprintf(line, sizeof line, "%12.0f %10.0f float sum -1 %10.1f 0 0 0 %10.1f 0 0 0\n", bytes,
                  bytes / 4, us, us);
    s += line;
  }
  return s;
}

}  // namespace

TEST_CASE("stepsim collective --nccl-tests compares a cluster's own log and calibrates its links",
          "[cli][collective]") {
  stepsim::test::TempDir dir;
  const auto log = dir.write("all_reduce_perf.out", all_reduce_log()).string();
  const auto table = run("--nccl-tests " + log);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("all_reduce (from the file name), NCCL 2.21.5+cuda12.4") &&
                            Catch::Contains("16 ranks on 2 hosts, NVIDIA H100 80GB HBM3 -> h100-sxm") &&
                            Catch::Contains(">= 64 MB         4 rows"));

  // Rings forced (as NCCL_ALGO=Ring would): NIC-bound across the two hosts, where stepsim's 8 NICs
  // at the catalog's 0.85 carry more than the log's 300 GB/s, so the fitted NIC figure is lower.
  const auto cal = (dir.path() / "cal.toml").string();
  const auto fit =
      run("--nccl-tests " + log + " --algorithm ring --write-calibration " + cal + " --format json");
  REQUIRE(fit.exit_code == 0);
  const auto j = nlohmann::json::parse(fit.out);
  CHECK(j["logs"][0]["runs"][0]["ranks"] == 16);
  CHECK(j["logs"][0]["runs"][0]["hosts"] == 2);
  CHECK(j["logs"][0]["rows"].size() == 5);
  const auto& f = j["calibration"]["figures"][0];
  CHECK(f["figure"] == "efficiency.nic");
  CHECK(f["rows"] == 4);
  CHECK(f["catalog"].get<double>() == Approx(0.85));
  CHECK(f["fitted"].get<double>() < 0.85);
  // The median row lands on the log's flat 300 GB/s; the 64 MiB row stays below it and the 4 GiB
  // row above (the model's pipeline fill shapes the curve, the log's is flat), so the error over
  // the band falls but not to zero.
  CHECK(f["simulated_after_GBps"].get<double>() == Approx(300.0).epsilon(0.01));
  CHECK(j["calibration"]["bands_after"][">= 64 MB"]["mape"].get<double>() <
        j["bands"][">= 64 MB"]["mape"].get<double>());
  // The file is a catalog overlay: a ring across the same hosts through it runs slower than
  // through the built-in catalog, near the log's rate.
  const std::string ring = " --gpu h100-sxm --nodes 2 --algorithm ring --bytes 4294967296 --format json";
  const auto through = run("--catalog " + cal + ring);
  const auto builtin = run(ring);
  REQUIRE(through.exit_code == 0);
  const double calibrated = nlohmann::json::parse(through.out)[0]["busbw_GBps"].get<double>();
  CHECK(calibrated < nlohmann::json::parse(builtin.out)[0]["busbw_GBps"].get<double>());
  CHECK(calibrated == Approx(300.0).epsilon(0.05));
}

TEST_CASE("stepsim collective --nccl-tests refuses what it cannot use, with a hint", "[cli][collective]") {
  stepsim::test::TempDir dir;
  const auto log = dir.write("all_reduce_perf.out", all_reduce_log()).string();
  const auto alone = run("--write-calibration " + (dir.path() / "c.toml").string());
  CHECK(alone.exit_code == 2);
  CHECK_THAT(alone.out, Catch::Contains("add --nccl-tests LOG"));
  const auto both = run("--nccl-tests " + log + " --compare " + log);
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.out, Catch::Contains("use one of them"));
  // What the log gives is not taken from the command line: refused, not ignored.
  const auto nodes = run("--nccl-tests " + log + " --nodes 4");
  CHECK(nodes.exit_code == 2);
  CHECK_THAT(nodes.out, Catch::Contains("--nodes: does not apply to --nccl-tests"));
  const auto algorithm = run("--nccl-tests " + log + " --algorithm deepep-ll");
  CHECK(algorithm.exit_code == 2);
  CHECK_THAT(algorithm.out, Catch::Contains("not an algorithm NCCL_ALGO can force"));
  const auto empty = run("--nccl-tests " + dir.write("all_gather_perf.out", "srun failed\n").string());
  CHECK(empty.exit_code == 2);
  CHECK_THAT(empty.out, Catch::Contains("holds no nccl-tests data row"));
  // Only the 1 MiB row: nothing from 64 MiB to fit.
  const auto small = run(
      "--nccl-tests " +
      dir.write("sendrecv_perf.out", all_reduce_log().substr(0, all_reduce_log().find("67108864"))).string() +
      " --write-calibration " + (dir.path() / "c.toml").string());
  CHECK(small.exit_code == 2);
  CHECK_THAT(small.out, Catch::Contains("no measured row of 64 MiB or more"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "c.toml"));
}

TEST_CASE("stepsim collective --nccl-tests on the B200 cluster's published send/recv log",
          "[cli][collective]") {
  // scenarios/validation/nccl-tests/b200-sendrecv-2node.out: 2 nodes of 8 B200, 400 Gb/s NICs (not
  // in the log: --nic-gbps), NCCL 2.29.7, 1 KiB-256 MiB. Its 64 KiB-64 MiB rows are the CSV's rows
  // 301-306, within 11% there; from 64 MiB the pair is NIC-bound.
  const std::string log =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/validation/nccl-tests/b200-sendrecv-2node.out";
  stepsim::test::TempDir dir;
  const auto cal = (dir.path() / "b200.toml").string();
  const auto r = run("--nccl-tests " + log + " --nic-gbps 400 --write-calibration " + cal + " --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["logs"][0]["op"] == "sendrecv");
  CHECK(j["logs"][0]["runs"][0]["hosts"] == 2);
  REQUIRE(j["logs"][0]["rows"].size() == 19);
  for (const auto& row : j["logs"][0]["rows"])
    if (row["bytes"].get<double>() >= 64.0 * 1024 * 1024) CHECK(std::abs(row["error"].get<double>()) < 0.10);
  CHECK(j["bands"]["64 KB - 64 MB"]["within_bound"] == j["bands"]["64 KB - 64 MB"]["rows"]);
  // The NIC figure the log implies: measured 43.1 GB/s (the median of 64-256 MiB) against 42.1
  // simulated at the catalog's assumed 0.85, so about 0.85 x 43.1 / 42.1 = 0.87.
  const auto& f = j["calibration"]["figures"][0];
  CHECK(f["figure"] == "efficiency.nic");
  CHECK(f["fitted"].get<double>() ==
        Approx(0.85 * f["measured_busbw_GBps"].get<double>() / f["simulated_before_GBps"].get<double>())
            .epsilon(0.01));
  CHECK(std::abs(f["fitted"].get<double>() / 0.85 - 1.0) < 0.05);
}
