// `stepsim goodput --hdf5 F --report F` through the real binary: the HDF5 table holds the JSON's
// sweep row for row and bit for bit, the root's attributes its summary; the page has the curve with
// a point per finishing interval, Young/Daly marked, and the wall-time breakdown; output paths that
// cannot be written fail before any work with exit 2.
#include <H5Cpp.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;

namespace goodput_outputs_cli_test_detail {

std::string small_scenario() {
  return "'" + std::string(STEPSIM_SOURCE_DIR) + "/tests/output/data/small-train.toml'";
}

struct IntervalColumns {
  std::int64_t interval_steps;
  std::uint8_t finishes, best, young_daly, chosen;
  double interval_compute_s, goodput, p10_goodput, p50_goodput, p90_goodput, first_order_goodput;
  double mean_wall_s, p10_wall_s, p90_wall_s, mean_failures, useful_s, checkpoint_s, rework_s, restart_s;
};

H5::CompType interval_columns() {
  H5::CompType t(sizeof(IntervalColumns));
  const auto f64 = H5::PredType::NATIVE_DOUBLE;
  const auto u8 = H5::PredType::NATIVE_UINT8;
  t.insertMember("interval_steps", HOFFSET(IntervalColumns, interval_steps), H5::PredType::NATIVE_INT64);
  t.insertMember("finishes", HOFFSET(IntervalColumns, finishes), u8);
  t.insertMember("best", HOFFSET(IntervalColumns, best), u8);
  t.insertMember("young_daly", HOFFSET(IntervalColumns, young_daly), u8);
  t.insertMember("chosen", HOFFSET(IntervalColumns, chosen), u8);
  t.insertMember("interval_compute_s", HOFFSET(IntervalColumns, interval_compute_s), f64);
  t.insertMember("goodput", HOFFSET(IntervalColumns, goodput), f64);
  t.insertMember("p10_goodput", HOFFSET(IntervalColumns, p10_goodput), f64);
  t.insertMember("p50_goodput", HOFFSET(IntervalColumns, p50_goodput), f64);
  t.insertMember("p90_goodput", HOFFSET(IntervalColumns, p90_goodput), f64);
  t.insertMember("first_order_goodput", HOFFSET(IntervalColumns, first_order_goodput), f64);
  t.insertMember("mean_wall_s", HOFFSET(IntervalColumns, mean_wall_s), f64);
  t.insertMember("p10_wall_s", HOFFSET(IntervalColumns, p10_wall_s), f64);
  t.insertMember("p90_wall_s", HOFFSET(IntervalColumns, p90_wall_s), f64);
  t.insertMember("mean_failures", HOFFSET(IntervalColumns, mean_failures), f64);
  t.insertMember("useful_s", HOFFSET(IntervalColumns, useful_s), f64);
  t.insertMember("checkpoint_s", HOFFSET(IntervalColumns, checkpoint_s), f64);
  t.insertMember("rework_s", HOFFSET(IntervalColumns, rework_s), f64);
  t.insertMember("restart_s", HOFFSET(IntervalColumns, restart_s), f64);
  return t;
}

double root_double(const H5::H5File& f, const char* name) {
  double v = 0.0;
  f.openAttribute(name).read(H5::PredType::NATIVE_DOUBLE, &v);
  return v;
}

std::int64_t root_integer(const H5::H5File& f, const char* name) {
  std::int64_t v = 0;
  f.openAttribute(name).read(H5::PredType::NATIVE_INT64, &v);
  return v;
}

std::ptrdiff_t goodput_page_matches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator());
}

}  // namespace goodput_outputs_cli_test_detail

using namespace goodput_outputs_cli_test_detail;

TEST_CASE("stepsim goodput --hdf5 --report: the sweep and summary in HDF5, the curve and breakdown in HTML") {
  const stepsim::test::TempDir dir;
  const auto h5 = dir.path() / "goodput.h5", html = dir.path() / "goodput.html";
  // GPUs failing every 10 hours each, so that intervals differ visibly and some work is lost.
  const auto r =
      run_stepsim("goodput " + small_scenario() +
                  " --steps 200000 --interval-steps 1000 --gpu-mtbf-hours 10 --trials 50 --format json"
                  " --hdf5 '" +
                  h5.string() + "' --report '" + html.string() + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("wrote " + h5.string()));
  CHECK_THAT(r.err, Catch::Contains("wrote " + html.string()));
  const auto j = nlohmann::json::parse(r.out);  // stdout stays the JSON document alone
  const auto& sweep = j["sweep"];

  // The JSON prints doubles in shortest round-trip form, so the file's rows equal them exactly.
  const H5::H5File f(h5.string(), H5F_ACC_RDONLY);
  const H5::DataSet d = f.openDataSet("intervals");
  std::vector<IntervalColumns> rows(static_cast<std::size_t>(d.getSpace().getSimpleExtentNpoints()));
  d.read(rows.data(), interval_columns());
  REQUIRE(rows.size() == sweep.size());
  int chosen = 0, best = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& x = sweep[i];
    const IntervalColumns& row = rows[i];
    INFO("interval " << x["interval_steps"]);
    CHECK(row.interval_steps == x["interval_steps"].get<std::int64_t>());
    CHECK(row.interval_compute_s == x["interval_compute_s"].get<double>());
    CHECK(row.finishes == (x["finishes"].get<bool>() ? 1 : 0));
    CHECK(row.goodput == x["goodput"]["mean"].get<double>());
    CHECK(row.p10_goodput == x["goodput"]["p10"].get<double>());
    CHECK(row.p50_goodput == x["goodput"]["p50"].get<double>());
    CHECK(row.p90_goodput == x["goodput"]["p90"].get<double>());
    CHECK(row.first_order_goodput == x["first_order_goodput"].get<double>());
    CHECK(row.mean_wall_s == x["wall_s"]["mean"].get<double>());
    CHECK(row.p10_wall_s == x["wall_s"]["p10"].get<double>());
    CHECK(row.p90_wall_s == x["wall_s"]["p90"].get<double>());
    CHECK(row.mean_failures == x["failures"].get<double>());
    CHECK(row.useful_s == x["time_s"]["useful"].get<double>());
    CHECK(row.checkpoint_s == x["time_s"]["checkpoints"].get<double>());
    CHECK(row.rework_s == x["time_s"]["rework"].get<double>());
    CHECK(row.restart_s == x["time_s"]["restarts"].get<double>());
    CHECK(row.young_daly == (row.interval_steps == j["young_daly"]["interval_steps"].get<std::int64_t>()));
    CHECK(row.best == (row.interval_steps == j["best_interval_steps"].get<std::int64_t>()));
    chosen += row.chosen;
    best += row.best;
    if (row.chosen) CHECK(row.interval_steps == 1000);
  }
  CHECK(chosen == 1);
  CHECK(best == 1);
  // The summary: root attributes, the JSON's figures.
  CHECK(root_integer(f, "steps") == 200000);
  CHECK(root_integer(f, "interval_steps") == 1000);
  CHECK(root_integer(f, "best_interval_steps") == j["best_interval_steps"].get<std::int64_t>());
  CHECK(root_integer(f, "young_daly_interval_steps") ==
        j["young_daly"]["interval_steps"].get<std::int64_t>());
  CHECK(root_integer(f, "trials") == 50);
  CHECK(root_double(f, "step_time_s") == j["step_time_s"].get<double>());
  CHECK(root_double(f, "goodput") == j["result"]["goodput"]["mean"].get<double>());
  CHECK(root_double(f, "p10_goodput") == j["result"]["goodput"]["p10"].get<double>());
  CHECK(root_double(f, "p90_goodput") == j["result"]["goodput"]["p90"].get<double>());
  CHECK(root_double(f, "failures_per_hour") == j["failures"]["per_hour"].get<double>());
  CHECK(root_double(f, "young_daly_tau_opt_s") == j["young_daly"]["tau_opt_s"].get<double>());
  CHECK(f.nameExists("failures"));
  CHECK(f.nameExists("summary"));
  CHECK(f.nameExists("summary_json"));

  // The page: one point per interval that finishes (the best one larger), the band, the
  // first-order line, Young/Daly's tau_opt and the asked interval marked, and a bar per finishing
  // interval with its four parts (steps, checkpoints, rework, restarts; each drawn when above 0).
  const std::string page = stepsim::test::slurp(html);
  std::ptrdiff_t finishing = 0, segments = 0;
  for (const auto& x : sweep) {
    if (!x["finishes"].get<bool>()) continue;
    ++finishing;
    segments += 1;  // the steps themselves, always
    for (const char* part : {"checkpoints", "rework", "restarts"})
      segments += x["time_s"][part].get<double>() > 0.0;
  }
  REQUIRE(finishing > 0);
  CHECK(goodput_page_matches(page, "class=\"mc-point( best)?\"") == finishing);
  CHECK(goodput_page_matches(page, "class=\"mc-point best\"") == 1);
  CHECK(goodput_page_matches(page, "class=\"mc-band\"") == 1);
  CHECK(goodput_page_matches(page, "class=\"first-order\"") == 1);
  CHECK(goodput_page_matches(page, "class=\"young-daly\"") == 1);
  CHECK(goodput_page_matches(page, "class=\"chosen\"") == 1);
  CHECK(goodput_page_matches(page, "class=\"wall-seg\"") == segments);
  CHECK(page.find("<svg id=\"goodput-curve\"") != std::string::npos);
  CHECK(page.find("<svg id=\"wall-time\"") != std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
}

TEST_CASE("stepsim goodput: an --hdf5 or --report file that cannot be written fails first, exit 2") {
  const stepsim::test::TempDir dir;
  const std::string base = "goodput " + small_scenario() + " --steps 1000 --trials 5";
  const std::string missing = (dir.path() / "no-such-folder" / "g.h5").string();
  const auto a = run_stepsim(base + " --hdf5 '" + missing + "'");
  CHECK(a.exit_code == 2);
  CHECK_THAT(a.err, Catch::Contains("--hdf5"));
  CHECK_THAT(a.err, Catch::Contains(missing));
  CHECK(a.out.empty());  // refused before the simulation and its report
  const auto b = run_stepsim(base + " --report '" + dir.path().string() + "'");
  CHECK(b.exit_code == 2);
  CHECK_THAT(b.err, Catch::Contains("--report"));
  CHECK(b.out.empty());
}

TEST_CASE("stepsim goodput: the same command writes the same HDF5 and HTML bytes") {
  const stepsim::test::TempDir dir;
  const auto write = [&](const std::string& tag) {
    const auto h5 = dir.path() / (tag + ".h5"), html = dir.path() / (tag + ".html");
    const auto r = run_stepsim("goodput " + small_scenario() + " --steps 100000 --trials 10 --hdf5 '" +
                               h5.string() + "' --report '" + html.string() + "'");
    REQUIRE(r.exit_code == 0);
    return std::pair{stepsim::test::slurp(h5), stepsim::test::slurp(html)};
  };
  const auto a = write("a"), b = write("b");
  CHECK(a.first.size() > 1000);
  CHECK(a.first == b.first);
  CHECK(a.second == b.second);
}
