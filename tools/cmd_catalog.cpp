// `stepsim catalog [gpus|models|tp-overlap] [--format table|json] [--provenance] [--gpu ID]...
// [--catalog FILE]...`
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "output/views/catalog_view.hpp"
#include "scenarios/catalog.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {

int cmd_catalog(Args args) {
  namespace po = boost::program_options;
  std::string what = "all";
  std::string format = "table";
  std::vector<std::string> extra;
  bool provenance = false;
  std::vector<std::string> only;
  po::options_description opts(
      "stepsim catalog [gpus|models|tp-overlap] [options]\n\nLists the GPU and model presets, and NeMo's "
      "named userbuffers configurations");
  opts.add_options()("help,h", "show this help")("format", po::value(&format)->default_value("table"),
                                                 "table or json")(
      "provenance", po::bool_switch(&provenance),
      "gpus: every figure with its value and source (datasheet, measured, derived, assumed)")(
      "gpu", po::value(&only)->composing(), "gpus: list only this GPU (an id or alias; repeatable)")(
      "catalog", po::value(&extra)->composing(),
      "extra catalog file overriding or extending the built-in one (repeatable)");
  if (!parse_command_line(args, opts, "list", what)) return 0;
  if (what != "all" && what != "gpus" && what != "models" && what != "tp-overlap")
    throw UserError(SourceLocation{}, "catalog",
                    "unknown list `" + what + "`; expected gpus, models or tp-overlap",
                    what == "gpu" || what == "model" ? "did you mean `" + what + "s`?" : "");
  const auto fmt = out::parse_render_format(format);
  const scen::Catalog catalog = load_catalog(extra);
  if (!only.empty() && what != "gpus")
    throw UserError(SourceLocation{}, "--gpu", "selects GPUs of `stepsim catalog gpus`",
                    "run `stepsim catalog gpus --gpu " + only.front() + "`");
  for (auto& id : only) id = catalog.gpu_for_option(id, "--gpu").id;  // an alias lists its entry
  if (provenance) {
    if (what != "gpus")
      throw UserError(SourceLocation{}, "--provenance", "lists the sources of GPU figures",
                      "run `stepsim catalog gpus --provenance`");
    std::cout << out::render_gpu_provenance(catalog, fmt, only);
    return 0;
  }
  if (what == "tp-overlap") {
    std::cout << out::render_tp_overlap_catalog(catalog, fmt);
    return 0;
  }
  if (fmt == out::RenderFormat::json && what == "all")
    throw UserError(SourceLocation{}, "--format", "json needs one list",
                    "run `stepsim catalog gpus --format json`");
  if (what != "models") std::cout << out::render_gpu_catalog(catalog, fmt, only);
  if (what == "all") std::cout << "\n";
  if (what != "gpus") std::cout << out::render_model_catalog(catalog, fmt);
  return 0;
}

}  // namespace stepsim::cli
