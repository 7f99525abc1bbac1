#pragma once
// A sink for events as a run produces them (trace writers, progress meters), so that layers above
// can stream a run without sim knowing any file format. Runs without an observer pay one
// predictable null-pointer test per op start and end.

#include "sim/graph.hpp"
#include "sim/run_result.hpp"
#include "sim/units.hpp"

namespace stepsim::sim {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  /// `op` began executing at `now`. Calls come in simulated-time order, deterministically.
  virtual void on_op_start(OpId op, Time now) = 0;
  /// `op` finished; `record` is final (ready, start, end, bound).
  virtual void on_op_end(OpId op, const OpRecord& record) = 0;
};

}  // namespace stepsim::sim
