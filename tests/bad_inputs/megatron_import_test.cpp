// Bad-input catalogue, Megatron-LM and NeMo imports (issue 17): `stepsim import --megatron` and
// `--nemo` on files that are missing, hold a shell variable, a malformed value, a layout that does
// not fit the cluster, an interpolation to nowhere or broken YAML, and on a missing or unknown GPU.
// Each is exit 2 with the file, line and column where there is one, the argument and what to do.
#include "tests/bad_inputs/bad_input.hpp"

namespace megatron_import_bad_rows {

using stepsim::test::bad::BadInput;

/// A small run's arguments on line 1: the first extra argument starts at column 124.
const std::string kArgs =
    "--num-layers 8 --hidden-size 1024 --num-attention-heads 8 --seq-length 2048 --vocab-size 32000 "
    "--micro-batch-size 1 --bf16 ";

/// `stepsim import --megatron {dir}/a.sh OPTIONS` with `text` as a.sh.
BadInput megatron_row(std::string name, std::string text, const std::string& options,
                      std::vector<std::string> stderr_contains) {
  return BadInput{std::move(name),
                  {{"a.sh", std::move(text)}},
                  "import --megatron {dir}/a.sh " + options,
                  2,
                  std::move(stderr_contains)};
}

/// `stepsim import --nemo {dir}/c.yaml --gpu h100` with `text` as c.yaml.
BadInput nemo_row(std::string name, std::string text, std::vector<std::string> stderr_contains) {
  return BadInput{std::move(name),
                  {{"c.yaml", std::move(text)}},
                  "import --nemo {dir}/c.yaml --gpu h100",
                  2,
                  std::move(stderr_contains)};
}

const std::string kGpu = "--gpu h100 --nodes 1";

const std::vector<BadInput> kRows = {
    BadInput{"--megatron: a file that is not there",
             {},
             "import --megatron {dir}/nope.sh " + kGpu,
             2,
             {"nope.sh: file not found (give the path of a Megatron-LM command line"}},
    megatron_row("--megatron: a shell variable in the arguments",
                 "torchrun pretrain_gpt.py " + kArgs + "\\\n  --num-layers $NUM_LAYERS\n", kGpu,
                 {"a.sh:2:16: `$NUM_LAYERS`: a shell expansion stepsim cannot resolve", "bash -x"}),
    megatron_row("--megatron: a bash array expanded in the command",
                 "python pretrain_gpt.py ${MODEL_ARGS[@]}\n", kGpu,
                 {"a.sh:1:24: `${MODEL_ARGS[@]}`: a shell expansion stepsim cannot resolve"}),
    megatron_row("--megatron: a word that is not a number", kArgs + "--num-layers eighty\n", kGpu,
                 {"a.sh:1:124: --num-layers: expected a whole number, got `eighty`"}),
    megatron_row("--megatron: a layer count of zero", kArgs + "--num-layers=0\n", kGpu,
                 {"a.sh:1:124: --num-layers: must be at least 1, got 0"}),
    megatron_row(
        "--megatron: a choice Megatron does not have", kArgs + "--recompute-granularity fulll\n", kGpu,
        {"--recompute-granularity: expected one of full, selective, got `fulll`", "did you mean `full`?"}),
    megatron_row("--megatron: a quote without its end", kArgs + "--data-path \"/data/x\n", kGpu,
                 {"a.sh:1:136: a double quote without its end"}),
    megatron_row("--megatron: tp x pp x cp does not divide the GPUs",
                 kArgs + "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 3\n",
                 "--gpu h100 --nodes 2",
                 {"a.sh: tp x pp x cp = 8 x 3 x 1 = 24 does not divide the 16 GPUs (2 nodes x 8)",
                  "a multiple of 24 GPUs"}),
    megatron_row("--megatron: a global batch that is not a multiple of micro-batch x dp",
                 kArgs + "--global-batch-size 12\n", kGpu,
                 {"a.sh:1:124: --global-batch-size: 12 is not a multiple of micro-batch x dp = 1 x 8 = 8"}),
    megatron_row("--megatron: no GPU", kArgs, "--nodes 1",
                 {"--gpu: is required", "`stepsim catalog gpus` lists the GPU names"}),
    megatron_row("--megatron: an unknown GPU", kArgs, "--gpu h1000 --nodes 1",
                 {"--gpu: unknown GPU `h1000`", "did you mean `h100`?", "`stepsim catalog gpus`"}),
    megatron_row("--megatron: no node count", kArgs, "--gpu h100", {"--nodes: is required"}),
    megatron_row("--megatron: no vocabulary size",
                 "--num-layers 8 --hidden-size 1024 --num-attention-heads 8 "
                 "--seq-length 2048 --micro-batch-size 1\n",
                 kGpu, {"a.sh: the arguments do not give the vocabulary size", "--tokenizer-vocab N"}),
    megatron_row("--megatron: no arguments at all", "#!/bin/bash\necho hello\n", kGpu,
                 {"a.sh: holds no Megatron-LM arguments"}),
    megatron_row("--megatron: --overlap-param-gather without the distributed optimizer",
                 kArgs + "--overlap-param-gather\n", kGpu,
                 {"a.sh:1:124: --overlap-param-gather: needs the distributed optimizer"}),
    megatron_row("--megatron: a run the scenario checks refuse",
                 kArgs + "--tensor-model-parallel-size 2 --tp-comm-overlap\n", kGpu,
                 {"a.sh: stepsim refuses the run these arguments describe: parallelism.tp_comm_overlap: "}),
    nemo_row("--nemo: an interpolation to a key the file does not have",
             "model:\n  num_layers: 4\n  hidden_size: ${model.width}\n",
             {"c.yaml:3:16: model.hidden_size: `${model.width}` names `model.width`, a key the file does not "
              "have"}),
    nemo_row("--nemo: an interpolation through a resolver", "model:\n  num_layers: ${multiply:2,3}\n",
             {"c.yaml:2:15: model.num_layers: `${multiply:2,3}` calls a resolver stepsim cannot evaluate"}),
    nemo_row("--nemo: interpolations in a loop",
             "model:\n  num_layers: ${model.hidden_size}\n  hidden_size: ${model.num_layers}\n",
             {"c.yaml:", "goes round in a loop of interpolations"}),
    nemo_row("--nemo: malformed YAML", "model:\n  num_layers: [4\n  hidden_size: 3\n",
             {"c.yaml:3:14: is not valid YAML: "}),
    nemo_row("--nemo: no model table", "trainer:\n  num_nodes: 1\n", {"c.yaml: has no `model:` table"}),
    nemo_row("--nemo: a trainer value that is not a number",
             "model:\n  num_layers: 4\ntrainer:\n  num_nodes: many\n",
             {"c.yaml:4:14: trainer.num_nodes: expected a whole number, got `many`"}),
    BadInput{"--nemo: a file that is not there",
             {},
             "import --nemo {dir}/nope.yaml --gpu h100",
             2,
             {"nope.yaml: file not found (give the path of a NeMo YAML config)"}},
    BadInput{"import: a config.json and --megatron together",
             {},
             "import {dir}/c.json --megatron {dir}/a.sh",
             2,
             {"give one of CONFIG.json, --megatron FILE and --nemo FILE"}},
    BadInput{"import: --gpu with a config.json",
             {},
             "import {dir}/c.json --gpu h100",
             2,
             {"--gpu: --gpu, --nodes, --gpus-per-node and --tokenizer-vocab go with --megatron or --nemo"}},
};

}  // namespace megatron_import_bad_rows

TEST_CASE("bad inputs: stepsim import --megatron and --nemo refuse what they cannot read, with the place") {
  for (const auto& r : megatron_import_bad_rows::kRows) {
    const auto result = stepsim::test::bad::check_bad_input(r);
    CHECK(result.out.empty());  // nothing printed on stdout, no half-written scenario
  }
}
