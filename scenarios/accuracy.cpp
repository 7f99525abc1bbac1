#include "scenarios/accuracy.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "scenarios/data_dir.hpp"
#include "scenarios/toml_reader.hpp"
#include "scenarios/validation_suite.hpp"
#include "sim/error.hpp"
#include "workloads/model/names.hpp"
#include "workloads/model/params.hpp"

namespace stepsim::scen {
namespace {

constexpr const char* kFile = "accuracy/validated.toml";

std::string_view workload_text(std::string_view kind) {
  if (kind == "train") return "training";
  if (kind == "generate") return "static batches";
  if (kind == "serve") return "serving";
  return kind;  // prefill, decode
}

/// Size classes by active parameters per token, smallest first: their order sorts the table.
constexpr std::array<std::pair<double, std::string_view>, 3> kSizes{
    {{10e9, "under 10B"}, {100e9, "10B-100B"}, {std::numeric_limits<double>::infinity(), "100B and more"}}};

std::size_t size_rank(std::string_view size) {
  for (std::size_t i = 0; i < kSizes.size(); ++i)
    if (kSizes[i].second == size) return i;
  return kSizes.size();
}

auto key_of(const AccuracyClass& c) {
  return std::make_tuple(std::cref(c.gpu), std::cref(c.workload), c.moe, std::cref(c.precision),
                         size_rank(c.size));
}

/// A fraction as the file writes it: four decimals (0.01 %).
std::string fraction(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string string_array(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
  return s + "]";
}

AccuracyBand read_band(TableReader& t) {
  AccuracyBand b;
  constexpr RealRange kError{-1.0, 100.0, true, "a signed fraction, (simulated - measured) / measured"};
  if (!t.read("gpu", b.cls.gpu))
    t.fail("gpu", "missing", "the catalog id of the runs' GPU, e.g. \"h100-sxm\"");
  if (!t.read("workload", b.cls.workload))
    t.fail("workload", "missing", "the runs' workload.kind, e.g. \"train\"");
  if (!t.read("moe", b.cls.moe)) t.fail("moe", "missing", "true when the runs' models have routed experts");
  if (!t.read("precision", b.cls.precision))
    t.fail("precision", "missing", "the runs' precision class, e.g. \"16-bit\" (bf16 or fp16) or \"fp8\"");
  if (!t.read("size", b.cls.size))
    t.fail("size", "missing", "the runs' active parameters, e.g. \"10B-100B\"");
  if (size_rank(b.cls.size) == kSizes.size())
    t.fail("size", "expected \"under 10B\", \"10B-100B\" or \"100B and more\", got \"" + b.cls.size + "\"",
           "regenerate the file with stepsim validate --write-accuracy");
  if (!t.read("runs", b.runs, kPositiveInt)) t.fail("runs", "missing", "how many runs the figures summarise");
  for (auto [key, out] : {std::pair{"mean_error", &b.mean_error}, std::pair{"min_error", &b.min_error},
                          std::pair{"max_error", &b.max_error}})
    if (!t.read(key, *out, kError))
      t.fail(key, "missing", "regenerate the file with stepsim validate --write-accuracy");
  if (!t.read("mape", b.mape, kNonNegative)) t.fail("mape", "missing", "the runs' mean |error|");
  t.read("groups", b.groups);
  t.read("cases", b.cases);
  if (!(b.min_error <= b.mean_error && b.mean_error <= b.max_error))
    t.fail("mean_error",
           "expected min_error <= mean_error <= max_error, got " + number_text(b.min_error) + ", " +
               number_text(b.mean_error) + ", " + number_text(b.max_error),
           "regenerate the file with stepsim validate --write-accuracy");
  t.finish();
  return b;
}

}  // namespace

std::string AccuracyClass::text() const {
  return gpu + ", " + std::string(workload_text(workload)) + ", " + (moe ? "MoE" : "dense") + ", " +
         precision + ", " + size;
}

AccuracyClass accuracy_class_of(const work::JobSpec& job) {
  // BF16 and FP16 run on the same tensor cores at the same rate: one class.
  const topo::Precision p = job.precision.compute;
  const bool half = p == topo::Precision::bf16 || p == topo::Precision::fp16;
  const double active = work::count_params(job.model).main_active();
  std::string size;
  for (const auto& [below, name] : kSizes)
    if (active < below) {
      size = name;
      break;
    }
  return {job.cluster.gpu.id, std::string(work::name(job.workload.kind)), job.model.is_moe(),
          half ? std::string("16-bit") : std::string(topo::name(p)), size};
}

std::vector<AccuracyBand> accuracy_bands(const ValidationReport& report) {
  std::vector<AccuracyBand> bands;
  for (const ValidationCase& c : report.cases) {
    if (!c.simulated()) continue;
    auto it = std::find_if(bands.begin(), bands.end(), [&](const AccuracyBand& b) { return b.cls == c.cls; });
    if (it == bands.end()) {
      bands.push_back(AccuracyBand{c.cls, 0, 0.0, c.error, c.error, 0.0, {}, {}});
      it = bands.end() - 1;
    }
    AccuracyBand& b = *it;
    b.runs += 1;
    b.mean_error += (c.error - b.mean_error) / b.runs;
    b.mape += (std::abs(c.error) - b.mape) / b.runs;
    b.min_error = std::min(b.min_error, c.error);
    b.max_error = std::max(b.max_error, c.error);
    if (std::find(b.groups.begin(), b.groups.end(), c.group) == b.groups.end()) b.groups.push_back(c.group);
    b.cases.push_back(c.id);
  }
  for (AccuracyBand& b : bands) {
    std::sort(b.groups.begin(), b.groups.end());
    std::sort(b.cases.begin(), b.cases.end());
  }
  std::sort(bands.begin(), bands.end(),
            [](const AccuracyBand& a, const AccuracyBand& b) { return key_of(a.cls) < key_of(b.cls); });
  return bands;
}

std::string accuracy_toml(const std::vector<AccuracyBand>& bands) {
  std::ostringstream o;
  o << "# How far stepsim's simulated steps were from published measurements, per class of run (GPU,\n"
       "# workload.kind, dense or MoE, precision.compute with bf16 and fp16 as one 16-bit class, active\n"
       "# parameters per token under 10B, 10B-100B or 100B and more):\n"
       "# error = (simulated - measured) / measured.\n"
       "# Written by `stepsim validate scenarios/validation --write-accuracy FILE`; do not edit it,\n"
       "# regenerate it (tests/scripts/validate/check_validation.py fails when it differs from what\n"
       "# validate reports). `stepsim run` shows the band of a run's class beside its prediction; no\n"
       "# prediction uses it.\n";
  for (const AccuracyBand& b : bands) {
    o << "\n[[class]]\n"
      << "gpu = \"" << b.cls.gpu << "\"\n"
      << "workload = \"" << b.cls.workload << "\"\n"
      << "moe = " << (b.cls.moe ? "true" : "false") << "\n"
      << "precision = \"" << b.cls.precision << "\"\n"
      << "size = \"" << b.cls.size << "\"\n"
      << "runs = " << b.runs << "\n"
      << "mean_error = " << fraction(b.mean_error) << "\n"
      << "min_error = " << fraction(b.min_error) << "\n"
      << "max_error = " << fraction(b.max_error) << "\n"
      << "mape = " << fraction(b.mape) << "\n"
      << "groups = " << string_array(b.groups) << "\n"
      << "cases = " << string_array(b.cases) << "\n";
  }
  return o.str();
}

std::vector<AccuracyBand> load_accuracy(const std::filesystem::path& file) {
  std::string text;
  const toml::table doc = parse_toml_file(file, text);
  const ReadContext ctx{file.string(), nullptr, nullptr};
  TableReader root(doc, "", ctx);
  std::vector<AccuracyBand> bands;
  for (TableReader& t : root.tables("class")) {
    AccuracyBand b = read_band(t);
    for (const AccuracyBand& seen : bands)
      if (seen.cls == b.cls)
        t.fail("gpu", "a second [[class]] for " + b.cls.text(),
               "each class appears once; regenerate the file");
    bands.push_back(std::move(b));
  }
  root.finish();
  return bands;
}

std::optional<std::vector<AccuracyBand>> load_builtin_accuracy() {
  const std::filesystem::path file = data_dir() / kFile;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  return load_accuracy(file);
}

std::pair<double, double> AccuracyMatch::implied_s(double predicted_s) const {
  if (!band) throw std::logic_error("AccuracyMatch::implied_s without a band");
  return {predicted_s / (1.0 + band->max_error), predicted_s / (1.0 + band->min_error)};
}

AccuracyMatch match_accuracy(const std::vector<AccuracyBand>& bands, const work::JobSpec& job) {
  AccuracyMatch m{accuracy_class_of(job), std::nullopt, {}};
  const auto band_of = [&](const AccuracyClass& cls) {
    return std::find_if(bands.begin(), bands.end(), [&](const AccuracyBand& b) { return b.cls == cls; });
  };
  if (const auto it = band_of(m.cls); it != bands.end()) {
    m.band = *it;
    return m;
  }
  for (const std::string& base : job.cluster.gpu.preset_lineage) {
    AccuracyClass cls = m.cls;
    cls.gpu = base;
    if (const auto it = band_of(cls); it != bands.end()) {
      m.band = *it;
      m.via = base;
      return m;
    }
  }
  return m;
}

std::optional<AccuracyMatch> builtin_accuracy_match(const work::JobSpec& job) {
  const auto bands = load_builtin_accuracy();
  if (!bands) return std::nullopt;
  return match_accuracy(*bands, job);
}

}  // namespace stepsim::scen
