// `stepsim collective`: one collective on a generated cluster, simulated alone at several sizes
// through the flow network, printed nccl-tests style. The logic lives in topology/.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/catalog.hpp"
#include "scenarios/spec_readers.hpp"
#include "scenarios/suggest.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/collective_compare.hpp"
#include "tools/commands.hpp"
#include "topology/collective_sweep.hpp"
#include "topology/nccl_reference.hpp"

namespace stepsim::cli {

namespace {

namespace po = boost::program_options;

struct Options {
  std::string gpu = "h100-sxm";
  std::vector<std::string> catalogs;
  int nodes = 1;
  int gpus_per_node = 0;  // 0 = 4 for nvl72, else 8
  int nvlink_domain = 0;  // 0 = the node (nvl72: 72)
  std::string topology = "rail-optimized";
  int tiers = 2;
  std::string oversubscription = "1";
  int hosts_per_leaf = 32;
  int leaves_per_pod = 16;
  std::optional<double> nic_gbps;  // absent = the GPU's
  std::string nvls = "auto";
  std::string op = "all-reduce";
  std::string bytes;
  int ranks = 0;
  int stride = 1;
  std::string algorithm = "auto";
  std::string protocol = "auto";
  bool sharp = false;
  bool collnet = false;
  bool no_pat = false;
  int channels = 0;
  bool compare = false;
  std::string compare_file;
  std::vector<std::string> nccl_tests;
  std::string write_calibration;
  std::string format = "table";
};

topo::GpuSpec find_gpu(const std::string& id, const std::vector<std::string>& extra_catalogs) {
  return load_catalog(extra_catalogs).gpu_for_option(id, "--gpu");
}

template <std::size_t N>
[[noreturn]] void one_of(const std::string& option, const std::string& value, const char* const (&names)[N]) {
  const std::vector<std::string> list(std::begin(names), std::end(names));
  throw UserError({}, option, "unknown `" + value + "`; expected " + scen::join_names(list),
                  scen::did_you_mean(value, list));
}

/// Throws for `option` unless `v` lies in `range` (the same plausible ranges a scenario file has).
void check_in_range(const char* option, double v, const scen::RealRange& range) {
  if (!scen::in_range(v, range))
    throw UserError({}, option, "must be " + scen::range_text(range) + ", got " + scen::number_text(v),
                    std::string(range.hint));
}

std::vector<double> parse_list(const std::string& text, const char* option) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      const double v = std::stod(item, &used);
      if (used != item.size() || !(v >= 0.0) || !std::isfinite(v)) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw UserError(std::string("--") + option + ": `" + item + "` is not a non-negative number");
    }
  }
  return out;
}

topo::ClusterSpec make_cluster(const Options& o) {
  topo::ClusterSpec c;
  c.gpu = find_gpu(o.gpu, o.catalogs);
  const bool nvl72 = o.topology == "nvl72";
  topo::FabricKind kind = topo::FabricKind::rail_optimized;
  if (o.topology == "fat-tree")
    kind = topo::FabricKind::fat_tree;
  else if (o.topology != "rail-optimized" && !nvl72)
    one_of("--topology", o.topology, {"rail-optimized", "fat-tree", "nvl72"});
  c.nodes = o.nodes;
  c.gpus_per_node = o.gpus_per_node > 0 ? o.gpus_per_node : (nvl72 ? 4 : 8);
  c.nvlink_domain = o.nvlink_domain > 0 ? o.nvlink_domain : (nvl72 ? 72 : c.gpus_per_node);
  if (o.nvls != "auto" && o.nvls != "on" && o.nvls != "off") one_of("--nvls", o.nvls, {"auto", "on", "off"});
  // auto: where the GPU's switches can reduce and there is a switch (an NVLink domain of 2 or more).
  c.nvls = o.nvls == "on" ||
           (o.nvls == "auto" && c.gpu.eff.nvls > 0.0 && c.gpu.nvlink_bw.value() > 0.0 && c.nvlink_domain > 1);
  c.fabric.kind = kind;
  c.fabric.tiers = o.tiers;
  // The same rules as a scenario's [hardware.fabric] oversubscription: one ratio for every tier,
  // or one per tier (leaf first), each in the plausible range.
  const auto ratios = parse_list(o.oversubscription, "oversubscription");
  const auto tiers = static_cast<std::size_t>(o.tiers);
  if (ratios.size() != 1 && ratios.size() != tiers)
    throw UserError(
        {}, "--oversubscription",
        "has " + std::to_string(ratios.size()) + " ratios but --tiers is " + std::to_string(tiers),
        "give one ratio for every tier or one per tier, leaf first, e.g. 2 or " +
            std::string(tiers == 3 ? "2,1,1" : "2,1"));
  for (const double r : ratios) check_in_range("--oversubscription", r, scen::kOversubscription);
  for (std::size_t i = 0; i < c.fabric.oversubscription.size(); ++i)
    c.fabric.oversubscription[i] = ratios.size() == 1 ? ratios[0] : i < tiers ? ratios[i] : 1.0;
  c.fabric.hosts_per_leaf = o.hosts_per_leaf;
  c.fabric.leaves_per_pod = o.leaves_per_pod;
  c.fabric.sharp = o.sharp;
  if (o.collnet && !o.sharp)
    throw UserError({}, "--collnet", "NCCL's CollNet runs only on switches that reduce in the network",
                    "add --sharp (InfiniBand SHARP), or drop --collnet");
  if (o.nic_gbps) {
    check_in_range("--nic-gbps", *o.nic_gbps, scen::kBandwidthGbps);
    c.fabric.nic_bw = units::gbit_per_s(*o.nic_gbps);
  }
  return c;
}

/// `text` as one of `names` (parsed by `parse`), or a UserError for `option` listing them.
template <class E>
E parse_named(const std::string& text, const char* option, std::optional<E> (*parse)(std::string_view),
              const std::vector<std::string>& names) {
  if (const auto v = parse(text)) return *v;
  throw UserError({}, option, "unknown `" + text + "`; expected " + scen::join_names(names),
                  scen::did_you_mean(text, names));
}

topo::SweepRequest make_sweep(const Options& o, const topo::Topology& topo) {
  topo::SweepRequest r;
  // nccl-tests' spellings too: all_reduce, sendrecv, alltoall.
  std::string spelled = o.op;
  std::replace(spelled.begin(), spelled.end(), '_', '-');
  if (spelled == "sendrecv") spelled = "send-recv";
  if (spelled == "alltoall") spelled = "all-to-all";
  const auto op = topo::parse_collective_op(spelled);
  if (!op)
    one_of("--op", o.op,
           {"all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast", "send-recv"});
  r.op = *op;
  r.algorithm =
      parse_named(o.algorithm, "--algorithm", topo::parse_collective_algorithm, topo::algorithm_names());
  r.protocol = parse_named(o.protocol, "--protocol", topo::parse_collective_protocol, topo::protocol_names());
  if (o.no_pat && r.algorithm == topo::CollectiveAlgorithm::pat)
    throw UserError({}, "--no-pat", "turns NCCL's PAT off, and --algorithm pat forces it",
                    "drop --no-pat, or force another algorithm");
  const auto total = static_cast<int>(topo.gpu_count());
  // Every stride-th GPU: GPUs 0, s, 2s, ... (a data-parallel group of one rank per node: s = the
  // GPUs of a node).
  const int s = o.stride;
  const int reachable = (total + s - 1) / s;
  int ranks = o.ranks > 0 ? o.ranks : reachable;
  if (ranks > reachable)
    throw UserError(
        "--ranks: " + std::to_string(ranks) + " exceeds the cluster's " + std::to_string(total) + " GPUs" +
        (s > 1 ? " taken at a stride of " + std::to_string(s) + " (" + std::to_string(reachable) + " of them)"
               : std::string()));
  if (r.op == topo::CollectiveOp::send_recv && ranks < 2)
    throw UserError("--ranks: send-recv needs 2 or more ranks (GPU 0 sends to GPU N-1), got " +
                    std::to_string(ranks) + (o.ranks > 0 ? "" : " (the cluster's GPUs)") +
                    "; give --ranks 2 or more on a cluster of 2 or more GPUs");
  std::vector<topo::GpuId> group;
  if (r.op == topo::CollectiveOp::send_recv)  // first GPU to the last of the requested ranks
    group = {0, static_cast<topo::GpuId>((ranks - 1) * s)};
  else
    for (int g = 0; g < ranks; ++g) group.push_back(static_cast<topo::GpuId>(g * s));
  r.groups = {group};
  // The pair belongs to a communicator of the requested ranks, as in nccl-tests.
  if (r.op == topo::CollectiveOp::send_recv) r.communicator_ranks = static_cast<std::uint32_t>(ranks);
  r.config.channels = o.channels;
  r.config.collnet = o.collnet;
  r.config.pat = !o.no_pat;
  if (!o.bytes.empty())
    r.sizes_bytes = parse_list(o.bytes, "bytes");
  else
    for (const auto& p : topo::nccl_h100_all_reduce()) r.sizes_bytes.push_back(p.bytes);
  return r;
}

const topo::NcclPoint* reference_at(double bytes) {
  for (const auto& p : topo::nccl_h100_all_reduce())
    if (p.bytes == bytes) return &p;
  return nullptr;
}

void print_json(const std::vector<topo::CollectiveSample>& samples, bool compare) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& s : samples) {
    nlohmann::ordered_json j{{"bytes", s.bytes},
                             {"time_s", s.time_s},
                             {"algbw_GBps", s.algbw_GBps},
                             {"busbw_GBps", s.busbw_GBps},
                             {"algorithm", topo::name(s.algorithm)},
                             {"protocol", topo::name(s.protocol)},
                             {"bound", topo::name(s.bound)}};
    if (const auto* ref = compare ? reference_at(s.bytes) : nullptr) {
      j["measured_time_s"] = ref->time_s;
      j["error"] = s.time_s / ref->time_s - 1.0;
    }
    out.push_back(std::move(j));
  }
  std::cout << out.dump(2) << '\n';
}

void print_table(const std::vector<topo::CollectiveSample>& samples, bool compare) {
  std::printf("%14s %12s %11s %11s  %-14s %-8s %-8s%s\n", "bytes", "time_us", "algbw_GB/s", "busbw_GB/s",
              "algorithm", "protocol", "bound", compare ? "  measured_us   error" : "");
  for (const auto& s : samples) {
    std::printf("%14.0f %12.2f %11.2f %11.2f  %-14s %-8s %-8s", s.bytes, s.time_s * 1e6, s.algbw_GBps,
                s.busbw_GBps, std::string(topo::name(s.algorithm)).c_str(),
                std::string(topo::name(s.protocol)).c_str(), std::string(topo::name(s.bound)).c_str());
    if (const auto* ref = compare ? reference_at(s.bytes) : nullptr)
      std::printf("  %11.2f %+6.1f%%", ref->time_s * 1e6, (s.time_s / ref->time_s - 1.0) * 100.0);
    std::printf("\n");
  }
}

// clang-format off
// Counts whose absence means "the default" (0 in Options) are read as text: po::value<int> took
// -1 and silently used the default instead.
constexpr std::uint64_t kMaxGpuCount = 1'000'000;

po::options_description describe(Options& o) {
  po::options_description desc("stepsim collective: simulate one collective alone at several sizes");
  desc.add_options()
      ("help,h", "print this help")
      ("gpu", po::value(&o.gpu)->default_value(o.gpu), "catalog GPU")
      ("catalog", po::value(&o.catalogs)->composing(), "extra catalog file (repeatable)")
      ("nodes", count_value(o.nodes, "--nodes", 1, kMaxGpuCount), "nodes (default 1)")
      ("gpus-per-node", count_value(o.gpus_per_node, "--gpus-per-node", 1, kMaxGpuCount),
       "GPUs per node (default 8; 4 for nvl72)")
      ("nvlink-domain", count_value(o.nvlink_domain, "--nvlink-domain", 1, kMaxGpuCount),
       "GPUs per NVLink domain (default: the node; 72 for nvl72)")
      ("topology", po::value(&o.topology)->default_value(o.topology), "rail-optimized | fat-tree | nvl72")
      ("tiers", count_value(o.tiers, "--tiers", 2, 3), "fabric switch tiers: 2 (default) or 3")
      ("oversubscription", po::value(&o.oversubscription)->default_value(o.oversubscription),
       "down:up ratio per tier, leaf first (e.g. 2 or 2,1)")
      ("hosts-per-leaf", count_value(o.hosts_per_leaf, "--hosts-per-leaf", 1, kMaxGpuCount),
       "NICs per leaf switch (default 32)")
      ("leaves-per-pod", count_value(o.leaves_per_pod, "--leaves-per-pod", 1, kMaxGpuCount),
       "leaves per pod, 3 tiers (default 16)")
      ("nic-gbps", po::value<double>()->notifier([&o](double v) { o.nic_gbps = v; }), "scale-out Gb/s per GPU per direction (default: the GPU's)")
      ("nvls", po::value(&o.nvls)->default_value(o.nvls), "NVLink SHARP: auto (if the GPU has it) | on | off")
      ("op", po::value(&o.op)->default_value(o.op),
       "all-reduce | reduce-scatter | all-gather | all-to-all | broadcast | send-recv")
      ("bytes", po::value(&o.bytes), "comma-separated sizes in bytes (default: the nccl-tests reference sizes)")
      ("ranks", count_value(o.ranks, "--ranks", 1, kMaxGpuCount),
       "ranks taking part: GPUs 0..N-1 (default all); send-recv: GPU 0 sends to GPU N-1 in a "
       "communicator of N ranks")
      ("rank-stride", count_value(o.stride, "--rank-stride", 1, kMaxGpuCount),
       "take every S-th GPU: GPUs 0, S, 2S, ... (S = --gpus-per-node: one rank per node, as a data-parallel "
       "group beside tensor parallelism)")
      ("algorithm", po::value(&o.algorithm)->default_value(o.algorithm),
       "auto | ring | tree | nvls | nvls-tree | collnet-direct | collnet-chain | pat | hierarchical | pairwise | "
       "deepep-ll | direct")
      ("protocol", po::value(&o.protocol)->default_value(o.protocol), "NCCL protocol: auto | simple | ll128 | ll")
      ("sharp", po::bool_switch(&o.sharp), "the fabric's switches reduce in the network (InfiniBand SHARP)")
      ("collnet", po::bool_switch(&o.collnet),
       "NCCL's CollNet enabled (NCCL_COLLNET_ENABLE=1): with --sharp, CollNet Direct, CollNet Chain and NVLS "
       "across NVLink domains may run (NCCL's default: off)")
      ("no-pat", po::bool_switch(&o.no_pat),
       "NCCL's PAT off (NCCL_PAT_ENABLE=0, or NCCL before 2.23); on, it runs reduce-scatters and "
       "all-gathers of one rank per node where it is fastest")
      ("channels", count_value(o.channels, "--channels", 1, 1024),
       "parallel channels (default: 2 per GPU of a host)")
      ("compare-nccl-h100", po::bool_switch(&o.compare), "add the error against nccl-tests on 8 x H100")
      ("compare", po::value(&o.compare_file),
       "simulate every row of a measurements CSV (the columns of scenarios/validation/collectives-multinode.csv) "
       "and print the error per row")
      ("nccl-tests", po::value(&o.nccl_tests)->composing(),
       "an nccl-tests output file (repeatable): each message size against the simulation of the cluster its "
       "rank lines describe (hosts, GPUs); --gpu, --op, --nic-gbps, --nvlink-domain, --sharp, --collnet and "
       "--algorithm (what NCCL_ALGO forced) say what a log does not")
      ("write-calibration", po::value(&o.write_calibration),
       "with --nccl-tests: fit the GPU's link efficiencies (nic, nvlink, nvls, nvlink_p2p) to the rows from "
       "64 MiB and write them as a catalog file for --catalog")
      ("format", po::value(&o.format)->default_value(o.format), "table | json");
  return desc;
}
// clang-format on

}  // namespace

int cmd_collective(Args args) {
  Options o;
  const po::options_description desc = describe(o);
  const CommandLine line = store_command_line(args, desc, "positional", 0);
  if (line.options.count("help")) {
    print_help(args, desc);
    return 0;
  }
  if (o.format != "table" && o.format != "json")
    throw UserError("--format: expected table or json, got `" + o.format + "`");
  if (!o.write_calibration.empty() && o.nccl_tests.empty())
    throw UserError({}, "--write-calibration",
                    "fits the link efficiencies to nccl-tests logs, and none was given",
                    "add --nccl-tests LOG (the output of all_reduce_perf, all_gather_perf, ...)");
  if (!o.nccl_tests.empty()) {
    if (!o.compare_file.empty())
      throw UserError({}, "--compare", "and --nccl-tests each give the measurements: use one of them",
                      "a measurements CSV with --compare, nccl-tests output with --nccl-tests");
    const auto given = [&](const char* name) {
      return line.options.count(name) > 0 && !line.options[name].defaulted();
    };
    // What the log's rank lines and rows give, or a sweep of one's own would set: not taken from
    // the command line here, so refused rather than ignored.
    for (const char* name : {"nodes", "gpus-per-node", "bytes", "ranks", "rank-stride", "protocol",
                             "channels", "topology", "tiers", "oversubscription", "hosts-per-leaf",
                             "leaves-per-pod", "nvls", "no-pat", "compare-nccl-h100"})
      if (given(name))
        throw UserError(
            {}, std::string("--") + name,
            "does not apply to --nccl-tests: the log's rank lines give the hosts and GPUs, its rows "
            "the sizes, on a rail-optimised fabric",
            "drop it; --gpu, --op, --nic-gbps, --nvlink-domain, --sharp, --collnet and --algorithm "
            "say what a log does not");
    NcclTestsRequest r;
    r.files = o.nccl_tests;
    if (given("op")) r.op = o.op;
    if (given("gpu")) r.cluster.gpu = find_gpu(o.gpu, o.catalogs).id;
    if (o.nic_gbps) {
      check_in_range("--nic-gbps", *o.nic_gbps, scen::kBandwidthGbps);
      r.cluster.nic_gbps = o.nic_gbps;
    }
    // --algorithm says what the runs forced (NCCL_ALGO) where the logs do not: NCCL's names.
    if (given("algorithm") && o.algorithm != "auto") {
      static const std::map<std::string, std::string> kNccl{{"ring", "Ring"},
                                                            {"tree", "Tree"},
                                                            {"nvls", "NVLS"},
                                                            {"nvls-tree", "NVLSTree"},
                                                            {"collnet-direct", "CollNetDirect"},
                                                            {"collnet-chain", "CollNetChain"},
                                                            {"pat", "PAT"}};
      const auto at = kNccl.find(o.algorithm);
      if (at == kNccl.end())
        throw UserError(
            {}, "--algorithm",
            "`" + o.algorithm + "` is not an algorithm NCCL_ALGO can force for an nccl-tests run",
            "with --nccl-tests: ring, tree, nvls, nvls-tree, collnet-direct, collnet-chain or pat");
      r.cluster.algorithm = at->second;
    }
    r.cluster.nvlink_domain = o.nvlink_domain;
    r.cluster.sharp = o.sharp;
    r.cluster.collnet = o.collnet;
    r.write_calibration = o.write_calibration;
    compare_nccl_tests(r, load_catalog(o.catalogs), o.format == "json");
    return 0;
  }
  if (!o.compare_file.empty()) {
    compare_measurements(o.compare_file, load_catalog(o.catalogs), o.format == "json");
    return 0;
  }
  auto topo = std::make_shared<const topo::Topology>(make_cluster(o));
  const auto samples = topo::sweep_collective(topo, make_sweep(o, *topo));
  if (o.format == "json")
    print_json(samples, o.compare);
  else
    print_table(samples, o.compare);
  return 0;
}

}  // namespace stepsim::cli
