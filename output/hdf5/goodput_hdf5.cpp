#include "output/hdf5/goodput_hdf5.hpp"

#include <cmath>

#include "output/common/atomic_file.hpp"
#include "output/hdf5/hdf5_errors.hpp"
#include "output/hdf5/hdf5_rows.hpp"
#include "sim/error.hpp"

namespace stepsim::out {
namespace goodput_hdf5_detail {

std::uint8_t flag(bool b) {
  return b ? 1 : 0;
}

h5::GoodputRowH5 interval_row(const work::GoodputAssessment& a, std::size_t i) {
  const work::GoodputStats& s = a.sweep[i];
  const double tau = static_cast<double>(s.interval_steps) * a.step_s;
  return {s.interval_steps,
          tau,
          flag(std::isfinite(s.mean_wall_s)),
          flag(i == a.best),
          flag(s.interval_steps == a.young_daly.interval_steps),
          flag(s.interval_steps == a.interval_steps),
          s.goodput,
          s.p10_goodput,
          s.p50_goodput,
          s.p90_goodput,
          1.0 - work::first_order_waste(a.plan, tau),
          s.mean_wall_s,
          s.stddev_wall_s,
          s.p10_wall_s,
          s.p50_wall_s,
          s.p90_wall_s,
          s.mean_failures,
          s.useful_s,
          s.checkpoint_s,
          s.rework_s,
          s.restart_s};
}

/// The headline figures of `stepsim goodput` as attributes of the root.
void write_summary_attributes(H5::H5File& f, const work::GoodputAssessment& a) {
  const work::GoodputStats& r = a.at_interval;
  const std::pair<const char*, double> figures[] = {
      {"step_time_s", a.step_s},
      {"tokens_per_step", a.tokens_per_step},
      {"failures_per_hour", a.failures.failures_per_hour},
      {"mtbf_s", a.young_daly.mtbf_s},
      {"checkpoint_bytes", a.checkpoint.bytes.value()},
      {"checkpoint_block_s", a.checkpoint.block_s},
      {"checkpoint_durable_s", a.checkpoint.durable_s},
      {"restart_s", a.plan.restart_s},
      {"young_daly_tau_opt_s", a.young_daly.tau_opt_s},
      {"young_daly_first_order_goodput", 1.0 - work::first_order_waste(a.plan, a.young_daly.tau_opt_s)},
      {"failure_free_s", a.failure_free_s()},
      {"goodput", r.goodput},
      {"p10_goodput", r.p10_goodput},
      {"p50_goodput", r.p50_goodput},
      {"p90_goodput", r.p90_goodput},
      {"mean_wall_s", r.mean_wall_s},
      {"mean_failures", r.mean_failures},
  };
  for (const auto& [name, value] : figures) h5::write_attribute(f, name, value);
  const std::pair<const char*, std::int64_t> counts[] = {
      {"steps", a.steps},
      {"interval_steps", a.interval_steps},
      {"interval_from_young_daly", a.interval_from_young_daly ? 1 : 0},
      {"young_daly_interval_steps", a.young_daly.interval_steps},
      {"best_interval_steps", a.sweep[a.best].interval_steps},
      {"trials", a.monte_carlo.trials},
      {"seed", static_cast<std::int64_t>(a.monte_carlo.seed)},
  };
  for (const auto& [name, value] : counts) h5::write_integer_attribute(f, name, value);
}

void write_tables(H5::H5File& f, const work::GoodputAssessment& a, const Hdf5Meta& meta) {
  h5::write_attribute(f, "schema", "stepsim.goodput/1");
  h5::write_attribute(f, "stepsim_version", meta.version);
  h5::write_attribute(f, "scenario", meta.scenario);
  write_summary_attributes(f, a);
  h5::write_text(f, "scenario_toml", meta.scenario_toml);
  h5::write_text(f, "scenario_overrides", meta.overrides);
  h5::write_text(f, "summary_json", meta.summary.dump(2));
  h5::write_summary_tables(f, meta.summary);
  h5::Table<h5::GoodputRowH5> intervals(f, "intervals", h5::goodput_type(), 256);
  for (std::size_t i = 0; i < a.sweep.size(); ++i) intervals.append(interval_row(a, i));
  intervals.flush();
  std::vector<std::string_view> components;
  for (const work::ComponentFailures& c : a.failures.components) components.push_back(c.name);
  h5::Table<h5::FailureRowH5> failures(f, "failures", h5::failure_type(components), 16);
  for (std::size_t i = 0; i < a.failures.components.size(); ++i) {
    const work::ComponentFailures& c = a.failures.components[i];
    failures.append({static_cast<std::uint8_t>(i), c.count, c.mtbf_hours, c.failures_per_hour});
  }
  failures.flush();
}

[[noreturn]] void failed(const std::filesystem::path& path, std::string_view why) {
  throw UserError(SourceLocation{path.string(), 0, 0}, "",
                  "--hdf5: cannot build the file (" + std::string(why) + ")");
}

}  // namespace goodput_hdf5_detail

void write_goodput_hdf5(const std::filesystem::path& path, const work::GoodputAssessment& a,
                        const Hdf5Meta& meta) {
  using namespace goodput_hdf5_detail;
  quiet_hdf5_errors();
  std::string image;
  try {
    H5::H5File f = h5::in_memory_file();
    write_tables(f, a, meta);
    image = h5::file_image(f);
  } catch (const H5::Exception& e) {
    const std::string why = last_hdf5_error();
    failed(path, e.getDetailMsg() + (why.empty() ? "" : ": " + why));
  } catch (const Hdf5Failure& e) {
    failed(path, e.what());
  }
  write_file_atomically(path, image, "--hdf5");
}

}  // namespace stepsim::out
