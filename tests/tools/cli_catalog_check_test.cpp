// `stepsim catalog` and `stepsim check` through the real binary.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;

TEST_CASE("stepsim catalog gpus --format json lists peaks and cost screens") {
  const auto r = run_stepsim("catalog gpus --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["gpus"].size() == 16);  // 8 parts and 8 variants written with `preset`
  const auto& h100 = j["gpus"][1];
  CHECK(h100["id"] == "h100-sxm");
  CHECK(h100["bf16_flops_per_s"].get<double>() == Approx(989e12));
  // $/TB/s-hour = 3.9 / 3.35 = 1.164 (the article's 1.16)
  CHECK(h100["usd_per_tb_s_hour"].get<double>() == Approx(1.164).epsilon(0.001));
  // $/TFLOP-hour = 3.9 / 989 = 0.003943
  CHECK(h100["usd_per_tflop_hour"].get<double>() == Approx(0.003943).epsilon(0.001));
  CHECK(h100["aliases"].size() == 3);
}

TEST_CASE("stepsim catalog gpus --provenance prints each figure's value, kind and source") {
  const auto r = run_stepsim("catalog gpus --provenance");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("h100-sxm (NVIDIA H100 SXM5 80GB)") &&
                        Catch::Contains("peak 0.842, mn_half 24, k_half 158  measured") &&
                        Catch::Contains("tools/calibration/fit_gemm.py"));
  const auto j = nlohmann::json::parse(run_stepsim("catalog gpus --provenance --format json").out);
  REQUIRE(j["gpus"].size() == 16);
  for (const auto& g : j["gpus"])
    for (const auto& s : g["sources"]) {
      CHECK(s["kind"] != "user");
      CHECK(!s["source"].get<std::string>().empty());
    }
  CHECK(run_stepsim("catalog models --provenance").exit_code == 2);
}

TEST_CASE("stepsim catalog gpus --gpu lists only the GPUs it names, by id or alias") {
  const auto j =
      nlohmann::json::parse(run_stepsim("catalog gpus --format json --gpu b300-sxm --gpu gh200").out);
  REQUIRE(j["gpus"].size() == 2);
  CHECK(j["gpus"][0]["id"] == "gh200");  // catalog order, the alias resolved to its entry
  CHECK(j["gpus"][1]["id"] == "b300");
  const auto p =
      nlohmann::json::parse(run_stepsim("catalog gpus --provenance --format json --gpu a100-40gb").out);
  REQUIRE(p["gpus"].size() == 1);
  CHECK(p["gpus"][0]["id"] == "a100-sxm-40gb");
  const auto bad = run_stepsim("catalog gpus --gpu gh2000");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("unknown GPU `gh2000`") && Catch::Contains("gh200"));
  CHECK(run_stepsim("catalog models --gpu gh200").exit_code == 2);
}

TEST_CASE("stepsim catalog models shows computed and published counts") {
  const auto r = run_stepsim("catalog models");
  REQUIRE(r.exit_code == 0);
  // Llama-2-7B: 6,738,415,616 parameters -> "6.74"
  CHECK_THAT(r.out, Catch::Contains("llama-2-7b") && Catch::Contains("6.74"));
  CHECK_THAT(r.out, Catch::Contains("256 top-8 +1"));  // DeepSeek-V3 experts
  const auto j = nlohmann::json::parse(run_stepsim("catalog models --format json").out);
  CHECK(j["models"].size() == 28);  // 22 before Llama 3.3 70B, 27 before Kimi K2
}

TEST_CASE("stepsim catalog --catalog applies a user file") {
  stepsim::test::TempDir dir;
  const auto f = dir.write(
      "mine.toml",
      "[gpu.h100-sxm]\nprice_per_hour = 2.0\n[gpu.x1]\nbf16_tflops = 1\nhbm_gb = 1\nhbm_tb_s = 1\n");
  const auto j =
      nlohmann::json::parse(run_stepsim("catalog gpus --format json --catalog '" + f.string() + "'").out);
  CHECK(j["gpus"].size() == 17);
  CHECK(j["gpus"][1]["price_per_hour"] == 2.0);
  CHECK(j["gpus"][16]["id"] == "x1");  // a new id comes after the built-in entries
}

TEST_CASE("stepsim catalog rejects bad arguments with exit code 2") {
  auto r = run_stepsim("catalog gpu");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("did you mean `gpus`?"));
  r = run_stepsim("catalog gpus --format yaml");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("expected table or json"));
  r = run_stepsim("catalog --catalog /nonexistent.toml");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent.toml: cannot read the file"));
}

TEST_CASE("stepsim check --format json prints the resolved job") {
  const std::string example =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/llama3.1-70b-512xh100.toml";
  const auto r = run_stepsim("check '" + example + "' --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["job"]["parallel"]["dp"] == 16);
  CHECK(j["job"]["cluster"]["total_gpus"] == 512);
  CHECK(j["job"]["model"]["params"]["total"].get<double>() == Approx(70.55e9).epsilon(0.001));
  CHECK(j["scenario"]["gpu_preset"] == "h100-sxm");
  CHECK(j["job"]["workload"]["attention_impl"] == "flash");
  CHECK(j["job"]["workload"]["transformer_engine"].is_null());
}

TEST_CASE("stepsim check shows the attention a stated Transformer Engine release runs") {
  const std::string gb200 =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/validation/dgxc-deepseek-v3-gb200-128.toml";
  auto r = run_stepsim("check '" + gb200 + "'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("unfused attention, Transformer Engine 2.2"));
  r = run_stepsim("check '" + gb200 + "' --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["job"]["workload"]["attention_impl"] == "unfused");
  CHECK(j["job"]["workload"]["transformer_engine"] == "2.2");
  CHECK_THAT(j["job"]["workload"]["attention_note"].get<std::string>(),
             Catch::Contains("UnfusedDotProductAttention"));
  // From release 2.5 on, the same model runs fused attention on the same GPUs.
  r = run_stepsim("check '" + gb200 + "' --set workload.transformer_engine='\"2.5\"' --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["job"]["workload"]["attention_impl"] == "flash");
}

TEST_CASE("stepsim check shows packed documents in the workload line and the job") {
  const std::string llama =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/llama3.1-8b-torchtitan-8xh100.toml";
  auto r = run_stepsim("check '" + llama + "' --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["job"]["workload"]["document_tokens"].is_null());
  r = run_stepsim("check '" + llama + "' --set workload.document_tokens=2048");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("packed documents of 2,048 tokens"));
  // Rows span a document, not the sequence: the attention line's keys.
  CHECK_THAT(r.out, Catch::Contains("2,048 keys a row"));
  r = run_stepsim("check '" + llama + "' --set workload.document_tokens=2048 --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["job"]["workload"]["document_tokens"] == 2048.0);
}

TEST_CASE("stepsim check handles help, missing files and --set") {
  CHECK(run_stepsim("check --help").exit_code == 0);
  auto r = run_stepsim("check /nonexistent/s.toml");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("no such file"));
  CHECK(run_stepsim("check").exit_code == 2);
  const std::string example =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/gpt3-175b-1024xa100.toml";
  r = run_stepsim("check '" + example + "' --set parallelism.dp=4");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith(
                        "error: --set parallelism.dp=4: parallelism.dp: tp x pp x dp x cp = 8 x 8 x 4 x 1"));
}

TEST_CASE("stepsim check and run show the SMs the expert-parallel kernels hold") {
  const std::string mixtral =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/mixtral-8x7b-64xh100.toml";
  // Unset: the EP all-to-all takes the GPU's default share, and nothing is printed.
  auto r = run_stepsim("check '" + mixtral + "'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("ep kernels") == std::string::npos);
  // DeepEP V2's rule for EP 8 inside one H100 NVLink domain: 0.9 x 450 / 0.875 / 50 = 9.3 SMs,
  // x 1.25 = 11.6: 12 (tests/workloads/step/deepep_h800_test.cpp derives the rule).
  r = run_stepsim("check '" + mixtral + "' --set moe.ep_comm_sms='\"deepep-v2\"'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(
                        "ep kernels 12 of 132 SMs (DeepEP V2's count for this EP layout) while it runs"));
  r = run_stepsim("check '" + mixtral + "' --set moe.ep_comm_sms=24 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["job"]["moe"]["ep_comm_sms"] == 24);
  CHECK(j["job"]["moe"]["ep_comm_sms_from"] == "set");
  CHECK(j["job"]["cluster"]["gpu"]["sms"] == 132);
  r = run_stepsim("run '" + mixtral + "' --set moe.ep_comm_sms=24");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("EP communication: 24 of 132 SMs (moe.ep_comm_sms) while it runs"));
}

TEST_CASE("stepsim check says when the EP kernels hold too few SMs to keep the link busy") {
  // EP 8 in one H100 NVLink domain: DeepEP's traffic model needs 0.9 x 450 / 0.875 x 1 / 50 = 9.26
  // SMs to keep NVLink at its line rate; NCCL's all-to-all runs NVLink at nvlink_p2p = 0.77 of it,
  // so 4 SMs keep 4 / (9.26 x 0.77) = 56% of that rate.
  const std::string mixtral =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/mixtral-8x7b-64xh100.toml";
  auto r = run_stepsim("check '" + mixtral + "' --set moe.ep_comm_sms=4");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out,
             Catch::Contains("fewer than the 9.3 SMs DeepEP's traffic model needs to keep the link busy: "
                             "the all-to-all runs at 56% of the rate its links allow"));
  // 8 SMs: 8 / (9.26 x 0.77) = 1.12, the links bind.
  r = run_stepsim("check '" + mixtral + "' --set moe.ep_comm_sms=8");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("fewer than") == std::string::npos);
}

TEST_CASE("stepsim check and run show a chunk-by-chunk split, the pipeline schedules and the routing") {
  // AutoModel's DeepSeek-V3 on 1,024 H100: 61 layers over PP 4 x VP 8 as 29 chunks of 2 and 3 of 1,
  // so rank 0 holds 8 x 2 = 16 layers and ranks 1-3 hold 7 x 2 + 1 = 15; GBS 8192 / (dp 256 x local
  // batch 8) = 4 schedules of 8 micro-batches.
  const std::string dsv3 =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/validation/automodel-deepseek-v3-h100-1024.toml";
  auto r = run_stepsim("check '" + dsv3 + "'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("local batch 8 (4 pipeline schedules per step)") &&
                        Catch::Contains("(layers per pipeline rank, pipeline_layers: 16, 15, 15, 15)"));
  r = run_stepsim("check '" + dsv3 + "' --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out)["job"];
  CHECK(j["workload"]["local_batch"] == 8);
  CHECK(j["workload"]["pipeline_schedules"] == 4);
  CHECK(j["parallel"]["pipeline_layers"].size() == 32);
  CHECK(j["moe"]["routing"] == "round_robin");
  r = run_stepsim("run '" + dsv3 + "' -q");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("32 micro-batches per step in 4 pipeline schedules"));
}

TEST_CASE("stepsim check names NCCL's PAT and CollNet switches and gradients averaged inside NCCL") {
  const std::string fsdp2 =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/llama3.1-8b-torchtitan-8xh100.toml";
  // FSDP2 averages its gradients in the collective (ReduceOp.AVG), which rules out PAT for them.
  auto r = run_stepsim("check '" + fsdp2 + "'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("gradients averaged inside NCCL (ReduceOp.AVG"));
  r = run_stepsim("check '" + fsdp2 +
                  "' --set parallelism.average_in_collective=false --set collective.pat=false");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, !Catch::Contains("gradients averaged"));
  CHECK_THAT(r.out, Catch::Contains("NCCL's PAT off"));
  // A plain Megatron-style job names neither.
  const std::string megatron =
      std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/gpt3-175b-1024xa100.toml";
  r = run_stepsim("check '" + megatron + "'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, !Catch::Contains("NCCL's PAT off") && !Catch::Contains("gradients averaged"));
}

TEST_CASE("stepsim check lists userbuffers' configuration per GEMM, --set reaching into its tables") {
  const std::string gpt3 = std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/gpt3-175b-1024xa100.toml";
  const std::string ub = " --set parallelism.sequence_parallel=true --set parallelism.tp_comm_overlap=true";
  // TE 2.x's defaults: pipelined and bulk overlaps on 16 SMs, each leaving them to the communication.
  auto r = run_stepsim("check '" + gpt3 + "'" + ub);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(
                        "TP overlap userbuffers (qkv_fprop ring_exchange, qkv_dgrad bulk 16 SMs +margin"));
  CHECK_THAT(r.out, Catch::Contains("proj_fprop pipeline 16 SMs x4 +margin"));
  // TE 1.x's defaults with one GEMM configured as a NeMo 1 config writes it.
  r = run_stepsim(
      "check '" + gpt3 + "'" + ub +
      " --set 'parallelism.tp_overlap_defaults=\"te1\"' --set parallelism.tp_overlap.proj_fprop.num_sm=24"
      " --set parallelism.tp_overlap.proj_fprop.set_sm_margin=1");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(
      r.out,
      Catch::Contains("qkv_dgrad bulk 16 SMs, qkv_wgrad bulk 16 SMs, proj_fprop pipeline 24 SMs x4 +margin"));
  // Without userbuffers nothing of it is shown.
  r = run_stepsim("check '" + gpt3 + "'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, !Catch::Contains("TP overlap"));
}

TEST_CASE("stepsim catalog tp-overlap lists NeMo's named userbuffers configurations") {
  auto r = run_stepsim("catalog tp-overlap");
  REQUIRE(r.exit_code == 0);
  // NeMo's Llama 3 70B H100 BF16 configuration: proj_fprop pipelined on 24 SMs with the margin, qkv_wgrad
  // in bulk on 24, fc2_fprop pipelined on 16 with the margin.
  CHECK_THAT(r.out,
             Catch::Contains("userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192       ring       bulk 4     "
                             "bulk 24    pipe 24 +m"));
  r = run_stepsim("catalog tp-overlap --format json");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"id\": \"userbuffers_fp8_b200_h18432_tp8_mbs1_seqlen4096\""));
  r = run_stepsim("catalog tp-overlaps");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("expected gpus, models or tp-overlap"));
}
