// Sweep files: axes (lists, ranges, zipped keys), filters and predicates, expansion order,
// sharding, and errors that point at the sweep file.
#include <catch2/catch.hpp>

#include <filesystem>

#include "scenarios/sweep.hpp"
#include "scenarios/sweep_scenarios.hpp"
#include "tests/support/catalog.hpp"

using namespace stepsim;
using namespace stepsim::scen;
namespace fs = std::filesystem;

namespace {

// 16 H100s training Llama 3.1 8B, 9 lines; tests add [sweep] keys before it and axes after it.
const std::string kSweepBase = R"([base.model]
preset = "llama-3.1-8b"
[base.hardware]
gpu = "h100-sxm"
nodes = 2
[base.workload]
kind = "train"
seq_len = 2048
global_batch = 32
)";

/// "[sweep]" and `sweep_keys` (one line each), the base, then `rest`: with no sweep keys, `rest`
/// starts on line 11.
std::string text(const std::string& rest, const std::string& sweep_keys = "") {
  return "[sweep]\n" + sweep_keys + kSweepBase + rest;
}

Sweep sweep(const std::string& rest, const std::string& sweep_keys = "") {
  return load_sweep_string(text(rest, sweep_keys), "s.toml");
}

/// The message of the UserError that loading `rest` raises.
std::string sweep_error_of(const std::string& rest, const std::string& sweep_keys = "") {
  try {
    const Sweep s = sweep(rest, sweep_keys);
    SweepScenarios check(s, stepsim::test::builtin_catalog());
  } catch (const UserError& e) {
    return e.what();
  }
  FAIL("no error for " << rest);
  return {};
}

/// Every point as "tp=1 pp=2 ..." (values' TOML text), in order.
std::vector<std::string> listing(const Sweep& s) {
  const SweepPoints points(s);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::string line;
    const auto values = point_values(s, points.steps(i));
    for (std::size_t k = 0; k < values.size(); ++k)
      line += (k ? " " : "") + s.keys[k].name + "=" + values[k]->toml_text();
    out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("Axes expand as nested loops, the first outermost") {
  const Sweep s = sweep(R"(
[[axis]]
key = "parallelism.tp"
values = [1, 2]
[[axis]]
keys = ["hardware.gpu", "hardware.nic_gbps"]
names = ["gpu", "nic"]
values = [["h100-sxm", 400], ["h200", 800.5]]
)");
  REQUIRE(s.keys.size() == 3);
  CHECK(s.keys[0].kind == ValueKind::integer);
  CHECK(s.keys[1].kind == ValueKind::text);
  CHECK(s.keys[2].kind == ValueKind::real);  // 400 and 800.5: integers widen to numbers
  CHECK(s.product_size() == 4);              // 2 x 2 (zipped keys are one axis)
  // Strings print as TOML literal strings.
  CHECK(listing(s) == std::vector<std::string>{"tp=1 gpu='h100-sxm' nic=400", "tp=1 gpu='h200' nic=800.5",
                                               "tp=2 gpu='h100-sxm' nic=400", "tp=2 gpu='h200' nic=800.5"});
}

TEST_CASE("Ranges: arithmetic, geometric, integer and real") {
  const Sweep s = sweep(R"(
[[axis]]
key = "hardware.nodes"
from = 1
to = 16
times = 2
[[axis]]
key = "hardware.nic_gbps"
from = 100.0
to = 0.4e3
step = 150
)");
  // nodes: 1, 2, 4, 8, 16 (16 x 2 = 32 > 16 stops); nic: 100, 250, 400 (from + i x step, i = 0..2).
  const std::vector<std::string> l = listing(s);
  REQUIRE(l.size() == 15);
  CHECK(l[0] == "nodes=1 nic_gbps=100.0");
  CHECK(l[1] == "nodes=1 nic_gbps=250.0");
  CHECK(l[14] == "nodes=16 nic_gbps=400.0");
  CHECK(s.keys[0].kind == ValueKind::integer);
  CHECK(s.keys[1].kind == ValueKind::real);
  // A float step that does not land on `to` stops below it: 0.1, 0.2, 0.3 (0.4 > 0.35).
  const Sweep f = sweep("[[axis]]\nkey = \"hardware.efficiency.nic\"\nfrom = 0.1\nto = 0.35\nstep = 0.1\n");
  CHECK(listing(f) == std::vector<std::string>{"nic=0.1", "nic=0.2", "nic=0.30000000000000004"});
}

TEST_CASE("Filters and predicates remove points, the rest keep their order") {
  const Sweep s = sweep(R"(
[predicates]
odd_pp = "pp % 2 == 1"
[[axis]]
key = "parallelism.tp"
values = [1, 2, 4, 8]
[[axis]]
key = "parallelism.pp"
values = [1, 2, 3]
)",
                        "where = [\"tp * pp <= 8\", \"not odd_pp or tp == 1\"]\n");
  // tp x pp <= 8 keeps (1,1) (1,2) (1,3) (2,1) (2,2) (2,3) (4,1) (4,2) (8,1); pp odd needs tp = 1,
  // which removes (2,1) (2,3) (4,1) (8,1): 5 of 12 remain.
  CHECK(listing(s) ==
        std::vector<std::string>{"tp=1 pp=1", "tp=1 pp=2", "tp=1 pp=3", "tp=2 pp=2", "tp=4 pp=2"});
  CHECK(SweepPoints(s).rejected() == 7);
}

TEST_CASE("A sweep without axes has its base as its only point") {
  const Sweep s = sweep("");
  CHECK(SweepPoints(s).size() == 1);
  CHECK(s.base_inline);
}

TEST_CASE("Shards split points round-robin") {
  const Shard s = parse_shard("2/3", "--shard");
  CHECK(s.index == 2);
  CHECK(s.count == 3);
  CHECK(s.contains(5));  // 5 % 3 = 2
  CHECK_FALSE(s.contains(6));
  CHECK_THROWS_WITH(parse_shard("3/3", "--shard"), Catch::Contains("0 <= I < N"));
  CHECK_THROWS_WITH(parse_shard("1", "--shard"), Catch::Contains("expected I/N"));
  CHECK_THROWS_WITH(parse_shard("a/2", "--shard"), Catch::Contains("expected I/N"));
}

TEST_CASE("The fingerprint covers the sweep and its base") {
  const Sweep a = sweep("[[axis]]\nkey = \"parallelism.tp\"\nvalues = [1, 2]\n");
  const Sweep b = sweep("[[axis]]\nkey = \"parallelism.tp\"\nvalues = [1, 4]\n");
  CHECK(a.hash == sweep("[[axis]]\nkey = \"parallelism.tp\"\nvalues = [1, 2]\n").hash);
  CHECK(a.hash != b.hash);
  CHECK(a.hash_hex().size() == 16);
}

TEST_CASE("Sweep file errors point at the file, line and column, with a hint") {
  // With no [sweep] keys, text after the base starts on line 11.
  CHECK_THAT(sweep_error_of("", "wher = []\n"),
             Catch::Contains("s.toml:2:1: sweep.wher") && Catch::Contains("did you mean `where`?"));
  CHECK_THAT(sweep_error_of("[[axis]]\nkey = \"paralelism.tp\"\nvalues = [1]\n"),
             Catch::Contains("s.toml:12:7: axis[0].key") && Catch::Contains("did you mean `parallelism`?"));
  CHECK_THAT(sweep_error_of("[[axis]]\nkey = \"parallelism.tpp\"\nvalues = [1]\n"),
             Catch::Contains("s.toml:12:7: parallelism.tpp: is not a key of the base scenario") &&
                 Catch::Contains("did you mean `tp`?"));
  CHECK_THAT(sweep_error_of("[[axis]]\nvalues = [1]\n"),
             Catch::Contains("s.toml:11:1: axis[0]: missing `key`"));
  CHECK_THAT(sweep_error_of("[[axis]]\nkey = \"parallelism.tp\"\nvalues = [1, \"2\"]\n"),
             Catch::Contains("s.toml:13:14") && Catch::Contains("mix types (integers and strings)"));
  CHECK_THAT(
      sweep_error_of("[[axis]]\nkeys = [\"parallelism.tp\", \"parallelism.pp\"]\nvalues = [[1, 2], [3]]\n"),
      Catch::Contains("s.toml:13:19") && Catch::Contains("expected a tuple of 2 values"));
  CHECK_THAT(sweep_error_of("[[axis]]\nkey = \"parallelism.tp\"\nfrom = 1\nto = 8\nstep = 0\n"),
             Catch::Contains("s.toml:15:8: axis[0].step: must be positive"));
  CHECK_THAT(sweep_error_of("[[axis]]\nkey = \"parallelism.tp\"\nfrom = 8\nto = 1\nstep = 1\n"),
             Catch::Contains("s.toml:14:6: axis[0].to: must be at least `from`"));
  CHECK_THAT(sweep_error_of("[[axis]]\nkey = \"parallelism.tp\"\nvalues = [1]\nfrom = 1\n"),
             Catch::Contains("not both"));
  CHECK_THAT(sweep_error_of("[[axis]]\nkey = \"parallelism.tp\"\nvalues = [1]\n[[axis]]\nkey = "
                            "\"parallelism.tp\"\nvalues = [2]\n"),
             Catch::Contains("s.toml:15:7") && Catch::Contains("already swept by the axis at line 12"));
  CHECK_THAT(
      sweep_error_of(
          "[[axis]]\nkey = \"parallelism.tp\"\nvalues = [1]\n[[axis]]\nkey = \"moe.tp\"\nvalues = [2]\n"),
      Catch::Contains("the name `tp` is already used by `parallelism.tp`"));
}

TEST_CASE("Filter errors point inside the expression") {
  const std::string axis = "[[axis]]\nkey = \"parallelism.tp\"\nvalues = [1]\n";
  // `where = ["tp * tpp <= 8"]` on line 2: the string starts at column 10, its text at 11, and
  // `tpp` is its 6th character: column 16.
  CHECK_THAT(sweep_error_of(axis, "where = [\"tp * tpp <= 8\"]\n"),
             Catch::Contains("s.toml:2:16: sweep.where[0]: unknown name `tpp`") &&
                 Catch::Contains("did you mean `tp`?"));
  CHECK_THAT(sweep_error_of(axis, "where = [\"tp * zz <= 8\"]\n"),
             Catch::Contains("names here: tp, parallelism.tp"));
  CHECK_THAT(sweep_error_of(axis, "where = \"tp * 2\"\n"),
             Catch::Contains("s.toml:2:9: sweep.where: a filter must be true or false"));
  CHECK_THAT(sweep_error_of(axis + "[predicates]\na = \"b\"\nb = \"a\"\n", "where = \"a\"\n"),
             Catch::Contains("refers to itself"));
}

TEST_CASE("The base scenario is given exactly once") {
  CHECK_THROWS_WITH(load_sweep_string("[sweep]\nname = \"x\"\n", "s.toml"),
                    Catch::Contains("missing the base scenario"));
  CHECK_THROWS_WITH(load_sweep_string("[sweep]\nbase = \"nowhere.toml\"\n", "s.toml"),
                    Catch::Contains("scenario file `nowhere.toml` not found"));
  CHECK_THROWS_WITH(sweep("", "base = \"x.toml\"\n"), Catch::Contains("given twice"));
}

TEST_CASE("A point's scenario carries its values, and its errors point at the axis value") {
  const Sweep s = sweep(R"([[axis]]
key = "parallelism.tp"
values = [2, 0, 3]
[[axis]]
key = "hardware.nic_gbps"
values = [200]
)");
  const SweepScenarios scenarios(s, stepsim::test::builtin_catalog());
  const SweepPoints points(s);
  const Scenario ok = scenarios.load(point_values(s, points.steps(0)));
  CHECK(ok.job.parallel.tp == 2);
  CHECK(ok.job.parallel.dp == 8);                           // 16 GPUs / tp 2
  CHECK(ok.job.cluster.nic_bw().value() == Approx(200e9 / 8));  // 200 Gb/s = 25 GB/s
  // tp = 0 is out of range; the message names the value in the sweep file (line 13, column 14:
  // the `0` of `values = [2, 0, 3]`).
  CHECK_THROWS_WITH(scenarios.load(point_values(s, points.steps(1))),
                    Catch::Contains("s.toml:13:14: parallelism.tp: must be at least 1"));
  // tp = 3 fails a cross-field check on [parallelism], which the base lacks: the message points at
  // the axis value that created the table (line 13, column 17: the `3`).
  CHECK_THROWS_WITH(
      scenarios.load(point_values(s, points.steps(2))),
      Catch::Contains("s.toml:13:17: parallelism: tp x pp x cp = 3 x 1 x 1 = 3 does not divide"));
  // Points on one cluster share a key; nic_gbps is part of it, tp is not.
  CHECK(scenarios.cluster_key(point_values(s, points.steps(0))) ==
        scenarios.cluster_key(point_values(s, points.steps(2))));
  CHECK(scenarios.cluster_key(point_values(s, points.steps(0))) == "hardware.nic_gbps=200\n");
}

TEST_CASE("The launch mode is no part of the cluster: points that differ only in it share a topology") {
  const Sweep s = sweep(R"([[axis]]
key = "workload.cuda_graphs"
values = [false, true]
[[axis]]
key = "hardware.nic_gbps"
values = [200]
)");
  const SweepScenarios scenarios(s, stepsim::test::builtin_catalog());
  const SweepPoints points(s);
  const auto eager_values = point_values(s, points.steps(0)),
             graphs_values = point_values(s, points.steps(1));
  const Scenario eager = scenarios.load(eager_values), graphs = scenarios.load(graphs_values);
  REQUIRE(eager.job.workload.cuda_graphs != graphs.job.workload.cuda_graphs);
  // CUDA graphs only drop the host timeline: the GPU's launch figures are the catalog's either way.
  CHECK(eager.job.cluster.gpu.kernel_gap_s == graphs.job.cluster.gpu.kernel_gap_s);
  CHECK(eager.job.cluster.gpu.host_launch_s == graphs.job.cluster.gpu.host_launch_s);
  CHECK(scenarios.cluster_key(eager_values) == "hardware.nic_gbps=200\n");
  CHECK(scenarios.cluster_key(graphs_values) == "hardware.nic_gbps=200\n");
}

TEST_CASE("Points that differ only in their fabric share a program key") {
  // hardware.nic_gbps and [fabric] only build the topology's links; tp and the GPU change the step.
  const Sweep s = sweep(R"([[axis]]
key = "parallelism.tp"
values = [1, 2]
[[axis]]
keys = ["hardware.nic_gbps", "fabric.oversubscription"]
values = [[200, 1.0], [400, 2.0]]
[[axis]]
key = "hardware.gpu"
values = ["h100-sxm", "h200"]
)");
  const SweepScenarios scenarios(s, stepsim::test::builtin_catalog());
  const SweepPoints points(s);
  REQUIRE(points.size() == 8);
  const auto key = [&](std::size_t p) { return scenarios.program_key(point_values(s, points.steps(p))); };
  // Points 0 to 3 are tp 1: (200, h100), (200, h200), (400, h100), (400, h200).
  CHECK(key(0) == key(2));
  CHECK(key(1) == key(3));
  CHECK(key(0) != key(1));
  CHECK(key(0) != key(4));  // tp 2
  CHECK(key(0) == "parallelism.tp=1\nhardware.gpu='h100-sxm'\n");
  // The cluster keys of points 0 and 2 differ: they share the step, not the topology.
  CHECK(scenarios.cluster_key(point_values(s, points.steps(0))) !=
        scenarios.cluster_key(point_values(s, points.steps(2))));
}

TEST_CASE("The bundled example sweeps load, and their keys are keys of their base") {
  int sweeps = 0;
  for (const auto& e : fs::directory_iterator(fs::path(STEPSIM_SOURCE_DIR) / "scenarios/examples/sweeps")) {
    CAPTURE(e.path());
    const Sweep s = load_sweep(e.path());
    const SweepScenarios scenarios(
        s, stepsim::test::builtin_catalog());  // checks the axis keys against the base
    const SweepPoints points(s);
    CHECK(points.size() > 0);
    CHECK_NOTHROW(scenarios.load(point_values(s, points.steps(0))));
    ++sweeps;
  }
  CHECK(sweeps >= 1);
  // llama3.1-70b-dp-nic: 5 data-parallel widths x 5 NIC speeds x 1 batch.
  CHECK(SweepPoints(
            load_sweep(fs::path(STEPSIM_SOURCE_DIR) / "scenarios/examples/sweeps/llama3.1-70b-dp-nic.toml"))
            .size() == 25);
}
