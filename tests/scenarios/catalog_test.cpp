#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "scenarios/catalog.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"
#include "workloads/model/params.hpp"

using stepsim::UserError;
using stepsim::scen::Catalog;

namespace {
std::string error_of(const Catalog& base, const std::string& text) {
  try {
    (void)base.with_text(text, "user.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("the built-in catalog has every required GPU and model") {
  for (const char* id :
       {"a100-sxm-80gb", "h100-sxm", "h800", "h200", "b200", "gb200", "l4", "mi300x", "a100-sxm-40gb",
        "h100-pcie", "h100-nvl", "gh200", "gh200-144gb", "b300", "gb300", "mi325x"})
    CHECK(stepsim::test::builtin_catalog().find_gpu(id) != nullptr);
  for (const char* id : {"gpt3-175b",         "llama-2-7b",        "llama-2-13b",       "llama-2-70b",
                         "llama-3.1-8b",      "llama-3.1-70b",     "llama-3.1-405b",    "mixtral-8x7b",
                         "mixtral-8x22b",     "deepseek-v3",       "qwen3-235b-a22b",   "megatron-gpt-1.7b",
                         "megatron-gpt-3.6b", "megatron-gpt-7.5b", "megatron-gpt-18b",  "megatron-gpt-39b",
                         "megatron-gpt-76b",  "megatron-gpt-145b", "megatron-gpt-310b", "megatron-gpt-530b",
                         "megatron-gpt-1t",   "megatron-gpt-22b",  "llama-3.3-70b"})
    CHECK(stepsim::test::builtin_catalog().find_model(id) != nullptr);
  CHECK(stepsim::test::builtin_catalog().gpus().size() == 16);  // 8 before the preset variants
  CHECK(stepsim::test::builtin_catalog().models().size() ==
        28);  // 22 before Llama 3.3 70B, 27 before Kimi K2
}

TEST_CASE("catalog figures are converted to base units") {
  const auto& h100 = *stepsim::test::builtin_catalog().find_gpu("h100-sxm");
  CHECK(h100.bf16_peak.value() == Approx(989e12));  // 989 TFLOP/s
  CHECK(h100.hbm_bw.value() == Approx(3.35e12));    // 3.35 TB/s
  CHECK(h100.nvlink_bw.value() == Approx(450e9));   // 450 GB/s per direction
  CHECK(h100.nic_bw.value() == Approx(50e9));       // 400 Gb/s / 8 = 50 GB/s
  CHECK(h100.kernel_gap_s == Approx(1.24e-6));
  CHECK(h100.host_launch_s == Approx(7.7e-6));
  CHECK(h100.eff.gemm16.peak == Approx(0.842));
  CHECK(h100.hbm_capacity.value() == Approx(79.65 * 1073741824.0));  // 79.65 GiB
  CHECK(h100.eff.estimate_network == Approx(0.75));
  CHECK(h100.comm_interference == Approx(1.075));
  CHECK(stepsim::test::builtin_catalog().find_gpu("h800")->comm_sm_fraction ==
        Approx(0.15));  // 20 of 132 SMs
  CHECK(stepsim::test::builtin_catalog().find_gpu("gb200")->nvlink_domain == 72);
  CHECK(stepsim::test::builtin_catalog().find_gpu("a100-sxm-80gb")->nic_bw.value() ==
        Approx(25e9));  // 200 Gb/s HDR
}

TEST_CASE("aliases resolve to their entry") {
  CHECK(stepsim::test::builtin_catalog().find_gpu("h100-sxm-80gb") ==
        stepsim::test::builtin_catalog().find_gpu("h100-sxm"));
  CHECK(stepsim::test::builtin_catalog().find_gpu("a100") ==
        stepsim::test::builtin_catalog().find_gpu("a100-sxm-80gb"));
  // A PCIe card is an entry of its own, never an alias of the SXM part it shares a die with.
  CHECK(stepsim::test::builtin_catalog().find_gpu("h100-pcie")->id == "h100-pcie");
  CHECK(stepsim::test::builtin_catalog().find_gpu("a100-40gb")->id == "a100-sxm-40gb");
  CHECK(stepsim::test::builtin_catalog().find_gpu("zz-unknown") == nullptr);
}

TEST_CASE("a catalog entry with `preset` starts from another GPU's figures, and says so in their sources") {
  const Catalog c = stepsim::test::builtin_catalog().with_text(R"(
[gpu.h100-500w]
preset = "h100"            # an alias names the base too
name = "H100 SXM at 500 W"
hbm_tb_s = 3.0
)",
                                                               "user.toml");
  const auto& v = *c.find_gpu("h100-500w");
  const auto& base = *c.find_gpu("h100-sxm");
  CHECK(v.id == "h100-500w");
  CHECK(v.name == "H100 SXM at 500 W");
  CHECK(v.bf16_peak.value() == Approx(989e12));              // the base's
  CHECK(v.eff.gemm16.peak == Approx(base.eff.gemm16.peak));  // the base's
  CHECK(v.clock_duty.duty == base.clock_duty.duty);
  CHECK(v.hbm_bw.value() == Approx(3.0e12));  // its own
  CHECK(base.hbm_bw.value() == Approx(3.35e12));
  CHECK(c.find_gpu("h100")->id == "h100-sxm");  // aliases stay with the base
  const auto source = [&](const std::string& key) {
    return *std::find_if(v.sources.begin(), v.sources.end(), [&](const auto& s) { return s.key == key; });
  };
  // A figure measured or read off a datasheet for the base is an assumption for the variant.
  CHECK(source("bf16_tflops").kind == stepsim::topo::SourceKind::assumed);
  CHECK(source("bf16_tflops").text.starts_with("as h100-sxm (datasheet: H100 SXM BF16 989 TFLOPS"));
  CHECK(source("efficiency.gemm_bf16").text.starts_with("as h100-sxm (measured: "));
  CHECK(source("hbm_tb_s").kind == stepsim::topo::SourceKind::user);
  CHECK(source("hbm_tb_s").text == "user.toml:5");

  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[gpu.h200]\npreset = \"h100-sxm\"\n"),
             Catch::Contains("user.toml:2:10: gpu.h200.preset:") && Catch::Contains("is an entry already") &&
                 Catch::Contains("drop `preset`"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[gpu.mine]\npreset = \"h100-sxn\"\n"),
             Catch::Contains("gpu.mine.preset: unknown GPU `h100-sxn`") && Catch::Contains("h100-sxm"));
}

TEST_CASE("a catalog model with `preset` starts from another model's dimensions") {
  const Catalog c = stepsim::test::builtin_catalog().with_text(R"(
[model.llama-70b-half]
preset = "Llama-3.1-70B"   # spelled as a scenario's [model] preset may be
layers = 40
heads = 32                 # head_dim was derived (8192 / 64): it follows, 8192 / 32 = 256
)",
                                                               "user.toml");
  const auto& v = *c.find_model("llama-70b-half");
  const auto& base = *c.find_model("llama-3.1-70b");
  CHECK(v.layers == 40);
  CHECK(v.hidden == base.hidden);
  CHECK(v.ffn == base.ffn);
  CHECK(v.kv_heads == 8);  // set in the base entry, so kept
  CHECK(v.head_dim == 256);
  CHECK(v.published_params == 0.0);  // the base's count is not the variant's
  CHECK(base.layers == 80);
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[model.llama-2-7b]\npreset = \"llama-2-13b\"\n"),
             Catch::Contains("model.llama-2-7b.preset:") && Catch::Contains("is an entry already"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[model.mine]\npreset = \"llama-9-70b\"\n"),
             Catch::Contains("model.mine.preset: unknown model `llama-9-70b`"));
}

TEST_CASE("the built-in variants follow their stated rules") {
  const Catalog& c = stepsim::test::builtin_catalog();
  const auto& a80 = *c.find_gpu("a100-sxm-80gb");
  const auto& a40 = *c.find_gpu("a100-sxm-40gb");
  // The same die at the same 400 W: every efficiency and the clock are the 80 GB part's; only
  // the memory differs (40,960 MiB = 40 GiB; 1,555 GB/s).
  CHECK(a40.eff.gemm16.peak == a80.eff.gemm16.peak);
  CHECK(a40.eff.hbm == a80.eff.hbm);
  CHECK(a40.hbm_capacity.value() == Approx(40.0 * 1073741824.0));
  CHECK(a40.hbm_bw.value() == Approx(1.555e12));
  // PCIe cards: the H100 SXM curve x the A100's PCIe / SXM MAMF ratio, 0.811 / 0.869 = 0.9333.
  const auto& h100 = *c.find_gpu("h100-sxm");
  for (const char* id : {"h100-pcie", "h100-nvl"}) {
    CAPTURE(id);
    const auto& g = *c.find_gpu(id);
    CHECK(g.eff.gemm16.peak == Approx(h100.eff.gemm16.peak * 0.811 / 0.869).epsilon(1e-3));
    CHECK(g.eff.gemm16.mn_half == h100.eff.gemm16.mn_half);
    CHECK(g.nvlink_domain == 2);  // NVLink bridges join pairs
  }
  // GH200: 96 GB read as the H100's 80 GB are, 96 x 81,559 / 80 = 97,870.8 MiB = 95.58 GiB.
  CHECK(c.find_gpu("gh200")->hbm_capacity.value() == Approx(96.0 * 81559.0 / 80.0 * 1048576.0).epsilon(1e-4));
  // Blackwell Ultra: the Blackwell curve x the B300 / B200 MAMF ratio, 0.786 / 0.776.
  CHECK(c.find_gpu("b300")->eff.gemm16.peak ==
        Approx(c.find_gpu("b200")->eff.gemm16.peak * 0.786 / 0.776).epsilon(1e-3));
  CHECK(c.find_gpu("gb300")->eff.gemm16.peak ==
        Approx(c.find_gpu("gb200")->eff.gemm16.peak * 0.786 / 0.776).epsilon(1e-3));
  CHECK(c.find_gpu("gb300")->nvlink_domain == 72);  // the rack, from the GB200 entry
}

TEST_CASE("every catalog model's computed count matches its published figure") {
  for (const auto& m : stepsim::test::builtin_catalog().models()) {
    INFO(m.id);
    REQUIRE(m.published_params > 0.0);
    const auto b = stepsim::work::count_params(m);
    // Model cards quote the main model; DeepSeek-V3's MTP module is listed separately.
    CHECK(std::abs(b.main_total() / m.published_params - 1.0) <= m.published_tolerance);
    if (m.is_moe()) {
      REQUIRE(m.published_active_params > 0.0);
      CHECK(std::abs(b.main_active() / m.published_active_params - 1.0) <= m.published_tolerance);
    }
  }
}

TEST_CASE("a user file overrides an entry field by field and adds new ids") {
  const Catalog c = stepsim::test::builtin_catalog().with_text(R"(
[gpu.h100-sxm]
price_per_hour = 2.5
[gpu.h100-sxm.efficiency]
hbm = 0.8

[gpu.h100-sxm-80gb]     # an alias reaches the same entry
nic_gbps = 800

[gpu.my-gpu]
bf16_tflops = 100
hbm_gb = 16
hbm_tb_s = 1

[model."llama-3.1-70b"]
heads = 32               # head_dim was derived (8192 / 64), so it follows: 8192 / 32 = 256

[model.tiny]
layers = 2
hidden = 64
heads = 4
ffn = 256
vocab = 1000
)",
                                                               "user.toml");
  const auto& h100 = *c.find_gpu("h100-sxm");
  CHECK(h100.price_per_hour == 2.5);
  CHECK(h100.eff.hbm == Approx(0.8));
  CHECK(h100.eff.gemm16.peak == Approx(0.842));     // untouched
  CHECK(h100.bf16_peak.value() == Approx(989e12));  // untouched
  CHECK(h100.nic_bw.value() == Approx(100e9));      // 800 Gb/s
  CHECK(c.gpus().size() == stepsim::test::builtin_catalog().gpus().size() + 1);
  CHECK(c.find_gpu("my-gpu")->name == "my-gpu");
  CHECK(c.find_model("llama-3.1-70b")->head_dim == 256);
  CHECK(c.find_model("llama-3.1-70b")->kv_heads == 8);  // explicitly set in the preset, so kept
  CHECK(c.find_model("tiny")->kv_heads == 4);           // defaults to heads
  CHECK(c.find_model("tiny")->head_dim == 16);          // 64 / 4
  // the original is unchanged: catalogs are values
  CHECK(stepsim::test::builtin_catalog().find_gpu("h100-sxm")->price_per_hour == 3.9);
}

TEST_CASE("user catalog files from disk apply in order") {
  stepsim::test::TempDir dir;
  const auto a = dir.write("a.toml", "[gpu.h200]\nprice_per_hour = 1.0\n");
  const auto b = dir.write("b.toml", "[gpu.h200]\nprice_per_hour = 2.0\n");
  const std::vector<std::filesystem::path> files{a, b};
  CHECK(stepsim::test::builtin_catalog().with_files(files).find_gpu("h200")->price_per_hour == 2.0);
}

TEST_CASE("a GPU's clock is a curve by tensor-core duty or one figure, and an override replaces it") {
  const auto& cat = stepsim::test::builtin_catalog();
  const auto& h100 = *cat.find_gpu("h100-sxm");
  REQUIRE(!h100.clock_duty.empty());
  CHECK(h100.sustained_clock == h100.clock_duty.highest());  // what a step bound may assume
  const stepsim::scen::Catalog fixed = cat.with_text("[gpu.h100-sxm]\nsustained_clock = 0.9\n", "user.toml");
  CHECK(fixed.find_gpu("h100-sxm")->clock_duty.empty());
  CHECK(fixed.find_gpu("h100-sxm")->sustained_clock == 0.9);
  CHECK_THAT(error_of(cat, "[gpu.h200]\nclock_duty = { duty = [0.5, 0.25], clock = [0.9, 0.95] }\n"),
             Catch::Contains("gpu.h200.clock_duty.duty") && Catch::Contains("must rise from point to point"));
  CHECK_THAT(error_of(cat, "[gpu.h200]\nclock_duty = { duty = [0.5, 1.0], clock = [0.9] }\n"),
             Catch::Contains("user.toml:2:") && Catch::Contains("same length"));
  CHECK_THAT(
      error_of(cat, "[gpu.h200]\nclock_duty = { duty = [0.5], clock = [0.9] }\nsustained_clock = 0.9\n"),
      Catch::Contains("gpu.h200.clock_duty") && Catch::Contains("keep one"));
  CHECK_THAT(error_of(cat, "[gpu.h200]\nclock_duty = { duty = [1.5], clock = [0.9] }\n"),
             Catch::Contains("gpu.h200.clock_duty.duty") && Catch::Contains("tensor cores are busy"));
}

TEST_CASE("catalog file errors name the file, line, key and a hint") {
  // comm_interference is a slowdown factor: below 1 would speed compute up under communication.
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[gpu.h200]\ncomm_interference = 0.9\n"),
             Catch::Contains("user.toml:2:") && Catch::Contains("gpu.h200.comm_interference") &&
                 Catch::Contains("compute slowdown beyond the SM share"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[gpu.new]\nbf16_tflops = 10\n"),
             Catch::Contains("user.toml:1:1: gpu.new: missing `hbm_gib`"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[gpu.h100-sxm]\nhbm_gbs = 10\n"),
             Catch::Contains("user.toml:2:1: gpu.h100-sxm.hbm_gbs: unknown key") &&
                 Catch::Contains("did you mean `hbm_gb`?"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[gpus.x]\n"),
             Catch::Contains("did you mean `gpu`?"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[gpu.H100]\n"),
             Catch::Contains("write it as `h100`"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(), "[gpu.h200]\naliases = [\"h100\"]\n"),
             Catch::Contains("alias `h100` already names `h100-sxm`"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(),
                      "[model.m]\nlayers = 2\nhidden = 64\nheads = 4\nffn = 8\nvocab = 10\nkv_heads = 3\n"),
             Catch::Contains("heads (4) must be a multiple of kv_heads (3)"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(),
                      "[model.m]\nlayers = 2\nhidden = 64\nheads = 4\nvocab = 10\n"),
             Catch::Contains("missing `ffn`"));
  CHECK_THAT(error_of(stepsim::test::builtin_catalog(),
                      "[model.m]\nlayers = 2\nhidden = 64\nheads = 4\nffn = 8\nvocab = 10\ntop_k = 2\n"),
             Catch::Contains("user.toml:7:9: model.m.top_k: is a mixture-of-experts key"));
  CHECK_THAT(
      error_of(stepsim::test::builtin_catalog(), "[gpu.h100-sxm]\nnvlink_domain = 8\nnvlink_gb_s = 0\n"),
      Catch::Contains("nvlink_domain: is 8 but nvlink_gb_s is 0"));
}

TEST_CASE("every figure of every built-in GPU says where it comes from") {
  const char* required[] = {"bf16_tflops",          "hbm_gib",           "hbm_reserved_gib",
                            "hbm_fragmentation",    "hbm_tb_s",          "kernel_gap_us",
                            "host_launch_us",       "host_framework_us", "efficiency.gemm_bf16",
                            "efficiency.attention", "efficiency.hbm",    "efficiency.nvlink",
                            "efficiency.nic"};
  for (const auto& g : stepsim::test::builtin_catalog().gpus()) {
    CAPTURE(g.id);
    for (const auto& s : g.sources) {
      CAPTURE(s.key);
      // A built-in figure set without a source would be recorded as the user's.
      CHECK(s.kind != stepsim::topo::SourceKind::user);
      CHECK(!s.text.empty());
    }
    for (const char* key : required) {
      CAPTURE(key);
      CHECK(std::any_of(g.sources.begin(), g.sources.end(), [&](const auto& s) { return s.key == key; }));
    }
    if (g.fp8_peak.value() > 0.0)
      CHECK(std::any_of(g.sources.begin(), g.sources.end(),
                        [](const auto& s) { return s.key == "efficiency.gemm_fp8"; }));
    // The clock: a measured curve by tensor-core duty, or one figure.
    const char* clock = g.clock_duty.empty() ? "sustained_clock" : "clock_duty";
    CAPTURE(clock);
    CHECK(std::any_of(g.sources.begin(), g.sources.end(), [&](const auto& s) { return s.key == clock; }));
  }
}

TEST_CASE("a user's figure replaces the built-in source with its own place, or with the source it gives") {
  const auto c = stepsim::test::builtin_catalog().with_text(
      "[gpu.h100-sxm]\nhbm_tb_s = 3.0\n[gpu.h100-sxm.efficiency]\nhbm = 0.7\n"
      "[gpu.h100-sxm.source]\n\"efficiency.hbm\" = \"measured: our STREAM run\"\n",
      "user.toml");
  const auto& g = *c.find_gpu("h100-sxm");
  const auto of = [&](const std::string& key) {
    return *std::find_if(g.sources.begin(), g.sources.end(), [&](const auto& s) { return s.key == key; });
  };
  CHECK(of("hbm_tb_s").kind == stepsim::topo::SourceKind::user);
  CHECK(of("hbm_tb_s").text == "user.toml:2");
  CHECK(of("efficiency.hbm").kind == stepsim::topo::SourceKind::measured);
  CHECK(of("efficiency.hbm").text == "our STREAM run");
  CHECK(of("bf16_tflops").kind == stepsim::topo::SourceKind::datasheet);  // untouched
  CHECK_THAT(
      error_of(stepsim::test::builtin_catalog(), "[gpu.h100-sxm.source]\nhbm_tb_s = \"from a friend\"\n"),
      Catch::Contains("user.toml:2:12: gpu.h100-sxm.source.hbm_tb_s:") &&
          Catch::Contains("datasheet, measured, derived or assumed"));
  CHECK_THAT(
      error_of(stepsim::test::builtin_catalog(), "[gpu.h100-sxm.source]\nhbm_tbs = \"assumed: guess\"\n"),
      Catch::Contains("is not a figure of a GPU entry") && Catch::Contains("hbm_tb_s"));
}

TEST_CASE(
    "named userbuffers configurations: NeMo's, each with its source, and a user file adds and changes them") {
  const Catalog& base = stepsim::test::builtin_catalog();
  // tools/catalog/nemo_tp_overlap.py transcribed NeMo's 17 configurations that are not LoRA's.
  CHECK(base.tp_overlaps().size() == 17);
  for (const auto& c : base.tp_overlaps())
    CHECK_THAT(c.source, Catch::StartsWith("NeMo userbuffers.py at 6f2c6fda"));
  using stepsim::work::UbGemm, stepsim::work::UbMethod;
  const auto* b200 = base.find_tp_overlap("userbuffers_bf16_b200_h18432_tp8_mbs1_seqlen4096");
  REQUIRE(b200 != nullptr);
  const auto& fc2 = b200->gemms[static_cast<std::size_t>(UbGemm::fc2_fprop)];
  CHECK(fc2.method == UbMethod::pipeline);
  CHECK(fc2.num_sm == 24);
  CHECK(fc2.fp8_buf);  // PipelineOverlapCfg's default (False,), a truthy tuple to TE
  CHECK(b200->gemms[static_cast<std::size_t>(UbGemm::proj_fprop)].method == UbMethod::ring_exchange);
  CHECK(b200->gemms[static_cast<std::size_t>(UbGemm::proj_fprop)].set_sm_margin);
  // A user file adds a configuration on TE 1.x's defaults and changes one GEMM of NeMo's.
  const Catalog c = base.with_text(
      "[tp_overlap.mine]\nsource = \"tuned on our cluster\"\ndefaults = \"te1\"\n"
      "[tp_overlap.mine.proj_fprop]\nnum_sm = 20\nset_sm_margin = 1\n"
      "[tp_overlap.userbuffers_bf16_b200_h18432_tp8_mbs1_seqlen4096.fc2_fprop]\nnum_sm = 8\n",
      "user.toml");
  const auto* mine = c.find_tp_overlap("mine");
  REQUIRE(mine != nullptr);
  CHECK(mine->gemms[static_cast<std::size_t>(UbGemm::proj_fprop)].num_sm == 20);
  CHECK(mine->gemms[static_cast<std::size_t>(UbGemm::proj_fprop)].set_sm_margin);
  CHECK_FALSE(mine->gemms[static_cast<std::size_t>(UbGemm::qkv_wgrad)].set_sm_margin);  // TE 1.x
  const auto* changed = c.find_tp_overlap("userbuffers_bf16_b200_h18432_tp8_mbs1_seqlen4096");
  CHECK(changed->gemms[static_cast<std::size_t>(UbGemm::fc2_fprop)].num_sm == 8);
  CHECK(changed->gemms[static_cast<std::size_t>(UbGemm::fc2_fprop)].set_sm_margin);  // NeMo's, kept
  // Without `defaults`, the GEMMs a new entry does not list take TE 2.x's: bulk with its margin.
  const Catalog plain =
      base.with_text("[tp_overlap.p]\nsource = \"s\"\n[tp_overlap.p.proj_fprop]\nnum_sm = 8\n", "user.toml");
  CHECK(plain.find_tp_overlap("p")->gemms[static_cast<std::size_t>(UbGemm::qkv_wgrad)].method ==
        UbMethod::bulk);
  CHECK(plain.find_tp_overlap("p")->gemms[static_cast<std::size_t>(UbGemm::qkv_wgrad)].set_sm_margin);
  // A new configuration says where it comes from; a GEMM name must be TE's.
  CHECK_THAT(error_of(base, "[tp_overlap.x]\n[tp_overlap.x.proj_fprop]\nnum_sm = 8\n"),
             Catch::Contains("tp_overlap.x.source: is missing"));
  CHECK_THAT(error_of(base, "[tp_overlap.x]\nsource = \"s\"\n[tp_overlap.x.proj_fpropp]\nnum_sm = 8\n"),
             Catch::Contains("unknown key `proj_fpropp`") && Catch::Contains("did you mean `proj_fprop`?"));
}
