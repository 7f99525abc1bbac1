#include "scenarios/nccl_tests_log.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include "sim/error.hpp"
#include "sim/units.hpp"

namespace stepsim::scen {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::vector<std::string> tokens_of(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool all_digits(const std::string& t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

/// nccl-tests' operation names, as its binaries spell them without "_perf", and the spellings
/// without separators that file names and banners use.
struct OpName {
  std::string_view name;     ///< "all_reduce"
  std::string_view compact;  ///< "allreduce"
};
constexpr std::array<OpName, 6> kOps{{{"all_reduce", "allreduce"},
                                      {"all_gather", "allgather"},
                                      {"reduce_scatter", "reducescatter"},
                                      {"alltoall", "alltoall"},
                                      {"sendrecv", "sendrecv"},
                                      {"broadcast", "broadcast"}}};

std::string compact(std::string s) {
  s = lower(std::move(s));
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == '_' || c == '-' || c == ' '; }),
          s.end());
  return s;
}

/// The operations whose compact names occur in `text`.
std::set<std::string> ops_named_in(const std::string& text) {
  std::set<std::string> found;
  const std::string c = compact(text);
  for (const OpName& op : kOps)
    if (c.find(op.compact) != std::string::npos) found.emplace(op.name);
  // "reducescatter" also holds no other name; "allreduce" is not inside "reducescatter".
  return found;
}

/// "--op all-reduce" in stepsim's or nccl-tests' spelling.
std::string op_from_option(const std::string& op) {
  const std::string c = compact(op);
  for (const OpName& o : kOps)
    if (c == o.compact || c == std::string(o.compact) + "perf") return std::string(o.name);
  if (c == "sendreceive") return "sendrecv";
  std::string names;
  for (const OpName& o : kOps) names += (names.empty() ? "" : ", ") + std::string(o.name);
  throw UserError({}, "--op",
                  "unknown operation `" + op + "` for an nccl-tests log; expected one of " + names,
                  "the test binary's name without _perf, e.g. --op all_reduce");
}

/// What the log's text says about NCCL: its version, and NCCL_DEBUG=INFO's report of variables.
void read_nccl_settings(const std::string& line, NcclTestsLog& log) {
  if (const auto at = line.find("NCCL version "); at != std::string::npos && log.nccl_version.empty()) {
    const auto t = tokens_of(std::string_view(line).substr(at + 13));
    if (!t.empty()) log.nccl_version = t[0];
  }
  const auto setting = [&](std::string_view var) -> std::string {
    const auto at = line.find(std::string(var) + " set by environment to ");
    if (at == std::string::npos) return {};
    const auto t = tokens_of(std::string_view(line).substr(at + var.size() + 23));
    return t.empty() ? std::string() : t[0];
  };
  if (auto a = setting("NCCL_ALGO"); !a.empty()) log.forced_algorithm = a;
  if (auto p = setting("NCCL_PROTO"); !p.empty()) log.forced_protocol = p;
  if (setting("NCCL_NVLS_ENABLE") == "0") log.nvls_disabled = true;
}

/// NCCL's choice for a size from a TUNING line, or nothing when `line` is not one.
std::optional<NcclChoice> read_choice(const std::string& line) {
  const auto at = line.find(" Bytes -> Algo ");
  if (at == std::string::npos) return std::nullopt;
  const auto start = line.find_last_of(' ', at - 1);
  const std::string bytes = line.substr(start + 1, at - start - 1);
  const auto after = tokens_of(std::string_view(line).substr(at + 15));  // "RING proto SIMPLE ..."
  // At most 18 digits: std::stod and std::stoul throw beyond their range.
  if (!all_digits(bytes) || bytes.size() > 18 || after.size() < 3 || after[1] != "proto") return std::nullopt;
  NcclChoice c;
  c.bytes = std::stod(bytes);
  // NCCL 2.23-2.24 print the indices of src/include/plugin/nccl_tuner.h.
  static constexpr std::array<std::string_view, 7> kAlgos{
      "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
  static constexpr std::array<std::string_view, 3> kProtos{"LL", "LL128", "SIMPLE"};
  const auto named = [](const std::string& t, const auto& names) -> std::string {
    if (!all_digits(t) || t.size() > 2) return t;
    const auto i = std::stoul(t);
    return i < names.size() ? std::string(names[i]) : t;
  };
  c.algorithm = named(after[0], kAlgos);
  c.protocol = named(after[2], kProtos);
  if (const auto colon = line.rfind(": ", start); colon != std::string::npos) {
    const auto word = line.find_last_of(' ', colon == 0 ? 0 : colon - 1);
    c.func = line.substr(word == std::string::npos ? 0 : word + 1,
                         colon - (word == std::string::npos ? 0 : word + 1));
  }
  return c;
}

/// "#  Rank  3 Group  0 Pid 185297 on host-a device  3 [0x70] NVIDIA B200": the host and the GPU.
bool read_rank_line(const std::vector<std::string>& t, const std::string& line, NcclTestsRun& run) {
  if (t.size() < 2 || t[0] != "#" || t[1] != "Rank") return false;
  const auto on = std::find(t.begin(), t.end(), "on");
  if (on == t.end() || on + 1 == t.end()) return false;
  run.hosts.push_back(*(on + 1));
  // The device name follows the bus id in brackets.
  std::string device;
  if (const auto close = line.find(']'); close != std::string::npos) {
    device = line.substr(close + 1);
    device.erase(0, device.find_first_not_of(" \t"));
    device.erase(device.find_last_not_of(" \t\r") + 1);
  }
  if (run.hosts.size() == 1)
    run.device = device;
  else if (device != run.device)
    run.mixed_devices = true;
  return true;
}

double number_at(const std::vector<std::string>& t, std::size_t i, const std::filesystem::path& file,
                 int line, const char* column) {
  try {
    std::size_t used = 0;
    const double v = std::stod(t[i], &used);
    if (used == t[i].size() && std::isfinite(v) && v >= 0.0) return v;
  } catch (const std::exception&) {
  }
  throw UserError(
      SourceLocation{file.string(), line, static_cast<int>(i) + 1}, column,
      "`" + t[i] + "` is not a non-negative number",
      "a data row is: size count type redop root time algbw busbw #wrong, then the same in place");
}

std::string op_of_log(const std::filesystem::path& file, const std::vector<std::string>& text,
                      const std::optional<std::string>& op, std::string& source) {
  if (op) {
    source = "--op";
    return op_from_option(*op);
  }
  std::set<std::string> binaries;
  for (const auto& line : text)
    for (const OpName& o : kOps)
      if (line.find(std::string(o.name) + "_perf") != std::string::npos) binaries.emplace(o.name);
  if (binaries.size() == 1) {
    source = "the log's command line";
    return *binaries.begin();
  }
  if (const auto named = ops_named_in(file.filename().string()); named.size() == 1) {
    source = "the file name";
    return *named.begin();
  }
  throw UserError(SourceLocation{file.string(), 0, 0}, "--op",
                  "cannot tell which collective this nccl-tests log measured: neither its text names one "
                  "<op>_perf binary nor its file name one operation",
                  "give it: --op all_reduce (all_gather, reduce_scatter, alltoall, sendrecv, broadcast)");
}

/// NCCL's choice for a data row of `op` at nccl-tests' `size`: NCCL counts all-gathers and
/// reduce-scatters per rank (ncclAllGather's sendcount, ncclReduceScatter's recvcount).
const NcclChoice* choice_for(const NcclTestsRun& run, const std::string& op, double size) {
  const double bytes = op == "all_gather" || op == "reduce_scatter" ? size / run.ranks() : size;
  const std::string func = compact(op);
  for (const NcclChoice& c : run.choices)
    if (c.bytes == bytes && (c.func.empty() || compact(c.func) == func)) return &c;
  return nullptr;
}

}  // namespace

std::vector<std::string> NcclTestsRun::distinct_hosts() const {
  std::vector<std::string> out;
  for (const auto& h : hosts)
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  return out;
}

NcclTestsLog read_nccl_tests_log(const std::filesystem::path& file, const std::optional<std::string>& op) {
  std::ifstream in(file);
  if (!in)
    throw UserError(SourceLocation{file.string(), 0, 0}, "", "cannot be read",
                    "give the output of an nccl-tests binary (e.g. all_reduce_perf -b 8 -e 8G -f 2)");
  std::vector<std::string> text;
  for (std::string line; std::getline(in, line);) text.push_back(line);
  NcclTestsLog log;
  log.file = file;
  log.op_name = op_of_log(file, text, op, log.op_source);
  std::vector<NcclChoice> pending;  // TUNING lines before the first run's header
  for (std::size_t i = 0; i < text.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    const std::string& line = text[i];
    read_nccl_settings(line, log);
    if (auto c = read_choice(line)) {
      (log.runs.empty() ? pending : log.runs.back().choices).push_back(std::move(*c));
      continue;
    }
    const auto t = tokens_of(line);
    if (t.size() >= 2 && t[0] == "#" && t[1] == "nThread") {
      log.runs.push_back(NcclTestsRun{});
      log.runs.back().line = n;
      if (log.runs.size() == 1) log.runs.back().choices = std::move(pending);
      continue;
    }
    if (!log.runs.empty() && read_rank_line(t, line, log.runs.back())) continue;
    // A data row: size and count are whole numbers, then type (float, half, bfloat16, ...), redop,
    // root, time, algbw, busbw.
    if (t.size() < 3 || !all_digits(t[0]) || !all_digits(t[1]) ||
        !std::isalpha(static_cast<unsigned char>(t[2][0])))
      continue;
    if (t.size() < 8)
      throw UserError(SourceLocation{file.string(), n, static_cast<int>(t.size()) + 1}, "busbw",
                      "a data row with " + std::to_string(t.size()) + " fields, where nccl-tests writes 13",
                      "the log may be cut short: a data row is size count type redop root time algbw busbw "
                      "#wrong, then the same in place");
    if (log.runs.empty())
      throw UserError(SourceLocation{file.string(), n, 1}, "size",
                      "a data row before any run's \"# nThread\" header",
                      "give nccl-tests' whole output, its header and rank lines included");
    NcclTestsRow row;
    row.line = n;
    row.bytes = number_at(t, 0, file, n, "size");
    row.time_us = number_at(t, 5, file, n, "time");
    row.busbw_GBps = number_at(t, 7, file, n, "busbw");
    log.runs.back().rows.push_back(row);
  }
  std::size_t rows = 0;
  for (const auto& run : log.runs) {
    rows += run.rows.size();
    if (!run.rows.empty() && run.hosts.empty())
      throw UserError(SourceLocation{file.string(), run.line, 1}, "Rank",
                      "this run lists no \"#  Rank N ... on HOST device D [BUS] GPU\" lines",
                      "stepsim reads the ranks and hosts from them: keep nccl-tests' header in the log");
  }
  if (rows == 0)
    throw UserError(SourceLocation{file.string(), 0, 0}, "",
                    "holds no nccl-tests data row (size, count, type, redop, root, time, algbw, busbw, ...)",
                    "give the output of an nccl-tests binary, e.g. all_reduce_perf -b 8 -e 8G -f 2");
  return log;
}

std::string catalog_gpu_of_device(const std::string& device) {
  const std::string d = lower(device);
  const auto has = [&](std::string_view s) { return d.find(s) != std::string::npos; };
  if (has("gb200")) return "gb200";
  if (has("b200")) return "b200";
  if (has("h800")) return "h800";
  if (has("h200") && !has("nvl")) return "h200";
  if (has("h100") && (has("hbm3") || has("sxm"))) return "h100-sxm";
  if (has("a100") && has("80gb") && !has("pcie")) return "a100-sxm-80gb";
  if (has("mi300x")) return "mi300x";
  if (d == "nvidia l4") return "l4";
  return {};
}

namespace {

/// What every row of a run shares: its cluster as stepsim reads it, or why it cannot.
struct RunCluster {
  int hosts = 0;
  int per_host = 0;
  std::string gpu;  ///< catalog id, or the device's name where the catalog has none
  const topo::GpuSpec* spec = nullptr;
  bool nvl72 = false;
  std::string refused;  ///< why no row of the run can run
};

RunCluster run_cluster(const NcclTestsRun& run, const Catalog& catalog, const LogCluster& lc) {
  RunCluster rc;
  const auto hosts = run.distinct_hosts();
  rc.hosts = static_cast<int>(hosts.size());
  rc.per_host = run.ranks() / rc.hosts;
  // stepsim numbers GPUs host by host: rank r must sit on host r / per_host.
  for (int r = 0; r < run.ranks() && rc.refused.empty(); ++r)
    if (run.ranks() % rc.hosts != 0 ||
        run.hosts[static_cast<std::size_t>(r)] != hosts[static_cast<std::size_t>(r / rc.per_host)])
      rc.refused = "its " + std::to_string(run.ranks()) +
                   " ranks are not in equal, consecutive blocks per host (" + std::to_string(rc.hosts) +
                   " hosts); stepsim numbers GPUs host by host";
  const std::string id = !lc.gpu.empty() ? lc.gpu : catalog_gpu_of_device(run.device);
  rc.spec = id.empty() ? nullptr : catalog.find_gpu(id);
  rc.gpu = id.empty() ? run.device : id;
  rc.nvl72 = lc.nvlink_domain == 0 ? id == "gb200" : lc.nvlink_domain == 72;
  if (rc.refused.empty() && run.mixed_devices) rc.refused = "its ranks name different GPUs";
  if (rc.refused.empty() && rc.spec == nullptr)
    rc.refused = "device `" + run.device + "` is not one catalog GPU: give --gpu ID (stepsim catalog gpus)";
  return rc;
}

/// The algorithm and protocol NCCL ran a row with, where the log or the command line says.
void apply_nccl_choice(MeasuredCollective& m, const NcclChoice* chose, const std::string& forced_protocol) {
  // NCCL's log says it ran NVLS across NVLink domains: that is NVLS with CollNet, enabled.
  if (chose != nullptr && !m.substitution.empty()) {
    m.algorithm = topo::CollectiveAlgorithm::nvls;
    m.collnet = true;
    m.substitution.clear();
  }
  const std::string& protocol = chose != nullptr ? chose->protocol : forced_protocol;
  if (protocol.empty()) return;
  if (const auto p = topo::parse_collective_protocol(lower(protocol)))
    m.protocol = *p;
  else
    m.not_expressible = "protocol `" + protocol + "` is not one stepsim has";
}

MeasuredCollective measured_row(const NcclTestsLog& log, const NcclTestsRun& run, const NcclTestsRow& row,
                                const RunCluster& rc, const Catalog& catalog, const LogCluster& lc) {
  MeasuredCollective m;
  m.id = std::to_string(row.line);
  m.line = row.line;
  m.gpu = rc.gpu;
  m.nodes = rc.hosts;
  m.gpus_per_node = m.nics_per_node = rc.per_host;
  m.nic_gbps = lc.nic_gbps ? *lc.nic_gbps : rc.spec != nullptr ? rc.spec->nic_bw.value() * 8.0 / 1e9 : 0.0;
  m.fabric = std::string("rail-optimized") + (lc.sharp ? " SHARP" : "") + (rc.nvl72 ? " NVL72" : "");
  m.op_name = log.op_name;
  m.bytes = row.bytes;
  // From the time: nccl-tests prints bandwidths to two decimals (0.00 for small messages) and
  // computes them the same way, size / time times the operation's bus factor.
  m.busbw_GBps = row.time_us > 0.0 ? row.bytes / (row.time_us * 1e3) *
                                         topo::bus_bandwidth_factor(*measured_op(log.op_name), run.ranks())
                                   : row.busbw_GBps;
  const std::string& forced = !log.forced_algorithm.empty() ? log.forced_algorithm : lc.algorithm;
  const NcclChoice* chose = forced.empty() ? choice_for(run, log.op_name, row.bytes) : nullptr;
  if (chose != nullptr) m.choice = chose->algorithm + "/" + chose->protocol;
  if (!forced.empty()) m.notes = "algo=" + forced + ";";
  if (log.nvls_disabled) m.notes += " NCCL_NVLS_ENABLE=0";
  m.named_algorithm = chose != nullptr ? chose->algorithm : forced;
  if (!rc.refused.empty()) {
    m.not_expressible = rc.refused;
    return m;
  }
  map_measured_collective(m, catalog);
  if (!m.not_expressible.empty()) return m;
  if (lc.nvlink_domain > 0) m.cluster.nvlink_domain = std::min(lc.nvlink_domain, m.cluster.total_gpus());
  m.collnet = m.collnet || lc.collnet;
  apply_nccl_choice(m, chose, log.forced_protocol);
  return m;
}

}  // namespace

std::vector<MeasuredCollective> measured_from_log(const NcclTestsLog& log, const Catalog& catalog,
                                                  const LogCluster& lc) {
  if (lc.collnet && !lc.sharp)
    throw UserError({}, "--collnet", "NCCL's CollNet runs only on switches that reduce in the network",
                    "add --sharp (InfiniBand SHARP), or drop --collnet");
  std::vector<MeasuredCollective> out;
  for (const NcclTestsRun& run : log.runs) {
    if (run.rows.empty()) continue;
    const RunCluster rc = run_cluster(run, catalog, lc);
    for (const NcclTestsRow& row : run.rows) out.push_back(measured_row(log, run, row, rc, catalog, lc));
  }
  return out;
}

}  // namespace stepsim::scen
