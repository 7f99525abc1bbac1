#pragma once
// The machine a scenario runs on: GPUs in nodes, scale-up domains, and the scale-out fabric.

#include <array>
#include <string>
#include <vector>

#include "topology/gpu.hpp"

namespace stepsim::topo {

enum class FabricKind : std::uint8_t {
  fat_tree,        ///< one NIC per GPU into leaf switches; leaves into spines (and cores)
  rail_optimized,  ///< GPU i of every node on rail (leaf) switch i; spines join the rails
  custom,          ///< switches and links listed by the user
};

/// A link of a custom topology. Endpoints name switches ("sw0") or GPUs ("gpu12").
struct CustomLink {
  std::string a;
  std::string b;
  BytesPerSecond bw;  ///< per direction
  double latency_s = 0.0;
};

struct FabricSpec {
  FabricKind kind = FabricKind::rail_optimized;
  int tiers = 2;            ///< 2 = leaf/spine, 3 = leaf/spine/core
  BytesPerSecond nic_bw;    ///< per GPU per direction; 0 = the GPU's catalog default
  /// Downlink:uplink bandwidth ratio at each switch tier (leaf, spine, core); 1 = non-blocking.
  std::array<double, 3> oversubscription{1.0, 1.0, 1.0};
  int hosts_per_leaf = 32;        ///< NICs attached to one leaf switch (per rail for rail-optimised)
  int leaves_per_pod = 16;        ///< for 3 tiers: leaves joined by one pod's spines
  double hop_latency_s = 0.5e-6;  ///< per switch hop, scale-out
  /// Per message through the sending and receiving NICs together (RDMA post, PCIe, NIC pipelines).
  double nic_latency_s = 2e-6;
  /// The switches reduce in the network (InfiniBand SHARP): NCCL's CollNet algorithms can run.
  bool sharp = false;
  std::vector<std::string> custom_switches;  ///< custom only
  std::vector<CustomLink> custom_links;      ///< custom only
};

/// One GPU's link running below its line rate, or down (a NIC negotiated down, a flapping NVLink
/// lane, a dead port).
struct LinkDegradation {
  enum class Part : std::uint8_t { nic, nvlink };
  int gpu = 0;
  Part part = Part::nic;
  /// Fraction of the line rate left, both directions; 0 = down (NIC only: the GPU then sends and
  /// receives through the NIC of another GPU of its node, as NCCL picks the nearest NIC at init).
  double bandwidth = 1.0;
};

/// A scale-out switch of a generated fabric below its line rate, or down (a failed switch, a
/// switch with degraded ports). Indices as the fabric numbers its switches (topology_fabric.cpp):
/// leaves 0 .. L-1 (rail-optimised: group x gpus_per_node + rail); spines pod x P + j; cores j x C + k.
struct SwitchDegradation {
  enum class Tier : std::uint8_t { leaf, spine, core };
  Tier tier = Tier::spine;
  int index = 0;
  /// Fraction of every port's line rate left; 0 = down: routes avoid a spine or core that is down,
  /// and a leaf down takes its NICs down (their GPUs send through another NIC of their node).
  double bandwidth = 1.0;
};

struct ClusterSpec {
  GpuSpec gpu;
  int nodes = 1;
  int gpus_per_node = 8;
  /// GPUs in one NVLink/NVSwitch domain; a multiple of gpus_per_node (72 for GB200 NVL72 with 4 per
  /// node) or equal to it. 1 means no scale-up links.
  int nvlink_domain = 8;
  /// GPUs of the physical scale-up domain (an NVL72 rack) when the job uses only nvlink_domain of
  /// them (64 of 72: racks shared with another job or spares); 0 = the job fills its domains.
  int rack_gpus = 0;
  bool nvls = false;               ///< NVSwitch in-network reduction (NVLink SHARP) available
  double nvlink_latency_s = 1e-6;  ///< per NVLink transfer step
  FabricSpec fabric;
  /// Links below their line rate or down ([variability] degraded_links).
  std::vector<LinkDegradation> degraded;
  /// Switches below their line rate or down ([variability] degraded_switches).
  std::vector<SwitchDegradation> degraded_switches;
  /// Any link or switch degraded.
  bool has_degradation() const { return !degraded.empty() || !degraded_switches.empty(); }
  /// The same cluster with every link and switch at its line rate.
  void clear_degradation() {
    degraded.clear();
    degraded_switches.clear();
  }

  int total_gpus() const { return nodes * gpus_per_node; }
  /// The physical scale-up domain's GPUs (the rack's, or the job's domain when it fills them).
  int physical_domain() const { return rack_gpus > 0 ? rack_gpus : nvlink_domain; }
  /// Scale-out bandwidth per GPU per direction actually in use.
  BytesPerSecond nic_bw() const { return fabric.nic_bw.value() > 0.0 ? fabric.nic_bw : gpu.nic_bw; }
};

}  // namespace stepsim::topo
