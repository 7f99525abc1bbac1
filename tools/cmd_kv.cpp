// `stepsim kv (--model ID | SCENARIO) [options]`: the KV-cache calculator (docs/model.md section 8).
#include <boost/program_options.hpp>
#include <iostream>
#include <optional>

#include "output/views/kv_view.hpp"
#include "output/common/render_format.hpp"
#include "scenarios/catalog.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/suggest.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"
#include "workloads/model/kv.hpp"
#include "workloads/model/params.hpp"

namespace stepsim::cli {

namespace {

namespace po = boost::program_options;

struct KvArgs {
  std::string scenario, model, gpu, format = "table", kv_precision;
  std::optional<int> layers, kv_heads, head_dim, context, batch, gpus;
  std::optional<double> params, overhead, target;
  std::vector<std::string> catalogs;
};

template <typename T>
po::typed_value<T>* into(std::optional<T>& slot) {
  return po::value<T>()->notifier([&slot](T v) { slot = v; });
}

po::options_description visible_options(KvArgs& a) {
  po::options_description o(
      "stepsim kv (--model ID | SCENARIO) [options]\n\n"
      "KV-cache bytes per token and per sequence, memory for a batch, the bandwidth decode needs,\n"
      "and the largest batch or context that fits beside the weights");
  o.add_options()("help,h", "show this help")("model", po::value(&a.model), "catalog model id")(
      "layers", into(a.layers), "override the model's layers")(
      "kv-heads", into(a.kv_heads), "override its KV heads")("head-dim", into(a.head_dim),
                                                             "override its head dimension")(
      "params", into(a.params), "weights held beside the cache (default: the model's parameters)")(
      "context", into(a.context), "tokens per sequence (scenario: its context or seq_len)")(
      "batch", into(a.batch), "concurrent sequences (default 1; scenario: its batch)")(
      "overhead", into(a.overhead), "allocation overhead factor on the cache, >= 1 (default 1)")(
      "kv-precision", po::value(&a.kv_precision), "cached element type: fp32, bf16, fp16, fp8 or fp4")(
      "gpu", po::value(&a.gpu), "catalog GPU for the fit and bandwidth checks")(
      "gpus", into(a.gpus), "GPUs sharing weights and cache (default 1; scenario: tp x pp x cp)")(
      "target-tokens-per-s", into(a.target), "aggregate decode rate to size the bandwidth for")(
      "format", po::value(&a.format)->default_value("table"), "table or json")(
      "catalog", po::value(&a.catalogs)->composing(), "extra catalog file (repeatable)");
  return o;
}

double element_bytes(const std::string& p) {
  if (p == "fp32") return 4.0;
  if (p == "bf16" || p == "fp16") return 2.0;
  if (p == "fp8") return 1.0;
  if (p == "fp4") return 0.5;
  throw UserError("--kv-precision: expected fp32, bf16, fp16, fp8 or fp4, got `" + p + "`");
}

/// What to size: the model and the query, from a scenario or from --model.
struct KvInput {
  work::ModelSpec model;
  work::KvQuery query;
};

KvInput from_scenario(const KvArgs& a, const scen::Catalog& catalog) {
  const scen::Scenario s = scen::load_scenario(a.scenario, catalog);
  const work::JobSpec& j = s.job;
  KvInput in{j.model, {}};
  const bool decode = j.workload.kind == work::WorkloadKind::decode;
  in.query.context = decode ? j.workload.context_len : j.workload.seq_len;
  in.query.batch = j.workload.kind == work::WorkloadKind::train ? j.workload.micro_batch : j.workload.batch;
  in.query.kv_bytes = j.precision.kv_bytes;
  in.query.weight_bytes = j.precision.param_bytes;
  in.query.gpu = j.cluster.gpu;
  in.query.gpus = j.parallel.tp * j.parallel.pp * j.parallel.cp;  // one replica
  // A serving target is cluster-wide; one replica (the GPUs sized here) serves 1/dp of it.
  if (decode && j.estimate.target_tokens_per_s)
    in.query.target_tokens_per_s = *j.estimate.target_tokens_per_s / j.parallel.dp;
  return in;
}

KvInput from_model(const KvArgs& a, const scen::Catalog& catalog) {
  if (a.model.empty())
    throw UserError(
        {}, "", "stepsim kv needs a model: a scenario file, or --model ID with --context TOKENS",
        "e.g. `stepsim kv --model llama-3.1-70b --context 8192 --gpu h200` or `stepsim kv "
        "scenarios/examples/llama3.1-70b-decode-8xh200-bs64.toml`; `stepsim catalog models` lists "
        "the models");
  const work::ModelSpec* m = catalog.find_model(a.model);
  if (!m)
    throw UserError("--model: no model `" + a.model + "` in the catalog; " +
                    scen::did_you_mean(a.model, catalog.model_names()));
  if (!a.context)
    throw UserError({}, "--context", "how many tokens per sequence? --model needs it",
                    "e.g. stepsim kv --model " + a.model + " --context 8192");
  KvInput in{*m, {}};
  if (!a.gpu.empty())
    in.query.gpu = catalog.gpu_for_option(a.gpu, "--gpu");
  else if (a.gpus)
    throw UserError("--gpus needs --gpu to say which GPU");
  return in;
}

KvInput resolve(const KvArgs& a, const scen::Catalog& catalog) {
  KvInput in = a.scenario.empty() ? from_model(a, catalog) : from_scenario(a, catalog);
  if (a.layers) in.model.layers = *a.layers;
  if (a.kv_heads) in.model.kv_heads = *a.kv_heads;
  if (a.head_dim) in.model.head_dim = *a.head_dim;
  work::KvQuery& q = in.query;
  q.params = a.params ? *a.params : work::count_params(in.model).main_total();
  if (a.context) q.context = *a.context;
  if (a.batch) q.batch = *a.batch;
  if (a.overhead) q.overhead = *a.overhead;
  if (!a.kv_precision.empty()) q.kv_bytes = element_bytes(a.kv_precision);
  if (!a.gpu.empty()) q.gpu = catalog.gpu_for_option(a.gpu, "--gpu");
  if (a.gpus) q.gpus = *a.gpus;
  if (a.target) q.target_tokens_per_s = a.target;
  return in;
}

}  // namespace

int cmd_kv(Args args) {
  KvArgs a;
  if (!parse_command_line(args, visible_options(a), "scenario", a.scenario)) return 0;
  const out::RenderFormat format = out::parse_render_format(a.format);
  const scen::Catalog catalog = load_catalog(a.catalogs);
  const KvInput in = resolve(a, catalog);
  const work::KvReport r = work::size_kv(in.model, in.query);
  const out::KvLabels labels{in.model.id, in.query.gpu ? in.query.gpu->id : std::string()};
  std::cout << (format == out::RenderFormat::json ? out::kv_json_text(r, in.query, labels)
                                                  : out::kv_table(r, in.query, labels));
  return 0;
}

}  // namespace stepsim::cli
