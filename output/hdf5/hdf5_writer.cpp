#include "output/hdf5/hdf5_writer.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "output/common/atomic_file.hpp"
#include "output/hdf5/hdf5_errors.hpp"
#include "output/hdf5/hdf5_rows.hpp"
#include "sim/error.hpp"

namespace stepsim::out {
namespace {

using Json = nlohmann::ordered_json;

/// Every leaf of the JSON summary under its slash-separated path ("breakdown/exposed_comm_s/dp",
/// "ranks/0/stage"): numbers and booleans (as 0/1, null as NaN) to `figures`, strings to `texts`.
void flatten(const Json& j, const std::string& path, std::vector<std::pair<std::string, double>>& figures,
             std::vector<std::pair<std::string, std::string>>& texts) {
  const std::string prefix = path.empty() ? "" : path + "/";
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix + k, figures, texts);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], prefix + std::to_string(i), figures, texts);
  } else if (j.is_string()) {
    texts.emplace_back(path, j.get<std::string>());
  } else if (j.is_boolean()) {
    figures.emplace_back(path, j.get<bool>() ? 1.0 : 0.0);
  } else if (j.is_number()) {
    figures.emplace_back(path, j.get<double>());
  } else {
    figures.emplace_back(path, std::numeric_limits<double>::quiet_NaN());
  }
}

std::uint8_t group_of(const work::OpInfo& i) {
  return i.is_comm ? static_cast<std::uint8_t>(static_cast<int>(i.comm_dim) + 1) : 0;
}

}  // namespace

void h5::write_summary_tables(H5::H5File& f, const Json& summary) {
  std::vector<std::pair<std::string, double>> figures;
  std::vector<std::pair<std::string, std::string>> texts;
  flatten(summary, "", figures, texts);
  h5::Table<h5::FigureRow> numbers(f, "summary", h5::figure_type(), 1024);
  for (const auto& [name, value] : figures) numbers.append({name.c_str(), value});
  numbers.flush();
  h5::Table<h5::TextRow> strings(f, "summary_text", h5::text_type(), 256);
  for (const auto& [name, value] : texts) strings.append({name.c_str(), value.c_str()});
  strings.flush();
}

namespace {

/// One row per simulated rank: its breakdown (exposed time by ParallelDim order) and memory.
void write_ranks(H5::H5File& f, const work::Simulation& s) {
  h5::Table<h5::RankRowH5> table(f, "ranks", h5::rank_type(), 256);
  for (std::size_t i = 0; i < s.report.ranks.size(); ++i) {
    const auto& r = s.report.ranks[i];
    const auto& b = r.breakdown.exposed_comm_s;
    const auto node = static_cast<std::int32_t>(s.topology->host_of(static_cast<topo::GpuId>(r.rank)));
    table.append({static_cast<std::uint16_t>(i), r.rank, node, r.stage, r.breakdown.compute_s,
                  r.breakdown.memory_bound_s, b[0], b[1], b[2], b[3], b[4], r.breakdown.bubble_s,
                  r.breakdown.host_bound_s, r.memory.static_state.value(), r.memory.activations.value(),
                  r.memory.peak.value(), r.memory.peak_time_s});
  }
  table.flush();
}

/// `stepsim run --steps N`: the steps (their seeds, times and the GPU each waited on most), the
/// distribution's summary as the group's attributes, and every GPU's kernel time factor beside
/// its busy and waiting time in the median step (the run's report describes that step).
void write_steps(H5::H5File& f, const work::Simulation& s) {
  const work::StepDistribution& d = s.steps;
  H5::Group g = h5::create_group(f, "steps");
  h5::write_integer_attribute(g, "count", static_cast<std::int64_t>(d.steps.size()));
  for (const auto& [name, value] : {std::pair{"nominal_s", d.nominal_s},
                                    {"mean_s", d.mean_s},
                                    {"p50_s", d.p50_s},
                                    {"p90_s", d.p90_s},
                                    {"p99_s", d.p99_s},
                                    {"min_s", d.min_s},
                                    {"max_s", d.max_s}})
    h5::write_attribute(g, name, value);
  h5::write_integer_attribute(g, "median_step", d.median_step);
  h5::write_integer_attribute(g, "slowest_step", d.slowest_step);
  h5::write_integer_attribute(g, "gpus_varied", d.gpus_varied);
  h5::write_integer_attribute(g, "replayed", d.replayed ? 1 : 0);
  h5::Table<h5::StepRowH5> steps(f, "steps/times", h5::step_type(), 1024);
  for (std::size_t i = 0; i < d.steps.size(); ++i) {
    const work::StepSample& x = d.steps[i];
    steps.append({static_cast<std::uint32_t>(i), x.seed, x.time_s, x.waited_on_rank, x.waited_on_s});
  }
  steps.flush();
  std::vector<std::int32_t> sim_rank(static_cast<std::size_t>(s.plan.world), -1);
  for (std::size_t i = 0; i < s.plan.ranks.size(); ++i)
    sim_rank[static_cast<std::size_t>(s.plan.ranks[i].rank)] = static_cast<std::int32_t>(i);
  const double step = s.report.step_time_s, nan = std::numeric_limits<double>::quiet_NaN();
  h5::Table<h5::RankSlownessRowH5> ranks(f, "steps/ranks", h5::rank_slowness_type(), 4096);
  for (std::int32_t gpu = 0; gpu < s.plan.world; ++gpu) {
    const auto g_index = static_cast<std::size_t>(gpu);
    const double factor = g_index < d.gpu_factors.size() ? d.gpu_factors[g_index] : 1.0;
    const auto node = static_cast<std::int32_t>(s.topology->host_of(static_cast<topo::GpuId>(gpu)));
    double busy = nan, waiting = nan, share = nan;
    if (sim_rank[g_index] >= 0) {
      const work::Breakdown& b = s.report.ranks[static_cast<std::size_t>(sim_rank[g_index])].breakdown;
      busy = b.compute_s + b.memory_bound_s;
      waiting = step - busy;
      share = step > 0.0 ? waiting / step : 0.0;
    }
    ranks.append({gpu, node, sim_rank[g_index], factor, busy, waiting, share});
  }
  ranks.flush();
}

}  // namespace

struct Hdf5Writer::Tables {
  H5::H5File file;
  std::optional<h5::Table<h5::OpRowH5>> ops;
  std::optional<h5::Table<h5::MemoryRowH5>> memory;
  std::optional<h5::Table<h5::TierRowH5>> tiers;
  std::optional<h5::Table<h5::LinkLoadRowH5>> link_loads;
};

namespace hdf5_writer {
[[noreturn]] void failed(const std::filesystem::path& path, const H5::Exception& e) {
  const std::string why = last_hdf5_error();
  throw UserError(
      SourceLocation{path.string(), 0, 0}, "",
      "--hdf5: cannot build the file (" + e.getDetailMsg() + (why.empty() ? "" : ": " + why) + ")");
}
}  // namespace hdf5_writer

// The file is built in memory (HDF5's core driver, no backing file) and written whole at end():
// HDF5 never writes to disk itself, so a full disk is a failed write of ours with its reason,
// never a half-closed HDF5 file (which HDF5 1.10 crashes on at exit).
Hdf5Writer::Hdf5Writer(const std::filesystem::path& path, const work::Simulation& s, Hdf5Meta meta)
    : path_(path), sim_(s), meta_(std::move(meta)) {
  quiet_hdf5_errors();  // errors become exceptions with a message of ours
  try {
    t_ = std::make_unique<Tables>();
    t_->file = h5::in_memory_file();
  } catch (const H5::Exception& e) {
    hdf5_writer::failed(path_, e);
  }
}

Hdf5Writer::~Hdf5Writer() = default;

void Hdf5Writer::begin(const StepLayout&) {
  H5::H5File& f = t_->file;
  h5::write_attribute(f, "schema", "stepsim.run/2");
  h5::write_attribute(f, "stepsim_version", meta_.version);
  h5::write_attribute(f, "scenario", meta_.scenario);
  h5::write_text(f, "scenario_toml", meta_.scenario_toml);
  h5::write_text(f, "scenario_overrides", meta_.overrides);
  h5::write_text(f, "summary_json", meta_.summary.dump(2));
  h5::write_summary_tables(f, meta_.summary);
  write_ranks(f, sim_);
  if (!sim_.steps.empty()) write_steps(f, sim_);
  t_->ops.emplace(f, "ops", h5::op_type(), 16384);
  t_->memory.emplace(f, "memory", h5::memory_type(), 16384);
  t_->tiers.emplace(f, "link_tiers", h5::tier_type(), 16384);
  t_->link_loads.emplace(f, "link_loads", h5::link_load_type(), 65536);
}

void Hdf5Writer::critical_path(const std::vector<CriticalStep>& path) {
  h5::Table<h5::CriticalRowH5> table(t_->file, "critical_path", h5::critical_type(), 4096);
  for (std::size_t i = 0; i < path.size(); ++i) {
    const CriticalStep& c = path[i];
    h5::CriticalRowH5 r{static_cast<std::uint32_t>(i),
                        c.op,
                        c.gpu,
                        c.sim_rank,
                        static_cast<std::uint8_t>(c.category),
                        static_cast<std::uint8_t>(c.bound),
                        c.start.count(),
                        c.end.count(),
                        to_seconds(c.start),
                        to_seconds(c.end),
                        to_seconds(c.wait),
                        {}};
    h5::set_text(r.label, c.label);
    table.append(r);
  }
  table.flush();
}

void Hdf5Writer::op(const OpRow& row) {
  const work::OpInfo& i = *row.info;
  h5::OpRowH5 r{row.op,
                row.rank->gpu,
                row.rank->sim_rank,
                static_cast<std::int16_t>(row.rank->stage),
                static_cast<std::uint8_t>(row.kind),
                static_cast<std::uint8_t>(i.pass),
                group_of(i),
                static_cast<std::uint8_t>(category_of(row)),
                static_cast<std::uint8_t>(row.bound),
                i.layer,
                i.microbatch,
                row.start.count(),
                row.end.count(),
                to_seconds(row.start),
                to_seconds(row.end),
                row.flops,
                row.bytes,
                {},
                {}};
  h5::set_text(r.stream, row.lane->name);
  h5::set_text(r.label, row.label);
  t_->ops->append(r);
}

void Hdf5Writer::memory(const MemoryRow& row) {
  t_->memory->append({row.rank->gpu, row.rank->sim_rank, row.time_s, row.bytes});
}

void Hdf5Writer::tier_load(const TierLoad& row) {
  t_->tiers->append(
      {row.time.count(), to_seconds(row.time), static_cast<std::uint8_t>(row.tier), row.mean, row.in_use});
}

void Hdf5Writer::link_load(const topo::LinkLoadChange& c) {
  const double bw = sim_.topology->link(c.link).bw.value();
  t_->link_loads->append(
      {c.time.count(), to_seconds(c.time), c.link, c.load_Bps, bw > 0 ? c.load_Bps / bw : 0.0});
}

void Hdf5Writer::end() {
  try {
    t_->ops->flush();
    t_->memory->flush();
    t_->tiers->flush();
    t_->link_loads->flush();
    const auto usage =
        link_usage(*sim_.topology, sim_.link_timeline.stats, sim_.link_bytes, sim_.run.makespan);
    h5::Table<h5::LinkRowH5> table(t_->file, "links", h5::link_type(), 65536);
    const auto links = sim_.topology->links();
    for (topo::LinkId l = 0; l < links.size(); ++l)
      table.append({l, static_cast<std::uint8_t>(links[l].kind), links[l].from, links[l].to,
                    links[l].bw.value(), links[l].latency_s, usage[l].bytes, usage[l].busy_s,
                    usage[l].mean_utilisation, usage[l].peak_utilisation});
    table.flush();
  } catch (const H5::Exception& e) {
    hdf5_writer::failed(path_, e);
  }
  std::string image;
  try {
    image = h5::file_image(t_->file);
  } catch (const Hdf5Failure& e) {
    throw UserError(SourceLocation{path_.string(), 0, 0}, "", std::string("--hdf5: ") + e.what());
  }
  t_.reset();  // closes the in-memory file
  write_file_atomically(path_, image, "--hdf5");
}

void write_hdf5(const std::filesystem::path& path, const work::Simulation& s, const StepLayout& layout,
                Hdf5Meta meta) {
  Hdf5Writer w(path, s, std::move(meta));
  try {
    emit_step(s, layout, w);
  } catch (const H5::Exception& e) {
    hdf5_writer::failed(path, e);
  }
}

}  // namespace stepsim::out
