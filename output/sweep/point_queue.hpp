#pragma once
// The order in which a sweep's threads take its points. Points that share their step (they differ
// only in a NIC-speed or fabric axis: PointEvaluator::program_key) go to one thread one after
// another, so that it builds the step once for all of them (work::StepProgram); whole groups go
// out in the order given (the sweep gives the costliest first). A thread that finds no group left
// joins the group with the most points still waiting and takes them from its end, building that
// step once more: the last groups do not leave the other threads idle.

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace stepsim::out {

class PointQueue {
 public:
  /// Groups of point numbers, each in the order its points are to be evaluated.
  explicit PointQueue(std::vector<std::vector<std::uint64_t>> groups);

  /// A point handed to a thread: the group it belongs to, and from which end the thread takes
  /// that group's points.
  struct Claim {
    std::size_t group = 0;
    std::uint64_t point = 0;
    bool from_back = false;  ///< the thread joined the group: it takes points from the end
  };

  /// The next point for a thread whose previous claim was `last` (nullopt for its first): the next
  /// of its group from the same end while one is left, else the first of the next group no thread
  /// has taken, else the last of the group with the most points left (the first such group);
  /// nullopt once every point is handed out or the queue is closed. Thread-safe.
  std::optional<Claim> next(const std::optional<Claim>& last);

  /// Hands out nothing more (a thread failed, and the sweep stops).
  void close();

 private:
  std::mutex mutex_;
  std::vector<std::vector<std::uint64_t>> groups_;
  std::vector<std::size_t> front_, back_;  ///< per group: its points not handed out, [front, back)
  std::size_t taken_ = 0;                  ///< groups [0, taken_) have been given to a thread
  bool closed_ = false;
};

}  // namespace stepsim::out
