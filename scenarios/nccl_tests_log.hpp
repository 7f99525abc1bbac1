#pragma once
// The output of NVIDIA's nccl-tests (all_reduce_perf, all_gather_perf, ...) as a cluster's own
// measurements: what `stepsim collective --nccl-tests FILE` compares with the model and
// `--write-calibration` fits the link efficiencies to.
//
// A log holds one or more runs, each opened by nccl-tests' "# nThread ..." line and followed by a
// "#  Rank  N Group G Pid P on HOST device D [BUS] NAME" line per rank and one line per message
// size: size, count, type, redop, root, then the out-of-place time (us), algbw and busbw (GB/s,
// decimal), #wrong, and the same in place. Anything else (a job script's echoes, NCCL INFO lines,
// a banner) is skipped, except what says how NCCL ran: "NCCL version X", and with NCCL_DEBUG=INFO
// "NCCL_ALGO set by environment to X", "NCCL_PROTO ..." and "NCCL_NVLS_ENABLE ... to 0".

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/catalog.hpp"
#include "scenarios/collective_measurements.hpp"

namespace stepsim::scen {

/// One message size of a run: the out-of-place figures (nccl-tests' first set of columns).
struct NcclTestsRow {
  int line = 0;  ///< in the file, 1-based
  double bytes = 0.0;
  double time_us = 0.0;
  double busbw_GBps = 0.0;  ///< as printed (two decimals); the rows stepsim compares use the time
};

/// What NCCL chose for one message size, as NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING prints it on
/// rank 0 ("AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE ...", or NCCL 2.23-2.24's
/// "... Bytes -> Algo 1 proto 2 time ..." with NCCL's indices).
struct NcclChoice {
  std::string func;       ///< "AllReduce", or empty where the line does not say
  double bytes = 0.0;     ///< NCCL's count x type size: per rank for all-gather and reduce-scatter
  std::string algorithm;  ///< NCCL's name: "RING", "TREE", "NVLS_TREE", ...
  std::string protocol;   ///< "LL", "LL128", "SIMPLE"
};

/// One invocation of a test binary inside the log.
struct NcclTestsRun {
  int line = 0;                    ///< of its "# nThread" line
  std::vector<std::string> hosts;  ///< the host of each rank, in rank order
  std::string device;              ///< the GPU name of rank 0 ("NVIDIA H100 80GB HBM3")
  bool mixed_devices = false;      ///< not every rank names the same GPU
  std::vector<NcclTestsRow> rows;
  std::vector<NcclChoice> choices;  ///< from the TUNING lines, where the log has them

  int ranks() const { return static_cast<int>(hosts.size()); }
  /// Distinct hosts, in order of their first rank.
  std::vector<std::string> distinct_hosts() const;
};

struct NcclTestsLog {
  std::filesystem::path file;
  std::string op_name;       ///< nccl-tests' name: "all_reduce", "all_gather", "reduce_scatter", "alltoall",
                             ///< "sendrecv", ...
  std::string op_source;     ///< how it was found: "--op", "the log's command line", "the file name"
  std::string nccl_version;  ///< "2.29.7+cuda12.9", or empty
  std::string forced_algorithm;  ///< NCCL_ALGO as NCCL_DEBUG=INFO reported it, or empty
  std::string forced_protocol;   ///< NCCL_PROTO likewise
  bool nvls_disabled = false;    ///< NCCL_NVLS_ENABLE=0 reported
  std::vector<NcclTestsRun> runs;
};

/// Reads `file`. The collective is `op` when given (nccl-tests' or stepsim's spelling), else the
/// "<op>_perf" binary the log names, else the file's name ("all_gather_perf.out",
/// "nccl-sendrecv-2node.out"). Throws UserError (file:line, with a hint) for a log with no run or
/// no data row, a data row that does not parse, a run without its rank lines, or an operation it
/// cannot tell.
NcclTestsLog read_nccl_tests_log(const std::filesystem::path& file, const std::optional<std::string>& op);

/// The catalog GPU a CUDA device name denotes ("NVIDIA H100 80GB HBM3" -> "h100-sxm"), or empty.
std::string catalog_gpu_of_device(const std::string& device);

/// What a log does not say about the cluster, from the command line.
struct LogCluster {
  std::string gpu;                 ///< catalog id; empty = from the device name
  std::optional<double> nic_gbps;  ///< per GPU and direction; absent = the GPU's catalog figure
  int nvlink_domain = 0;           ///< GPUs per NVLink domain; 0 = the host (GB200: 72, NVL72 racks)
  bool sharp = false;              ///< the fabric's switches reduce in the network
  bool collnet = false;            ///< NCCL_COLLNET_ENABLE=1
  /// The algorithm the runs forced (NCCL_ALGO, in NCCL's spelling: Ring, Tree, NVLS, NVLSTree,
  /// CollNet, PAT) where a log does not report it; empty = NCCL chose.
  std::string algorithm;
};

/// Every data row of every run as a measured collective on the cluster the run describes (its
/// hosts and ranks, one NIC per GPU on a rail-optimised fabric), mapped as the measurements CSV's
/// rows are (collective_measurements.hpp): a row stepsim cannot run carries the reason.
std::vector<MeasuredCollective> measured_from_log(const NcclTestsLog& log, const Catalog& catalog,
                                                  const LogCluster& cluster);

}  // namespace stepsim::scen
