#include <catch2/catch.hpp>

#include "scenarios/data_dir.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/toml_reader.hpp"
#include "scenarios/validation_suite.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"
#include "workloads/simulate/simulate.hpp"

using stepsim::UserError;
using stepsim::scen::Catalog;
using stepsim::scen::load_scenario;
using stepsim::scen::load_scenario_string;
namespace work = stepsim::work;
namespace fs = std::filesystem;

namespace {
const fs::path kSource = STEPSIM_SOURCE_DIR;

constexpr const char* kMinimal = R"(
[model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h100-sxm"
nodes = 2
[workload]
kind = "train"
seq_len = 4096
global_batch = 64
[parallelism]
tp = 2
pp = 2
)";
}  // namespace

TEST_CASE("a minimal scenario resolves presets and derives dp") {
  const auto s = load_scenario_string(kMinimal, "min.toml", stepsim::test::builtin_catalog());
  CHECK(s.model_preset == "llama-3.1-8b");
  CHECK(s.gpu_preset == "h100-sxm");
  CHECK(s.job.model.layers == 32);
  CHECK(s.job.cluster.total_gpus() == 16);  // 2 nodes x 8 (default gpus_per_node)
  CHECK(s.job.parallel.dp == 4);            // 16 / (tp 2 x pp 2 x cp 1)
  CHECK(s.dp_derived);
  CHECK(s.job.cluster.nvlink_domain == 8);            // H100's catalog domain, one node
  CHECK(s.job.cluster.nic_bw().value() == Approx(50e9));  // catalog 400 Gb/s
  CHECK(s.job.parallel.schedule == work::PipelineSchedule::one_f_one_b);
  CHECK(s.job.precision.param_bytes == 2.0);
  CHECK(s.job.precision.optimizer_bytes == 12.0);
  CHECK_FALSE(s.validation.has_value());
  CHECK(s.where("parallelism.tp").line == 12);
  CHECK(s.where("parallelism.tp").column == 6);
  CHECK(s.where("parallelism.dp").line == 11);  // not written: its table
}

TEST_CASE("scenario overrides of model, GPU and efficiency apply on top of presets") {
  const auto s = load_scenario_string(R"(
[model]
preset = "llama-3.1-8b"
layers = 16
[hardware]
nodes = 1
nvls = true
[hardware.gpu]
preset = "h200"
price_per_hour = 3.0
bf16_tflops = 900
[hardware.efficiency]
estimate = 0.5
nvlink = 0.7
[workload]
kind = "prefill"
seq_len = 2048
batch = 16
[precision]
compute = "fp8"
kv_cache = "fp8"
optimizer = 8
)",
                                      "o.toml", stepsim::test::builtin_catalog());
  CHECK(s.job.model.layers == 16);
  CHECK(s.job.model.hidden == 4096);
  CHECK(s.job.cluster.gpu.id == "h200");
  CHECK(s.job.cluster.gpu.price_per_hour == 3.0);
  CHECK(s.job.cluster.gpu.bf16_peak.value() == Approx(900e12));
  CHECK(s.job.cluster.gpu.hbm_capacity.value() == Approx(140.4 * 1073741824.0));  // the preset's 140.4 GiB
  CHECK(s.job.cluster.gpu.eff.estimate_compute == 0.5);
  CHECK(s.job.cluster.gpu.eff.nvlink == 0.7);
  CHECK(s.job.cluster.nvls);
  CHECK(s.job.workload.kind == work::WorkloadKind::prefill);
  CHECK(s.job.workload.batch == 16);
  CHECK(s.job.precision.compute == stepsim::topo::Precision::fp8);
  CHECK(s.job.precision.kv_bytes == 1.0);
  CHECK(s.job.precision.param_bytes == 2.0);  // fp8 math keeps bf16 weights
  CHECK(s.job.precision.optimizer_bytes == 8.0);
  CHECK(s.job.parallel.dp == 8);  // tp = pp = cp = 1 by default: 8 / 1
}

TEST_CASE("LoadOptions::set overrides keys after parsing") {
  stepsim::scen::LoadOptions opt;
  opt.set = {"parallelism.tp=4", "hardware.gpu=b200", "workload.recompute=\"full\""};
  const auto s = load_scenario_string(kMinimal, "min.toml", stepsim::test::builtin_catalog(), opt);
  CHECK(s.job.parallel.tp == 4);
  CHECK(s.job.parallel.dp == 2);  // 16 / (4 x 2)
  CHECK(s.job.cluster.gpu.id == "b200");
  CHECK(s.job.recompute == work::Recompute::full);
}

TEST_CASE("an inline model without preset, a decode workload and a custom fabric") {
  const auto s = load_scenario_string(R"(
[model]
layers = 4
hidden = 512
heads = 8
kv_heads = 2
ffn = 2048
vocab = 32000
[hardware]
gpu = "l4"
gpus = 2
[fabric]
kind = "custom"
switches = ["sw0"]
[[fabric.link]]
a = "gpu0"
b = "sw0"
bw_gb_s = 12.5
[[fabric.link]]
a = "gpu1"
b = "sw0"
bw_gb_s = 12.5
latency_us = 2
[workload]
kind = "decode"
batch = 4
context = 1024
)",
                                      "d.toml", stepsim::test::builtin_catalog());
  CHECK(s.model_preset.empty());
  CHECK(s.job.model.head_dim == 64);        // 512 / 8
  CHECK(s.job.cluster.gpus_per_node == 2);  // 2 GPUs in all: one node of 2
  CHECK(s.job.cluster.nodes == 1);
  CHECK(s.job.cluster.nvlink_domain == 1);  // L4 has no NVLink
  REQUIRE(s.job.cluster.fabric.custom_links.size() == 2);
  CHECK(s.job.cluster.fabric.custom_links[1].bw.value() == Approx(12.5e9));
  CHECK(s.job.cluster.fabric.custom_links[1].latency_s == Approx(2e-6));
  CHECK(s.job.workload.context_len == 1024);
}

TEST_CASE("GB200 defaults to whole NVL72 racks when the cluster fills them") {
  const auto s = load_scenario_string(R"(
[model]
preset = "llama-3.1-70b"
[hardware]
gpu = "gb200"
gpus_per_node = 4
nodes = 36
[workload]
kind = "train"
seq_len = 8192
global_batch = 1152
[parallelism]
tp = 8
)",
                                      "gb.toml", stepsim::test::builtin_catalog());
  CHECK(s.job.cluster.nvlink_domain == 72);  // 144 GPUs = two NVL72 racks
  CHECK(s.job.parallel.dp == 18);            // 144 / 8
}

namespace {
std::string gb200_job(int nodes, const std::string& hardware_extra) {
  return R"(
[model]
preset = "llama-3.1-70b"
[hardware]
gpu = "gb200"
gpus_per_node = 4
nodes = )" +
         std::to_string(nodes) + "\n" + hardware_extra + R"(
[workload]
kind = "train"
seq_len = 8192
global_batch = 1152
[parallelism]
tp = 4
)";
}
}  // namespace

TEST_CASE("a job that does not fill whole NVL72 racks uses its share of each") {
  // 128 GPUs on 72-GPU racks: the largest whole-tray share tiling 128 is 64 (2 racks of 16 trays).
  const auto s =
      load_scenario_string(gb200_job(32, "nvlink_domain = 72"), "gb.toml", stepsim::test::builtin_catalog());
  CHECK(s.job.cluster.nvlink_domain == 64);
  CHECK(s.job.cluster.rack_gpus == 72);
  CHECK(s.job.cluster.physical_domain() == 72);
  // Stated: 32 of each rack (4 racks), simulated as domains of 32.
  const auto t = load_scenario_string(gb200_job(32, "nvlink_domain = 72\ngpus_per_domain = 32"), "gb.toml",
                                      stepsim::test::builtin_catalog());
  CHECK(t.job.cluster.nvlink_domain == 32);
  CHECK(t.job.cluster.rack_gpus == 72);
  // A share that does not tile the job is refused with the share that would.
  CHECK_THROWS_WITH(
      load_scenario_string(gb200_job(32, "nvlink_domain = 72\ngpus_per_domain = 60"), "gb.toml",
                           stepsim::test::builtin_catalog()),
      Catch::Contains("hardware.gpus_per_domain") && Catch::Contains("e.g. gpus_per_domain = 64"));
  // 288 GPUs fill four racks: no share.
  const auto u =
      load_scenario_string(gb200_job(72, "nvlink_domain = 72"), "gb.toml", stepsim::test::builtin_catalog());
  CHECK(u.job.cluster.nvlink_domain == 72);
  CHECK(u.job.cluster.rack_gpus == 0);
}

TEST_CASE("FSDP strategies, HSDP's default shard group and DeepSpeed's prefetch limits") {
  const std::string base = R"(
[model]
preset = "llama-3.1-8b"
[hardware]
gpu = "h100-sxm"
nodes = 4
[workload]
kind = "train"
seq_len = 4096
global_batch = 64
[parallelism]
tp = 2
)";
  // HYBRID_SHARD shards inside a node: 8 GPUs / tp 2 = 4 of the 16 data-parallel ranks.
  const auto h =
      load_scenario_string(base + "fsdp = \"hybrid_shard\"\n", "f.toml", stepsim::test::builtin_catalog());
  CHECK(h.job.parallel.zero_stage == 3);
  CHECK(h.job.parallel.reshard_after_forward);
  CHECK(h.job.parallel.shard_group == 4);
  CHECK(h.job.parallel.shard_replicas() == 4);
  const auto g =
      load_scenario_string(base + "fsdp = \"shard_grad_op\"\n", "f.toml", stepsim::test::builtin_catalog());
  CHECK_FALSE(g.job.parallel.reshard_after_forward);
  CHECK(g.job.parallel.shard_group == 0);
  // DeepSpeed: a Llama 3.1 8B layer is 218,112,000 parameters (4096 x (4096 + 2 x 1024 + 4096) +
  // 3 x 4096 x 14336 + 2 x 4096), 109,056,000 per TP rank. A 250 M bucket prefetches 2 layers; a
  // live limit of 250 M allows 2 gathered, so 1 ahead.
  const auto d = load_scenario_string(base + "zero_stage = 3\nprefetch_bucket_mparams = 250\n", "f.toml",
                                      stepsim::test::builtin_catalog());
  CHECK(d.job.parallel.prefetch_layers == 2);
  const auto l =
      load_scenario_string(base + "zero_stage = 3\nprefetch_bucket_mparams = 250\nmax_live_mparams = 250\n",
                           "f.toml", stepsim::test::builtin_catalog());
  CHECK(l.job.parallel.prefetch_layers == 1);
}

TEST_CASE("the bundled examples load with the intended layouts") {
  const auto a = load_scenario(kSource / "scenarios/examples/llama3.1-70b-512xh100.toml",
                               stepsim::test::builtin_catalog());
  CHECK(a.job.cluster.total_gpus() == 512);
  CHECK(a.job.parallel.tp * a.job.parallel.pp * a.job.parallel.dp == 512);  // 8 x 4 x 16
  CHECK(a.job.parallel.schedule == work::PipelineSchedule::interleaved);    // virtual_stages = 5
  const auto b = load_scenario(kSource / "scenarios/examples/gpt3-175b-1024xa100.toml",
                               stepsim::test::builtin_catalog());
  CHECK(b.job.parallel.dp == 16);
  CHECK(b.job.model.vocab == 51200);
  CHECK(b.job.cluster.nic_bw().value() == Approx(25e9));  // 200 Gb/s
  const auto c = load_scenario(kSource / "scenarios/examples/llama3.1-405b-16384xh100.toml",
                               stepsim::test::builtin_catalog());
  CHECK(c.job.parallel.dp == 128);
  // 126 layers: 7 on the first and last stage, (126 - 14) / 14 = 8 on the others
  CHECK(c.job.parallel.stage_layers(0, 126) == 7);
  CHECK(c.job.parallel.stage_layers(1, 126) == 8);
  CHECK(c.job.parallel.stage_layers(15, 126) == 7);
  int sum = 0;
  for (int st = 0; st < 16; ++st) sum += c.job.parallel.stage_layers(st, 126);
  CHECK(sum == 126);
}

TEST_CASE("all 18 dense validation cases load with their published id, group and measurement") {
  int count = 0;
  for (const auto& e : fs::directory_iterator(kSource / "scenarios/validation")) {
    if (e.path().extension() != ".toml") continue;
    INFO(e.path().string());
    // A case marked not simulated may be one whose configuration stepsim refuses: its file must
    // still read, without the cross-field checks.
    stepsim::scen::LoadOptions options;
    const std::string text = stepsim::scen::read_text_file(e.path());
    options.check_configuration = stepsim::scen::not_simulated_reason(text, e.path().string()).empty();
    const auto s = load_scenario(e.path(), stepsim::test::builtin_catalog(), options);
    CHECK(s.meta.id == e.path().stem().string());
    if (s.meta.group != "public-a100-dense") continue;  // MoE and decode cases: next test
    REQUIRE(s.validation.has_value());
    CHECK(s.validation->measured_step_s > 0.0);
    CHECK(s.job.cluster.gpu.id == "a100-sxm-80gb");
    CHECK(s.job.cluster.nic_bw().value() == Approx(25e9));
    CHECK(s.job.precision.compute == stepsim::topo::Precision::fp16);
    ++count;
  }
  CHECK(count == 18);
  const auto s = load_scenario(kSource / "scenarios/validation/narayanan21-table1-76b.toml",
                               stepsim::test::builtin_catalog());
  CHECK(s.job.parallel.virtual_stages == 3);
  CHECK(s.job.parallel.schedule == work::PipelineSchedule::interleaved);
  CHECK(s.validation->measured_step_s == 16.058);
  CHECK(s.job.workload.global_batch == 1792);
}

TEST_CASE("the MoE and decode validation cases load in their published groups") {
  struct Case {
    const char* id;
    const char* group;
    double measured_step_s;
    work::WorkloadKind kind;
  };
  for (const Case& c :
       {Case{"dgxc-deepseek-v3-h100-512", "public-h100-moe", 48.948, work::WorkloadKind::train},
        Case{"gptfast-llama2-7b-a100-bs1", "public-decode", 0.00953, work::WorkloadKind::decode},
        Case{"gptfast-llama2-70b-a100-tp8-bs1", "public-decode", 0.016, work::WorkloadKind::decode}}) {
    INFO(c.id);
    const auto s = load_scenario(kSource / "scenarios/validation" / (std::string(c.id) + ".toml"),
                                 stepsim::test::builtin_catalog());
    CHECK(s.meta.id == c.id);
    CHECK(s.meta.group == c.group);
    REQUIRE(s.validation.has_value());
    CHECK(s.validation->measured_step_s == c.measured_step_s);
    CHECK(s.job.workload.kind == c.kind);
  }
  // DeepSeek-V3's EP 64 spans both TP ranks of 32 data-parallel ranks: ep x expert_tp = 64 divides
  // tp x dp = 2 x 32 though ep does not divide dp.
  const auto s = load_scenario(kSource / "scenarios/validation/dgxc-deepseek-v3-h100-512.toml",
                               stepsim::test::builtin_catalog());
  CHECK(s.job.parallel.ep == 64);
  CHECK(s.job.parallel.expert_dp() == 1);
}

TEST_CASE("a scenario's catalog key loads files relative to the scenario") {
  stepsim::test::TempDir dir;
  dir.write("cat.toml", "[gpu.h100-sxm]\nprice_per_hour = 1.25\n");
  const auto p = dir.write("s.toml", std::string("catalog = [\"cat.toml\"]\n") + kMinimal);
  const auto s = load_scenario(p, stepsim::test::builtin_catalog());
  CHECK(s.job.cluster.gpu.price_per_hour == 1.25);
  CHECK(s.source_text.find("catalog = [\"cat.toml\"]") == 0);
  CHECK(s.path == p);
}

TEST_CASE("eager launches: the host issues every kernel, and CUDA graphs take it off the timeline") {
  // A model small enough that its decode kernels run shorter than the 7.7 us a launch takes.
  const std::string decode = R"(
[model]
layers = 2
hidden = 512
heads = 8
ffn = 1024
vocab = 1000
[hardware]
gpu = "a100-sxm-80gb"
nodes = 1
gpus_per_node = 1
[workload]
kind = "decode"
batch = 1
context = 100
)";
  const auto eager = load_scenario_string(decode, "eager.toml", stepsim::test::builtin_catalog());
  const auto graphs =
      load_scenario_string(decode + "cuda_graphs = true\n", "graphs.toml", stepsim::test::builtin_catalog());
  const auto& gpu = eager.job.cluster.gpu;
  REQUIRE(gpu.host_launch_s > gpu.kernel_gap_s);
  const auto a = work::simulate(eager.job);
  const auto b = work::simulate(graphs.job);
  std::size_t host_ops = 0, gpu_ops = 0;
  for (const auto& i : a.plan.info) (i.is_host ? host_ops : gpu_ops) += 1;
  // Eager: one host launch per GPU op; graphs: no host ops at all.
  CHECK(host_ops == gpu_ops);
  CHECK(b.plan.graph.op_count() == gpu_ops);
  // Decode at batch 1 is a stream of short kernels: launched one by one from the host every
  // host_launch_s, the GPU idles between them, so the eager step is longer and partly host-bound.
  CHECK(a.metrics.step_time_s > b.metrics.step_time_s);
  CHECK(a.report.mean.host_bound_s > 0.0);
  CHECK(b.report.mean.host_bound_s == 0.0);
}

TEST_CASE("memory follows the GPU: a host running ahead does not hold every micro-batch's activations") {
  // One stage, 8 micro-batches: forward and backward alternate per micro-batch, so one micro-batch's
  // activations are live at a time however far ahead the host has launched (eager) or not (graphs).
  const std::string train = R"(
[model]
layers = 2
hidden = 1024
heads = 8
ffn = 4096
vocab = 1000
[hardware]
gpu = "h100-sxm"
nodes = 1
gpus_per_node = 1
[workload]
kind = "train"
seq_len = 2048
global_batch = 8
micro_batch = 1
)";
  const auto eager =
      work::simulate(load_scenario_string(train, "eager.toml", stepsim::test::builtin_catalog()).job);
  const auto graphs = work::simulate(
      load_scenario_string(train + "cuda_graphs = true\n", "graphs.toml", stepsim::test::builtin_catalog())
          .job);
  const auto& a = eager.report.ranks[0].memory;
  const auto& b = graphs.report.ranks[0].memory;
  CHECK(a.activations.value() == Approx(b.activations.value()));
  CHECK(a.peak.value() == Approx(b.peak.value()));
}

TEST_CASE("every bundled example loads from the data directory the binary ships with") {
  // The build's share/stepsim is laid out as an install: the examples there name the Hugging Face
  // configs they read relative to themselves (../hf/...), which must be there too (stepsim bench
  // loads them from this directory).
  int count = 0;
  for (const auto& e : fs::recursive_directory_iterator(stepsim::scen::data_dir() / "examples")) {
    if (e.path().extension() != ".toml" || e.path().parent_path().filename() == "sweeps") continue;
    if (e.path().stem().extension() == ".cluster") continue;  // names several scenarios
    INFO(e.path().string());
    stepsim::scen::LoadOptions options;
    options.check_configuration = false;
    CHECK_NOTHROW(load_scenario(e.path(), stepsim::test::builtin_catalog(), options));
    ++count;
  }
  // As many as the source tree has: nothing left behind by the copy.
  int source = 0;
  for (const auto& e : fs::recursive_directory_iterator(kSource / "scenarios/examples"))
    if (e.path().extension() == ".toml" && e.path().parent_path().filename() != "sweeps" &&
        e.path().stem().extension() != ".cluster")
      ++source;
  CHECK(count == source);
}
