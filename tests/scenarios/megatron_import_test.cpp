// Megatron-LM command lines and NeMo configs as scenarios (`stepsim import --megatron/--nemo`):
// each shipped example under scenarios/megatron/ imports to its published parameter count and the
// layout it writes, and the TOML reads back through the scenario reader into the same model; shell
// words, Megatron's defaults and NeMo's interpolations behave as bash, Megatron and OmegaConf do.
#include <catch2/catch.hpp>

#include <cmath>

#include "scenarios/megatron_args.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/temp_files.hpp"
#include "workloads/model/params.hpp"

namespace megatron_import_rows {

namespace fs = std::filesystem;
using stepsim::scen::ImportCluster;
using stepsim::scen::ImportedRun;
using stepsim::scen::Scenario;

const fs::path kDir = fs::path(STEPSIM_SOURCE_DIR) / "scenarios" / "megatron";

ImportedRun megatron(const std::string& text, ImportCluster cluster = {"h100-sxm", 1, 0, 0}) {
  return stepsim::scen::import_megatron_text(text, "run.sh", cluster, stepsim::test::builtin_catalog());
}

ImportedRun nemo(const std::string& text, ImportCluster cluster = {"h100-sxm", 0, 0, 0}) {
  return stepsim::scen::import_nemo_text(text, "run.yaml", cluster, stepsim::test::builtin_catalog());
}

Scenario read_back(const ImportedRun& run) {
  return stepsim::scen::load_scenario_string(stepsim::scen::imported_scenario_toml(run), "imported.toml",
                                             stepsim::test::builtin_catalog());
}

double params(const stepsim::work::ModelSpec& m) {
  return stepsim::work::count_params(m).main_total();
}

/// A small Llama-like model: 8 heads, 2 KV groups, SwiGLU, RMSNorm, RoPE, no biases.
const std::string kSmall =
    "--num-layers 8 --hidden-size 1024 --num-attention-heads 8 --group-query-attention --num-query-groups 2 "
    "--seq-length 2048 --max-position-embeddings 2048 --swiglu --normalization RMSNorm "
    "--position-embedding-type rope --disable-bias-linear --vocab-size 32000 --micro-batch-size 1 --bf16 ";

struct PublishedRun {
  std::string file;
  bool nemo = false;
  ImportCluster cluster;
  double params = 0.0;
  int tp = 1, pp = 1, dp = 1, micro = 1, global = 1;
};

const std::vector<PublishedRun> kPublishedRuns = {
    // OpenAI, "Language Models are Few-Shot Learners" (2020), Table 2.1: 175.0B. stepsim counts
    // 174.6B with Megatron's padded vocabulary (51200). TP 8 x PP 16 on 16 nodes: dp = 128 / 128 = 1.
    {"gpt3-175b.sh", false, {"a100", 16, 0, 0}, 175e9, 8, 16, 1, 1, 1536},
    // meta-llama/Meta-Llama-3-8B card: 8.03B. One node, TP 1: dp = 8.
    {"llama3-8b-fp8.sh", false, {"h100-sxm", 1, 0, 0}, 8.03e9, 1, 1, 8, 1, 128},
    // meta-llama/Llama-3.1-70B card: 70.6B. trainer: 128 nodes x 8 = 1024 GPUs, dp = 1024 / (4 x 4 x 2).
    {"llama3.1-70b-nemo.yaml", true, {"h100-sxm", 0, 0, 0}, 70.6e9, 4, 4, 32, 1, 2048},
};

}  // namespace megatron_import_rows

TEST_CASE("megatron import: shipped examples give the published parameter counts and layouts") {
  using namespace megatron_import_rows;
  for (const PublishedRun& p : kPublishedRuns) {
    INFO(p.file);
    const fs::path file = kDir / p.file;
    const ImportedRun run =
        p.nemo ? stepsim::scen::import_nemo_config(file, p.cluster, stepsim::test::builtin_catalog())
               : stepsim::scen::import_megatron_args(file, p.cluster, stepsim::test::builtin_catalog());
    const Scenario s = read_back(run);
    CHECK(std::abs(params(s.job.model) / p.params - 1.0) < 0.01);
    CHECK(params(s.job.model) == params(run.model));  // the TOML holds the model it was made from
    CHECK(s.job.parallel.tp == p.tp);
    CHECK(s.job.parallel.pp == p.pp);
    CHECK(s.job.parallel.dp == p.dp);
    CHECK(s.job.workload.micro_batch == p.micro);
    CHECK(s.job.workload.global_batch == p.global);
    CHECK_FALSE(s.dp_derived);  // dp is written out
  }
}

TEST_CASE("megatron import: the shipped examples keep what their arguments say") {
  using namespace megatron_import_rows;
  const auto& catalog = stepsim::test::builtin_catalog();
  const Scenario gpt3 =
      read_back(stepsim::scen::import_megatron_args(kDir / "gpt3-175b.sh", {"a100", 16, 0, 0}, catalog));
  // Megatron's defaults: GeLU with ffn = 4 x 12288, LayerNorm, learned positions, biases, tied
  // embeddings, dropout 0.1; --fp16 keeps fp32 gradients; no --overlap-grad-reduce.
  CHECK(gpt3.job.model.ffn == 49152);
  CHECK(gpt3.job.model.vocab == 51200);  // 50257 padded to a multiple of 128 x tp 8 = 1024
  CHECK(gpt3.job.model.position == stepsim::work::PositionEmbedding::learned);
  CHECK(gpt3.job.model.max_positions == 2048);
  CHECK(gpt3.job.model.linear_bias);
  CHECK(gpt3.job.model.tied_embeddings);
  CHECK(gpt3.job.model.dropout);
  CHECK_FALSE(gpt3.job.parallel.dp_overlap);

  const Scenario nemo_70b = read_back(
      stepsim::scen::import_nemo_config(kDir / "llama3.1-70b-nemo.yaml", {"h100-sxm", 0, 0, 0}, catalog));
  CHECK(nemo_70b.job.parallel.virtual_stages == 10);
  CHECK(nemo_70b.job.parallel.cp == 2);
  CHECK(nemo_70b.job.parallel.sequence_parallel);
  CHECK(nemo_70b.job.parallel.zero_stage == 1);  // optim.name = distributed_fused_adam
  CHECK(nemo_70b.job.parallel.dp_overlap);       // optim.overlap_grad_sync
  CHECK(nemo_70b.job.model.kv_heads == 8);
  CHECK(nemo_70b.job.model.vocab == 128512);  // 128256 padded to a multiple of 128 x tp 4 = 512
}

TEST_CASE("megatron import: shell words, launchers and unknown arguments") {
  using namespace megatron_import_rows;
  SECTION("a script: comments, quotes, --flag=value, continuations, a pipe after the command") {
    const ImportedRun r = megatron(
        "#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n# the run\n"
        "torchrun --nproc_per_node 8 pretrain_gpt.py \\\n  " +
        kSmall +
        "\\\n  --global-batch-size=64 \\\n  --tensorboard-dir \"/logs/a b\" \\\n"
        "  --frobnicate 3 2>&1 | tee log.txt # a comment \\\necho done\n");
    CHECK(r.global_batch == 64);
    CHECK(r.skipped.at(0) == "the launcher `torchrun --nproc_per_node 8 pretrain_gpt.py` (line 4)");
    // export (line 2), tee after the pipe (line 8), echo: a comment's backslash continues nothing.
    CHECK(r.skipped.at(1) == "the file's other commands (lines 2, 8, 9)");
    CHECK(std::find(r.not_used.begin(), r.not_used.end(), "--frobnicate 3 (not an argument stepsim knows)") !=
          r.not_used.end());
    const std::string toml = stepsim::scen::imported_scenario_toml(r);
    CHECK(toml.find("# not used: --frobnicate 3 (not an argument stepsim knows)\n") != std::string::npos);
    CHECK(toml.find("--tensorboard-dir") != std::string::npos);  // listed as without effect
  }
  SECTION("a plain list of arguments, over several lines, without a launcher") {
    const ImportedRun r = megatron(kSmall + "\n--tensor-model-parallel-size 2\n--global-batch-size 8\n");
    CHECK(r.tp == 2);
    CHECK(r.dp == 4);  // 8 GPUs / tp 2
    CHECK(r.skipped.empty());
  }
  SECTION("a switch followed by a stray word, and an option given twice") {
    const ImportedRun r = megatron(kSmall + "--num-layers 4 --sequence-parallel yes");
    CHECK(r.model.layers == 4);  // the last value counts, as in argparse
    CHECK(std::find(r.not_used.begin(), r.not_used.end(), "`yes` (a word that follows no option)") !=
          r.not_used.end());
    CHECK(std::any_of(r.not_used.begin(), r.not_used.end(),
                      [](const std::string& n) { return n.find("--num-layers 8 (given again later") == 0; }));
  }
}

TEST_CASE("megatron import: hybrid Mamba models from --hybrid-override-pattern") {
  using namespace megatron_import_rows;
  // Nemotron-H 8B's layout: 24 M, 4 *, 24 - (the catalog's nemotron-h-8b).
  const std::string nh =
      "--num-layers 52 --hidden-size 4096 --num-attention-heads 32 --group-query-attention "
      "--num-query-groups 8 "
      "--ffn-hidden-size 21504 --kv-channels 128 --squared-relu --normalization RMSNorm "
      "--hybrid-override-pattern M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M- "
      "--position-embedding-type none --untie-embeddings-and-output-weights --disable-bias-linear "
      "--seq-length 8192 --micro-batch-size 1 --bf16 --vocab-size 131072 ";
  SECTION("Megatron's Mamba defaults: state 128, head width 64, 8 groups, heads = 2 x hidden / 64") {
    const ImportedRun r = megatron(nh);
    CHECK(r.model.mamba_layers() == 24);
    CHECK(r.model.attention_layers() == 4);
    CHECK(r.model.mamba.heads == 128);  // 2 x 4,096 / 64
    CHECK(r.model.mamba.state == 128);
    CHECK(r.model.mamba.groups == 8);
    CHECK(r.model.position == stepsim::work::PositionEmbedding::none);
    // The catalog's Nemotron-H 8B, counted the same way: 8,100,852,736.
    CHECK(params(r.model) == params(*stepsim::test::builtin_catalog().find_model("nemotron-h-8b")));
    // The written scenario reads back to the same model.
    const Scenario back = read_back(r);
    CHECK(back.job.model.hybrid_layers == r.model.hybrid_layers);
    CHECK(back.job.model.mamba.heads == 128);
  }
  SECTION("a pattern that disagrees with --num-layers, or a kind stepsim does not know") {
    CHECK_THROWS_WITH(megatron(nh + "--num-layers 50"),
                      Catch::Contains("has 52 layers, but --num-layers is 50"));
    std::string bad = nh;
    bad.replace(bad.find("M-M-M-M*"), 1, "Q");
    CHECK_THROWS_WITH(megatron(bad), Catch::Contains("has 'Q', which stepsim does not know"));
    // stepsim's G (Gated DeltaNet) has no Megatron arguments to size it.
    std::string gdn = nh;
    gdn.replace(gdn.find("M-M-M-M*"), 1, "G");
    CHECK_THROWS_WITH(megatron(gdn), Catch::Contains("Gated DeltaNet"));
  }
}

TEST_CASE("megatron import: Megatron's defaults and derivations") {
  using namespace megatron_import_rows;
  SECTION("ffn defaults: 4 x hidden, or 4 x hidden x 2/3 rounded down to 64 with --swiglu") {
    // GeLU: 4 x 1000 = 4000. SwiGLU: 4 x 1000 x 2/3 = 2666.7 -> 2666 -> 41 x 64 = 2624.
    const std::string base =
        "--num-layers 2 --hidden-size 1000 --num-attention-heads 8 --kv-channels 125 "
        "--seq-length 512 --vocab-size 1000 --micro-batch-size 1 ";
    CHECK(megatron(base).model.ffn == 4000);
    CHECK(megatron(base + "--swiglu").model.ffn == 2624);
  }
  SECTION("--transformer-impl local sums biased linears' gradients in kernels of their own") {
    // Megatron-Core's local layers (tensor_parallel/layers.py): grad_output.sum(dim=0); Transformer
    // Engine's, the default, fuse it. Without biases there is nothing to sum.
    const std::string gpt =
        "--num-layers 2 --hidden-size 1024 --num-attention-heads 8 --seq-length 512 --vocab-size 1000 "
        "--micro-batch-size 1 ";
    const ImportedRun local = megatron(gpt + "--transformer-impl local");
    CHECK(local.bias_grad_separate);
    CHECK(read_back(local).job.workload.bias_grad == stepsim::work::BiasGrad::separate);
    CHECK_FALSE(megatron(gpt).bias_grad_separate);
    CHECK_FALSE(megatron(gpt + "--transformer-impl transformer_engine").bias_grad_separate);
    CHECK_FALSE(megatron(gpt + "--transformer-impl local --disable-bias-linear").bias_grad_separate);
    CHECK(read_back(megatron(gpt)).job.workload.bias_grad == stepsim::work::BiasGrad::fused);
  }
  SECTION("the loss's cross-entropy as --cross-entropy-loss-fusion and its implementation choose it") {
    // Megatron-Core language_module.py: vocab_parallel_cross_entropy op by op by default; with the
    // fusion, fused_vocab_parallel_cross_entropy (torch.compile'd, impl "native") or Transformer
    // Engine's Triton kernel (impl "te").
    using stepsim::work::CrossEntropy;
    const std::string gpt =
        "--num-layers 2 --hidden-size 1024 --num-attention-heads 8 --seq-length 512 --vocab-size 1000 "
        "--micro-batch-size 1 ";
    CHECK(read_back(megatron(gpt)).job.workload.cross_entropy == CrossEntropy::megatron);
    CHECK(read_back(megatron(gpt + "--cross-entropy-loss-fusion")).job.workload.cross_entropy ==
          CrossEntropy::megatron_compiled);
    CHECK(read_back(megatron(gpt + "--cross-entropy-loss-fusion --cross-entropy-fusion-impl te"))
              .job.workload.cross_entropy == CrossEntropy::fused);
    // The implementation alone changes nothing, and says so.
    const ImportedRun impl = megatron(gpt + "--cross-entropy-fusion-impl te");
    CHECK(impl.cross_entropy == "megatron");
    CHECK(std::any_of(impl.not_used.begin(), impl.not_used.end(), [](const std::string& n) {
      return n.find("--cross-entropy-fusion-impl te") != std::string::npos;
    }));
  }
  SECTION("--num-query-groups counts only with --group-query-attention") {
    const ImportedRun r = megatron(
        "--num-layers 2 --hidden-size 1024 --num-attention-heads 8 --num-query-groups 2 "
        "--seq-length 512 --vocab-size 1000 --micro-batch-size 1");
    CHECK(r.model.kv_heads == 8);
    CHECK(r.not_used.at(0).find(
              "--num-query-groups 2 (Megatron reads it only with --group-query-attention)") == 0);
  }
  SECTION("the vocabulary is padded to a multiple of make-vocab-size-divisible-by x tp") {
    // 32000 / (64 x 4 = 256) = 125 exactly; 32001 -> 126 x 256 = 32256.
    CHECK(megatron(kSmall + "--make-vocab-size-divisible-by 64 --tensor-model-parallel-size 4").model.vocab ==
          32000);
    CHECK(megatron(kSmall +
                   "--vocab-size 32001 --make-vocab-size-divisible-by 64 --tensor-model-parallel-size 4")
              .model.vocab == 32256);
  }
  SECTION("--window-size and --window-attn-skip-freq: Megatron-Core's sliding-window attention") {
    // GPT-OSS's Megatron arguments: --window-size 128,0 (128 keys before a query, and itself: 129)
    // with one full-attention layer after every windowed one (--window-attn-skip-freq 2).
    const ImportedRun oss = megatron(kSmall + "--window-size 128,0 --window-attn-skip-freq 2");
    CHECK(oss.model.attention_window == 129);
    CHECK(oss.model.global_attention_every == 2);
    CHECK(oss.model.local_attention_layers() == 4);  // layers 0, 2, 4, 6 of 8
    const Scenario back = read_back(oss);
    CHECK(back.job.model.attention_window == 129);
    CHECK(back.job.model.local_attention_layers() == 4);
    // A list: 1 = window, 0 = full; the first six layers windowed.
    const ImportedRun listed = megatron(kSmall + "--window-size 4095,0 --window-attn-skip-freq [1]*6+[0]*2");
    CHECK(listed.model.attention_window == 4096);
    CHECK(listed.model.local_attention_layers() == 6);
    CHECK_FALSE(listed.model.is_local_attention_layer(6));
    CHECK(read_back(listed).job.model.local_attention_layers() == 6);
    // Without a skip frequency every layer is windowed; FlashAttention's -1 is no window.
    CHECK(megatron(kSmall + "--window-size 1023,0").model.local_attention_layers() == 8);
    CHECK(megatron(kSmall + "--window-size -1,0").model.attention_window == 0);
    CHECK_THROWS_WITH(megatron(kSmall + "--window-size 128,0 --window-attn-skip-freq [1]*3"),
                      Catch::Contains("--window-attn-skip-freq: lists 3 layers, but the model has 8"));
  }
  SECTION("global batch defaults to micro-batch x dp") {
    // 16 GPUs / (tp 2 x pp 2) = dp 4; global = 2 x 4 = 8.
    const ImportedRun r = megatron(kSmall +
                                       "--micro-batch-size 2 --tensor-model-parallel-size 2 "
                                       "--pipeline-model-parallel-size 2",
                                   {"h100-sxm", 2, 0, 0});
    CHECK(r.dp == 4);
    CHECK(r.global_batch == 8);
  }
  SECTION("virtual stages from layers per virtual stage") {
    // 8 layers / pp 2 / 2 layers per chunk = 2 chunks; 16 / (1 x dp 4) = 4 micro-batches, a multiple of pp.
    const ImportedRun r =
        megatron(kSmall +
                     "--global-batch-size 16 --tensor-model-parallel-size 2 "
                     "--pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 2",
                 {"h100-sxm", 2, 0, 0});
    CHECK(r.virtual_stages == 2);
    CHECK(read_back(r).job.parallel.virtual_stages == 2);
  }
  SECTION("MoE: experts, top-k, shared experts and a --moe-layer-freq list") {
    const ImportedRun r =
        megatron(kSmall +
                 "--num-experts 8 --moe-router-topk 2 --moe-ffn-hidden-size 512 "
                 "--moe-shared-expert-intermediate-size 1024 --moe-layer-freq \"([0]*2+[1]*2)*2\" "
                 "--expert-model-parallel-size 8 --sequence-parallel");
    REQUIRE(r.model.is_moe());
    CHECK(r.model.shared_experts == 2);  // 1024 / 512
    CHECK(r.model.moe_layer_pattern == std::vector<int>{0, 0, 1, 1, 0, 0, 1, 1});
    // Leading dense layers, then experts in every layer: dense_layers, as DeepSeek-V3's config.
    const ImportedRun leading = megatron(kSmall + "--num-experts 8 --moe-layer-freq [0]*3+[1]*5");
    CHECK(leading.model.dense_layers == 3);
    CHECK(leading.model.moe_layer_pattern.empty());
  }
  SECTION("context parallelism: --cp-comm-type picks how the cp ranks share keys and values") {
    const ImportedRun ag = megatron(kSmall + "--context-parallel-size 2 --cp-comm-type allgather");
    CHECK(ag.cp_comm == "all_gather");
    CHECK(read_back(ag).job.parallel.cp_comm == stepsim::work::CpComm::all_gather);
    CHECK(read_back(megatron(kSmall + "--context-parallel-size 2 --cp-comm-type a2a")).job.parallel.cp_comm ==
          stepsim::work::CpComm::a2a);
    const ImportedRun hier = megatron(kSmall + "--context-parallel-size 2 --cp-comm-type a2a+p2p");
    CHECK(hier.cp_comm.empty());
    CHECK(std::find(hier.not_used.begin(), hier.not_used.end(),
                    "--cp-comm-type a2a+p2p (hierarchical all-to-all and ring context parallelism is not "
                    "modelled: the ring runs)") != hier.not_used.end());
  }
  SECTION("MoE: the flex dispatcher's DeepEP backends give the SMs the EP kernels hold") {
    const std::string moe = kSmall + "--num-experts 8 --moe-router-topk 2 --expert-model-parallel-size 8 ";
    // DeepEP (the flex default backend) at Megatron's --moe-deepep-num-sms default, 20.
    const ImportedRun v1 = megatron(moe + "--moe-token-dispatcher-type flex");
    CHECK(v1.ep_comm_sms == 20);
    CHECK(read_back(v1).job.moe.ep_comm_sms == 20);
    // The deprecated switch, with a count.
    CHECK(megatron(moe + "--moe-enable-deepep --moe-deepep-num-sms 24").ep_comm_sms == 24);
    // DeepEP V2 sizes its own SMs.
    const ImportedRun v2 =
        megatron(moe + "--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepepv2");
    CHECK(v2.ep_comm_sms_deepep_v2);
    CHECK(read_back(v2).job.moe.ep_comm_sms_deepep_v2);
    // NCCL's all-to-all: the GPU's default share; the count alone is noted as unused.
    const ImportedRun nccl = megatron(moe + "--moe-token-dispatcher-type alltoall --moe-deepep-num-sms 24");
    CHECK(nccl.ep_comm_sms == 0);
    CHECK_FALSE(nccl.ep_comm_sms_deepep_v2);
    CHECK(std::find(nccl.not_used.begin(), nccl.not_used.end(),
                    "--moe-deepep-num-sms 24 (DeepEP's SMs: only with --moe-token-dispatcher-type flex)") !=
          nccl.not_used.end());
  }
  SECTION("precision, recomputation and overlap") {
    const ImportedRun r = megatron(kSmall +
                                   "--fp8-format hybrid --fp8-recipe tensorwise --recompute-granularity "
                                   "selective --recompute-modules core_attn mlp --use-distributed-optimizer "
                                   "--overlap-grad-reduce --overlap-param-gather "
                                   "--activation-func-fp8-input-store");
    CHECK(r.compute == "fp8");
    CHECK(r.activation_fp8_input_store);
    CHECK(r.recipe == "tensorwise");
    CHECK(r.recompute == "selective");
    CHECK(r.recompute_modules == std::vector<std::string>{"core_attn"});
    CHECK(std::find(r.not_used.begin(), r.not_used.end(),
                    "--recompute-modules mlp (stepsim does not model recomputing mlp)") != r.not_used.end());
    const Scenario s = read_back(r);
    CHECK(s.job.parallel.zero_stage == 1);
    CHECK(s.job.parallel.dp_overlap);
    CHECK(s.job.recompute == stepsim::work::Recompute::selective);
    CHECK(s.job.precision.activation_fp8_input_store);
  }
  SECTION("full recomputation of the first layers of each chunk (the block method)") {
    // 8 layers, one stage: recomputing 3 of them keeps the other 5 whole.
    const ImportedRun r =
        megatron(kSmall + "--recompute-granularity full --recompute-method block --recompute-num-layers 3");
    CHECK(r.recompute == "full");
    CHECK(r.recompute_layers == 3);
    CHECK(r.not_used.empty());
    const Scenario s = read_back(r);
    CHECK(s.job.recompute_layers == 3);
    CHECK(s.job.layer_recompute(2) == stepsim::work::Recompute::full);
    CHECK(s.job.layer_recompute(3) == stepsim::work::Recompute::none);
    // Every layer of the chunk: all recomputed, nothing to record.
    CHECK(megatron(kSmall + "--recompute-granularity full --recompute-method block --recompute-num-layers 8")
              .recompute_layers == 0);
  }
}

TEST_CASE("megatron import: NeMo keys, interpolations and the trainer") {
  using namespace megatron_import_rows;
  const std::string model =
      "model:\n  num_layers: 4\n  hidden_size: 1024\n  num_attention_heads: 8\n  encoder_seq_length: 2048\n"
      "  max_position_embeddings: ${model.encoder_seq_length}\n  micro_batch_size: 1\n"
      "  global_batch_size: ${.max_position_embeddings}\n  position_embedding_type: learned_absolute\n"
      "  activation: fast-swiglu\n  bias: false\n  share_embeddings_and_output_weights: false\n"
      "  num_query_groups: 2\n  tokenizer:\n    library: megatron\n  optim:\n    name: fused_adam\n"
      "    lr: 1.0e-4\n  unknown_table:\n    a: 1\n";
  const std::string trainer = "trainer:\n  num_nodes: 1\n  devices: 1\n  precision: bf16-mixed\n";
  SECTION("absolute and relative interpolations resolve to other keys of the file") {
    const ImportedRun r = nemo(model + trainer, {"h100-sxm", 0, 0, 50257});
    CHECK(r.model.max_positions == 2048);  // ${model.encoder_seq_length}
    CHECK(r.global_batch == 2048);         // ${.max_position_embeddings}, a sibling, and on to the above
    CHECK(r.nodes == 1);
    CHECK(r.gpus_per_node == 1);
    CHECK(r.compute == "bf16");
    CHECK(r.model.activation == stepsim::work::Activation::swiglu);
    CHECK_FALSE(r.model.linear_bias);
    CHECK_FALSE(r.model.tied_embeddings);
    CHECK(r.model.kv_heads == 2);  // NeMo: num_query_groups alone sets grouped-query attention
    CHECK(r.zero_stage == 0);      // fused_adam: not distributed
    CHECK(std::find(r.not_used.begin(), r.not_used.end(),
                    "model.unknown_table (a table stepsim does not read)") != r.not_used.end());
    CHECK(std::find(r.no_effect.begin(), r.no_effect.end(), "model.optim.lr") != r.no_effect.end());
    CHECK(params(read_back(r).job.model) == params(r.model));
  }
  SECTION("--nodes and --gpus-per-node replace the trainer's") {
    const ImportedRun r = nemo(model + trainer, {"h100-sxm", 1, 2, 50257});
    CHECK(r.gpus_per_node == 2);
    CHECK(r.dp == 2);
  }
  SECTION("an interpolation that names no key is an error naming both") {
    CHECK_THROWS_WITH(
        nemo("model:\n  num_layers: ${model.layers}\n", {"h100-sxm", 1, 0, 50257}),
        Catch::Contains("run.yaml:2:15: model.num_layers: `${model.layers}` names `model.layers`, a "
                        "key the file does not have"));
  }
}

TEST_CASE("megatron import: userbuffers' per-GEMM configuration from NeMo's model and Megatron's YAML file") {
  using namespace megatron_import_rows;
  // A TP-2 run with sequence parallelism and userbuffers; NeMo 1 writes its TE ub_cfgs under the
  // model (as the dgxc v25.02.01 Llama 3.1 70B recipe does), switches as 0 / 1.
  const std::string model =
      "model:\n  num_layers: 4\n  hidden_size: 1024\n  num_attention_heads: 8\n  encoder_seq_length: 2048\n"
      "  max_position_embeddings: 2048\n  micro_batch_size: 1\n  global_batch_size: 8\n"
      "  position_embedding_type: rope\n  activation: fast-swiglu\n  bias: false\n"
      "  tensor_model_parallel_size: 2\n  sequence_parallel: true\n  ub_tp_comm_overlap: true\n"
      "  ub_tp_comm_overlap_cfg:\n"
      "    proj_fprop:\n      method: pipeline\n      num_sm: 24\n      cga_size: 2\n      num_splits: 4\n"
      "      set_sm_margin: 1\n"
      "    qkv_wgrad:\n      method: bulk\n      num_sm: 8\n      set_sm_margin: 0\n      comm_priority: 1\n"
      "    fc3_fprop:\n      method: bulk\n";
  const std::string trainer = "trainer:\n  num_nodes: 1\n  devices: 2\n  precision: bf16-mixed\n";
  const ImportedRun r = nemo(model + trainer, {"h100-sxm", 0, 0, 50257});
  REQUIRE(r.tp_overlap.size() == 2);
  CHECK(r.tp_overlap[0].gemm == "proj_fprop");
  CHECK(r.tp_overlap_from == "model.ub_tp_comm_overlap_cfg");
  // An unknown GEMM name and a key without a modelled effect are listed, not dropped.
  const auto listed = [&](const std::string& prefix) {
    return std::any_of(r.not_used.begin(), r.not_used.end(),
                       [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
  };
  CHECK(listed("model.ub_tp_comm_overlap_cfg.fc3_fprop (not one of Transformer Engine's overlapped GEMMs"));
  CHECK(listed("model.ub_tp_comm_overlap_cfg.qkv_wgrad.comm_priority (no modelled effect"));
  // The scenario reads back with those settings; the GEMMs not listed keep TE 2.x's defaults.
  const Scenario s = read_back(r);
  const auto& ub = s.job.parallel.ub_overlap;
  using stepsim::work::UbGemm;
  CHECK(ub[static_cast<std::size_t>(UbGemm::proj_fprop)].num_sm == 24);
  CHECK(ub[static_cast<std::size_t>(UbGemm::proj_fprop)].set_sm_margin);
  CHECK(ub[static_cast<std::size_t>(UbGemm::qkv_wgrad)].num_sm == 8);
  CHECK_FALSE(ub[static_cast<std::size_t>(UbGemm::qkv_wgrad)].set_sm_margin);
  CHECK(ub[static_cast<std::size_t>(UbGemm::fc2_fprop)].num_sm == 16);
  CHECK(ub[static_cast<std::size_t>(UbGemm::fc2_fprop)].set_sm_margin);
  // A wrong value is an error at its line and column.
  std::string bad = model;
  bad.replace(bad.find("num_sm: 24"), 10, "num_sm: many");
  CHECK_THROWS_WITH(
      nemo(bad + trainer, {"h100-sxm", 0, 0, 50257}),
      Catch::Contains("run.yaml:18:15: model.ub_tp_comm_overlap_cfg.proj_fprop.num_sm: expected a "
                      "whole number, got `many`"));
  // Megatron-LM: --tp-comm-overlap-cfg names the YAML file; without the file each GEMM takes TE's
  // default and the flag is listed.
  stepsim::test::TempDir dir;
  const auto cfg =
      dir.write("ub.yaml", "fc2_fprop:\n  method: pipeline\n  num_sm: 20\n  set_sm_margin: true\n");
  const std::string args = kSmall +
                           "--tensor-model-parallel-size 2 --sequence-parallel --tp-comm-overlap "
                           "--global-batch-size 8 --tp-comm-overlap-cfg ";
  const ImportedRun m = megatron(args + "'" + cfg.string() + "'", {"h100-sxm", 1, 2, 0});
  REQUIRE(m.tp_overlap.size() == 1);
  CHECK(read_back(m).job.parallel.ub_overlap[static_cast<std::size_t>(UbGemm::fc2_fprop)].num_sm == 20);
  const ImportedRun missing = megatron(args + "/nonexistent/ub.yaml", {"h100-sxm", 1, 2, 0});
  CHECK(missing.tp_overlap.empty());
  CHECK(std::any_of(missing.not_used.begin(), missing.not_used.end(), [](const std::string& n) {
    return n.find("--tp-comm-overlap-cfg /nonexistent/ub.yaml (the file is not here") != std::string::npos;
  }));
}
