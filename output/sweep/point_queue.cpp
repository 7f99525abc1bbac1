#include "output/sweep/point_queue.hpp"

namespace stepsim::out {

PointQueue::PointQueue(std::vector<std::vector<std::uint64_t>> groups)
    : groups_(std::move(groups)), front_(groups_.size(), 0), back_(groups_.size(), 0) {
  for (std::size_t g = 0; g < groups_.size(); ++g) back_[g] = groups_[g].size();
}

std::optional<PointQueue::Claim> PointQueue::next(const std::optional<Claim>& last) {
  std::lock_guard lock(mutex_);
  if (closed_) return std::nullopt;
  const auto take = [&](std::size_t g, bool from_back) {
    const std::size_t at = from_back ? --back_[g] : front_[g]++;
    return Claim{g, groups_[g][at], from_back};
  };
  // The thread's own group first: its step is built.
  if (last && front_[last->group] < back_[last->group]) return take(last->group, last->from_back);
  while (taken_ < groups_.size() && groups_[taken_].empty()) ++taken_;
  if (taken_ < groups_.size()) return take(taken_++, false);
  std::size_t most = groups_.size();
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (back_[g] > front_[g] && (most == groups_.size() || back_[g] - front_[g] > back_[most] - front_[most]))
      most = g;
  if (most == groups_.size()) return std::nullopt;
  return take(most, true);
}

void PointQueue::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
}

}  // namespace stepsim::out
