#pragma once
// Measured collectives (nccl-tests and DeepEP figures) in the columns of
// scenarios/validation/collectives-multinode.csv, and what stepsim makes of each row: the cluster
// and collective it runs, or why it cannot express the row.
//
// Columns: id, source, gpu, nodes, gpus_per_node, nics_per_node, nic_gbps, fabric, op, bytes,
// busbw_GBps, algbw_GBps, time_us, notes. `fabric` mentioning SHARP gives the fabric in-network
// reduction; NVL72 makes 72-GPU NVLink domains of 4-GPU trays. `notes` may name the algorithm the
// run forced ("algo=Ring", "algo=NVLSTree", "algo=CollNet SHARP"); without it NCCL chose.
// `notes` containing "NCCL_NVLS_ENABLE=0" says the run had NVLink SHARP off (NCCL then has no
// NVLS or NVLS-tree algorithm).

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/catalog.hpp"
#include "topology/cluster.hpp"
#include "topology/collective_sweep.hpp"
#include "topology/collectives.hpp"

namespace stepsim::scen {

struct MeasuredCollective {
  std::string id;
  int line = 0;  ///< in the file, for messages
  std::string gpu;
  int nodes = 0;
  int gpus_per_node = 0;
  int nics_per_node = 0;
  double nic_gbps = 0.0;
  std::string fabric;
  std::string op_name;  ///< as the file spells it ("all_reduce", "deepep_normal_dispatch")
  double bytes = 0.0;   ///< 0 when the row gives none
  double busbw_GBps = 0.0;
  std::string notes;
  std::string named_algorithm;  ///< the algorithm the run forced, as written; empty = NCCL chose

  /// Why stepsim cannot run this row; empty when `cluster` and the fields below are set.
  std::string not_expressible;
  topo::ClusterSpec cluster;
  topo::CollectiveOp op = topo::CollectiveOp::all_reduce;
  topo::CollectiveAlgorithm algorithm = topo::CollectiveAlgorithm::automatic;
  /// The protocol the run forced (NCCL_PROTO); automatic = NCCL chose.
  topo::CollectiveProtocol protocol = topo::CollectiveProtocol::automatic;
  /// NCCL_COLLNET_ENABLE for the run: on where the row names CollNet (forcing it needs it on).
  bool collnet = false;
  /// Set where the row is compared with something other than the algorithm it names, and why.
  std::string substitution;
  /// The notes say the run had NVLink SHARP off (NCCL_NVLS_ENABLE=0): `cluster` has no NVLS.
  bool nvls_disabled = false;
  /// What NCCL's own log says it chose ("RING/SIMPLE", from NCCL_DEBUG_SUBSYS=TUNING): the row then
  /// runs that algorithm and protocol; empty = not known.
  std::string choice;
};

/// Reads the file and maps every row. Throws UserError (file:line, the column, a hint) for a row
/// that is malformed: a missing column, a number that does not parse.
std::vector<MeasuredCollective> read_collective_measurements(const std::filesystem::path& file,
                                                             const Catalog& catalog);

/// stepsim's operation for nccl-tests' name of one ("all_reduce", "all_gather", "reduce_scatter",
/// "alltoall" or "all_to_all", "sendrecv", "broadcast"); nothing for others (DeepEP's kernels).
std::optional<topo::CollectiveOp> measured_op(std::string_view op);

/// Fills `m.cluster` and the collective from the row's columns (gpu, nodes, gpus_per_node,
/// nics_per_node, nic_gbps, fabric, op_name, bytes, busbw_GBps, notes, named_algorithm), or sets
/// `m.not_expressible` to why stepsim cannot run it.
void map_measured_collective(MeasuredCollective& m, const Catalog& catalog);

/// The ranks of a row's collective: every GPU for the collectives; for nccl-tests' sendrecv_perf
/// (each rank sends to the next, the last to the first) one pair per rank, the first pair the
/// one that crosses from the first node to the second (the pairs that limit it).
std::vector<std::vector<topo::GpuId>> measured_groups(const MeasuredCollective& row);

/// The row's collective at its size, as `stepsim collective` runs it (topology/collective_sweep.hpp),
/// with `algorithm` (the row's own, or automatic to see what stepsim would choose).
topo::SweepRequest measured_sweep(const MeasuredCollective& row, topo::CollectiveAlgorithm algorithm);

/// Simulates measured rows alone on an idle network of the cluster each describes, building each
/// distinct cluster (its GPU's link efficiencies included) once.
class MeasuredSimulator {
 public:
  /// The row's collective at its size with `algorithm` (the row's own, or automatic to see what
  /// stepsim would choose). Throws UserError when a forced algorithm cannot run there.
  topo::CollectiveSample run(const MeasuredCollective& row, topo::CollectiveAlgorithm algorithm);

 private:
  std::map<std::string, std::shared_ptr<const topo::Topology>> topologies_;
};

}  // namespace stepsim::scen
