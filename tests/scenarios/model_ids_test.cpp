// Model ids as people write them: Hugging Face repository names, with or without the organisation,
// release suffixes and punctuation, all resolve to the catalog entry they name.
#include <catch2/catch.hpp>

#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "sim/error.hpp"
#include "tests/support/catalog.hpp"
#include "tests/support/small_inputs.hpp"

namespace model_id_rows {

using stepsim::scen::model_id_key;

const stepsim::work::ModelSpec* find(std::string_view id) {
  return stepsim::test::builtin_catalog().find_model(id);
}

std::string id_of(std::string_view spelling) {
  const auto* m = find(spelling);
  return m == nullptr ? "(none)" : m->id;
}

}  // namespace model_id_rows

using namespace model_id_rows;

TEST_CASE("spellings of a model id reduce to one key") {
  CHECK(model_id_key("Llama-3.3-70B-Instruct") == "llama-3.3-70-b");
  CHECK(model_id_key("meta-llama/Meta-Llama-3.1-70B-Instruct") == "llama-3.1-70-b");
  CHECK(model_id_key("llama3-70b") == model_id_key("llama-3-70b"));
  CHECK(model_id_key("Llama-2-70b-chat-hf") == "llama-2-70-b");
  CHECK(model_id_key("deepseek-ai/DeepSeek-V3-Base") == "deepseek-v-3");
  CHECK(model_id_key("mixtral_8x7b") == "mixtral-8-x-7-b");
  // A dot between digits is part of the number: 1.7B is not 17B.
  CHECK(model_id_key("megatron-gpt-1.7b") != model_id_key("megatron-gpt-17b"));
  CHECK(model_id_key("Instruct") == "instruct");  // a suffix alone is kept, never emptied
}

TEST_CASE("the model ids people write resolve to catalog entries") {
  // The spellings of issue 17.
  CHECK(id_of("llama3-70b") == "llama-3.1-70b");  // Llama 3 70B: an alias, the same dimensions
  CHECK(id_of("meta-llama/Llama-3.1-70B") == "llama-3.1-70b");
  CHECK(id_of("Llama-3.3-70B-Instruct") == "llama-3.3-70b");
  CHECK(id_of("llama-3.3-70b") == "llama-3.3-70b");
  // And their neighbours.
  CHECK(id_of("meta-llama/Meta-Llama-3.1-70B-Instruct") == "llama-3.1-70b");
  CHECK(id_of("meta-llama/Meta-Llama-3-8B") == "llama-3.1-8b");
  CHECK(id_of("llama3.1-8b") == "llama-3.1-8b");
  CHECK(id_of("LLAMA-3.1-405B") == "llama-3.1-405b");
  CHECK(id_of("meta-llama/Llama-2-70b-chat-hf") == "llama-2-70b");
  CHECK(id_of("llama2-7b") == "llama-2-7b");
  CHECK(id_of("mistralai/Mixtral-8x7B-Instruct-v0.1") == "mixtral-8x7b");
  CHECK(id_of("mistralai/Mixtral-8x22B-v0.1") == "mixtral-8x22b");
  CHECK(id_of("deepseek-ai/DeepSeek-V3-Base") == "deepseek-v3");
  CHECK(id_of("deepseek-ai/DeepSeek-R1") == "deepseek-v3");
  CHECK(id_of("Qwen/Qwen3-235B-A22B") == "qwen3-235b-a22b");
  CHECK(id_of("GPT3-175B") == "gpt3-175b");
  // Different models stay different.
  CHECK(id_of("llama-3.2-1b") == "(none)");
  CHECK(id_of("megatron-gpt-17b") == "(none)");
  CHECK(id_of("") == "(none)");
  CHECK(id_of("/") == "(none)");
}

TEST_CASE("no two catalog entries share a spelling key") {
  const auto& c = stepsim::test::builtin_catalog();
  for (const auto& name : c.model_names()) {
    INFO(name);
    const auto* direct = c.find_model(name);
    REQUIRE(direct != nullptr);
    for (const auto& m : c.models())
      if (model_id_key(m.id) == model_id_key(name)) CHECK(m.id == direct->id);
  }
}

TEST_CASE("a scenario preset takes any spelling, and an unknown id keeps the did-you-mean") {
  const auto load = [](const std::string& preset) {
    return stepsim::scen::load_scenario_string(
        stepsim::test::with_small_prefill("[model]\npreset = \"" + preset + "\"\n"), "ids.toml",
        stepsim::test::builtin_catalog());
  };
  const auto s = load("meta-llama/Llama-3.3-70B-Instruct");
  CHECK(s.model_preset == "llama-3.3-70b");
  CHECK(s.job.model.name == "Llama 3.3 70B");
  try {
    (void)load("lama-3.1-70b");
    FAIL("no error");
  } catch (const stepsim::UserError& e) {
    CHECK_THAT(e.what(), Catch::Contains("model.preset: unknown model `lama-3.1-70b`"));
    CHECK_THAT(e.what(), Catch::Contains("did you mean `llama-3.1-70b`?"));
  }
}
