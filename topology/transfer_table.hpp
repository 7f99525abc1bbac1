#pragma once
// The immutable table of transfers a step graph's transfer ops point into (sim::Op::payload).
//
// Built once, alongside the step graph, by a TransferTableBuilder; shared read-only by every run
// (each run has its own FlowNetwork). A transfer is a sequence of phases; a phase is a latency
// (alpha terms, pipeline fill, and for the first phase the kernel launch) followed by bandwidth
// variables that run together, each a pattern of link usages and the bytes one unit flow carries.
// The phase ends when all its variables have moved their bytes.
//
// Typical use by a workload builder:
//   TransferTableBuilder tb(topology);                     // shared_ptr<const Topology>
//   CollectiveRequest r{CollectiveOp::all_reduce, {tp_group, image1, image2}, bucket_bytes};
//   op.payload = tb.add(r);                                // one payload per collective op
//   ...
//   auto table = std::make_shared<const TransferTable>(std::move(tb).build());
//   FlowNetwork network(table);                            // one per run

#include <map>
#include <memory>
#include <span>
#include <vector>

#include "sim/units.hpp"
#include "topology/collective_plan.hpp"
#include "topology/collectives.hpp"
#include "topology/maxmin.hpp"
#include "topology/nccl_tuning.hpp"
#include "topology/topology.hpp"

namespace stepsim::topo {

/// A bandwidth variable: pattern `pattern`, each unit flow carrying `bytes`.
struct TransferFlow {
  std::uint32_t pattern = 0;
  double bytes = 0.0;
  /// Ceiling on the variable's rate (unit-flow bytes per second) set by the protocol's kernels
  /// (NCCL's per-channel limits); 0 = only the links limit it.
  double max_rate = 0.0;
};

struct TransferPhase {
  Time latency{};
  std::uint32_t flows_begin = 0;
  std::uint32_t flows_count = 0;
};

struct TransferInfo {
  CollectiveOp op = CollectiveOp::all_reduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  CollectiveProtocol protocol = CollectiveProtocol::simple;
  double bytes = 0.0;        ///< request size (the mean row for a per-pair all-to-all)
  std::uint32_t ranks = 0;   ///< ranks per group
  std::uint32_t groups = 0;  ///< simulated group plus images
  std::uint32_t communicator_ranks = 0;  ///< send/recv: the request's communicator_ranks
  bool average = false;                  ///< reduce-scatter: the request's `average`
  /// The CTAs (SMs) the collective's kernel holds while it runs, one per NCCL channel at this size
  /// (nccl_kernel_channels); 0 = not known here (point-to-point, all-to-all: the GPU's default share).
  std::uint32_t ctas = 0;
  std::uint32_t phases_begin = 0;
  std::uint32_t phases_count = 0;
  double time_alone_s = 0.0;  ///< predicted duration on an otherwise idle network
};

class TransferTable {
 public:
  const Topology& topology() const { return *topo_; }
  const std::shared_ptr<const Topology>& topology_ptr() const { return topo_; }
  /// Number of transfers; payload ids are 0 .. size()-1.
  std::size_t size() const { return infos_.size(); }
  const TransferInfo& info(std::uint32_t payload) const { return infos_[payload]; }
  std::span<const TransferPhase> phases(std::uint32_t payload) const;
  std::span<const TransferFlow> flows(const TransferPhase& phase) const;
  /// Link usages of a pattern: unit flows per link, already divided by protocol efficiency.
  std::span<const LinkUse> pattern(std::uint32_t id) const { return pool_.uses(id); }
  std::size_t pattern_count() const { return pool_.size(); }
  /// The link that limits a pattern alone (kNoLink for an empty one).
  LinkId pattern_bottleneck(std::uint32_t id) const { return pool_.bottleneck(id); }

  /// A pattern as the max-min solver needs it: over solver constraints, without twin links. Two
  /// links are twins when they have the same capacity and every pattern of the table crosses both
  /// with the same coefficient or neither: whatever flows run, their constraints are the same
  /// inequality, so the solver keeps the lowest id of each set (the one its (level, id) order
  /// would report as the limiter anyway) and the rates, limiters and loads are those of the whole
  /// pattern, bit for bit. A data-parallel collective's thousand-odd NIC and fabric links fall to a
  /// few this way. Only links some pattern crosses get a constraint, numbered in link order (so
  /// the solver's ties fall as they would by link id).
  std::span<const MaxMinSystem::Usage> solver_pattern(std::uint32_t id) const;
  /// The link whose solver constraint stands for `link` (itself unless it is a higher-id twin).
  LinkId solver_link(LinkId link) const {
    return constraint_of_[link] == MaxMinSystem::kNone ? link : constraint_links_[constraint_of_[link]];
  }
  /// The solver constraint of `link` (of its head twin), MaxMinSystem::kNone if no pattern crosses it.
  MaxMinSystem::ConstraintId solver_constraint(LinkId link) const { return constraint_of_[link]; }
  /// Each solver constraint's link (a head twin), in increasing link order.
  std::span<const LinkId> constraint_links() const { return constraint_links_; }

 private:
  friend class TransferTableBuilder;
  explicit TransferTable(std::shared_ptr<const Topology> topo) : topo_(std::move(topo)), pool_(*topo_) {}
  /// Finds the twin links of the finished table and the solver's patterns.
  void index_twin_links();
  std::shared_ptr<const Topology> topo_;
  PatternPool pool_;
  std::vector<MaxMinSystem::ConstraintId> constraint_of_;  // per link
  std::vector<LinkId> constraint_links_;                   // per solver constraint
  std::vector<MaxMinSystem::Usage> solver_uses_;
  std::vector<std::uint32_t> solver_begin_;  // per pattern, and one past the last
  std::vector<TransferInfo> infos_;
  std::vector<TransferPhase> phases_;
  std::vector<TransferFlow> flows_;
};

class TransferTableBuilder {
 public:
  explicit TransferTableBuilder(std::shared_ptr<const Topology> topo, CommConfig config = {});

  /// Adds a collective and returns its payload id. Throws UserError when a forced algorithm does
  /// not apply, std::invalid_argument for malformed requests (unequal groups, unknown GPUs).
  std::uint32_t add(const CollectiveRequest& request);
  /// The table so far (e.g. to read info() of what was just added).
  const TransferTable& table() const { return table_; }
  TransferTable build() && {
    table_.index_twin_links();
    return std::move(table_);
  }

 private:
  /// A plan under one protocol: the plan, the protocol and NCCL's terms for it.
  struct Choice {
    std::uint32_t plan = 0;
    CollectiveProtocol protocol = CollectiveProtocol::simple;
    ProtocolTerms terms;
    double bus_factor = 1.0;  ///< nccl-tests' busbw / algbw of the request
    double kernel_rate_fraction = 0.0;  ///< the request's (CollectiveRequest::kernel_rate_fraction)
  };
  std::pair<Choice, double> choose(AlgoContext& ctx, double bytes);
  void emit(const Choice& c, double bytes);
  std::uint32_t plan_for(const Strategy& s, AlgoContext& ctx);
  double plan_time_s(const Choice& c, double bytes) const;
  double fill_s(const PlanPhase& phase, double bytes, const Choice& c) const;
  double latency_s(const Plan& plan, const Choice& c) const;
  double max_rate(const PlanVariable& v, const PlanPhase& phase, const Choice& c, double bytes) const;

  CommConfig config_;
  TransferTable table_;
  std::array<double, kLinkKindCount> efficiency_{};
  PatternBuilder builder_;
  std::vector<Plan> plans_;
  std::map<std::vector<std::uint32_t>, std::uint32_t> plan_index_;  // ordered: deterministic
};

}  // namespace stepsim::topo
