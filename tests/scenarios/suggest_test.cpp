#include <catch2/catch.hpp>

#include "scenarios/suggest.hpp"

using namespace stepsim::scen;

TEST_CASE("edit distance counts edits, folding case and dash/underscore") {
  CHECK(edit_distance("tp", "tp") == 0);
  CHECK(edit_distance("tpp", "tp") == 1);         // one deletion
  CHECK(edit_distance("hiden", "hidden") == 1);   // one insertion
  CHECK(edit_distance("ffm", "ffn") == 1);        // one substitution
  CHECK(edit_distance("gloabl", "global") == 1);  // one transposition
  CHECK(edit_distance("global-batch", "global_batch") == 0);
  CHECK(edit_distance("TP", "tp") == 0);
  CHECK(edit_distance("", "abc") == 3);
}

TEST_CASE("closest_match suggests plausible typos and prefixes only") {
  const std::vector<std::string> keys{"dp", "tp", "pp", "cp", "global_batch", "micro_batch"};
  CHECK(closest_match("tpp", keys) == std::optional<std::string>("tp"));
  CHECK(closest_match("global-batch", keys) == std::optional<std::string>("global_batch"));
  CHECK(closest_match("microbatch", keys) == std::optional<std::string>("micro_batch"));
  CHECK_FALSE(closest_match("seq_len", keys).has_value());
  // a prefix of a longer id: "h100" -> the shortest id starting with it
  const std::vector<std::string> gpus{"h100-sxm-80gb", "h100-sxm", "h200"};
  CHECK(closest_match("h100", gpus) == std::optional<std::string>("h100-sxm"));
  CHECK(did_you_mean("xyz", gpus).empty());
  CHECK(did_you_mean("h20", gpus) == "did you mean `h200`?");
}

TEST_CASE("join_names lists and shortens") {
  const std::vector<std::string> names{"a", "b", "c"};
  CHECK(join_names(names) == "a, b, c");
  CHECK(join_names(names, 2) == "a, b, ... (1 more)");
}
