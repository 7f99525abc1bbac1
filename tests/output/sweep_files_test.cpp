// The sweep journal (torn tails, foreign journals), and results files read back bit for bit.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <limits>

#include "output/sweep_hdf5.hpp"
#include "output/sweep_journal.hpp"
#include "tests/support/temp_files.hpp"

using namespace stepsim;
using namespace stepsim::out;

namespace {

SweepSchema schema() {
  SweepSchema s;
  s.columns = {{"point", ColumnType::int64},
               {"parallelism.tp", ColumnType::int64},
               {"status", ColumnType::text},
               {"message", ColumnType::text},
               {"step_time_s", ColumnType::float64}};
  s.first_result = 2;
  return s;
}

SweepIdentity identity() {
  return SweepIdentity{"t", "0123456789abcdef", 10, scen::Shard{0, 1}, "test"};
}

Row row(std::int64_t point, std::string message, double t) {
  return Row{point, point * 2, std::string("ok"), std::move(message), t};
}

}  // namespace

TEST_CASE("A journal reopens with its rows, drops a torn tail and refuses another sweep's") {
  test::TempDir dir;
  const auto path = dir.path() / "r.h5.journal";
  {
    SweepJournal j = SweepJournal::create(path, identity(), schema());
    j.append(row(3, "a, \"quoted\"\nline", 1.5));
    j.append(row(1, "", std::numeric_limits<double>::quiet_NaN()));
  }
  const auto whole = std::filesystem::file_size(path);
  {
    // A crash in the middle of the next write: half a record at the end.
    const std::string rec = "\x40\x00\x00\x00garbage";
    std::ofstream(path, std::ios::binary | std::ios::app) << rec;
  }
  {
    SweepJournal j = SweepJournal::open(path, identity(), schema());
    CHECK(std::filesystem::file_size(path) == whole);  // the torn record was cut off
    CHECK(j.points() == std::vector<std::uint64_t>{1, 3});
    const Row r = j.row(1);  // point 3, second in point order
    CHECK(std::get<std::string>(r[3]) == "a, \"quoted\"\nline");
    CHECK(std::get<double>(r[4]) == 1.5);
    CHECK(std::isnan(std::get<double>(j.row(0)[4])));
    CHECK(j.text_widths()[3] == 16);  // the longest message: `a, "quoted"` (11) + newline (1) + `line` (4)
    j.append(row(0, "x", 2.0));
  }
  CHECK(SweepJournal::open(path, identity(), schema()).size() == 3);
  SweepIdentity other = identity();
  other.shard = scen::Shard{1, 2};
  CHECK_THROWS_WITH(SweepJournal::open(path, other, schema()),
                    Catch::Contains("belongs to a different sweep"));
}

TEST_CASE("A journal killed while its header was written starts over") {
  test::TempDir dir;
  const auto path = dir.path() / "j";
  std::ofstream(path, std::ios::binary) << "STEPSIM-SWEEP";  // a prefix of the magic line
  SweepJournal j = SweepJournal::open(path, identity(), schema());
  CHECK(j.size() == 0);
  j.append(row(2, "", 1.0));
  CHECK(j.points() == std::vector<std::uint64_t>{2});
}

TEST_CASE("Two processes cannot write one journal") {
  test::TempDir dir;
  const auto path = dir.path() / "j";
  SweepJournal j = SweepJournal::create(path, identity(), schema());
  // flock is per open file description: a second open in this process conflicts like another process.
  CHECK_THROWS_WITH(SweepJournal::open(path, identity(), schema()),
                    Catch::Contains("another stepsim process"));
}

TEST_CASE("CRC-32 matches the IEEE check value") {
  CHECK(crc32("123456789") == 0xCBF43926u);  // the standard check value of CRC-32/ISO-HDLC
}

TEST_CASE("Results files read back exactly what was written") {
  test::TempDir dir;
  SweepJournal j = SweepJournal::create(dir.path() / "j", identity(), schema());
  for (std::int64_t p = 9; p >= 0; --p)
    j.append(row(p, p % 3 ? "" : "message " + std::to_string(p), 0.1 * p));
  SweepFileInfo info{identity(), "[sweep]\n", "", 0};
  const auto h5 = dir.path() / "r.h5";
  write_sweep_hdf5(h5, j, info);
  const SweepFileHeader h = read_sweep_hdf5_header(h5);
  CHECK(h.info.rows == 10);
  CHECK(h.info.identity.sweep_hash == "0123456789abcdef");
  CHECK(h.info.sweep_text == "[sweep]\n");
  CHECK(h.info.base_text.empty());
  CHECK(h.schema == schema());
  std::vector<Row> rows;
  read_sweep_hdf5_rows(h5, [&](Row&& r) { rows.push_back(std::move(r)); });
  REQUIRE(rows.size() == 10);
  for (std::int64_t p = 0; p < 10; ++p) {
    CAPTURE(p);
    CHECK(rows[p] ==
          row(p, p % 3 ? "" : "message " + std::to_string(p), 0.1 * p));  // in point order, bit for bit
  }
  // Writing again gives the same bytes: no timestamps.
  const std::string first = test::slurp(h5);
  ::sleep(1);
  write_sweep_hdf5(h5, j, info);
  CHECK(test::slurp(h5) == first);
  CHECK_FALSE(std::filesystem::exists(h5.string() + ".tmp"));
}

TEST_CASE("CSV quotes what needs quoting and leaves NaN empty") {
  test::TempDir dir;
  SweepJournal j = SweepJournal::create(dir.path() / "j", identity(), schema());
  j.append(row(0, "a, \"b\"", std::numeric_limits<double>::quiet_NaN()));
  j.append(row(1, "plain", 0.1));
  write_sweep_csv(dir.path() / "r.csv", j);
  CHECK(test::slurp(dir.path() / "r.csv") ==
        "point,parallelism.tp,status,message,step_time_s\n"
        "0,0,ok,\"a, \"\"b\"\"\",\n"
        "1,2,ok,plain,0.1\n");
}

TEST_CASE("Files that are not results are refused clearly") {
  test::TempDir dir;
  const auto p = dir.write("x.h5", "not hdf5");
  CHECK_THROWS_WITH(read_sweep_hdf5_header(p),
                    Catch::Contains("not a stepsim sweep results file: not an HDF5 file"));
  CHECK_THROWS_WITH(read_sweep_hdf5_header(dir.path() / "none.h5"), Catch::Contains("no such file"));
}

TEST_CASE("docs/sweeps.md describes every result column") {
  const std::string docs = test::slurp(std::filesystem::path(STEPSIM_SOURCE_DIR) / "docs" / "sweeps.md");
  for (const ResultColumn& c : result_columns()) {
    CAPTURE(c.name);
    CHECK(docs.find("`" + std::string(c.name) + "`") != std::string::npos);
  }
}
