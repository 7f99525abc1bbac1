#include "topology/concurrent_transfers.hpp"

#include <algorithm>
#include <unordered_map>

#include "topology/maxmin.hpp"

namespace stepsim::topo {

namespace {

/// Phase `index` of every transfer that has one, solved together; adds each phase's time to `out`.
void add_phase_times(const TransferTable& table, std::span<const std::uint32_t> payloads, std::size_t index,
                     std::vector<double>& out) {
  MaxMinSystem system;
  std::unordered_map<LinkId, MaxMinSystem::ConstraintId> constraint;
  std::vector<MaxMinSystem::Usage> usages;
  struct Placed {
    std::size_t transfer;
    MaxMinSystem::VariableId var;
    double bytes;
  };
  std::vector<Placed> placed;
  for (std::size_t t = 0; t < payloads.size(); ++t) {
    const auto phases = table.phases(payloads[t]);
    if (index >= phases.size()) continue;
    out[t] += to_seconds(phases[index].latency);
    for (const TransferFlow& f : table.flows(phases[index])) {
      usages.clear();
      for (const LinkUse& u : table.pattern(f.pattern)) {
        const auto [it, fresh] = constraint.try_emplace(u.link, 0);
        if (fresh) it->second = system.add_constraint(table.topology().link(u.link).bw.value());
        usages.push_back({it->second, u.coefficient});
      }
      const double bound = f.max_rate > 0.0 ? f.max_rate : MaxMinSystem::kUnbounded;
      if (usages.empty() && bound == MaxMinSystem::kUnbounded) continue;  // moves nothing over links
      placed.push_back({t, system.add_variable(1.0, bound, usages), f.bytes});
    }
  }
  system.solve();
  std::vector<double> slowest(payloads.size(), 0.0);
  for (const Placed& p : placed)
    slowest[p.transfer] = std::max(slowest[p.transfer], p.bytes / system.rate(p.var));
  for (std::size_t t = 0; t < payloads.size(); ++t) out[t] += slowest[t];
}

}  // namespace

std::vector<double> concurrent_time_s(const TransferTable& table, std::span<const std::uint32_t> payloads) {
  std::vector<double> out(payloads.size(), 0.0);
  std::size_t phases = 0;
  for (const std::uint32_t p : payloads) phases = std::max(phases, table.phases(p).size());
  for (std::size_t i = 0; i < phases; ++i) add_phase_times(table, payloads, i, out);
  return out;
}

}  // namespace stepsim::topo
