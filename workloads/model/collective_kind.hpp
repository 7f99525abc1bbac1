#pragma once
// The collectives a step asks for, as the layer emitters (workloads/step/op_sink.hpp) and the
// communication planners (workloads/layout/comm_planner.hpp) both name them.

#include <cstdint>

namespace stepsim::work {

enum class CollectiveKind : std::uint8_t {
  all_reduce,
  all_gather,      ///< bytes = the gathered (output) buffer per rank
  reduce_scatter,  ///< bytes = the input buffer per rank
  all_to_all,      ///< bytes = what each rank sends in total
  /// an all-to-all run by DeepEP's low-latency kernels (every message at once, from each GPU's own
  /// NIC); bytes as all_to_all
  all_to_all_low_latency,
  send_recv,  ///< point-to-point: each group is {sender, receiver}; bytes = what is sent
  broadcast,
  ring_exchange,  ///< every member sends `bytes` to its successor in the group (ring attention)
};

}  // namespace stepsim::work
