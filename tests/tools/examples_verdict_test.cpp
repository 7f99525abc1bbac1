// Every bundled single-step example (scenarios/examples, train, prefill and decode; not the sweep and
// cluster files, which name other scenarios) through the real
// binary: the headline verdict is the largest entry of the breakdown and its second, in the table
// and the JSON; the memory verdict comes before any rate; HFU is never below MFU; no "-0.0%"; and an
// example that does not fit says at the top of its file why it is shown anyway.
//
// Simulating them all, twice, takes 20-30 s on two cores: tagged [slow] (ctest label `slow`).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"

using namespace stepsim;

namespace {

namespace fs = std::filesystem;

/// The bundled scenarios that simulate one step, in path order (sweep files and serving or
/// generation runs left out: they have no step breakdown).
std::vector<fs::path> single_step_examples() {
  std::vector<fs::path> out;
  const fs::path root = fs::path(STEPSIM_SOURCE_DIR) / "scenarios" / "examples";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".toml" || e.path().parent_path().filename() == "sweeps") continue;
    if (e.path().stem().extension() == ".cluster") continue;  // several scenarios: `stepsim cluster`
    const auto kind = scen::load_scenario(e.path().string(), test::builtin_catalog()).job.workload.kind;
    if (kind == work::WorkloadKind::serve || kind == work::WorkloadKind::generate) continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct NamedSeconds {
  std::string key;
  double seconds;
};

/// The breakdown JSON's entries under the verdict's keys.
std::vector<NamedSeconds> breakdown_of(const nlohmann::json& b) {
  std::vector<NamedSeconds> e{{"compute", b["compute_s"]},
                              {"memory_bound", b["memory_bound_s"]},
                              {"bubble", b["bubble_s"]},
                              {"host_bound", b["host_bound_s"]}};
  for (const auto& [group, s] : b["exposed_comm_s"].items()) e.push_back({"exposed_comm." + group, s});
  std::sort(e.begin(), e.end(), [](const auto& x, const auto& y) { return x.seconds > y.seconds; });
  return e;
}

/// Rows of the "where the time goes" table as (label, printed share in %).
std::vector<std::pair<std::string, double>> breakdown_rows_of(const std::string& table) {
  std::vector<std::pair<std::string, double>> rows;
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line) && line.rfind("where the time goes", 0) != 0) {
  }
  std::getline(in, line);  // the rule
  // "<label>  <time> <unit>  <share>%": columns are at least two spaces apart.
  const std::regex row(R"(^(.+?) {2,}[\d.,]+ (?:s|ms|us|ns) +([\d.]+)%$)");
  std::smatch m;
  while (std::getline(in, line) && std::regex_match(line, m, row))
    rows.emplace_back(m[1].str(), std::stod(m[2].str()));
  return rows;
}

std::string leading_comment_of(const fs::path& p) {
  std::ifstream in(p);
  std::string head, line;
  while (std::getline(in, line) && line.rfind("#", 0) == 0) head += line + "\n";
  return head;
}

}  // namespace

TEST_CASE("bundled examples: the headline verdict is the breakdown's largest entry, then its second",
          "[examples][slow]") {
  const auto examples = single_step_examples();
  REQUIRE(examples.size() >= 8);
  for (const auto& file : examples) {
    INFO(file.string());
    const auto json_run = test::run_stepsim("run '" + file.string() + "' --format json");
    INFO(json_run.err);
    REQUIRE(json_run.exit_code == 0);
    const auto j = nlohmann::json::parse(json_run.out);
    const auto entries = breakdown_of(j["breakdown"]);
    const auto& v = j["bottleneck"];
    CHECK(v["primary"]["seconds"].get<double>() == entries[0].seconds);
    CHECK(v["secondary"]["seconds"].get<double>() == entries[1].seconds);
    if (entries[0].seconds > entries[1].seconds) CHECK(v["primary"]["key"] == entries[0].key);
    if (entries[1].seconds > entries[2].seconds) CHECK(v["secondary"]["key"] == entries[1].key);
    CHECK(j["hfu"].get<double>() >= j["mfu"].get<double>());
    if (!j["feasible"].get<bool>())
      CHECK(leading_comment_of(file).rfind("# Shown although it does not fit in memory", 0) == 0);

    const auto table_run = test::run_stepsim("run '" + file.string() + "'");
    REQUIRE(table_run.exit_code == 0);
    const std::string& t = table_run.out;
    CHECK(t.find("\nmemory      ") < t.find("\nstep time"));
    CHECK(t.find("-0.0%") == std::string::npos);
    // The table's bottleneck line starts with the label of its largest row (when the printed
    // shares do not tie).
    // Compute, memory-bound kernels and the bubble are always there (a one-GPU decode from CUDA
    // graphs has nothing else); the checks below read the three largest.
    auto rows = breakdown_rows_of(t);
    REQUIRE(rows.size() >= 3);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
    const std::string headline = t.substr(t.find("\nbottleneck  ") + 13);
    if (rows[0].second > rows[1].second) CHECK(headline.rfind(rows[0].first + " (", 0) == 0);
    if (rows[1].second > rows[2].second && rows[1].second > 0.0)
      CHECK(headline.substr(0, headline.find('\n')).find(", then " + rows[1].first + " (") !=
            std::string::npos);
  }
}

TEST_CASE("bundled examples: every GPU replayed with nothing varying is the representative step, exactly",
          "[examples][slow]") {
  // docs/simulation.md section 1: the replay starts each op of each GPU when its predecessors on
  // that GPU end, over the representative run's durations, which is that run to the picosecond when
  // every GPU is alike (also checked by hand over the 100 single-step examples and validation cases).
  for (const fs::path& file : single_step_examples()) {
    const auto r =
        test::run_stepsim("run '" + file.string() + "' --ranks replay --unset variability --format json -q");
    INFO(file.string() << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["steps"]["replayed"] == true);
    CHECK(j["steps"]["step_time_s"][0].get<double>() == j["step_time_s"].get<double>());
  }
}
