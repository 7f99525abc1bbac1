#pragma once
// A CommPlanner whose transfers take a fixed time each (from a cost function of the request), with
// no contention: enough to test the step builder's structure without the flow-level network.
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "workloads/layout/comm_planner.hpp"

namespace stepsim::work::fakes {

class FixedCostNetwork : public sim::Network {
 public:
  explicit FixedCostNetwork(std::vector<Time> costs) : costs_(std::move(costs)) {}
  void start(sim::OpId op, std::uint32_t payload, Time now) override {
    pending_.emplace(std::make_pair(now + costs_.at(payload), op), payload);
  }
  Time next_event_time() const override {
    return pending_.empty() ? kTimeNever : pending_.begin()->first.first;
  }
  void advance_to(Time now, std::vector<sim::OpId>& done) override {
    while (!pending_.empty() && pending_.begin()->first.first <= now) {
      done.push_back(pending_.begin()->first.second);
      durations_[pending_.begin()->first.second] = costs_.at(pending_.begin()->second);
      pending_.erase(pending_.begin());
    }
  }
  void attribution(sim::OpId op, std::vector<sim::BoundShare>& out) const override {
    out.push_back({topo_latency_tag, durations_.at(op)});
  }
  static constexpr sim::BoundTag topo_latency_tag = 10;

 private:
  std::vector<Time> costs_;
  std::map<std::pair<Time, sim::OpId>, std::uint32_t> pending_;
  std::map<sim::OpId, Time> durations_;
};

class FixedCostPlanner : public CommPlanner {
 public:
  using Cost = std::function<Time(const CommRequest&)>;
  explicit FixedCostPlanner(Cost cost) : cost_(std::move(cost)) {}
  std::uint32_t plan(const CommRequest& r) override {
    requests.push_back(r);
    costs_.push_back(cost_(r));
    return static_cast<std::uint32_t>(costs_.size() - 1);
  }
  std::unique_ptr<sim::Network> make_network() override { return std::make_unique<FixedCostNetwork>(costs_); }
  std::vector<CommRequest> requests;

 private:
  Cost cost_;
  std::vector<Time> costs_;
};

}  // namespace stepsim::work::fakes
