// The accuracy table: validation errors per class of run, its file, and what a run is told.
#include <catch2/catch.hpp>

#include <string>

#include "output/views/accuracy_view.hpp"
#include "scenarios/accuracy.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/validation_suite.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"

using Catch::Matchers::Contains;
using stepsim::UserError;
using stepsim::scen::AccuracyBand;
using stepsim::scen::AccuracyClass;
using stepsim::scen::ValidationCase;
using stepsim::scen::ValidationReport;
using stepsim::test::TempDir;

namespace {

const AccuracyClass kH100Dense{"h100-sxm", "train", false, "16-bit", "under 10B"};
const AccuracyClass kH100Moe{"h100-sxm", "train", true, "16-bit", "10B-100B"};

ValidationCase simulated(const std::string& id, const std::string& group, const AccuracyClass& cls,
                         double error) {
  ValidationCase c;
  c.id = id;
  c.group = group;
  c.cls = cls;
  c.measured_step_s = 10.0;
  c.predicted_step_s = 10.0 * (1.0 + error);
  c.error = error;
  return c;
}

/// A job read from a small scenario: `model` and `precision` are TOML lines of their tables.
stepsim::work::JobSpec job_of(const std::string& gpu, const std::string& kind, const std::string& model,
                              const std::string& precision) {
  const std::string batch = kind == "train" ? "global_batch = 8\nmicro_batch = 1\n" : "batch = 8\n";
  const std::string text = "[model]\n" + model + "[hardware]\ngpu = \"" + gpu +
                           "\"\nnodes = 1\ngpus_per_node = 8\n[workload]\nkind = \"" + kind +
                           "\"\nseq_len = 1024\n" + batch +
                           "[parallelism]\ntp = 8\nsequence_parallel = true\n[precision]\n" + precision;
  return stepsim::scen::load_scenario_string(text, "job.toml", stepsim::test::builtin_catalog()).job;
}

}  // namespace

TEST_CASE("accuracy bands summarise the simulated cases of each class") {
  ValidationReport r;
  r.cases = {simulated("a", "g1", kH100Dense, -0.10), simulated("b", "g2", kH100Dense, -0.05),
             simulated("c", "g1", kH100Dense, 0.03), simulated("m", "g3", kH100Moe, -0.20)};
  ValidationCase skipped = simulated("x", "g1", kH100Dense, 0.0);
  skipped.not_simulated = "no figure for its kernels";
  skipped.error = 0.9;  // never read: a not-simulated case is in no band
  r.cases.push_back(skipped);

  const auto bands = stepsim::scen::accuracy_bands(r);
  REQUIRE(bands.size() == 2);
  // Ordered by (gpu, workload, moe, precision): dense before MoE.
  const AccuracyBand& d = bands[0];
  CHECK(d.cls == kH100Dense);
  CHECK(d.runs == 3);
  // mean (-0.10 - 0.05 + 0.03) / 3 = -0.04; mean |error| (0.10 + 0.05 + 0.03) / 3 = 0.06
  CHECK(d.mean_error == Approx(-0.04));
  CHECK(d.mape == Approx(0.06));
  CHECK(d.min_error == Approx(-0.10));
  CHECK(d.max_error == Approx(0.03));
  CHECK(d.groups == std::vector<std::string>{"g1", "g2"});
  CHECK(d.cases == std::vector<std::string>{"a", "b", "c"});
  CHECK(bands[1].cls == kH100Moe);
  CHECK(bands[1].runs == 1);
  CHECK(bands[1].mean_error == Approx(-0.20));
}

TEST_CASE("the accuracy file reads back what was written, and bad files are errors at their line") {
  ValidationReport r;
  r.cases = {simulated("a", "g1", kH100Dense, -0.1234), simulated("b", "g1", kH100Dense, 0.0321),
             simulated("m", "g3", kH100Moe, -0.2)};
  const auto bands = stepsim::scen::accuracy_bands(r);
  TempDir dir;
  const std::string text = stepsim::scen::accuracy_toml(bands);
  const auto back = stepsim::scen::load_accuracy(dir.write("validated.toml", text));
  REQUIRE(back.size() == 2);
  CHECK(back[0].cls == kH100Dense);
  CHECK(back[0].runs == 2);
  // mean (-0.1234 + 0.0321) / 2 = -0.04565, written with four decimals: -0.0457 (or -0.0456)
  CHECK(back[0].mean_error == Approx(-0.04565).margin(1e-4));
  CHECK(back[0].min_error == Approx(-0.1234));
  CHECK(back[0].max_error == Approx(0.0321));
  CHECK(back[0].cases == std::vector<std::string>{"a", "b"});
  // The same bands give the same bytes.
  CHECK(stepsim::scen::accuracy_toml(back) == text);

  const std::string band =
      "[[class]]\ngpu = \"h100-sxm\"\nworkload = \"train\"\nmoe = false\nprecision = \"16-bit\"\nsize = "
      "\"under 10B\"\nruns = "
      "2\n";
  const std::string errors = "mean_error = -0.05\nmin_error = -0.1\nmax_error = 0.0\nmape = 0.05\n";
  SECTION("a missing figure") {
    const auto f = dir.write("a.toml", band + "mean_error = -0.05\n");
    CHECK_THROWS_WITH(stepsim::scen::load_accuracy(f), Contains("a.toml") && Contains("min_error"));
  }
  SECTION("a mean outside its own range") {
    const auto f =
        dir.write("b.toml", band + "mean_error = -0.2\nmin_error = -0.1\nmax_error = 0.0\nmape = 0.05\n");
    CHECK_THROWS_WITH(stepsim::scen::load_accuracy(f),
                      Contains("b.toml:") && Contains("min_error <= mean_error"));
  }
  SECTION("a class twice") {
    const auto f = dir.write("c.toml", band + errors + band + errors);
    CHECK_THROWS_WITH(stepsim::scen::load_accuracy(f),
                      Contains("c.toml:13:") && Contains("second [[class]]"));
  }
  SECTION("a size class stepsim does not have") {
    std::string text = band + errors;
    text.replace(text.find("under 10B"), 9, "small");
    const auto f = dir.write("e.toml", text);
    CHECK_THROWS_WITH(stepsim::scen::load_accuracy(f), Contains("e.toml:6:") && Contains("\"10B-100B\""));
  }
  SECTION("an unknown key") {
    const auto f = dir.write("d.toml", band + errors + "bias = 0.1\n");
    CHECK_THROWS_AS(stepsim::scen::load_accuracy(f), UserError);
    CHECK_THROWS_WITH(stepsim::scen::load_accuracy(f), Contains("d.toml:12:") && Contains("bias"));
  }
}

TEST_CASE(
    "a job's class: its GPU, kind, experts, the linear layers' precision (bf16 and fp16 as one) and size") {
  const std::string dense = "preset = \"llama-3.1-8b\"\nlayers = 2\n";
  const auto bf16 = stepsim::scen::accuracy_class_of(job_of("h100", "train", dense, "compute = \"bf16\"\n"));
  CHECK(bf16 == kH100Dense);  // the alias h100 resolves to the catalog id
  CHECK(bf16.text() == "h100-sxm, training, dense, 16-bit, under 10B");  // Llama 3.1 8B's layers at 2 of 32
  const auto fp16 = stepsim::scen::accuracy_class_of(job_of("a100", "train", dense, "compute = \"fp16\"\n"));
  CHECK(fp16.precision == "16-bit");
  const auto fp8 =
      stepsim::scen::accuracy_class_of(job_of("h100-sxm", "prefill", dense, "compute = \"fp8\"\n"));
  CHECK(fp8.precision == "fp8");
  CHECK(fp8.workload == "prefill");
  // Mixtral 8x7B: 46.7B parameters, 12.9B active per token (two of its eight experts): 10B-100B.
  const std::string moe = "preset = \"mixtral-8x7b\"\n";
  CHECK(stepsim::scen::accuracy_class_of(job_of("h100-sxm", "train", moe, "compute = \"bf16\"\n")) ==
        kH100Moe);
  // Llama 3.1 405B: 100B and more.
  const std::string large = "preset = \"llama-3.1-405b\"\n";
  CHECK(stepsim::scen::accuracy_class_of(job_of("h100-sxm", "train", large, "compute = \"bf16\"\n")).size ==
        "100B and more");
}

TEST_CASE("a run is told its class's band and what it would measure erring as those runs did") {
  AccuracyBand b{kH100Dense, 4, -0.05, -0.20, 0.25, 0.12, {"g"}, {"a", "b", "c", "d"}};
  const stepsim::scen::AccuracyMatch m{kH100Dense, b, {}};
  // measured = simulated / (1 + error): 10 s / 1.25 = 8 s at the largest error, 10 s / 0.8 = 12.5 s at the
  // smallest
  const auto [low, high] = m.implied_s(10.0);
  CHECK(low == Approx(8.0));
  CHECK(high == Approx(12.5));
  const std::string text = stepsim::out::validated_text(m, 10.0);
  CHECK_THAT(text,
             Contains("4 published runs like this one (h100-sxm, training, dense, 16-bit, under 10B)") &&
                 Contains("20.0% below to 25.0% above the measurements (mean 5.0% below)") &&
                 Contains("would measure 8.000 s to 12.500 s"));
  const auto j = stepsim::out::validated_json(m, 10.0);
  CHECK(j["runs"] == 4);
  CHECK(j["class"]["size"] == "under 10B");  // all five keys of the class
  CHECK(j["implied_s"][1].get<double>() == Approx(12.5));

  const stepsim::scen::AccuracyMatch none{kH100Moe, std::nullopt, {}};
  CHECK_THAT(stepsim::out::validated_text(none, 10.0),
             Contains("no published run like this one (h100-sxm, training, MoE, 16-bit, 10B-100B)"));
  CHECK(stepsim::out::validated_json(none, 10.0)["runs"] == 0);
  CHECK_THROWS_AS(none.implied_s(10.0), std::logic_error);
}

TEST_CASE("a preset variant with no run of its own is told the band of the nearest base that has one") {
  // h100-nvl was started from h100-pcie, which was started from h100-sxm (scenarios/catalog/gpus.toml).
  const AccuracyBand sxm{kH100Dense, 3, -0.09, -0.12, -0.06, 0.09, {"g"}, {"a", "b", "c"}};
  const auto job =
      job_of("h100-nvl", "train", "preset = \"llama-3.1-8b\"\nlayers = 2\n", "compute = \"bf16\"\n");
  CHECK(job.cluster.gpu.preset_lineage == std::vector<std::string>{"h100-pcie", "h100-sxm"});
  const auto m = stepsim::scen::match_accuracy({sxm}, job);
  CHECK(m.cls.gpu == "h100-nvl");
  CHECK(m.via == "h100-sxm");
  REQUIRE(m.band.has_value());
  CHECK(m.band->runs == 3);
  CHECK_THAT(stepsim::out::validated_text(m, 10.0),
             Contains("no published run on h100-nvl (a preset variant of h100-sxm); on h100-sxm, 3 published "
                      "runs like this one (h100-sxm, training, dense, 16-bit, under 10B)") &&
                 Contains("what h100-nvl changes is unchecked"));
  CHECK(stepsim::out::validated_json(m, 10.0)["via_preset"] == "h100-sxm");
  CHECK(stepsim::out::validated_cell(m).starts_with("on h100-sxm: mean 9.0% below"));
  // A band of the GPU's own class wins over its base's.
  AccuracyBand own = sxm;
  own.cls.gpu = "h100-nvl";
  own.runs = 1;
  const auto m2 = stepsim::scen::match_accuracy({sxm, own}, job);
  CHECK(m2.via.empty());
  CHECK(m2.band->runs == 1);
  // A part of its own (no preset) never borrows another's band.
  CHECK(
      !stepsim::scen::match_accuracy(
           {sxm}, job_of("h200", "train", "preset = \"llama-3.1-8b\"\nlayers = 2\n", "compute = \"bf16\"\n"))
           .band.has_value());
}

TEST_CASE("the shipped accuracy table reads and names classes the validation set has") {
  const auto bands = stepsim::scen::load_builtin_accuracy();
  REQUIRE(bands.has_value());
  // Its figures are checked against `stepsim validate` by tests/scripts/validate/check_validation.py;
  // here only that it reads and that the H100 dense training class is there with several runs.
  const auto match = stepsim::scen::match_accuracy(
      *bands, job_of("h100-sxm", "train", "preset = \"llama-3.1-8b\"\nlayers = 2\n", "compute = \"bf16\"\n"));
  REQUIRE(match.band.has_value());
  CHECK(match.band->runs >= 2);
}
