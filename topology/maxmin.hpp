#pragma once
// Max-min fair bandwidth sharing by progressive filling: a small pure solver in the style of
// SimGrid's lmm (src/kernel/lmm). It knows only constraints (capacities), variables (weights,
// optional bounds) and how much of each constraint a variable uses; it never sees links, flows
// or bytes. The network model (flow_network.hpp) turns routes into usages.
//
// A variable v with weight w_v and rate r_v consumes sum over its usages of coefficient x r_v of
// each constraint. A coefficient > 1 means the variable crosses that constraint that many times:
// that is how flows with identical routes merge into one variable with a multiplicity, and how a
// lock-step collective is one coupled variable. The solution is the weighted max-min fair one:
// no rate can grow without shrinking another whose rate/weight is not larger.
//
// Solving is incremental: only the connected components (variables linked through shared
// constraints) touched since the last solve are recomputed. Identifiers are dense indices; freed
// variable ids are reused (lowest first) so a long run keeps its arrays small and deterministic.

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace stepsim::topo {

class MaxMinSystem {
 public:
  using ConstraintId = std::uint32_t;
  using VariableId = std::uint32_t;
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

  /// One constraint a variable crosses, `coefficient` (> 0) times.
  struct Usage {
    ConstraintId constraint = 0;
    double coefficient = 1.0;
  };

  /// Adds a constraint of `capacity` (>= 0, e.g. bytes per second of a link direction).
  /// Throws std::logic_error for a negative or NaN capacity: the solver repairs no input.
  ConstraintId add_constraint(double capacity);
  /// Room for `count` constraints in all, so that adding them one by one does not reallocate.
  void reserve_constraints(std::size_t count) { cnsts_.reserve(count); }
  /// Changes a capacity (same contract); the affected component is re-solved at the next solve().
  void set_capacity(ConstraintId c, double capacity);

  /// Adds a variable. `weight` (> 0, finite) scales its share (rate / weight is equalised);
  /// `bound` (> 0) caps its rate, kUnbounded for none. Every usage names an existing constraint
  /// with a coefficient > 0; repeated constraints are merged by summing. Anything else throws
  /// std::logic_error (a bug in the caller). A variable with no usages and no bound gets an
  /// infinite rate.
  VariableId add_variable(double weight, double bound, std::span<const Usage> usages);
  /// Removes a live variable; its id may be handed out again by add_variable.
  void remove_variable(VariableId v);

  /// Re-solves every component touched since the last call. Returns the live variables whose
  /// rate was recomputed (possibly unchanged), in increasing id order; valid until the next call.
  /// Debug builds verify the solution (see check()) and throw std::logic_error if it fails.
  std::span<const VariableId> solve();

  /// Rate of a live variable as of the last solve().
  double rate(VariableId v) const { return vars_[v].rate; }
  /// The saturated constraint that limited `v` at the last solve, or kNone when its bound (or
  /// nothing at all) did.
  ConstraintId limiter(VariableId v) const { return vars_[v].limiter; }
  /// Sum of coefficient x rate over the variables crossing `c`, as of the last solve.
  double load(ConstraintId c) const;
  double capacity(ConstraintId c) const { return cnsts_[c].capacity; }
  std::size_t constraint_count() const { return cnsts_.size(); }
  /// Number of live variables.
  std::size_t variable_count() const { return live_count_; }

  /// Verifies the last solution: no constraint above capacity, and every variable is either at
  /// its bound or crosses a saturated constraint on which its rate/weight is the largest (the
  /// max-min bottleneck condition). Returns an empty string when it holds, else what is wrong.
  /// Tolerances are relative (`rel_tol`).
  std::string check(double rel_tol = 1e-9) const;

 private:
  struct Element {  // a variable's presence in a constraint's list
    VariableId var;
    std::uint32_t usage_index;
  };
  struct VarUsage {
    ConstraintId constraint;
    std::uint32_t position;  // index of this variable in the constraint's element list
    double coefficient;
    // Where this usage is in the variable's `shared` list when another variable crosses the
    // constraint too; kNone while the constraint is private to this variable.
    std::uint32_t shared_at;
    bool shared() const { return shared_at != kNone; }
  };
  struct Constraint {
    double capacity = 0.0;
    // Most constraints carry one variable or two: those stay in the struct, one cache line.
    boost::container::small_vector<Element, 2> elements;
    std::uint64_t mark = 0;  // component-search epoch
  };
  struct LevelEntry {  // a constraint's saturation level when pushed
    double level;
    ConstraintId constraint;
    std::uint32_t version;
    bool operator>(const LevelEntry& o) const {
      return level != o.level ? level > o.level : constraint > o.constraint;
    }
  };

  struct Variable {
    double weight = 1.0;
    double bound = kUnbounded;
    double rate = 0.0;
    ConstraintId limiter = kNone;
    std::vector<VarUsage> usages;
    std::vector<std::uint32_t> shared;  // indices into usages of the shared constraints, any order
    bool alive = false;
    bool private_stale = true;  // private_best needs recomputing
    std::uint64_t mark = 0;
    // The lowest (level, id) of the constraints only this variable crosses, level =
    // capacity / (coefficient x weight); constraint kNone when it crosses none. Kept as usages
    // turn private or shared, so that no solve visits the private constraints themselves.
    LevelEntry private_best{kUnbounded, kNone, 0};
  };

  void collect_components();
  void prepare_fill(std::span<const VariableId> vars, std::span<const ConstraintId> cnsts);
  void push_level(ConstraintId c, double level);
  const LevelEntry& private_best(VariableId id);
  /// One private constraint of `id` as a candidate: level capacity / (coefficient x weight).
  LevelEntry private_entry(VariableId id, const VarUsage& u) const {
    return LevelEntry{cnsts_[u.constraint].capacity / (u.coefficient * vars_[id].weight), u.constraint, id};
  }
  /// Keeps the lower of `best` and `candidate` in (level, id), the order the fill's heap pops them.
  static void keep_lowest(LevelEntry& best, const LevelEntry& candidate) {
    if (best.constraint == kNone || best > candidate) best = candidate;
  }
  void usage_turns_private(VariableId id, std::uint32_t usage_index);
  void usage_turns_shared(VariableId id, std::uint32_t usage_index);
  void fix_variable(VariableId id, double rate, ConstraintId limiter);
  void fill(std::span<const VariableId> vars, std::span<const ConstraintId> cnsts);
  void fill_alone(VariableId id);
  void verify_or_throw() const;
  std::string check_subset(std::span<const VariableId> vars, std::span<const ConstraintId> cnsts,
                           double rel_tol) const;

  std::vector<Constraint> cnsts_;
  std::vector<Variable> vars_;
  std::vector<VariableId> free_vars_;  // kept sorted descending: back() is the lowest free id
  std::size_t live_count_ = 0;
  std::vector<ConstraintId> dirty_cnsts_;
  std::vector<VariableId> dirty_vars_;
  std::uint64_t epoch_ = 0;
  // Scratch reused across solves (no allocation in steady state).
  std::vector<VariableId> comp_vars_;
  std::vector<ConstraintId> comp_cnsts_;
  std::vector<ConstraintId> cstack_;  // collect_components' search stack
  std::vector<VariableId> solved_;
  std::vector<double> remaining_, sumw_;
  std::vector<std::uint32_t> unfixed_on_, version_;
  std::vector<char> fixed_;
  std::vector<LevelEntry> heap_;  // min-heap on (level, constraint) of the shared constraints
  // Each variable's lowest private constraint (its `version` holds the variable), sorted by
  // (level, constraint): these are never pushed again, so a cursor walks them beside the heap.
  std::vector<LevelEntry> private_;
  std::size_t next_private_ = 0;
  std::vector<std::pair<double, VariableId>> bounded_;  // (bound / weight, variable), increasing
  std::size_t unfixed_ = 0;
  double level_ = 0.0;
};

}  // namespace stepsim::topo
