// The sweep journal (torn tails, damaged or foreign journals), and results files read back bit for
// bit, whatever the length of their texts, refused clearly when damaged, never left half written.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <limits>

#include <random>

#include "output/sweep/sweep_hdf5.hpp"
#include "output/sweep/sweep_journal.hpp"
#include "tests/support/file_size_limit.hpp"
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
  CHECK(crc32("") == 0u);                    // init and final XOR 0xFFFFFFFF cancel on no input
  CHECK(crc32("The quick brown fox jumps over the lazy dog") == 0x414FA339u);  // zlib.crc32's
}

namespace sweep_journal_fixture {

/// The rows of tests/output/data/sweep-journal-v1.journal, in the order they were appended.
std::vector<Row> rows() {
  return {row(3, "a, \"quoted\"\nline", 1.5), row(1, "", -0.25), row(7, "m7", 1e300)};
}

std::filesystem::path path() {
  return std::filesystem::path(STEPSIM_SOURCE_DIR) / "tests/output/data/sweep-journal-v1.journal";
}

}  // namespace sweep_journal_fixture

TEST_CASE("A journal written by an earlier stepsim still reads, and one written now has its bytes") {
  // The fixture was written by the hand-coded CRC-32 that Boost.CRC replaced: its records' CRCs
  // must still match, and a journal written now must be the same file byte for byte.
  test::TempDir dir;
  const auto path = dir.path() / "r.h5.journal";
  std::filesystem::copy_file(sweep_journal_fixture::path(), path);
  const auto size = std::filesystem::file_size(path);
  {
    SweepJournal j = SweepJournal::open(path, identity(), schema());
    CHECK(j.dropped_bytes() == 0);  // every record's CRC matched
    CHECK(j.points() == std::vector<std::uint64_t>{1, 3, 7});
    const auto rows = sweep_journal_fixture::rows();
    CHECK(j.row(0) == rows[1]);  // in point order
    CHECK(j.row(1) == rows[0]);
    CHECK(j.row(2) == rows[2]);
  }
  CHECK(std::filesystem::file_size(path) == size);
  const auto now = dir.path() / "now.journal";
  {
    SweepJournal j = SweepJournal::create(now, identity(), schema());
    for (const Row& r : sweep_journal_fixture::rows()) j.append(r);
  }
  CHECK(test::slurp(now) == test::slurp(sweep_journal_fixture::path()));
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

TEST_CASE("Closed sets of text are stored as enums and read back as the same text") {
  // `status` declares three categories; the rows also hold "" (missing: stored past the enum's
  // names) and "unlisted" (not declared: it joins the enum after the declared names), and a
  // UTF-8 message. 300 declared categories need a 16-bit enum.
  test::TempDir dir;
  SweepSchema s = schema();
  s.columns[2].categories = {"ok", "invalid", "out_of_memory"};
  for (int i = 0; i < 300; ++i) s.columns[2].categories.push_back("c" + std::to_string(i));
  SweepJournal j = SweepJournal::create(dir.path() / "j", identity(), s);
  const std::vector<std::string> statuses = {"invalid", "", "unlisted", "ok", "c299"};
  for (std::int64_t p = 0; p < 5; ++p)
    j.append(Row{p, p, statuses[static_cast<std::size_t>(p)], std::string("déjà vu"), 1.0});
  const auto h5 = dir.path() / "r.h5";
  write_sweep_hdf5(h5, j, SweepFileInfo{identity(), "[sweep]\n", "", 0});
  const SweepFileHeader h = read_sweep_hdf5_header(h5);
  const std::vector<std::string>& stored = h.schema.columns[2].categories;
  REQUIRE(stored.size() == 304);  // 3 + 300 declared, then "unlisted"
  CHECK(stored.front() == "ok");
  CHECK(stored.back() == "unlisted");
  CHECK(h.schema.columns[3].categories.empty());  // free text stays text
  std::vector<Row> rows;
  read_sweep_hdf5_rows(h5, [&](Row&& r) { rows.push_back(std::move(r)); });
  REQUIRE(rows.size() == 5);
  for (std::size_t p = 0; p < 5; ++p) {
    CHECK(std::get<std::string>(rows[p][2]) == statuses[p]);
    CHECK(std::get<std::string>(rows[p][3]) == "déjà vu");
  }
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

namespace sweep_files_test {

/// A journal holding points 0..n-1; returns its size in bytes.
std::uintmax_t journal_of(const std::filesystem::path& path, int n) {
  SweepJournal j = SweepJournal::create(path, identity(), schema());
  for (int p = 0; p < n; ++p) j.append(row(p, "m" + std::to_string(p), 0.5 * p));
  j.sync();
  return std::filesystem::file_size(path);
}

void append_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace sweep_files_test

TEST_CASE("A journal's zero-filled or garbage tail is a torn tail: dropped, and the rows before it kept") {
  // What a power loss leaves on ext4 or XFS: the file's size was extended but its last blocks read
  // as zeros (a zero length with CRC 0 is the CRC of nothing, so it must not pass as a record), or
  // hold stale bytes. Lengths: shorter than a frame (8 bytes), a frame exactly, a frame and some,
  // blocks.
  std::mt19937 random(16);
  for (const std::size_t length : {1, 7, 8, 9, 100, 4096, 65536}) {
    for (const bool zeros : {true, false}) {
      CAPTURE(length, zeros);
      test::TempDir dir;
      const auto path = dir.path() / "r.h5.journal";
      const auto whole = sweep_files_test::journal_of(path, 3);
      std::string tail(length, '\0');
      if (!zeros)
        for (char& c : tail) c = static_cast<char>(random() & 0xff);
      sweep_files_test::append_bytes(path, tail);
      {
        SweepJournal j = SweepJournal::open(path, identity(), schema());
        CHECK(j.points() == std::vector<std::uint64_t>{0, 1, 2});
        CHECK(j.dropped_bytes() == length);
        CHECK(std::filesystem::file_size(path) == whole);
        j.append(row(3, "after", 1.0));  // and it goes on from there
      }
      CHECK(SweepJournal::open(path, identity(), schema()).size() == 4);
    }
  }
}

TEST_CASE("A journal that is nothing but zeros starts over") {
  test::TempDir dir;
  const auto path = dir.path() / "j";
  std::ofstream(path, std::ios::binary) << std::string(4096, '\0');
  CHECK(SweepJournal::open(path, identity(), schema()).size() == 0);
}

TEST_CASE("A damaged journal is called damaged, another sweep's journal says what differs") {
  test::TempDir dir;
  const auto path = dir.path() / "j";
  sweep_files_test::journal_of(path, 2);
  const std::string good = test::slurp(path);
  const auto reopen_error = [&](std::size_t flip) {
    std::string bytes = good;
    bytes[flip] = static_cast<char>(bytes[flip] ^ 0x5a);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return sweep_files_test::error_of([&] { SweepJournal::open(path, identity(), schema()); });
  };
  CHECK_THAT(reopen_error(3),
             Catch::Contains("not a stepsim sweep journal, or its first bytes are damaged") &&
                 Catch::Contains("delete it"));
  CHECK_THAT(reopen_error(40),
             Catch::Contains("the sweep journal is damaged: its header does not read back"));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << good;
  SweepIdentity other = identity();
  other.sweep_hash = "fedcba9876543210";
  CHECK_THAT(
      sweep_files_test::error_of([&] { SweepJournal::open(path, other, schema()); }),
      Catch::Contains("belongs to a different sweep") &&
          Catch::Contains("sweep_hash is fedcba9876543210 for this run, 0123456789abcdef in the journal"));
}

TEST_CASE("A journal in use is seen as in use") {
  test::TempDir dir;
  const auto path = dir.path() / "j";
  {
    SweepJournal j = SweepJournal::create(path, identity(), schema());
    CHECK(SweepJournal::in_use(path));
  }
  CHECK_FALSE(SweepJournal::in_use(path));
  CHECK_FALSE(SweepJournal::in_use(dir.path() / "none"));
}

TEST_CASE("A results file keeps sweep and base texts beyond HDF5's 64 KiB attribute limit") {
  test::TempDir dir;
  SweepJournal j = SweepJournal::create(dir.path() / "j", identity(), schema());
  j.append(row(0, "", 1.0));
  // 70 KB of comments was enough to lose a whole run: an attribute's data stops at 64 KiB.
  std::string sweep_text = "[sweep]\n";
  while (sweep_text.size() < 200 * 1024) sweep_text += "# a comment that makes the sweep file long\n";
  const SweepFileInfo info{identity(), sweep_text, std::string(100 * 1024, 'b'), 0};
  CHECK_NOTHROW(check_sweep_hdf5(dir.path() / "r.h5", schema(), info));
  write_sweep_hdf5(dir.path() / "r.h5", j, info);
  const SweepFileHeader h = read_sweep_hdf5_header(dir.path() / "r.h5");
  CHECK(h.info.sweep_text == sweep_text);
  CHECK(h.info.base_text == info.base_text);
}

TEST_CASE("Results files of schema 1 (texts as attributes) still read") {
  // Written by stepsim 0.1.0: a 3-point estimate sweep named v1.
  const auto path = std::filesystem::path(STEPSIM_SOURCE_DIR) / "tests/output/data/sweep-results-v1.h5";
  const SweepFileHeader h = read_sweep_hdf5_header(path);
  CHECK(h.info.identity.sweep_name == "v1");
  CHECK_THAT(h.info.sweep_text, Catch::Contains("name = \"v1\""));
  CHECK(h.info.base_text.empty());
  std::vector<Row> rows;
  read_sweep_hdf5_rows(path, [&](Row&& r) { rows.push_back(std::move(r)); });
  CHECK(rows.size() == 3);
}

TEST_CASE("A truncated or overwritten results file is a UserError naming it") {
  test::TempDir dir;
  SweepJournal j = SweepJournal::create(dir.path() / "j", identity(), schema());
  for (int p = 0; p < 3000; ++p) j.append(row(p, "message " + std::to_string(p % 17), 0.25 * p));
  const auto whole = dir.path() / "whole.h5";
  write_sweep_hdf5(whole, j, SweepFileInfo{identity(), "[sweep]\n", "", 0});
  const std::string bytes = test::slurp(whole);
  const auto read_all = [](const std::filesystem::path& p) {
    read_sweep_hdf5_header(p);
    read_sweep_hdf5_rows(p, [](Row&&) {});
  };
  for (const double kept : {0.1, 0.5, 0.9, 0.999}) {
    CAPTURE(kept);
    const auto cut = dir.write("cut.h5", bytes.substr(0, static_cast<std::size_t>(kept * bytes.size())));
    CHECK_THAT(sweep_files_test::error_of([&] { read_all(cut); }),
               Catch::Contains("cut.h5: ") && (Catch::Contains("damaged or incomplete") ||
                                               Catch::Contains("not a stepsim sweep results file")));
  }
  std::string overwritten = bytes;
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 4096; ++i) overwritten[i] = '\x55';
  const auto bad = dir.write("bad.h5", overwritten);
  CHECK_THAT(sweep_files_test::error_of([&] { read_all(bad); }), Catch::Contains("bad.h5: "));
}

TEST_CASE("A results file that meets a full disk is a UserError, and no part of it is left") {
  test::TempDir dir;
  SweepJournal j = SweepJournal::create(dir.path() / "j", identity(), schema());
  for (int p = 0; p < 3000; ++p) j.append(row(p, "message " + std::to_string(p), 0.25 * p));
  std::string what;
  {
    test::FileSizeLimit limit(4096);
    what = sweep_files_test::error_of([&] {
      write_sweep_hdf5(dir.path() / "r.h5", j, SweepFileInfo{identity(), "[sweep]\n", "", 0});
    });
  }
  CHECK_THAT(what, Catch::Contains("r.h5: results file: cannot write it: File too large"));
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) CHECK(e.path().filename() == "j");
}
