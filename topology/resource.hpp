#pragma once
// The resources an op's time can be attributed to. These are the sim::BoundTag values used above
// sim; sim itself only knows kBoundNone and kBoundDependency.

#include <cstdint>
#include <string_view>

#include "sim/graph.hpp"

namespace stepsim::topo {

enum class Resource : std::uint8_t {
  none = sim::kBoundNone,
  dependency = sim::kBoundDependency,  ///< waiting on another op (bubble, peer rank)
  compute,                             ///< tensor-core / ALU throughput
  hbm,                                 ///< device memory bandwidth
  pcie,                                ///< host link (offload)
  nvlink,                              ///< scale-up links and switches
  nic,                                 ///< the GPU's network interface (first hop of scale-out)
  fabric,                              ///< switch-to-switch links of the scale-out fabric
  latency,                             ///< fixed per-message / per-step latency (alpha terms)
  host,                                ///< the host CPU launching kernels or waiting on the GPU
  count
};

constexpr sim::BoundTag tag(Resource r) {
  return static_cast<sim::BoundTag>(r);
}
constexpr Resource resource_of(sim::BoundTag t) {
  return static_cast<Resource>(t);
}

/// Stable lower-case name ("compute", "hbm", "nvlink", ...), used in JSON and traces.
constexpr std::string_view name(Resource r) {
  switch (r) {
    case Resource::none: return "none";
    case Resource::dependency: return "dependency";
    case Resource::compute: return "compute";
    case Resource::hbm: return "hbm";
    case Resource::pcie: return "pcie";
    case Resource::nvlink: return "nvlink";
    case Resource::nic: return "nic";
    case Resource::fabric: return "fabric";
    case Resource::latency: return "latency";
    case Resource::host: return "host";
    case Resource::count: break;
  }
  return "unknown";
}

}  // namespace stepsim::topo
