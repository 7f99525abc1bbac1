// Models from Hugging Face config.json files (`[model] hf_config`, `stepsim import`): every shipped
// copy under scenarios/hf/ resolves to its published parameter count, the imported [model] table
// reads back into the same model, overrides apply, and what stepsim does not use is reported.
#include <catch2/catch.hpp>
#include <tuple>

#include <cmath>

#include "scenarios/hf_config.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/small_inputs.hpp"
#include "tests/support/temp_files.hpp"
#include "workloads/model/params.hpp"

namespace hf_config_rows {

namespace fs = std::filesystem;
using stepsim::scen::HfModel;
using stepsim::scen::Scenario;
using stepsim::work::ModelSpec;

const fs::path kHf = fs::path(STEPSIM_SOURCE_DIR) / "scenarios" / "hf";

/// A prefill on one H100 node: inference, so GPT-NeoX's and Falcon's parallel blocks are allowed.
std::string scenario_text(const std::string& model_table) {
  return stepsim::test::with_small_prefill(model_table + "\n");
}

Scenario load_with(const std::string& model_table, const fs::path& base_dir = {}) {
  return stepsim::scen::load_scenario_string(scenario_text(model_table), "hf.toml",
                                             stepsim::test::builtin_catalog(), {}, base_dir);
}

Scenario load_config(const std::string& file) {
  return load_with("[model]\nhf_config = \"" + (kHf / file).string() + "\"\n");
}

/// One shipped config and the figures its publisher gives. `tolerance` is 0.01 unless the comment
/// says why the source allows no better; active = 0: not checked (dense models).
struct Published {
  std::string file;
  double total = 0.0;
  double active = 0.0;
  double tolerance = 0.01;
  /// DeepSeek-V2's "activated" figure leaves out the input embedding (a lookup, no compute).
  bool active_without_embedding = false;
};

const std::vector<Published> kPublished = {
    // Model cards on Hugging Face (the "Model size" of each repository) unless said otherwise.
    {"Llama-3.1-8B.json", 8.03e9},            // meta-llama/Llama-3.1-8B: 8.03B
    {"Llama-3.1-70B.json", 70.6e9},           // meta-llama/Llama-3.1-70B: 70.6B
    {"Llama-3.3-70B-Instruct.json", 70.6e9},  // meta-llama/Llama-3.3-70B-Instruct: 70.6B
    // meta-llama/Llama-4-Scout-17B-16E card: "17B activated, 109B total", vision encoder included.
    // stepsim simulates the text decoder: 107.77B, plus the 0.87B vision encoder (34 layers of
    // width 1408, MLP 5632, and its adapter and projector) gives 108.64B, which rounds to 109B;
    // 107.77 / 109 = 0.989, and 17.17B active / 17 = 1.010, hence 1.5% for a card printing whole
    // billions.
    {"Llama-4-Scout-17B-16E.json", 109e9, 17e9, 0.015},
    {"Mistral-7B-v0.3.json", 7.25e9},  // mistralai/Mistral-7B-v0.3: 7.25B
    // Mistral AI, "Mixtral of experts" (Dec 2023): 46.7B total, 12.9B used per token.
    {"Mixtral-8x7B-v0.1.json", 46.7e9, 12.9e9},
    {"Qwen2.5-7B.json", 7.61e9},  // Qwen/Qwen2.5-7B card: "Number of Parameters: 7.61B"
    {"Qwen3-8B.json", 8.2e9},     // Qwen/Qwen3-8B card: "Number of Parameters: 8.2B"
    // Qwen/Qwen3-30B-A3B card: "30.5B in total and 3.3B activated". Activated, counted as for
    // every MoE here (embedding, head, attention, 8 of 128 experts, router): 3.353B, 1.6% above a
    // figure printed with one decimal, hence 2%.
    {"Qwen3-30B-A3B.json", 30.5e9, 3.3e9, 0.02},
    // deepseek-ai/DeepSeek-V3 README_WEIGHTS.md: 671B main model, 36.7B activated (MTP's 11.5B
    // apart). As the catalog entry says (scenarios/catalog/models.toml): our activated count is
    // 37.55B and no split of the layer weights reproduces 36.7B exactly, hence 2.5%.
    {"DeepSeek-V3.json", 671e9, 36.7e9, 0.025},
    // deepseek-ai/DeepSeek-V2-Lite card: "15.7B parameters", "2.4B activated". The activated
    // figure leaves out the input embedding: 2.661B - 0.210B = 2.451B, 2.1% above a figure printed
    // with one decimal, hence 2.5%.
    {"DeepSeek-V2-Lite.json", 15.7e9, 2.4e9, 0.025, true},
    {"gemma-2-9b.json", 9.24e9},  // google/gemma-2-9b: 9.24B
    // Gemma 3 technical report (arXiv 2503.19786), Table 1, 12B: 1,012M embedding + 10,759M
    // non-embedding parameters in the text model (the 417M vision encoder listed apart).
    {"gemma-3-12b-pt.json", 11.771e9},
    // Biderman et al. 2023 (Pythia), Table 1: 6.9B model, 6,857,302,016 parameters.
    {"pythia-6.9b.json", 6857302016.0},
    // tiiuae/falcon-7b card: "a 7B parameters causal decoder-only model". The checkpoint holds
    // 6.92B (embedding tied to the head), 1.1% below a card printing whole billions, hence 1.5%.
    {"falcon-7b.json", 7e9, 0.0, 0.015},
    // nvidia/Nemotron-H-8B-Base-8K: the Nemotron-H paper's "8B" (whole billions; computed 8.10B), hence 2%.
    {"Nemotron-H-8B-Base-8K.json", 8e9, 0.0, 0.02},
    // Qwen/Qwen3-Next-80B-A3B-Instruct: the checkpoint's 79,674,391,296 weights, 3,874,929,408 less
    // the inactive experts (computed 79,674,292,992 and 3,874,831,104: the shared expert's gate is
    // not modelled).
    {"Qwen3-Next-80B-A3B-Instruct.json", 79'674'391'296.0, 3'874'929'408.0},
};

/// The fields a [model] table sets, compared one by one so a failure names the field.
void check_same_model(const ModelSpec& a, const ModelSpec& b) {
  CHECK(a.layers == b.layers);
  CHECK(a.hidden == b.hidden);
  CHECK(a.heads == b.heads);
  CHECK(a.kv_heads == b.kv_heads);
  CHECK(a.head_dim == b.head_dim);
  CHECK(a.ffn == b.ffn);
  CHECK(a.vocab == b.vocab);
  CHECK(a.activation == b.activation);
  CHECK(a.norm == b.norm);
  CHECK(a.position == b.position);
  CHECK(a.linear_bias == b.linear_bias);
  CHECK(a.tied_embeddings == b.tied_embeddings);
  CHECK(a.dropout == b.dropout);
  CHECK(a.qk_norm == b.qk_norm);
  CHECK(a.sandwich_norms == b.sandwich_norms);
  CHECK(a.parallel_block == b.parallel_block);
  CHECK(a.attention == b.attention);
  CHECK(a.mla.q_lora_rank == b.mla.q_lora_rank);
  CHECK(a.mla.kv_lora_rank == b.mla.kv_lora_rank);
  CHECK(a.mla.qk_nope_head_dim == b.mla.qk_nope_head_dim);
  CHECK(a.mla.qk_rope_head_dim == b.mla.qk_rope_head_dim);
  CHECK(a.mla.v_head_dim == b.mla.v_head_dim);
  CHECK(a.experts == b.experts);
  CHECK(a.top_k == b.top_k);
  CHECK(a.shared_experts == b.shared_experts);
  CHECK(a.expert_ffn == b.expert_ffn);
  CHECK(a.dense_layers == b.dense_layers);
  CHECK(a.moe_layers() == b.moe_layers());
  for (int i = 0; i < a.layers; ++i) CHECK(a.is_moe_layer(i) == b.is_moe_layer(i));
  CHECK(a.mtp_layers == b.mtp_layers);
  CHECK(a.attention_window == b.attention_window);
  CHECK(a.window_kind == b.window_kind);
  for (int i = 0; i < a.layers; ++i) CHECK(a.is_local_attention_layer(i) == b.is_local_attention_layer(i));
  CHECK(stepsim::work::count_params(a).total == stepsim::work::count_params(b).total);
}

std::string with_key(std::string json, const std::string& after, const std::string& inserted) {
  const auto at = json.find(after);
  REQUIRE(at != std::string::npos);
  json.insert(at + after.size(), inserted);
  return json;
}

}  // namespace hf_config_rows

using namespace hf_config_rows;

TEST_CASE("every shipped config.json resolves to its published parameter count") {
  REQUIRE(kPublished.size() == 17);
  for (const auto& p : kPublished) {
    INFO(p.file);
    const Scenario s = load_config(p.file);
    const auto b = stepsim::work::count_params(s.job.model);
    CHECK(std::abs(b.main_total() / p.total - 1.0) <= p.tolerance);
    if (p.active > 0.0) {
      const double active = b.main_active() - (p.active_without_embedding ? b.embedding : 0.0);
      CHECK(std::abs(active / p.active - 1.0) <= p.tolerance);
    }
  }
}

TEST_CASE("the architectures map to stepsim's model structure") {
  const ModelSpec scout = load_config("Llama-4-Scout-17B-16E.json").job.model;
  CHECK(scout.experts == 16);
  CHECK(scout.shared_experts == 1);  // Llama 4's shared expert, as wide as a routed one
  CHECK(scout.expert_ffn == 8192);
  CHECK(scout.ffn == 16384);        // intermediate_size_mlp, for dense layers (none in Scout)
  CHECK(scout.moe_layers() == 48);  // interleave_moe_layer_step = 1
  const ModelSpec v3 = load_config("DeepSeek-V3.json").job.model;
  CHECK(v3.attention == stepsim::work::AttentionKind::mla);
  CHECK(v3.mla.q_lora_rank == 1536);
  CHECK(v3.dense_layers == 3);                                                 // first_k_dense_replace
  CHECK(v3.moe_layers() == 58);                                                // 61 - 3
  CHECK(v3.mtp_layers == 1);                                                   // num_nextn_predict_layers
  CHECK(load_config("DeepSeek-V2-Lite.json").job.model.mla.q_lora_rank == 0);  // null: no query LoRA
  // NemotronH: the hybrid pattern as the catalog's Nemotron-H 8B has it, its Mamba dimensions.
  const ModelSpec nh = load_config("Nemotron-H-8B-Base-8K.json").job.model;
  CHECK(nh.mamba_layers() == 24);
  CHECK(nh.attention_layers() == 4);
  CHECK(nh.ffn_layers() == 24);
  CHECK(nh.mamba.heads == 128);
  CHECK(nh.mamba.state == 128);
  CHECK(nh.mamba.groups == 8);
  CHECK(nh.position == stepsim::work::PositionEmbedding::none);
  // Qwen3-Next: each decoder layer a mixer (G, or gated attention every 4th) and an MoE FFN.
  const ModelSpec qn = load_config("Qwen3-Next-80B-A3B-Instruct.json").job.model;
  CHECK(qn.layers == 96);
  CHECK(qn.gated_delta_layers() == 36);
  CHECK(qn.attention_layers() == 12);
  CHECK(qn.moe_layers() == 48);
  CHECK(qn.attention_output_gate);
  CHECK(qn.gated_delta.value_heads == 32);
  CHECK(qn.shared_experts == 1);
  const ModelSpec gemma = load_config("gemma-3-12b-pt.json").job.model;
  CHECK(gemma.head_dim == 256);  // not hidden / heads = 240
  CHECK(gemma.qk_norm);          // Gemma3Attention's q_norm and k_norm
  CHECK(gemma.sandwich_norms);   // post_attention_layernorm, post_feedforward_layernorm
  CHECK(gemma.vocab == 262208);  // Gemma3TextConfig's default: the file leaves it out
  CHECK(gemma.tied_embeddings);
  CHECK(gemma.activation == stepsim::work::Activation::swiglu);  // GeGLU: a gated MLP, three GEMMs
  const ModelSpec pythia = load_config("pythia-6.9b.json").job.model;
  CHECK(pythia.parallel_block);
  CHECK(pythia.linear_bias);
  CHECK(pythia.norm == stepsim::work::NormKind::layernorm);
  CHECK(pythia.activation == stepsim::work::Activation::gelu);
  const ModelSpec falcon = load_config("falcon-7b.json").job.model;
  CHECK(falcon.kv_heads == 1);   // multi_query without the new decoder architecture
  CHECK(falcon.head_dim == 64);  // 4544 / 71
  CHECK(falcon.ffn == 4 * 4544);
  CHECK(falcon.tied_embeddings);
  CHECK(load_config("Qwen3-8B.json").job.model.head_dim == 128);
}

TEST_CASE("local attention is read as transformers builds it") {
  using stepsim::work::AttentionWindowKind;
  // Gemma 3 (Gemma3TextConfig): window 1024 from the file, sliding_window_pattern 6 by default: layers
  // 5, 11, ... (i + 1 a multiple of 6) are global, the other 40 of 48 slide.
  const ModelSpec g3 = load_config("gemma-3-12b-pt.json").job.model;
  CHECK(g3.attention_window == 1024);
  CHECK(g3.window_kind == AttentionWindowKind::sliding);
  CHECK(g3.global_attention_every == 6);
  CHECK(g3.local_attention_layers() == 40);
  CHECK_FALSE(g3.is_local_attention_layer(5));
  CHECK(g3.is_local_attention_layer(6));
  // Gemma 2: every second layer (layer 1, 3, ...) global: 21 of 42 slide over 4096 tokens.
  const ModelSpec g2 = load_config("gemma-2-9b.json").job.model;
  CHECK(g2.attention_window == 4096);
  CHECK(g2.global_attention_every == 2);
  CHECK(g2.local_attention_layers() == 21);
  CHECK(g2.is_local_attention_layer(0));
  // Llama 4 Scout: chunks of attention_chunk_size 8192 on the RoPE layers; no_rope_layers left out,
  // so every 4th layer (NoPE) is global: 36 of 48 chunked.
  const ModelSpec scout = load_config("Llama-4-Scout-17B-16E.json").job.model;
  CHECK(scout.attention_window == 8192);
  CHECK(scout.window_kind == AttentionWindowKind::chunked);
  CHECK(scout.local_attention_layers() == 36);
  CHECK_FALSE(scout.is_local_attention_layer(3));
  // Mistral 7B v0.3 (sliding_window null) and Qwen2.5 (use_sliding_window false): no window.
  CHECK(load_config("Mistral-7B-v0.3.json").job.model.attention_window == 0);
  CHECK(load_config("Qwen2.5-7B.json").job.model.attention_window == 0);
  // Qwen2 with the window on slides from max_window_layers up (Qwen2Config): with 28 of 28 layers
  // below it nothing slides; at 20 the last 8 layers do, an irregular pattern kept as a list.
  const std::string qwen = stepsim::test::slurp(kHf / "Qwen2.5-7B.json");
  const auto switched = [&](const std::string& max_layers) {
    std::string on = qwen;
    const std::string off = "\"use_sliding_window\": false", layers = "\"max_window_layers\": 28";
    on.replace(on.find(off), off.size(), "\"use_sliding_window\": true");
    on.replace(on.find(layers), layers.size(), "\"max_window_layers\": " + max_layers);
    return stepsim::scen::parse_hf_config(on, "q.json").model;
  };
  CHECK(switched("28").attention_window == 0);
  const ModelSpec q = switched("20");
  CHECK(q.attention_window == 131072);
  REQUIRE(q.local_attention_pattern.size() == 28);
  CHECK(q.local_attention_layers() == 8);
  CHECK_FALSE(q.is_local_attention_layer(19));
  CHECK(q.is_local_attention_layer(20));
  // layer_types, where a config lists them, say it layer by layer (GPT-OSS-style alternation).
  const std::string mistral = stepsim::test::slurp(kHf / "Mistral-7B-v0.3.json");
  std::string types = "\n  \"layer_types\": [";
  for (int i = 0; i < 32; ++i)
    types += std::string(i ? ", " : "") + (i % 2 ? "\"full_attention\"" : "\"sliding_attention\"");
  std::string listed = with_key(mistral, "{", types + "],");
  const std::string none = "\"sliding_window\": null";
  listed.replace(listed.find(none), none.size(), "\"sliding_window\": 128");
  const ModelSpec alt = stepsim::scen::parse_hf_config(listed, "m.json").model;
  CHECK(alt.attention_window == 128);
  CHECK(alt.global_attention_every == 2);
  CHECK(alt.local_attention_layers() == 16);
  std::string wrong;
  try {
    (void)stepsim::scen::parse_hf_config(
        with_key(mistral, "{", "\n  \"layer_types\": [\"linear_attention\"],"), "m.json");
  } catch (const stepsim::UserError& e) {
    wrong = e.what();
  }
  CHECK_THAT(wrong, Catch::Contains("layer_types: lists 1 layers, but num_hidden_layers is 32"));
}

TEST_CASE("stepsim import writes a [model] table that reads back into the same model") {
  for (const auto& p : kPublished) {
    INFO(p.file);
    const HfModel h = stepsim::scen::load_hf_config(kHf / p.file);
    const std::string table = stepsim::scen::hf_model_toml(h, "scenarios/hf/" + p.file);
    CHECK(table.find("# Imported by `stepsim import` from scenarios/hf/" + p.file + " (" + h.architecture) ==
          0);
    const Scenario from_table = load_with(table);
    const Scenario from_json = load_config(p.file);
    CHECK(from_table.job.model.name == from_json.job.model.name);
    check_same_model(from_table.job.model, from_json.job.model);
  }
}

TEST_CASE("[model] keys beside hf_config override the config's values") {
  const Scenario s = load_with("[model]\nhf_config = \"" + (kHf / "Llama-3.1-8B.json").string() +
                               "\"\nlayers = 4\nheads = 16\nname = \"small\"\n");
  CHECK(s.job.model.layers == 4);
  CHECK(s.job.model.heads == 16);
  CHECK(s.job.model.head_dim == 256);  // derived from the config (4096 / 32), so it follows: 4096 / 16
  CHECK(s.job.model.kv_heads == 8);    // given by the config, kept
  CHECK(s.job.model.name == "small");
  CHECK(s.model_preset.empty());
  CHECK(s.model_hf_config.find("Llama-3.1-8B.json (LlamaForCausalLM)") != std::string::npos);
}

TEST_CASE("hf_config is relative to the scenario file, and a model folder stands for its config.json") {
  stepsim::test::TempDir dir;
  fs::create_directories(dir.path() / "runs");
  fs::create_directories(dir.path() / "models" / "Llama-3.1-8B");
  fs::copy_file(kHf / "Llama-3.1-8B.json", dir.path() / "models" / "Llama-3.1-8B" / "config.json");
  dir.write("runs/a.toml", scenario_text("[model]\nhf_config = \"../models/Llama-3.1-8B/config.json\"\n"));
  dir.write("runs/b.toml", scenario_text("[model]\nhf_config = \"../models/Llama-3.1-8B\"\n"));
  const auto& catalog = stepsim::test::builtin_catalog();
  const Scenario a = stepsim::scen::load_scenario(dir.path() / "runs" / "a.toml", catalog);
  const Scenario b = stepsim::scen::load_scenario(dir.path() / "runs" / "b.toml", catalog);
  CHECK(a.job.model.layers == 32);
  CHECK(a.job.model.name == "Llama-3.1-8B");  // a file called config.json is named by its folder
  CHECK(a.job.model.id == "llama-3.1-8b");
  CHECK(b.job.model.layers == 32);
}

TEST_CASE("GPT-OSS reads with GptOssConfig's defaults, which are GPT-OSS-120B's") {
  // OpenAI's gpt-oss model card (arXiv 2508.10925, table 1): 120b 116.83B parameters, 5.13B active
  // per token; 20b (24 layers, 32 experts) 20.91B and 3.61B; active counts leave out the embedding.
  const auto read = [](const std::string& json) { return stepsim::scen::parse_hf_config(json, "o.json"); };
  const HfModel big = read(R"({"architectures": ["GptOssForCausalLM"]})");
  const HfModel small =
      read(R"({"architectures": ["GptOssForCausalLM"], "num_hidden_layers": 24, "num_local_experts": 32})");
  for (const auto& [h, total, active] :
       {std::tuple{&big, 116.83e9, 5.13e9}, std::tuple{&small, 20.91e9, 3.61e9}}) {
    const auto b = stepsim::work::count_params(h->model);
    CHECK(std::abs(b.main_total() / total - 1.0) <= 0.01);
    CHECK(std::abs((b.main_active() - b.embedding) / active - 1.0) <= 0.01);
  }
  const ModelSpec& m = big.model;
  CHECK(m.experts == 128);
  CHECK(m.top_k == 4);
  CHECK(m.moe_layers() == 36);
  CHECK(m.linear_bias);
  CHECK(m.attention_window == 128);      // GptOssConfig's sliding_window
  CHECK(m.global_attention_every == 2);  // layer 0 slides, layer 1 is global, ...
  CHECK(m.local_attention_layers() == 18);
  CHECK(m.attention_sinks);  // one learned logit per head and layer, priced where a kernel lacks them
  CHECK(big.notes.empty());
}

TEST_CASE("[model] local attention keys: a window with its layers, and clear errors") {
  const std::string base = "[model]\npreset = \"llama-3.1-8b\"\n";
  const ModelSpec m = load_with(base + "attention_window = 1024\nglobal_attention_every = 4\n").job.model;
  CHECK(m.local_attention_layers() == 24);  // 32 layers, 3, 7, ... global
  const ModelSpec c =
      load_with(base + "attention_window = 8192\nattention_window_kind = \"chunked\"\n").job.model;
  CHECK(c.window_kind == stepsim::work::AttentionWindowKind::chunked);
  CHECK(c.local_attention_layers() == 32);  // no global layer by default
  const auto error_of = [&](const std::string& keys) -> std::string {
    try {
      (void)load_with(base + keys);
    } catch (const stepsim::UserError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK_THAT(error_of("global_attention_every = 2\n"),
             Catch::Contains("global_attention_every") && Catch::Contains("has no attention_window"));
  CHECK_THAT(error_of("attention_window = 512\nlocal_attention_layers = [1, 0]\n"),
             Catch::Contains("lists 2 layers, but the model has 32"));
  CHECK_THAT(error_of("attention_window = 512\nglobal_attention_every = 1\n"),
             Catch::Contains("leaves no layer local"));
  CHECK_THAT(error_of("attention_window = 512\nattention_window_kind = \"ring\"\n"),
             Catch::Contains("sliding") && Catch::Contains("chunked"));
  CHECK_THAT(error_of("attention_window = -1\n"), Catch::Contains("attention_window"));
  // Context parallelism with a window: Transformer Engine runs it with its all-gather or all-to-all
  // CP only; under the ring (p2p) stepsim notes it and prices the ring as asked.
  const fs::path seed =
      fs::path(STEPSIM_SOURCE_DIR) / "tests/fuzz/corpus/scenario/chunked-attention-train.toml";
  auto checked = stepsim::test::run_stepsim("check '" + seed.string() +
                                            "' --set parallelism.cp=2 --set parallelism.dp=1");
  CHECK(checked.exit_code == 0);
  CHECK_THAT(checked.out,
             Catch::Contains("note       local attention with ring (p2p) context parallelism (cp = 2)"));
  checked = stepsim::test::run_stepsim("check '" + seed.string() +
                                       "' --set parallelism.cp=2 --set parallelism.dp=1"
                                       " --set parallelism.cp_comm='\"all_gather\"'");
  CHECK(checked.exit_code == 0);
  CHECK(checked.out.find("local attention with") == std::string::npos);
  CHECK_THAT(checked.out, Catch::Contains("x CP 2 (all_gather)"));
}

TEST_CASE("keys stepsim does not use are notes, irrelevant keys are silent, new keys are reported") {
  CHECK(load_config("Llama-3.1-8B.json").notes.empty());  // every key mapped or irrelevant
  // Gemma 2's sliding window and its norms after attention and MLP are read: no note.
  CHECK(load_config("gemma-2-9b.json").notes.empty());
  const Scenario qwen2 = load_config("Qwen2.5-7B.json");
  REQUIRE(qwen2.notes.size() == 1);  // biases on q, k and v only: stepsim has all or none
  CHECK_THAT(qwen2.notes[0], Catch::Contains("Qwen2's biases on the q, k and v projections"));
  const std::string llama = stepsim::test::slurp(kHf / "Llama-3.1-8B.json");
  const HfModel h =
      stepsim::scen::parse_hf_config(with_key(llama, "{", "\n  \"fancy_new_thing\": 3,"), "x.json");
  REQUIRE(h.notes.size() == 1);
  CHECK(h.notes[0] == "`fancy_new_thing` = 3 not used by stepsim (a key stepsim does not know)");
  // Off switches leave nothing to report: no sliding window in Qwen2.5 (use_sliding_window false).
  for (const auto& n : load_config("Qwen2.5-7B.json").notes) CHECK(n.find("sliding") == std::string::npos);
  // A sliding window in an architecture whose reader does not take one is reported.
  bool reported = false;
  for (const auto& n :
       stepsim::scen::parse_hf_config(with_key(llama, "{", "\n  \"sliding_window\": 4096,"), "l.json").notes)
    reported = reported || n.find(
                               "`sliding_window` = 4096 not used by stepsim (sliding-window attention, "
                               "which this architecture's reader does not take") != std::string::npos;
  CHECK(reported);
  CHECK(reported);
}

TEST_CASE("bad configs are UserErrors located in the JSON file") {
  const std::string llama = stepsim::test::slurp(kHf / "Llama-3.1-8B.json");
  const auto error_of = [](const std::string& json) -> std::string {
    try {
      (void)stepsim::scen::parse_hf_config(json, "c.json");
    } catch (const stepsim::UserError& e) {
      return e.what();
    }
    return "no error";
  };
  // A stray comma: the parser's line and column.
  CHECK_THAT(error_of("{\n\"a\": 1,,\n}"),
             Catch::StartsWith("c.json:2:8: is not valid JSON: syntax error while parsing object key"));
  CHECK_THAT(error_of(with_key(llama, "\"hidden_size\": ", "-")),
             Catch::StartsWith("c.json:10:3: hidden_size: must be a positive whole number, got -4096"));
  const std::string no_layers = llama.substr(0, llama.find("  \"num_hidden_layers\"")) +
                                llama.substr(llama.find("\"num_key_value_heads\""));
  CHECK(error_of(no_layers) ==
        "c.json: num_hidden_layers: is missing (the number of transformer layers) (a config.json saved by "
        "transformers has it; add it, or check that this is the model's config)");
  CHECK_THAT(
      error_of(R"({"architectures": ["GPT2LMHeadModel"], "n_layer": 12})"),
      Catch::StartsWith("c.json:1:2: architectures: is `GPT2LMHeadModel`, an architecture stepsim cannot "
                        "read (supported: LlamaForCausalLM (Llama 2/3/3.1/3.3), "));
  CHECK_THAT(error_of("[1, 2]"),
             Catch::StartsWith("c.json:1:1: is not a config.json: expected a JSON object"));
  CHECK_THAT(error_of(with_key(llama, "\"num_key_value_heads\": ", "1")),
             Catch::Contains("num_key_value_heads: 18 does not divide num_attention_heads (32)"));
}

TEST_CASE("stepsim import prints the table or writes it with --out, and stepsim check prints the notes") {
  const fs::path config = kHf / "Qwen3-30B-A3B.json";
  const std::string expected =
      stepsim::scen::hf_model_toml(stepsim::scen::load_hf_config(config), config.string());
  const auto printed = stepsim::test::run_stepsim("import '" + config.string() + "'");
  CHECK(printed.exit_code == 0);
  CHECK(printed.out == expected);
  stepsim::test::TempDir dir;
  const fs::path out = dir.path() / "model.toml";
  const auto written =
      stepsim::test::run_stepsim("import '" + config.string() + "' --out '" + out.string() + "'");
  CHECK(written.exit_code == 0);
  CHECK(written.out.empty());
  CHECK_THAT(written.err, Catch::Contains("wrote the [model] table of Qwen3-30B-A3B (Qwen3MoeForCausalLM)"));
  CHECK(stepsim::test::slurp(out) == expected);
  dir.write("s.toml", scenario_text("[model]\nhf_config = \"" + (kHf / "Qwen2.5-7B.json").string() + "\"\n"));
  const auto checked = stepsim::test::run_stepsim("check '" + (dir.path() / "s.toml").string() + "'");
  CHECK(checked.exit_code == 0);
  CHECK_THAT(checked.out, Catch::Contains("model      Qwen2.5-7B from hf_config ") &&
                              Catch::Contains("Qwen2.5-7B.json (Qwen2ForCausalLM): 28 layers"));
  CHECK_THAT(checked.out,
             Catch::Contains("note       ") &&
                 Catch::Contains("Qwen2.5-7B.json: Qwen2's biases on the q, k and v projections"));
}

TEST_CASE("Qwen3.5's vision-language wrapper is read through its text_config as Qwen3-Next's layers") {
  // Qwen3.5-9B's text dimensions on 8 decoder layers (three Gated DeltaNet, one gated attention, twice)
  // and a dense MLP in each: 16 hybrid layers G-G-G-*-G-G-G-*-.
  stepsim::test::TempDir dir;
  dir.write("q35.json", R"({"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
 "tie_word_embeddings": false, "vision_config": {"depth": 27, "hidden_size": 1152},
 "text_config": {"attn_output_gate": true, "head_dim": 256, "hidden_size": 4096, "intermediate_size": 12288,
  "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention",
                  "linear_attention", "linear_attention", "linear_attention", "full_attention"],
  "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
  "linear_num_value_heads": 32, "linear_value_head_dim": 128, "num_attention_heads": 16,
  "num_key_value_heads": 4, "num_hidden_layers": 8, "vocab_size": 248320, "mtp_num_hidden_layers": 1,
  "tie_word_embeddings": false}})");
  dir.write("run.toml", scenario_text("[model]\nhf_config = \"q35.json\"\n"));
  const Scenario s = stepsim::scen::load_scenario(dir.path() / "run.toml", stepsim::test::builtin_catalog());
  const ModelSpec& m = s.job.model;
  CHECK(m.layers == 16);
  CHECK(m.gated_delta_layers() == 6);
  CHECK(m.attention_layers() == 2);
  CHECK(m.ffn_layers() == 8);
  CHECK(m.ffn == 12288);
  CHECK(m.attention_output_gate);
  CHECK_FALSE(m.is_moe());
  CHECK(m.gated_delta.key_dim == 128);
}
