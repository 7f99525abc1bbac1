// The Nsight Systems SQLite export reader of `stepsim profile` (output/profile/profile_nsys.hpp), on a small
// export built here with SQLite's C API, with the table and column names `nsys export --type sqlite`
// writes: StringIds, CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and _MEMSET.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>

#include "output/profile/profile_nsys.hpp"
#include "output/profile/profile_trace.hpp"
#include "sim/error.hpp"
#include "tests/support/temp_files.hpp"

using namespace stepsim;
using namespace stepsim::out;

namespace profile_nsys_rows {

// nsys's schema, trimmed to the columns the reader uses and a few beside them.
const char* const kStringIds = "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);";
const char* const kKernelTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, "
    "correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER NOT NULL, "
    "mangledName INTEGER, gridX INTEGER, blockX INTEGER);";
const char* const kMemcpyTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, "
    "correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, "
    "srcKind INTEGER, dstKind INTEGER);";
const char* const kMemsetTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, "
    "correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, "
    "memKind INTEGER);";

// Names by id; 2 and 4 are the short names nsys also stores.
const char* const kStrings =
    "INSERT INTO StringIds VALUES "
    "(1, "
    "'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
    "kernel'), "
    "(2, 'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64'), "
    "(3, 'void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)'), "
    "(4, 'flash_fwd_kernel'), "
    "(5, 'nvjet_tst_128x256_64x4_1x2_h_bz_coopB_NTN'), "
    "(6, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm *, unsigned long, ncclWork *)'), "
    "(7, 'ncclDevKernel_SendRecv');";

// Device 3; stream 7 computes, stream 20 communicates. Times in ns from 2 s into the session,
// inserted out of start order (the all-reduce first). The send/recv has no demangled name: its
// short name stands in.
const char* const kKernels =
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, "
    "globalPid, demangledName, shortName) VALUES "
    "(2000150000, 2000400000, 3, 1, 20, 14, 99, 6, 6), "
    "(2000000000, 2000100000, 3, 1, 7, 11, 99, 1, 2), "
    "(2000100000, 2000180500, 3, 1, 7, 12, 99, 3, 4), "
    "(2000300000, 2000350000, 3, 1, 7, 13, 99, 5, 5), "
    "(2000400000, 2000420000, 3, 1, 20, 15, 99, NULL, 7);";
const char* const kMemOps =
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, bytes, copyKind) "
    "VALUES (2000180500, 2000182500, 3, 1, 7, 1048576, 1);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, value, bytes) "
    "VALUES (2000182500, 2000183500, 3, 1, 7, 0, 4096);";

/// Creates `name` in `dir` as a SQLite database holding `sql`.
std::filesystem::path make_db(const test::TempDir& dir, const std::string& name, const std::string& sql) {
  const auto path = dir.path() / name;
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) ==
          SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  const std::string message = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  INFO(message);
  REQUIRE(rc == SQLITE_OK);
  return path;
}

std::string full_export() {
  return std::string(kStringIds) + kKernelTable + kMemcpyTable + kMemsetTable + kStrings + kKernels + kMemOps;
}

}  // namespace profile_nsys_rows

TEST_CASE("an Nsight Systems SQLite export's kernels and memcpys and memsets", "[profile]") {
  using namespace profile_nsys_rows;
  test::TempDir dir;
  const auto path = make_db(dir, "report.sqlite", full_export());
  const GpuTrace trace = read_nsys_sqlite(path);
  CHECK(trace.path == path);
  REQUIRE(trace.kernels.size() == 7);  // 5 kernels, 1 memcpy, 1 memset
  // In start order: GEMM 0, attention 100, all-reduce 150, memcpy 180.5, memset 182.5, nvjet 300,
  // send/recv 400 (us after 2 s).
  const TraceKernel& gemm = trace.kernels[0];
  CHECK(gemm.name.rfind("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize", 0) == 0);
  CHECK(gemm.category == "kernel");
  CHECK(gemm.ts_us == 2000000.0);  // 2,000,000,000 ns
  CHECK(gemm.dur_us == 100.0);     // 100,000 ns
  CHECK(gemm.device == 3);
  CHECK(gemm.stream == 7);
  // The demangled name, not the short one.
  CHECK(trace.kernels[1].name ==
        "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)");
  CHECK(trace.kernels[1].dur_us == 80.5);  // 80,500 ns
  CHECK(trace.kernels[2].stream == 20);
  CHECK(trace.kernels[3].name == "Memcpy HtoD");  // copyKind 1
  CHECK(trace.kernels[3].category == "gpu_memcpy");
  CHECK(trace.kernels[3].ts_us == 2000180.5);
  CHECK(trace.kernels[4].name == "Memset");
  CHECK(trace.kernels[4].category == "gpu_memset");
  CHECK(trace.kernels[6].name == "ncclDevKernel_SendRecv");  // demangledName NULL: shortName

  const MeasuredProfile m = measure_profile(trace);
  CHECK(m.kernels == 7);
  CHECK(m.unclassified.empty());
  CHECK(m.classes.at("gemm_dense").count == 2);
  CHECK(m.classes.at("gemm_dense").time_s == Approx(150e-6));  // 100 + 50 us
  CHECK(m.classes.at("attention").time_s == Approx(80.5e-6));
  CHECK(m.classes.at("nccl_all_reduce").time_s == Approx(250e-6));
  CHECK(m.classes.at("nccl_send_recv").count == 1);
  CHECK(m.classes.at("memcpy").time_s == Approx(2e-6));
  CHECK(m.classes.at("memset").time_s == Approx(1e-6));
  // Non-communication work covers 0-183.5 us (GEMM, attention, memcpy, memset back to back) and
  // 300-350 (nvjet). The all-reduce (150-400) is hidden for 33.5 + 50 us: 250 - 83.5 = 166.5 us
  // exposed; the send/recv (400-420) runs alone: 20 us.
  CHECK(m.exposed_comm_s.at("nccl_all_reduce") == Approx(166.5e-6));
  CHECK(m.exposed_comm_s.at("nccl_send_recv") == Approx(20e-6));
}

TEST_CASE("read_gpu_trace tells an Nsight Systems export from a Kineto trace", "[profile]") {
  using namespace profile_nsys_rows;
  test::TempDir dir;
  const GpuTrace nsys = read_gpu_trace(make_db(dir, "report.sqlite", full_export()));
  CHECK(nsys.kernels.size() == 7);
  CHECK(nsys.kernels[0].dur_us == 100.0);
  // A Kineto trace with one kernel, named whatever: the content decides, not the extension.
  const GpuTrace kineto = read_gpu_trace(
      dir.write("trace.sqlite", R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "nvjet_tst_64x8",
        "ts": 10, "dur": 4, "args": {"device": 1, "stream": 9}}]})"));
  REQUIRE(kineto.kernels.size() == 1);
  CHECK(kineto.kernels[0].name == "nvjet_tst_64x8");
  CHECK(kineto.kernels[0].stream == 9);
}

TEST_CASE("exports stepsim cannot use are the user's error naming the file", "[profile]") {
  using namespace profile_nsys_rows;
  test::TempDir dir;
  const auto names_file = [](const std::filesystem::path& p) { return Catch::Contains(p.string()); };
  const auto export_hint = Catch::Contains("nsys export --type sqlite");

  SECTION("no kernel table: traced without CUDA") {
    const auto path = make_db(dir, "no-cuda.sqlite", std::string(kStringIds) + kMemcpyTable);
    CHECK_THROWS_AS(read_gpu_trace(path), UserError);
    CHECK_THROWS_WITH(read_gpu_trace(path), names_file(path) &&
                                                Catch::Contains("CUPTI_ACTIVITY_KIND_KERNEL") &&
                                                Catch::Contains("nsys profile -t cuda") && export_hint);
  }
  SECTION("a kernel table without rows") {
    const auto path = make_db(dir, "empty.sqlite", std::string(kStringIds) + kKernelTable);
    CHECK_THROWS_AS(read_nsys_sqlite(path), UserError);
    CHECK_THROWS_WITH(read_nsys_sqlite(path), names_file(path) && Catch::Contains("no rows") &&
                                                  Catch::Contains("nsys profile -t cuda"));
  }
  SECTION("a name id StringIds lacks") {
    const auto path = make_db(dir, "ids.sqlite",
                              std::string(kStringIds) + kKernelTable + kStrings +
                                  "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, "
                                  "streamId, demangledName, shortName) VALUES (0, 10, 0, 1, 7, 1, 2), "
                                  "(10, 20, 0, 1, 7, 42, 2);");
    CHECK_THROWS_AS(read_nsys_sqlite(path), UserError);
    CHECK_THROWS_WITH(read_nsys_sqlite(path), names_file(path) && Catch::Contains("row 2") &&
                                                  Catch::Contains("name id 42") &&
                                                  Catch::Contains("StringIds") && export_hint);
  }
  SECTION("SQLite's header followed by garbage") {
    const auto path =
        dir.write("garbage.sqlite", std::string("SQLite format 3\0", 16) + std::string(300, '\x5a'));
    CHECK_THROWS_AS(read_gpu_trace(path), UserError);
    CHECK_THROWS_WITH(read_gpu_trace(path), names_file(path) && export_hint);
  }
  SECTION("a truncated export") {
    const auto whole = make_db(dir, "whole.sqlite", full_export());
    const std::string bytes = test::slurp(whole);
    REQUIRE(bytes.size() > 4096);  // more than the first page (SQLite's default page size)
    const auto path = dir.write("truncated.sqlite", bytes.substr(0, 4096));
    CHECK_THROWS_AS(read_gpu_trace(path), UserError);
    CHECK_THROWS_WITH(read_gpu_trace(path), names_file(path) && export_hint);
  }
  SECTION("no such file, or the report instead of its export") {
    CHECK_THROWS_AS(read_nsys_sqlite(dir.path() / "missing.sqlite"), UserError);
    CHECK_THROWS_AS(read_gpu_trace(dir.path() / "missing.sqlite"), UserError);
    const auto report = dir.write("run.nsys-rep", "binary report");
    CHECK_THROWS_WITH(read_gpu_trace(report), names_file(report) && export_hint);
  }
}
