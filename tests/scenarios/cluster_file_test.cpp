// Cluster files: the bundled example reads into its jobs and placements, and every bad input is
// refused where it was written (file:line:column, key), saying what was expected.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "scenarios/cluster_file.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"

using namespace stepsim;

namespace {

const std::filesystem::path kClusterExamples =
    std::filesystem::path(STEPSIM_SOURCE_DIR) / "scenarios" / "examples" / "cluster";

scen::ClusterFile cluster_file_from(const std::string& text,
                                    const std::filesystem::path& dir = kClusterExamples) {
  return scen::load_cluster_string(text, "c.toml", test::builtin_catalog(), dir);
}

/// A cluster file of 8 nodes with the two example jobs, each with `a` and `b` as its placement lines.
std::string cluster_file_text(const std::string& a, const std::string& b, int nodes = 8) {
  return "[cluster]\nbase = \"llama3.1-8b-32xh100.toml\"\nnodes = " + std::to_string(nodes) +
         "\n\n[[job]]\nname = \"a\"\nscenario = \"llama3.1-8b-32xh100.toml\"\n" + a +
         "\n\n[[job]]\nname = \"b\"\nscenario = \"gpt-1.7b-32xh100.toml\"\n" + b + "\n";
}

/// The message of the UserError loading `text` throws.
std::string cluster_file_error(const std::string& text, const std::filesystem::path& dir = kClusterExamples) {
  try {
    cluster_file_from(text, dir);
  } catch (const UserError& e) {
    return e.what();
  }
  FAIL("no error for:\n" << text);
  return {};
}

}  // namespace

TEST_CASE("cluster file: the bundled example reads into two spread jobs on the base's 8 nodes") {
  const scen::ClusterFile f =
      scen::load_cluster_file(kClusterExamples / "two-jobs.cluster.toml", test::builtin_catalog());
  CHECK(f.name == "Llama 3.1 8B and GPT 1.7B on 64 H100, 4:1 leaves");
  CHECK(f.jobs.cluster.nodes == 8);
  CHECK(f.jobs.cluster.gpus_per_node == 8);
  CHECK(f.jobs.cluster.gpu.id == "h100-sxm");
  CHECK(f.jobs.cluster.fabric.oversubscription[0] == 4.0);
  CHECK(f.jobs.steps == 3);
  REQUIRE(f.jobs.jobs.size() == 2);
  CHECK(f.jobs.jobs[0].name == "llama-8b");
  CHECK(f.jobs.jobs[1].name == "gpt-1.7b");
  for (const auto& j : f.jobs.jobs) {
    CHECK(j.placement == work::NodePlacement::spread);
    CHECK(j.job.cluster.nodes == 4);
  }
  // Spread over the two leaves of 4 nodes: a takes 0, 4, 1, 5; b the rest.
  const auto placed = work::place_jobs(f.jobs);
  CHECK(placed[0] == std::vector<int>{0, 1, 4, 5});
  CHECK(placed[1] == std::vector<int>{2, 3, 6, 7});
}

TEST_CASE(
    "cluster file: explicit node lists, a start, and the job name defaults to the scenario's file name") {
  const auto f = cluster_file_from(
      "[cluster]\nnodes = 8\n[[job]]\nscenario = \"llama3.1-8b-32xh100.toml\"\nnodes = [7, 6, 5, 4]\n"
      "start_ms = 150\n");
  REQUIRE(f.jobs.jobs.size() == 1);
  CHECK(f.jobs.jobs[0].name == "llama3.1-8b-32xh100");
  CHECK(f.jobs.jobs[0].placement == work::NodePlacement::explicit_nodes);
  CHECK(f.jobs.jobs[0].nodes == std::vector<int>{7, 6, 5, 4});
  CHECK(f.jobs.jobs[0].start_s == Approx(0.15));
  CHECK(work::place_jobs(f.jobs)[0] == std::vector<int>{7, 6, 5, 4});
}

TEST_CASE("cluster file: bad inputs name the file, line, key and what was expected") {
  using Catch::Contains;
  // Overlapping lists: the second job's list, line 13 of the text.
  CHECK_THAT(cluster_file_error(cluster_file_text("nodes = [0, 1, 2, 3]", "nodes = [3, 4, 5, 6]")),
             Contains("c.toml:13:") && Contains("job[1].nodes: takes node 3, already job `a`'s"));
  CHECK_THAT(cluster_file_error(cluster_file_text("placement = \"packed\"", "placement = \"packed\"", 6)),
             Contains("c.toml:3:") && Contains("cluster.nodes: is 6 and the jobs' scenarios need 8 nodes") &&
                 Contains("give the cluster at least 8 nodes"));
  CHECK_THAT(cluster_file_error(cluster_file_text("nodes = [0, 1, 2]", "")),
             Contains("job[0].nodes: lists 3 nodes and the job's scenario has hardware.nodes = 4"));
  CHECK_THAT(cluster_file_error(cluster_file_text("nodes = [0, 1, 2, 8]", "")),
             Contains("expected node numbers from 0 to 7 (the cluster has 8 nodes)"));
  CHECK_THAT(cluster_file_error(cluster_file_text("nodes = [0, 1, 1, 2]", "")),
             Contains("lists node 1 twice"));
  CHECK_THAT(cluster_file_error(cluster_file_text("start_ms = -1", "")),
             Contains("job[0].start_ms") && Contains("milliseconds after time 0"));
  CHECK_THAT(cluster_file_error(cluster_file_text("placement = \"spread\"\nnodes = [0, 1, 2, 3]", "")),
             Contains("job[0].nodes: gives the job's nodes, and `placement` places them too"));
  CHECK_THAT(cluster_file_error(cluster_file_text("placement = \"packd\"", "")),
             Contains("job[0].placement") && Contains("packed"));
  std::string twice = cluster_file_text("", "");
  twice.replace(twice.find("name = \"b\""), 10, "name = \"a\"");
  CHECK_THAT(cluster_file_error(twice), Contains("job[1].name: names job `a` a second time"));
  CHECK_THAT(cluster_file_error("[cluster]\nnodes = 8\n"), Contains("missing [[job]] tables"));
  CHECK_THAT(cluster_file_error("[[job]]\nscenario = \"gpt-1.7b-32xh100.toml\"\n"),
             Contains("missing the [cluster] table"));
  CHECK_THAT(cluster_file_error("[cluster]\nnodes = 8\n[[job]]\nscenario = \"nope.toml\"\n"),
             Contains("c.toml:4:") && Contains("job[0].scenario: scenario file") && Contains("not found"));
  CHECK_THAT(
      cluster_file_error("[cluster]\nnodes = 8\nsteps = 0\n[[job]]\nscenario = \"gpt-1.7b-32xh100.toml\"\n"),
      Contains("cluster.steps"));

  SECTION("a job on other GPUs, or another fabric, is refused in its own scenario file") {
    test::TempDir dir;
    const std::string gpt = test::slurp(kClusterExamples / "gpt-1.7b-32xh100.toml");
    std::string h200 = gpt;
    h200.replace(h200.find("gpu = \"h100-sxm\""), 16, "gpu = \"h200\"");
    dir.write("h200.toml", h200);
    std::string blocking = gpt;
    blocking.replace(blocking.find("oversubscription = [4, 1]"), 25, "oversubscription = [2, 1]");
    dir.write("blocking.toml", blocking);
    const std::string base = "[cluster]\nbase = \"" +
                             (kClusterExamples / "llama3.1-8b-32xh100.toml").string() +
                             "\"\nnodes = 8\n[[job]]\nscenario = ";
    CHECK_THAT(
        cluster_file_error(base + "\"h200.toml\"\n", dir.path()),
        Contains("h200.toml:") && Contains("hardware.gpu: is h200 and the cluster's GPUs are h100-sxm"));
    CHECK_THAT(cluster_file_error(base + "\"blocking.toml\"\n", dir.path()),
               Contains("blocking.toml:") && Contains("fabric: differs from the cluster's fabric"));
  }
}
