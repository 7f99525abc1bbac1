// Bad-input catalogue, Hugging Face configs (issue 17): `[model] hf_config` and `stepsim import`
// on files that are missing, not JSON, of an architecture stepsim cannot read, or missing or
// spoiling a dimension. Each is exit 2 with the file, the line and column where the file has one,
// the key and what to do.
#include "tests/bad_inputs/bad_input.hpp"
#include "tests/support/small_inputs.hpp"

namespace hf_config_rows {

using stepsim::test::bad::BadInput;

/// A small Llama config; `extra` goes in after the first line, `layers` is num_hidden_layers'
/// value. Lines: 1 {, 2 architectures, 3 model_type, 4 hidden_size, 5 intermediate_size,
/// 6 num_attention_heads, 7 num_hidden_layers, 8 num_key_value_heads, 9 vocab_size.
std::string llama(const std::string& hidden = "4096", const std::string& kv_heads = "8") {
  return "{\n"
         "  \"architectures\": [\"LlamaForCausalLM\"],\n"
         "  \"model_type\": \"llama\",\n"
         "  \"hidden_size\": " +
         hidden +
         ",\n"
         "  \"intermediate_size\": 14336,\n"
         "  \"num_attention_heads\": 32,\n"
         "  \"num_hidden_layers\": 32,\n"
         "  \"num_key_value_heads\": " +
         kv_heads +
         ",\n"
         "  \"vocab_size\": 128256\n"
         "}\n";
}

/// `text` without the first `part`.
std::string without(std::string text, const std::string& part) {
  return text.erase(text.find(part), part.size());
}

/// A scenario whose [model] is `model_lines` (line 1 is [model], line 2 the first of them).
std::string scenario(const std::string& model_lines) {
  return stepsim::test::with_small_prefill("[model]\n" + model_lines + "\n");
}

/// `stepsim check` on {dir}/s.toml = scenario(model_lines), with {dir}/c.json = `config`.
BadInput check_row(std::string name, const std::string& model_lines, std::string config,
                   std::vector<std::string> stderr_contains) {
  return BadInput{std::move(name),
                  {{"s.toml", scenario(model_lines)}, {"c.json", std::move(config)}},
                  "check {dir}/s.toml",
                  2,
                  std::move(stderr_contains)};
}

/// `stepsim import {dir}/c.json OPTIONS` with `config` as c.json.
BadInput import_row(std::string name, std::string config, const std::string& options,
                    std::vector<std::string> stderr_contains) {
  return BadInput{std::move(name),
                  {{"c.json", std::move(config)}},
                  "import {dir}/c.json " + options,
                  2,
                  std::move(stderr_contains)};
}

const std::string kHf = "hf_config = \"c.json\"";

const std::vector<BadInput> kRows = {
    check_row("hf_config names a file that is not there", "hf_config = \"nope.json\"", llama(),
              {"s.toml:2:13: model.hf_config: file not found (looked for ", "nope.json)",
               "paths are relative to the scenario file"}),
    check_row("hf_config names a device that never ends", "hf_config = \"/dev/zero\"", llama(),
              {"s.toml:2:13: model.hf_config: /dev/zero is not a regular file"}),
    check_row("hf_config names a folder without a config.json", "hf_config = \".\"", llama(),
              {"s.toml:2:13: model.hf_config: folder without a config.json (looked for "}),
    check_row("hf_config is empty", "hf_config = \"\"", llama(), {"s.toml:2:13: model.hf_config: is empty"}),
    check_row("hf_config is not a string", "hf_config = 3", llama(), {"s.toml:2:13: model.hf_config: "}),
    check_row("malformed JSON: a missing comma", kHf,
              "{\n  \"architectures\": [\"LlamaForCausalLM\"]\n  \"x\": 1\n}",
              {"c.json:3:5: is not valid JSON: syntax error while parsing object - unexpected string literal",
               "a config.json is one JSON object"}),
    check_row("malformed JSON: an empty file", kHf, "", {"c.json:1:1: is not valid JSON: "}),
    check_row("a JSON value that is not an object", kHf, "[1, 2]\n",
              {"c.json:1:1: is not a config.json: expected a JSON object"}),
    check_row("an architecture stepsim cannot read", kHf,
              "{\n  \"architectures\": [\"GPT2LMHeadModel\"],\n  \"n_layer\": 12\n}",
              {"s.toml:2:13: model.hf_config: ",
               "c.json is a `GPT2LMHeadModel` model, an architecture stepsim cannot read",
               "supported: LlamaForCausalLM (Llama 2/3/3.1/3.3), ", "FalconForCausalLM (Falcon)"}),
    check_row("no architecture at all", kHf, "{\"hidden_size\": 4096}",
              {"s.toml:2:13: model.hf_config: ",
               "c.json names no architecture (neither `architectures` nor `model_type`)"}),
    check_row("a required field missing", kHf, without(llama(), "  \"num_hidden_layers\": 32,\n"),
              {"c.json: num_hidden_layers: is missing (the number of transformer layers)"}),
    check_row("a dimension of zero", kHf, llama("0"),
              {"c.json:4:3: hidden_size: must be a positive whole number, got 0"}),
    check_row("a negative dimension", kHf, llama("-4096"),
              {"c.json:4:3: hidden_size: must be a positive whole number, got -4096"}),
    check_row("a fractional dimension", kHf, llama("4096.5"),
              {"c.json:4:3: hidden_size: must be a positive whole number, got 4096.5"}),
    check_row("a dimension given as a string", kHf, llama("\"4096\""),
              {"c.json:4:3: hidden_size: must be a positive whole number, got \"4096\""}),
    check_row("a dimension past INT_MAX", kHf, llama("99999999999"),
              {"c.json:4:3: hidden_size: must be a positive whole number, got 99999999999"}),
    check_row("KV heads that do not divide the heads", kHf, llama("4096", "5"),
              {"c.json:8:3: num_key_value_heads: 5 does not divide num_attention_heads (32)"}),
    check_row("hf_config together with preset", "preset = \"llama-3.1-8b\"\n" + kHf, llama(),
              {"s.toml:3:13: model.hf_config: give one of preset or hf_config", "keep one"}),
    check_row(
        "more experts per token than a layer has", kHf,
        "{\"architectures\": [\"MixtralForCausalLM\"], \"hidden_size\": 4096, \"intermediate_size\": 14336,\n"
        " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8,\n"
        " \"vocab_size\": 32000, \"num_local_experts\": 8, \"num_experts_per_tok\": 9}",
        {"c.json:3:47: num_experts_per_tok: 9 is more than the 8 experts of a layer"}),
    check_row(
        "moe_layers names a layer the model does not have", kHf,
        "{\"architectures\": [\"Llama4ForCausalLM\"], \"hidden_size\": 5120, \"intermediate_size\": 8192,\n"
        " \"intermediate_size_mlp\": 16384, \"num_attention_heads\": 40, \"num_hidden_layers\": 2,\n"
        " \"vocab_size\": 202048, \"num_local_experts\": 16, \"num_experts_per_tok\": 1, \"moe_layers\": [1, "
        "2]}",
        {"c.json:3:75: moe_layers: lists layer 2, but num_hidden_layers is 2", "0-based"}),
    check_row("text_config is not an object", kHf,
              "{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"text_config\": 7}",
              {"c.json:1:55: text_config: must be an object, got 7"}),
    import_row("stepsim import: an architecture stepsim cannot read",
               "{\n  \"architectures\": [\"GPT2LMHeadModel\"]\n}", "",
               {"c.json:2:3: architectures: is `GPT2LMHeadModel`, an architecture stepsim cannot read",
                "supported: LlamaForCausalLM"}),
    import_row("stepsim import: malformed JSON", "{\"a\": }", "", {"c.json:1:7: is not valid JSON: "}),
    import_row("stepsim import: --out in a folder that does not exist", llama(), "--out {dir}/no/such/m.toml",
               {"--out: "}),
    BadInput{"stepsim import: a file that is not there",
             {},
             "import {dir}/nope.json",
             2,
             {"nope.json: file not found (looked for ", "give the path of a model's config.json"}},
    BadInput{"stepsim import: no file", {}, "import", 2, {"missing the config file (usage: stepsim import"}},
};

}  // namespace hf_config_rows

TEST_CASE("bad inputs: hf_config and stepsim import refuse configs they cannot read, with the place") {
  for (const auto& r : hf_config_rows::kRows) {
    const auto result = stepsim::test::bad::check_bad_input(r);
    CHECK(result.out.empty());  // nothing printed on stdout, no half-written table
  }
}
