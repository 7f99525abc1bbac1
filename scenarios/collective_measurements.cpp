#include "scenarios/collective_measurements.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/error.hpp"
#include "sim/units.hpp"

namespace stepsim::scen {

namespace {

constexpr std::array<std::string_view, 14> kColumns{
    "id",     "source", "gpu",   "nodes",      "gpus_per_node", "nics_per_node", "nic_gbps",
    "fabric", "op",     "bytes", "busbw_GBps", "algbw_GBps",    "time_us",       "notes"};

// One CSV record: fields split on commas outside double quotes ("" is a quote inside one).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"')
        out.back() += '"', ++i;
      else
        quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

struct RowReader {
  const std::filesystem::path& file;
  int line;
  const std::vector<std::string>& fields;

  [[noreturn]] void fail(std::string_view column, const std::string& problem, const std::string& hint) const {
    const auto col = static_cast<int>(std::find(kColumns.begin(), kColumns.end(), column) - kColumns.begin());
    throw UserError(SourceLocation{file.string(), line, col + 1}, std::string(column), problem, hint);
  }
  const std::string& text(std::string_view column) const {
    const auto i =
        static_cast<std::size_t>(std::find(kColumns.begin(), kColumns.end(), column) - kColumns.begin());
    return fields[i];
  }
  double number(std::string_view column, bool required) const {
    const std::string& t = text(column);
    if (t.empty()) {
      if (required) fail(column, "is empty", "give a number");
      return 0.0;
    }
    try {
      std::size_t used = 0;
      const double v = std::stod(t, &used);
      if (used != t.size() || !(v >= 0.0) || !std::isfinite(v)) throw std::invalid_argument(t);
      return v;
    } catch (const std::exception&) {
      fail(column, "`" + t + "` is not a non-negative number", "write plain numbers, e.g. 17179869184");
    }
  }
  int whole(std::string_view column) const {
    const double v = number(column, true);
    // Compared as doubles first: casting inf or 1e10 to int is undefined.
    if (!(v >= 1.0 && v <= 1e6) || v != std::floor(v))
      fail(column, "must be a whole number from 1 to 1000000", "e.g. 8");
    return static_cast<int>(v);
  }
};

// "algo=NVLSTree; NCCL ..." -> "NVLSTree"; "" when the notes name none.
std::string named_algorithm(const std::string& notes) {
  const auto at = notes.find("algo=");
  if (at == std::string::npos) return {};
  const auto end = notes.find(';', at);
  return notes.substr(at + 5, end == std::string::npos ? std::string::npos : end - at - 5);
}

// nccl-tests' and NCCL's spellings of what stepsim runs: NCCL_ALGO's "NVLSTree", "CollnetDirect" and
// the TUNING lines' "NVLS_TREE", "COLLNET_DIRECT" alike.
std::optional<topo::CollectiveAlgorithm> algorithm_of(const std::string& named) {
  std::string n = lower(named);
  std::erase(n, '_');
  if (n.empty()) return topo::CollectiveAlgorithm::automatic;
  if (n == "ring") return topo::CollectiveAlgorithm::ring;
  if (n == "tree") return topo::CollectiveAlgorithm::tree;
  if (n == "nvls") return topo::CollectiveAlgorithm::nvls;
  if (n == "nvlstree") return topo::CollectiveAlgorithm::nvls_tree;
  if (n == "pat") return topo::CollectiveAlgorithm::pat;
  if (n == "collnetchain") return topo::CollectiveAlgorithm::collnet_chain;
  if (n.rfind("collnet", 0) == 0) return topo::CollectiveAlgorithm::collnet_direct;
  return std::nullopt;
}

}  // namespace

std::optional<topo::CollectiveOp> measured_op(std::string_view op) {
  if (op == "all_reduce") return topo::CollectiveOp::all_reduce;
  if (op == "all_gather") return topo::CollectiveOp::all_gather;
  if (op == "reduce_scatter") return topo::CollectiveOp::reduce_scatter;
  if (op == "all_to_all" || op == "alltoall") return topo::CollectiveOp::all_to_all;
  if (op == "sendrecv") return topo::CollectiveOp::send_recv;
  if (op == "broadcast") return topo::CollectiveOp::broadcast;
  return std::nullopt;
}

void map_measured_collective(MeasuredCollective& m, const Catalog& catalog) {
  const auto op = measured_op(m.op_name);
  // DeepEP's kernels are checked where the MoE layer requests them, whatever the row's GPU names.
  const topo::GpuSpec* gpu = op ? catalog.find_gpu(lower(m.gpu)) : nullptr;
  if (op && gpu == nullptr) {
    m.not_expressible = "GPU `" + m.gpu + "` is not one catalog GPU";
    return;
  }
  if (!op) {
    if (m.op_name.rfind("deepep_normal", 0) == 0)
      m.not_expressible =
          "DeepEP's normal kernels run inside the MoE layer: tests/workloads/step/deepep_h800_test.cpp";
    else if (m.op_name.rfind("deepep_ll", 0) == 0)
      m.not_expressible =
          "DeepEP's low-latency kernels run inside the MoE layer (algorithm deepep-ll): "
          "tests/workloads/step/deepep_h800_test.cpp";
    else if (m.op_name.rfind("deepep", 0) == 0)
      m.not_expressible =
          "DeepEP V2's hybrid-mode kernels run inside the MoE layer (SM90 as the H100, SM100 as the B200): "
          "tests/workloads/step/deepep_h800_test.cpp";
    else
      m.not_expressible = "operation `" + m.op_name + "` is not one stepsim runs";
    return;
  }
  const auto alg = algorithm_of(m.named_algorithm);
  if (!alg) {
    m.not_expressible = "algorithm `" + m.named_algorithm + "` is not one stepsim has";
    return;
  }
  if (m.nics_per_node != m.gpus_per_node) {
    m.not_expressible = "stepsim gives every GPU its own NIC; this row has " +
                        std::to_string(m.nics_per_node) + " NICs for " + std::to_string(m.gpus_per_node) +
                        " GPUs";
    return;
  }
  if (!(m.bytes > 0.0) || !(m.busbw_GBps > 0.0)) {
    m.not_expressible = "the row gives no message size or bus bandwidth";
    return;
  }
  // Found by fuzz_nccl_tests: a one-rank send/recv paired the rank with itself (an internal error).
  if (static_cast<long long>(m.nodes) * m.gpus_per_node < 2) {
    m.not_expressible = "one rank: a collective of one rank moves nothing";
    return;
  }
  topo::ClusterSpec& c = m.cluster;
  c.gpu = *gpu;
  c.nodes = m.nodes;
  c.gpus_per_node = m.gpus_per_node;
  const bool nvl72 = m.fabric.find("NVL72") != std::string::npos;
  c.nvlink_domain = nvl72 ? 72 : m.gpus_per_node;
  if (c.nvlink_domain > c.total_gpus()) c.nvlink_domain = c.total_gpus();
  const bool has_nvls = gpu->eff.nvls > 0.0 && gpu->nvlink_bw.value() > 0.0;
  m.nvls_disabled = has_nvls && m.notes.find("NCCL_NVLS_ENABLE=0") != std::string::npos;
  c.nvls = has_nvls && !m.nvls_disabled;
  c.fabric.kind = topo::FabricKind::rail_optimized;
  c.fabric.nic_bw = units::gbit_per_s(m.nic_gbps);
  c.fabric.sharp = m.fabric.find("SHARP") != std::string::npos;
  m.op = *op;
  m.algorithm = *alg;
  m.collnet = topo::is_collnet(*alg);
  // NCCL runs NVLS across NVLink domains only as NVLS + CollNet, with CollNet enabled
  // (src/graph/tuning.cc: NVLS is disabled for nNodes > 1 unless config.collnetEnable), and a run
  // that forces an algorithm NCCL disabled fails ("No algorithm/protocol available"). A row that
  // names NVLS across domains without naming CollNet therefore measured what NCCL chose itself
  // with CollNet off; the B200 cluster's rows bear that out (their figures equal its Ring or
  // NVLSTree rows). stepsim compares them with its own choice under the same rule.
  if (*alg == topo::CollectiveAlgorithm::nvls && c.total_gpus() > c.nvlink_domain) {
    m.algorithm = topo::CollectiveAlgorithm::automatic;
    m.substitution =
        "NCCL runs NVLS across NVLink domains only with CollNet enabled, so this run measured NCCL's own "
        "choice without CollNet; compared with stepsim's choice under the same rule";
  }
}

std::vector<MeasuredCollective> read_collective_measurements(const std::filesystem::path& file,
                                                             const Catalog& catalog) {
  std::ifstream in(file);
  if (!in)
    throw UserError(SourceLocation{file.string(), 0, 0}, "", "cannot be read",
                    "give a CSV with the columns of scenarios/validation/collectives-multinode.csv");
  std::string line;
  int n = 0;
  std::vector<MeasuredCollective> rows;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line == "\r") continue;
    const auto fields = split_csv(line);
    if (n == 1) {
      for (std::size_t i = 0; i < kColumns.size(); ++i)
        if (i >= fields.size() || fields[i] != kColumns[i])
          throw UserError(SourceLocation{file.string(), 1, static_cast<int>(i) + 1}, std::string(kColumns[i]),
                          "the header does not have column `" + std::string(kColumns[i]) + "` here",
                          "the columns are those of scenarios/validation/collectives-multinode.csv");
      continue;
    }
    if (fields.size() != kColumns.size())
      throw UserError(
          SourceLocation{file.string(), n, 0}, "",
          "has " + std::to_string(fields.size()) + " fields, not " + std::to_string(kColumns.size()),
          "quote fields that contain commas");
    const RowReader r{file, n, fields};
    MeasuredCollective m;
    m.id = r.text("id");
    m.line = n;
    m.gpu = r.text("gpu");
    m.nodes = r.whole("nodes");
    m.gpus_per_node = r.whole("gpus_per_node");
    m.nics_per_node = r.whole("nics_per_node");
    m.nic_gbps = r.number("nic_gbps", true);
    m.fabric = r.text("fabric");
    m.op_name = r.text("op");
    m.bytes = r.number("bytes", false);
    m.busbw_GBps = r.number("busbw_GBps", false);
    m.notes = r.text("notes");
    m.named_algorithm = named_algorithm(m.notes);
    map_measured_collective(m, catalog);
    rows.push_back(std::move(m));
  }
  return rows;
}

std::vector<std::vector<topo::GpuId>> measured_groups(const MeasuredCollective& row) {
  const auto p = static_cast<topo::GpuId>(row.cluster.total_gpus());
  if (row.op != topo::CollectiveOp::send_recv) {
    std::vector<topo::GpuId> all(p);
    for (topo::GpuId g = 0; g < p; ++g) all[g] = g;
    return {all};
  }
  const auto first = static_cast<topo::GpuId>(row.nodes > 1 ? row.gpus_per_node - 1 : 0);
  std::vector<std::vector<topo::GpuId>> pairs;
  for (topo::GpuId i = 0; i < p; ++i) {
    const topo::GpuId src = (first + i) % p;
    pairs.push_back({src, (src + 1) % p});
  }
  return pairs;
}

topo::SweepRequest measured_sweep(const MeasuredCollective& row, topo::CollectiveAlgorithm algorithm) {
  topo::SweepRequest r;
  r.op = row.op;
  r.groups = measured_groups(row);
  r.sizes_bytes = {row.bytes};
  r.algorithm = algorithm;
  r.protocol = row.protocol;
  r.config.collnet = row.collnet;
  // nccl-tests' send/recv pairs all belong to one communicator of every rank.
  if (row.op == topo::CollectiveOp::send_recv)
    r.communicator_ranks = static_cast<std::uint32_t>(row.cluster.total_gpus());
  return r;
}

topo::CollectiveSample MeasuredSimulator::run(const MeasuredCollective& row,
                                              topo::CollectiveAlgorithm algorithm) {
  const topo::ClusterSpec& c = row.cluster;
  const topo::Efficiency& e = c.gpu.eff;
  char key[256];
  std::snprintf(key, sizeof key, "%s|%d|%d|%d|%d|%d|%.9g|%.9g|%.9g|%.9g|%.9g", c.gpu.id.c_str(), c.nodes,
                c.gpus_per_node, c.nvlink_domain, c.fabric.sharp ? 1 : 0, c.nvls ? 1 : 0,
                c.fabric.nic_bw.value(), e.nvlink, e.nvlink_p2p, e.nic, e.nvls);
  auto& topo = topologies_[key];
  if (!topo) topo = std::make_shared<const topo::Topology>(c);
  return topo::sweep_collective(topo, measured_sweep(row, algorithm)).front();
}

}  // namespace stepsim::scen
