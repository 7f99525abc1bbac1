#pragma once
// Measured collective performance used to check the network model (reference.md section 4).

#include <span>

namespace stepsim::topo {

/// One nccl-tests measurement: message size, time, and the bus bandwidth it printed.
struct NcclPoint {
  double bytes = 0.0;
  double time_s = 0.0;
  double busbw_GBps = 0.0;
};

/// nccl-tests all_reduce_perf (float, in-place) on one node of 8 x H100 SXM (NVSwitch, NVLS
/// available): the 8 sizes of reference.md section 4, increasing.
std::span<const NcclPoint> nccl_h100_all_reduce();

}  // namespace stepsim::topo
