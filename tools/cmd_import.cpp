// `stepsim import CONFIG.json [--out model.toml]`: a Hugging Face config.json as a [model] table.
// `stepsim import --megatron FILE | --nemo FILE.yaml --gpu ID [--nodes N]`: a Megatron-LM command
// line or NeMo config as a whole scenario.
#include <boost/program_options.hpp>
#include <iostream>

#include "output/common/atomic_file.hpp"
#include "scenarios/hf_config.hpp"
#include "scenarios/megatron_args.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {
namespace cmd_import_help {

/// One supported architecture per line (a ", " inside parentheses, "(Llama 4, text only)", stays).
std::string architecture_lines() {
  const std::string list = scen::supported_hf_architectures();
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    depth += list[i] == '(' ? 1 : list[i] == ')' ? -1 : 0;
    if (depth == 0 && list.compare(i, 2, ", ") == 0) {
      out += "\n  ";
      ++i;
    } else {
      out += list[i];
    }
  }
  return out;
}

struct ImportArgs {
  std::string config;
  std::string megatron;
  std::string nemo;
  std::string out_path;
  std::vector<std::string> catalogs;
  scen::ImportCluster cluster;
};

/// A Megatron-LM or NeMo run as a scenario, checked by reading it back as any scenario is read.
std::string run_scenario(const ImportArgs& a) {
  const scen::Catalog catalog = load_catalog(a.catalogs);
  const bool nemo = !a.nemo.empty();
  const std::string& file = nemo ? a.nemo : a.megatron;
  const scen::ImportedRun run = nemo ? scen::import_nemo_config(file, a.cluster, catalog)
                                     : scen::import_megatron_args(file, a.cluster, catalog);
  std::string toml = scen::imported_scenario_toml(run);
  try {
    (void)scen::load_scenario_string(toml, file, catalog);
  } catch (const UserError& e) {
    // Its place would be a line of the TOML nobody has seen: name the key instead.
    throw UserError(
        SourceLocation{file}, "",
        "stepsim refuses the run these arguments describe: " + (e.key().empty() ? "" : e.key() + ": ") +
            (e.problem().empty() ? std::string(e.what()) : e.problem()),
        e.hint());
  }
  if (!a.out_path.empty()) {
    out::write_file_atomically(a.out_path, toml, "--out");
    std::cerr << "wrote the scenario imported from " << file << " (" << run.format << ") to " << a.out_path
              << "\n";
    toml.clear();
  }
  return toml;
}

}  // namespace cmd_import_help

int cmd_import(Args args) {
  namespace po = boost::program_options;
  using namespace cmd_import_help;
  ImportArgs a;
  po::options_description visible(
      "stepsim import CONFIG.json [--out model.toml]\n"
      "stepsim import --megatron FILE --gpu ID --nodes N [--gpus-per-node G] [--out scenario.toml]\n"
      "stepsim import --nemo FILE.yaml --gpu ID [--nodes N] [--out scenario.toml]\n\n"
      "CONFIG.json: reads a Hugging Face config.json (or a model folder holding one) and writes the\n"
      "[model] table with every dimension explicit, so a scenario can keep the model without the JSON\n"
      "file. Keys the config sets that stepsim does not simulate are listed as comments.\n\n"
      "--megatron, --nemo: reads a training run kept as a Megatron-LM command line (a shell script\n"
      "with `torchrun ... pretrain_gpt.py --num-layers 80 ...`, or just the `--flag value` words) or a\n"
      "NeMo (1.x) YAML config (model.*, trainer.*), and writes a whole scenario: model, hardware,\n"
      "workload, parallelism, precision. dp = GPUs / (tp x pp x cp), as Megatron derives it. The\n"
      "arguments do not name the hardware: give --gpu (and --nodes for Megatron; NeMo's\n"
      "trainer.num_nodes and trainer.devices count otherwise). Arguments stepsim does not use are\n"
      "listed as `# not used:` comments; learning rates, paths and logging as having no effect.\n"
      "A `$VAR` in the arguments is an error: write its value (`bash -x` prints the expanded command).\n\n"
      "Architectures for CONFIG.json (the config's architectures[0]):\n  " +
      architecture_lines());
  visible.add_options()("help,h", "show this help")(
      "out", po::value(&a.out_path), "write the table or scenario to this file instead of stdout")(
      "megatron", po::value(&a.megatron)->value_name("FILE"), "a Megatron-LM command line or argument list")(
      "nemo", po::value(&a.nemo)->value_name("FILE"), "a NeMo YAML training config")(
      "gpu", po::value(&a.cluster.gpu)->value_name("ID"),
      "--megatron/--nemo: the catalog GPU (`stepsim catalog gpus` lists them)")(
      "nodes", count_value(a.cluster.nodes, "--nodes", 1, 1u << 24), "--megatron/--nemo: nodes")(
      "gpus-per-node", count_value(a.cluster.gpus_per_node, "--gpus-per-node", 1, 1u << 24),
      "--megatron/--nemo: GPUs per node (default 8, NeMo: trainer.devices)")(
      "tokenizer-vocab", count_value(a.cluster.tokenizer_vocab, "--tokenizer-vocab", 1, 1u << 30),
      "--megatron/--nemo: the tokenizer's vocabulary before Megatron pads it, when the arguments name a "
      "tokenizer file instead of --vocab-size")("catalog", po::value(&a.catalogs)->value_name("FILE"),
                                                "extra catalog files (GPUs, models)");
  if (!parse_command_line(args, visible, "config", a.config)) return 0;
  const int inputs = (a.config.empty() ? 0 : 1) + (a.megatron.empty() ? 0 : 1) + (a.nemo.empty() ? 0 : 1);
  if (inputs == 0)
    throw UserError(
        "missing the config file (usage: stepsim import CONFIG.json [--out FILE], or --megatron FILE / "
        "--nemo FILE)");
  if (inputs > 1) throw UserError("give one of CONFIG.json, --megatron FILE and --nemo FILE");
  if (!a.out_path.empty()) out::check_output_path(a.out_path, "--out");
  if (!a.config.empty()) {
    if (!a.cluster.gpu.empty() || a.cluster.nodes > 0 || a.cluster.gpus_per_node > 0 ||
        a.cluster.tokenizer_vocab > 0)
      throw UserError({}, "--gpu",
                      "--gpu, --nodes, --gpus-per-node and --tokenizer-vocab go with --megatron or --nemo",
                      "a config.json gives the model only");
    const scen::HfModel model = scen::load_hf_config(a.config);
    const std::string toml = scen::hf_model_toml(model, a.config);
    if (a.out_path.empty()) {
      std::cout << toml;
      return 0;
    }
    out::write_file_atomically(a.out_path, toml, "--out");
    std::cerr << "wrote the [model] table of " << model.model.name << " (" << model.architecture << ") to "
              << a.out_path << "\n";
    return 0;
  }
  std::cout << run_scenario(a);
  return 0;
}

}  // namespace stepsim::cli
