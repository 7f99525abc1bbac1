// `stepsim run --steps N --hdf5` with [variability]: the /steps group read back with the HDF5 C++
// API holds the simulation's steps, summary and per-GPU factors exactly.
#include <H5Cpp.h>
#include <catch2/catch.hpp>

#include <cmath>

#include "output/hdf5/hdf5_writer.hpp"
#include "output/views/run_view.hpp"
#include "tests/output/small_run.hpp"
#include "tests/support/temp_files.hpp"

using namespace stepsim;

namespace steps_hdf5_test_detail {

void write_steps_file(const test::SmallRun& run, const std::filesystem::path& path) {
  const out::RunLabels labels{"small test step", "h100-sxm", "tiny"};
  out::write_hdf5(path, run.sim, out::select_ranks(run.sim, {}),
                  {"test", "small test step", run.scenario.source_text, "",
                   out::run_json(run.scenario.job, run.sim, labels)});
}

// The columns as docs/hdf5.md names them, read by name (HDF5 matches compound members by name).
struct StepColumns {
  std::uint32_t step;
  std::uint64_t seed;
  double time_s;
  std::int32_t waited_on_gpu;
  double waited_on_s;
};
H5::CompType step_columns() {
  H5::CompType t(sizeof(StepColumns));
  t.insertMember("step", HOFFSET(StepColumns, step), H5::PredType::NATIVE_UINT32);
  t.insertMember("seed", HOFFSET(StepColumns, seed), H5::PredType::NATIVE_UINT64);
  t.insertMember("time_s", HOFFSET(StepColumns, time_s), H5::PredType::NATIVE_DOUBLE);
  t.insertMember("waited_on_gpu", HOFFSET(StepColumns, waited_on_gpu), H5::PredType::NATIVE_INT32);
  t.insertMember("waited_on_s", HOFFSET(StepColumns, waited_on_s), H5::PredType::NATIVE_DOUBLE);
  return t;
}

struct RankColumns {
  std::int32_t gpu, node, sim_rank;
  double time_factor, busy_s, waiting_s, waiting_share;
};
H5::CompType rank_columns() {
  H5::CompType t(sizeof(RankColumns));
  t.insertMember("gpu", HOFFSET(RankColumns, gpu), H5::PredType::NATIVE_INT32);
  t.insertMember("node", HOFFSET(RankColumns, node), H5::PredType::NATIVE_INT32);
  t.insertMember("sim_rank", HOFFSET(RankColumns, sim_rank), H5::PredType::NATIVE_INT32);
  t.insertMember("time_factor", HOFFSET(RankColumns, time_factor), H5::PredType::NATIVE_DOUBLE);
  t.insertMember("busy_s", HOFFSET(RankColumns, busy_s), H5::PredType::NATIVE_DOUBLE);
  t.insertMember("waiting_s", HOFFSET(RankColumns, waiting_s), H5::PredType::NATIVE_DOUBLE);
  t.insertMember("waiting_share", HOFFSET(RankColumns, waiting_share), H5::PredType::NATIVE_DOUBLE);
  return t;
}

template <class Row>
std::vector<Row> read_rows(const H5::H5File& f, const char* name, const H5::CompType& type) {
  const H5::DataSet d = f.openDataSet(name);
  std::vector<Row> rows(static_cast<std::size_t>(d.getSpace().getSimpleExtentNpoints()));
  d.read(rows.data(), type);
  return rows;
}

double double_attribute(const H5::Group& g, const char* name) {
  double v = 0.0;
  g.openAttribute(name).read(H5::PredType::NATIVE_DOUBLE, &v);
  return v;
}

std::int64_t integer_attribute(const H5::Group& g, const char* name) {
  std::int64_t v = 0;
  g.openAttribute(name).read(H5::PredType::NATIVE_INT64, &v);
  return v;
}

}  // namespace steps_hdf5_test_detail

using namespace steps_hdf5_test_detail;

TEST_CASE("hdf5: the steps of a run with variability, their summary and every GPU's factor", "[hdf5]") {
  const test::TempDir dir;
  const auto run = test::small_varied_run(5);
  const auto path = dir.path() / "steps.h5";
  write_steps_file(run, path);
  const H5::H5File f(path.string(), H5F_ACC_RDONLY);
  const work::StepDistribution& d = run.sim.steps;
  const work::VariabilitySpec& v = run.scenario.job.variability;
  REQUIRE(d.steps.size() == 5);

  // The summary as attributes of /steps, the run's figures to the bit.
  const H5::Group g = f.openGroup("steps");
  CHECK(integer_attribute(g, "count") == 5);
  CHECK(double_attribute(g, "nominal_s") == d.nominal_s);
  CHECK(double_attribute(g, "mean_s") == d.mean_s);
  CHECK(double_attribute(g, "p50_s") == d.p50_s);
  CHECK(double_attribute(g, "p90_s") == d.p90_s);
  CHECK(double_attribute(g, "p99_s") == d.p99_s);
  CHECK(double_attribute(g, "max_s") == d.max_s);
  CHECK(integer_attribute(g, "median_step") == d.median_step);
  CHECK(integer_attribute(g, "slowest_step") == d.slowest_step);

  // One row per step, in step order, with the seed its draws came from.
  const auto steps = read_rows<StepColumns>(f, "steps/times", step_columns());
  REQUIRE(steps.size() == 5);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    CHECK(steps[i].step == i);
    CHECK(steps[i].seed == work::step_seed(v, i));
    CHECK(steps[i].time_s == d.steps[i].time_s);
    CHECK(steps[i].waited_on_gpu == d.steps[i].waited_on_rank);
    CHECK(steps[i].waited_on_s == d.steps[i].waited_on_s);
  }
  CHECK(steps[static_cast<std::size_t>(d.slowest_step)].time_s == d.max_s);

  // One row per GPU of the job (16 = 4 nodes of 4): the factors gpu_time_factors draws from the
  // same spec, GPU 5's named 1.2 on top of its draw; every GPU is simulated, so each has its busy
  // and waiting time in the median step, which add up to the step.
  const auto factors = work::gpu_time_factors(v, 16, 4);
  work::VariabilitySpec spread_only;
  spread_only.seed = v.seed;
  spread_only.gpu_speed_sd = v.gpu_speed_sd;
  const auto drawn = work::gpu_time_factors(spread_only, 16, 4);
  const auto ranks = read_rows<RankColumns>(f, "steps/ranks", rank_columns());
  REQUIRE(ranks.size() == 16);
  for (std::int32_t gpu = 0; gpu < 16; ++gpu) {
    const auto& r = ranks[static_cast<std::size_t>(gpu)];
    INFO("gpu " << gpu);
    CHECK(r.gpu == gpu);
    CHECK(r.node == gpu / 4);
    CHECK(r.time_factor == factors[static_cast<std::size_t>(gpu)]);
    REQUIRE(r.sim_rank >= 0);
    CHECK(run.sim.plan.ranks[static_cast<std::size_t>(r.sim_rank)].rank == gpu);
    const work::Breakdown& b = run.sim.report.ranks[static_cast<std::size_t>(r.sim_rank)].breakdown;
    CHECK(r.busy_s == b.compute_s + b.memory_bound_s);
    CHECK(r.busy_s + r.waiting_s == Approx(run.sim.report.step_time_s).epsilon(1e-12));
    CHECK(r.waiting_share == Approx(r.waiting_s / run.sim.report.step_time_s));
  }
  CHECK(ranks[5].time_factor == 1.2 * drawn[5]);
}

TEST_CASE("hdf5: a single step without variability has no steps group", "[hdf5]") {
  const test::TempDir dir;
  const auto run = test::small_run();
  const auto path = dir.path() / "one.h5";
  write_steps_file(run, path);
  const H5::H5File f(path.string(), H5F_ACC_RDONLY);
  CHECK_FALSE(f.nameExists("steps"));
}
