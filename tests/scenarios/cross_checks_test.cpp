// The cross-field rules (scenarios/cross_checks.hpp): one set applied by the loader (located at
// the key as written) and by the layout search (to every layout it considers); NVLink islands
// smaller than a node, which the rules accept and the topology now builds.
#include <catch2/catch.hpp>

#include <algorithm>

#include "output/search/layout_search.hpp"
#include "scenarios/cross_checks.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/small_inputs.hpp"
#include "tests/support/temp_files.hpp"
#include "topology/topology.hpp"
#include "workloads/layout/layout_space.hpp"

namespace cross_checks_tests {

using stepsim::UserError;
using stepsim::scen::check_job_rules;
using stepsim::scen::load_scenario_string;
using stepsim::test::builtin_catalog;
namespace work = stepsim::work;
namespace topo = stepsim::topo;

// Lines as small_inputs.hpp lists them: ep = 8 on line 14, imbalance = 1.5 on line 16.
const std::string kMoe = stepsim::test::small_moe_train();

/// The UserError `f` throws (fails the test if it throws none).
template <class F>
UserError refusal(F f) {
  try {
    f();
  } catch (const UserError& e) {
    return e;
  }
  FAIL("no UserError");
  return UserError("");
}

TEST_CASE("check_job_rules names the key of the rule a job breaks, without a file position") {
  const work::JobSpec valid = load_scenario_string(kMoe, "moe.toml", builtin_catalog()).job;
  CHECK_NOTHROW(check_job_rules(valid));
  work::JobSpec job = valid;
  job.moe.imbalance = 4.5;  // Mixtral routes each token to 2 of 8 experts: at most 8 / 2 = 4
  const UserError e = refusal([&] { check_job_rules(job); });
  CHECK(e.key() == "moe.imbalance");
  CHECK(e.where().file.empty());
  CHECK_THAT(e.problem(), Catch::Contains("above experts / top_k = 8 / 2 = 4"));
  job.moe.imbalance = 4.0;  // every token's 2 choices include the busiest expert: allowed
  CHECK_NOTHROW(check_job_rules(job));

  job = valid;
  job.parallel.tp = 2;
  job.parallel.ep = 4;
  job.parallel.dp = 4;  // tp x dp = 8 GPUs; ep x expert_tp = 4 divides tp x dp
  CHECK(refusal([&] { check_job_rules(job); }).key() == "parallelism.tp");  // MoE TP needs SP
  job.parallel.sequence_parallel = true;
  CHECK_NOTHROW(check_job_rules(job));
}

TEST_CASE("the loader locates a rule's refusal at the key as the scenario wrote it") {
  const std::string text =
      kMoe.substr(0, kMoe.find("imbalance = 1.5")) + "imbalance = 6";  // its value: line 16, column 13
  const UserError in_file = refusal([&] { load_scenario_string(text, "moe.toml", builtin_catalog()); });
  CHECK(in_file.where().file == "moe.toml");
  CHECK(in_file.where().line == 16);
  CHECK(in_file.where().column == 13);
  CHECK(in_file.key() == "moe.imbalance");

  stepsim::scen::LoadOptions set;
  set.set = {"moe.imbalance=6"};
  const UserError overridden =
      refusal([&] { load_scenario_string(kMoe, "moe.toml", builtin_catalog(), set); });
  CHECK(overridden.where().file == "--set moe.imbalance=6");
  CHECK(overridden.key() == "moe.imbalance");
}

TEST_CASE("a rule whose key kept its default points at the key written with it") {
  //  1-7 as kMoe with llama-3.1-8b; 8 [workload] 9 kind = "serve" 10 [serving] 11 rate_per_s = 1
  //  12 requests = 4 13 input_len = 64 14 output_len = 8 15 max_batch = 10000
  const std::string serve = stepsim::test::small_llama_node() + R"([workload]
kind = "serve"
[serving]
rate_per_s = 1
requests = 4
input_len = 64
output_len = 8
max_batch = 10000
)";
  // max_num_tokens keeps its default 8192, below max_batch: the error stands at max_batch.
  const UserError e = refusal([&] { load_scenario_string(serve, "serve.toml", builtin_catalog()); });
  CHECK(e.key() == "serving.max_batch");
  CHECK(e.where().line == 15);
  CHECK_THAT(e.problem(), Catch::Contains("max_num_tokens = 8192 is below max_batch = 10000"));
}

TEST_CASE("the stated Transformer Engine release decides MLA's attention on Blackwell") {
  //  1 [model] 2 preset 3 [hardware] 4 gpu 5 nodes 6 gpus_per_node 7 [workload] 8 kind 9 seq_len
  //  10 global_batch 11 transformer_engine 12 (attention_impl, where given)
  const auto scenario = [](const std::string& gpu, const std::string& te, const std::string& extra = "") {
    return "[model]\npreset = \"deepseek-v3\"\n[hardware]\ngpu = \"" + gpu +
           "\"\nnodes = 64\ngpus_per_node = 4\n[workload]\nkind = \"train\"\nseq_len = 4096\n"
           "global_batch = 1024\ntransformer_engine = \"" +
           te + "\"\n" + extra;
  };
  const auto impl = [&](const std::string& gpu, const std::string& te) {
    return load_scenario_string(scenario(gpu, te), "te.toml", builtin_catalog()).job.workload;
  };
  // Transformer Engine 2.2 on Blackwell: no fused kernel for 192 / 128 heads, so unfused.
  const work::WorkloadSpec gb200 = impl("gb200", "2.2");
  CHECK(gb200.attention_impl == work::AttentionImpl::unfused);
  CHECK_THAT(gb200.attention_note, Catch::Contains("UnfusedDotProductAttention"));
  CHECK(impl("gb200", "2.5").attention_impl == work::AttentionImpl::flash);
  CHECK(impl("h100-sxm", "2.2").attention_impl == work::AttentionImpl::flash);
  CHECK(impl("h100-sxm", "2.2").attention_note.empty());
  // Asking for fused attention that release does not have is refused where it was asked.
  const UserError e = refusal([&] {
    load_scenario_string(scenario("gb200", "2.2", "attention_impl = \"flash\"\n"), "te.toml",
                         builtin_catalog());
  });
  CHECK(e.key() == "workload.attention_impl");
  CHECK(e.where().line == 12);
  CHECK_THAT(e.hint(), Catch::Contains("2.5 or later"));
  // A release number that is not one.
  const UserError bad =
      refusal([&] { load_scenario_string(scenario("gb200", "latest"), "te.toml", builtin_catalog()); });
  CHECK(bad.key() == "workload.transformer_engine");
  CHECK(bad.where().line == 11);
  CHECK_THAT(bad.problem(), Catch::Contains("\"latest\" is not a release number"));
}

TEST_CASE("an NVLink island smaller than a node: NVLink inside it, the NICs between islands") {
  // 2 nodes of 8 GPUs in NVLink islands of 4, rail-optimised: GPUs 0-3 and 4-7 are the islands
  // of node 0, 8-11 and 12-15 those of node 1.
  const std::string text = R"([model]
preset = "llama-3.1-8b"
layers = 4
[hardware]
gpu = "h100-sxm"
nodes = 2
gpus_per_node = 8
nvlink_domain = 4
[fabric]
kind = "rail-optimized"
[workload]
kind = "train"
seq_len = 1024
global_batch = 16
[parallelism]
tp = 4
)";
  const stepsim::scen::Scenario s = load_scenario_string(text, "islands.toml", builtin_catalog());
  REQUIRE(s.job.cluster.nvlink_domain == 4);
  const topo::Topology t(s.job.cluster);
  CHECK(t.domain_size() == 4);
  const auto path = [&](topo::GpuId a, topo::GpuId b) {
    std::vector<topo::LinkId> out;
    t.route(a, b, 0, out);
    std::vector<topo::LinkKind> kinds;
    for (topo::LinkId l : out) kinds.push_back(t.link(l).kind);
    return std::pair{out, kinds};
  };
  const auto nvlink = [](const std::vector<topo::LinkKind>& k) {
    return std::count(k.begin(), k.end(), topo::LinkKind::nvlink);
  };
  CHECK(path(0, 3).second == std::vector{topo::LinkKind::nvlink, topo::LinkKind::nvlink});  // one island
  const auto [same_host, same_host_kinds] = path(0, 4);  // node 0's other island: out of the NIC
  CHECK(nvlink(same_host_kinds) == 0);
  CHECK(same_host.front() == t.nic_up(0));
  CHECK(same_host.back() == t.nic_down(4));
  // To gpu11 (rail 3): PXN relays over NVLink to gpu3, in gpu0's island, then out of its NIC.
  const auto [relayed, relayed_kinds] = path(0, 11);
  CHECK(relayed_kinds.front() == topo::LinkKind::nvlink);
  CHECK(t.link(relayed[2]).kind == topo::LinkKind::nic);
  CHECK(relayed[2] == t.nic_up(3));
  // To gpu12 (rail 4): gpu4 is in the other island, so no relay: gpu0's own NIC.
  const auto [direct, direct_kinds] = path(0, 12);
  CHECK(nvlink(direct_kinds) == 0);
  CHECK(direct.front() == t.nic_up(0));
}

TEST_CASE("the layout search applies the loader's rules to every layout it considers") {
  // Selective recomputation of the layer norms: a layout with no or full recomputation is one the
  // loader refuses (recompute_modules needs recompute = "selective"), so the search must count it
  // invalid and never simulate it.
  const std::string base = stepsim::test::small_llama_node() + R"([workload]
kind = "train"
seq_len = 1024
global_batch = 16
recompute = "selective"
recompute_modules = ["core_attn", "layernorm"]
)";
  stepsim::test::TempDir dir;
  dir.write("base.toml", base);
  const work::JobSpec job = load_scenario_string(base, "base.toml", builtin_catalog()).job;
  work::Layout full;
  full.knob(work::Knob::recompute) = static_cast<int>(work::Recompute::full);
  full.dp = 8;
  CHECK(refusal([&] { check_job_rules(work::with_layout(job, full)); }).key() ==
        "workload.recompute_modules");

  stepsim::out::SearchOptions o;
  o.space.max_pp = 1;
  o.space.values(work::Knob::micro_batch) = {1};
  o.space.values(work::Knob::zero_stage) = {1};
  o.space.values(work::Knob::tp_comm_overlap) = {0};
  const stepsim::out::SearchResult r =
      stepsim::out::search_layouts(dir.path() / "base.toml", builtin_catalog(), o);
  // tp 1, 2, 4, 8 (dividing the 32 heads and 8 KV heads, at most the NVLink domain) x 3 recompute
  // modes = 12 layouts, of which the 8 with no or full recomputation are invalid.
  CHECK(r.total.enumerated == 12);
  CHECK(r.total.invalid == 8);
  CHECK(r.total.rejected == 0);
  CHECK_THAT(r.first_invalid, Catch::Contains("workload.recompute_modules"));
  for (const auto& c : r.simulated) CHECK(c.layout.recompute() == work::Recompute::selective);
}

}  // namespace cross_checks_tests
