// The HDF5 file read back with the HDF5 C++ API: its tables hold what the simulation produced
// (the Python round trip against the JSON summary lives in tests/scripts/outputs), and the same
// run writes the same bytes.
#include "output/hdf5/hdf5_writer.hpp"

#include <H5Cpp.h>
#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "output/views/run_view.hpp"
#include "sim/error.hpp"
#include "tests/output/small_run.hpp"
#include "tests/support/file_size_limit.hpp"
#include "tests/support/temp_files.hpp"
#include "workloads/simulate/explain.hpp"

using namespace stepsim;

namespace {

void write(const test::SmallRun& run, const std::filesystem::path& path) {
  const out::RunLabels labels{"small test step", "h100-sxm", "tiny"};
  out::write_hdf5(path, run.sim, out::select_ranks(run.sim, {}),
                  {"test", "small test step", run.scenario.source_text, "",
                   out::run_json(run.scenario.job, run.sim, labels)});
}

hsize_t rows(const H5::H5File& f, const char* name) {
  hsize_t n = 0;
  f.openDataSet(name).getSpace().getSimpleExtentDims(&n);
  return n;
}

}  // namespace

TEST_CASE("hdf5: tables hold the ops, ranks, memory and links of the run", "[hdf5]") {
  const test::TempDir dir;
  const auto run = test::small_run();
  const auto path = dir.path() / "run.h5";
  write(run, path);
  const H5::H5File f(path.string(), H5F_ACC_RDONLY);
  const auto& s = run.sim;
  CHECK(rows(f, "ops") == s.plan.graph.op_count());
  CHECK(rows(f, "ranks") == s.plan.ranks.size());
  std::size_t memory = 0;
  for (const auto& r : s.report.ranks) memory += r.memory.timeline.size();
  CHECK(rows(f, "memory") == memory);
  CHECK(rows(f, "links") == s.topology->links().size());
  CHECK(rows(f, "link_loads") == s.link_timeline.watched.size());
  CHECK(rows(f, "link_tiers") >= s.link_timeline.tiers.size());  // plus a zero row per idle-at-start tier

  // The ops table's end times are the run's, to the picosecond.
  struct Times {
    std::int64_t start_ps, end_ps;
  };
  H5::CompType t(sizeof(Times));
  t.insertMember("start_ps", HOFFSET(Times, start_ps), H5::PredType::NATIVE_INT64);
  t.insertMember("end_ps", HOFFSET(Times, end_ps), H5::PredType::NATIVE_INT64);
  std::vector<Times> times(s.plan.graph.op_count());
  f.openDataSet("ops").read(times.data(), t);
  for (sim::OpId op = 0; op < times.size(); ++op) {
    CHECK(times[op].start_ps == s.run.ops[op].start.count());
    CHECK(times[op].end_ps == s.run.ops[op].end.count());
  }
  CHECK(f.attrExists("stepsim_version"));
  CHECK(f.nameExists("scenario_toml"));
  CHECK(f.nameExists("summary_json"));
}

TEST_CASE("hdf5: the same run writes the same bytes", "[hdf5]") {
  const test::TempDir dir;
  write(test::small_run(), dir.path() / "a.h5");
  write(test::small_run(), dir.path() / "b.h5");
  const std::string a = test::slurp(dir.path() / "a.h5"), b = test::slurp(dir.path() / "b.h5");
  CHECK(a.size() > 10000);
  CHECK(a == b);
}

namespace {

/// The `summary` (numbers) and `summary_text` (strings) tables as name -> value.
struct SummaryTables {
  std::map<std::string, double> figures;
  std::map<std::string, std::string> texts;
};

template <typename Value>
std::vector<std::pair<std::string, Value>> h5_summary_rows(const H5::H5File& f, const char* name) {
  struct Row {
    char* name;
    std::conditional_t<std::is_same_v<Value, double>, double, char*> value;
  };
  H5::StrType vlen(H5::PredType::C_S1, H5T_VARIABLE);
  vlen.setCset(H5T_CSET_UTF8);  // as the writer stores them (HDF5 does not convert between sets)
  H5::CompType t(sizeof(Row));
  t.insertMember("name", HOFFSET(Row, name), vlen);
  t.insertMember(
      "value", HOFFSET(Row, value),
      std::is_same_v<Value, double> ? H5::DataType(H5::PredType::NATIVE_DOUBLE) : H5::DataType(vlen));
  const H5::DataSet d = f.openDataSet(name);
  const H5::DataSpace space = d.getSpace();
  std::vector<Row> rows(static_cast<std::size_t>(space.getSimpleExtentNpoints()));
  d.read(rows.data(), t);
  std::vector<std::pair<std::string, Value>> out;
  for (const Row& r : rows) out.emplace_back(r.name, Value(r.value));
  H5::DataSet::vlenReclaim(rows.data(), t, space);
  return out;
}

SummaryTables h5_summary(const H5::H5File& f) {
  SummaryTables s;
  try {
    for (auto& [k, v] : h5_summary_rows<double>(f, "summary")) s.figures[k] = v;
    for (auto& [k, v] : h5_summary_rows<std::string>(f, "summary_text")) s.texts[k] = v;
  } catch (const H5::Exception& e) {
    FAIL(e.getFuncName() << ": " << e.getDetailMsg());
  }
  return s;
}

}  // namespace

TEST_CASE("hdf5: the summary says whether the step fits and what it waits on", "[hdf5]") {
  const test::TempDir dir;
  auto run = test::small_run();
  // Usable HBM cut to half the peak: the step does not fit, by peak / 2.
  const double peak = run.sim.report.ranks[run.sim.report.peak_rank].memory.peak.value();
  run.sim.usable_hbm = units::bytes(peak / 2.0);
  run.sim.fits = false;
  write(run, dir.path() / "over.h5");
  const SummaryTables s = h5_summary(H5::H5File((dir.path() / "over.h5").string(), H5F_ACC_RDONLY));
  CHECK(s.figures.at("feasible") == 0.0);  // booleans as 0/1
  CHECK(s.figures.at("memory_headroom_bytes") == Approx(-peak / 2.0));
  const auto v = work::step_verdict(run.sim.report);
  CHECK(s.texts.at("bottleneck/primary/key") == v.primary.key);
  CHECK(s.texts.at("bottleneck/secondary/label") == v.secondary.label);
  CHECK(s.figures.at("bottleneck/primary/share") == v.primary_share);
  CHECK(s.texts.at("mfu_peak/precision") == "BF16");
}

TEST_CASE("hdf5: a full disk is a UserError with the system's reason, and no part of the file is left",
          "[hdf5]") {
  // HDF5 used to write the file itself: a failed write left it half closed, printed HDF5's error
  // stack, and HDF5 crashed at exit (SIGSEGV in H5close) after an error of ours.
  const test::TempDir dir;
  const auto run = test::small_run();
  {
    test::FileSizeLimit limit(16 * 1024);
    CHECK_THROWS_WITH(write(run, dir.path() / "run.h5"),
                      Catch::Contains("run.h5: --hdf5: cannot write it: File too large"));
  }
  CHECK(std::filesystem::is_empty(dir.path()));
  write(run, dir.path() / "run.h5");  // and HDF5 still works afterwards
  CHECK(H5::H5File((dir.path() / "run.h5").string(), H5F_ACC_RDONLY).getNumObjs() > 0);
}
