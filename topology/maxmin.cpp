#include "topology/maxmin.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace stepsim::topo {
namespace maxmin_contract {

// The solver repairs nothing: a caller that means "no bound" says kUnbounded, and a value outside
// the contract is a bug in the network model (an internal error, never a user's).
[[noreturn]] void violated(const std::string& what, double value) {
  std::ostringstream msg;
  msg << "max-min solver: " << what << ", got " << value;
  throw std::logic_error(msg.str());
}

void check_capacity(double capacity) {
  if (!(capacity >= 0.0)) violated("a constraint's capacity must be >= 0", capacity);
}

}  // namespace maxmin_contract

MaxMinSystem::ConstraintId MaxMinSystem::add_constraint(double capacity) {
  maxmin_contract::check_capacity(capacity);
  cnsts_.push_back(Constraint{capacity, {}, 0});
  return static_cast<ConstraintId>(cnsts_.size() - 1);
}

void MaxMinSystem::set_capacity(ConstraintId c, double capacity) {
  maxmin_contract::check_capacity(capacity);
  Constraint& cn = cnsts_.at(c);
  cn.capacity = capacity;
  if (cn.elements.size() == 1) vars_[cn.elements.front().var].private_stale = true;
  dirty_cnsts_.push_back(c);
}

// A variable's private constraints: the lowest (level, id), as the fill's heap would order them.
const MaxMinSystem::LevelEntry& MaxMinSystem::private_best(VariableId id) {
  Variable& v = vars_[id];
  if (v.private_stale) {
    LevelEntry best{kUnbounded, kNone, id};
    for (const VarUsage& u : v.usages)
      if (!u.shared()) keep_lowest(best, private_entry(id, u));
    v.private_best = best;
    v.private_stale = false;
  }
  return v.private_best;
}

// The variable that other variables have left alone on a constraint: the constraint becomes a
// candidate for its private best.
void MaxMinSystem::usage_turns_private(VariableId id, std::uint32_t usage_index) {
  Variable& v = vars_[id];
  VarUsage& u = v.usages[usage_index];
  const std::uint32_t moved = v.shared.back();  // take it out of the shared list
  v.shared[u.shared_at] = moved;
  v.usages[moved].shared_at = u.shared_at;
  v.shared.pop_back();
  u.shared_at = kNone;
  if (!v.private_stale) keep_lowest(v.private_best, private_entry(id, u));
}

// Another variable joins one of this variable's private constraints: it is no longer a candidate,
// and if it was the best the best must be found again.
void MaxMinSystem::usage_turns_shared(VariableId id, std::uint32_t usage_index) {
  Variable& v = vars_[id];
  VarUsage& u = v.usages[usage_index];
  u.shared_at = static_cast<std::uint32_t>(v.shared.size());
  v.shared.push_back(usage_index);
  if (v.private_best.constraint == u.constraint) v.private_stale = true;
}

MaxMinSystem::VariableId MaxMinSystem::add_variable(double weight, double bound,
                                                    std::span<const Usage> usages) {
  using maxmin_contract::violated;
  if (!(weight > 0.0) || std::isinf(weight)) violated("a variable's weight must be > 0 and finite", weight);
  if (!(bound > 0.0)) violated("a variable's bound must be > 0 (kUnbounded for none)", bound);
  for (const Usage& u : usages) {
    if (u.constraint >= cnsts_.size())
      violated(
          "a usage names constraint " + std::to_string(u.constraint) + " of " + std::to_string(cnsts_.size()),
          u.coefficient);
    if (!(u.coefficient > 0.0)) violated("a usage's coefficient must be > 0", u.coefficient);
  }
  VariableId id;
  if (!free_vars_.empty()) {
    std::pop_heap(free_vars_.begin(), free_vars_.end(), std::greater<>());
    id = free_vars_.back();
    free_vars_.pop_back();
  } else {
    id = static_cast<VariableId>(vars_.size());
    vars_.emplace_back();
  }
  Variable& v = vars_[id];
  v.weight = weight;
  v.bound = bound;
  v.rate = 0.0;
  v.limiter = kNone;
  v.alive = true;
  v.usages.clear();
  v.shared.clear();
  for (const Usage& u : usages) v.usages.push_back(VarUsage{u.constraint, 0, u.coefficient, kNone});
  // Merge repeated constraints so each appears once, in increasing constraint order. Network
  // patterns arrive sorted without repeats (tens of links each): that case skips the sort.
  const auto by_constraint = [](const VarUsage& a, const VarUsage& b) { return a.constraint < b.constraint; };
  const auto not_increasing = [](const VarUsage& a, const VarUsage& b) {
    return a.constraint >= b.constraint;
  };
  if (std::adjacent_find(v.usages.begin(), v.usages.end(), not_increasing) != v.usages.end()) {
    std::sort(v.usages.begin(), v.usages.end(), by_constraint);
    std::size_t out = 0;
    for (std::size_t i = 0; i < v.usages.size(); ++i) {
      if (out > 0 && v.usages[out - 1].constraint == v.usages[i].constraint)
        v.usages[out - 1].coefficient += v.usages[i].coefficient;
      else
        v.usages[out++] = v.usages[i];
    }
    v.usages.resize(out);
  }
  // Register it on each constraint; while the constraint is at hand, a private one is a candidate
  // for the variable's private best (computed as private_best() would: lowest (level, id)).
  LevelEntry best{kUnbounded, kNone, id};
  for (std::uint32_t i = 0; i < v.usages.size(); ++i) {
    VarUsage& u = v.usages[i];
    Constraint& c = cnsts_[u.constraint];
    u.position = static_cast<std::uint32_t>(c.elements.size());
    if (c.elements.empty()) {
      keep_lowest(best, private_entry(id, u));
    } else {
      u.shared_at = static_cast<std::uint32_t>(v.shared.size());
      v.shared.push_back(i);
      if (c.elements.size() == 1) usage_turns_shared(c.elements.front().var, c.elements.front().usage_index);
    }
    c.elements.push_back(Element{id, i});
  }
  v.private_best = best;
  v.private_stale = false;
  ++live_count_;
  dirty_vars_.push_back(id);
  return id;
}

void MaxMinSystem::remove_variable(VariableId id) {
  Variable& v = vars_[id];
  if (!v.alive) return;
  for (const VarUsage& u : v.usages) {
    Constraint& c = cnsts_[u.constraint];
    const Element moved = c.elements.back();
    c.elements[u.position] = moved;
    vars_[moved.var].usages[moved.usage_index].position = u.position;
    c.elements.pop_back();
    if (c.elements.size() == 1) usage_turns_private(c.elements.front().var, c.elements.front().usage_index);
    // A constraint left without variables links no component: nothing to re-solve through it.
    if (!c.elements.empty()) dirty_cnsts_.push_back(u.constraint);
  }
  v.usages.clear();
  v.shared.clear();
  v.alive = false;
  v.rate = 0.0;
  v.limiter = kNone;
  --live_count_;
  free_vars_.push_back(id);
  std::push_heap(free_vars_.begin(), free_vars_.end(), std::greater<>());
}

double MaxMinSystem::load(ConstraintId c) const {
  double sum = 0.0;
  for (const Element& e : cnsts_[c].elements)
    sum += vars_[e.var].usages[e.usage_index].coefficient * vars_[e.var].rate;
  return sum;
}

// Gathers the variables and constraints connected to anything touched since the last solve.
void MaxMinSystem::collect_components() {
  ++epoch_;
  comp_vars_.clear();
  comp_cnsts_.clear();
  std::vector<ConstraintId>& cstack = cstack_;
  // Only shared constraints link variables, and only they are listed: a variable's private ones
  // are summed up in its private_best, so a search never visits them (most of a collective's links).
  auto visit_var = [&](VariableId id) {
    Variable& v = vars_[id];
    if (!v.alive || v.mark == epoch_) return;
    v.mark = epoch_;
    comp_vars_.push_back(id);
    for (std::uint32_t i : v.shared) cstack.push_back(v.usages[i].constraint);
  };
  for (VariableId id : dirty_vars_) visit_var(id);
  cstack.insert(cstack.end(), dirty_cnsts_.begin(), dirty_cnsts_.end());
  while (!cstack.empty()) {
    const ConstraintId cid = cstack.back();
    cstack.pop_back();
    Constraint& c = cnsts_[cid];
    if (c.mark == epoch_) continue;
    c.mark = epoch_;
    if (c.elements.size() > 1) comp_cnsts_.push_back(cid);
    for (const Element& e : c.elements) visit_var(e.var);
  }
  dirty_vars_.clear();
  dirty_cnsts_.clear();
  // Canonical order, so the arithmetic does not depend on the path the search took. Constraints
  // need none: filling sums nothing over them in list order, and its heap orders them by
  // (level, id) whatever order they were pushed in.
  std::sort(comp_vars_.begin(), comp_vars_.end());
}

std::span<const MaxMinSystem::VariableId> MaxMinSystem::solve() {
  collect_components();
  if (comp_vars_.size() == 1)
    fill_alone(comp_vars_.front());
  else if (!comp_vars_.empty())
    fill(comp_vars_, comp_cnsts_);
  solved_ = comp_vars_;
#ifndef NDEBUG
  verify_or_throw();
#endif
  return solved_;
}

// Scratch indexed by id, reset only for the component being solved, so a solve costs the size of
// what changed, not of the whole system. `cnsts` are the component's shared constraints.
void MaxMinSystem::prepare_fill(std::span<const VariableId> vars, std::span<const ConstraintId> cnsts) {
  remaining_.resize(cnsts_.size());
  sumw_.resize(cnsts_.size());
  unfixed_on_.resize(cnsts_.size());
  version_.resize(cnsts_.size());
  fixed_.resize(vars_.size());
  heap_.clear();
  private_.clear();
  next_private_ = 0;
  bounded_.clear();
  unfixed_ = 0;
  level_ = 0.0;
  for (ConstraintId c : cnsts) {
    remaining_[c] = cnsts_[c].capacity;
    sumw_[c] = 0.0;
    unfixed_on_[c] = 0;
  }
  for (VariableId id : vars) {
    Variable& v = vars_[id];
    v.limiter = kNone;
    fixed_[id] = v.usages.empty();
    if (v.usages.empty()) {
      v.rate = v.bound;  // unconstrained: its bound, or infinity
      continue;
    }
    ++unfixed_;
    for (std::uint32_t i : v.shared) {
      const VarUsage& u = v.usages[i];
      sumw_[u.constraint] += u.coefficient * v.weight;
      ++unfixed_on_[u.constraint];
    }
    if (std::isfinite(v.bound)) bounded_.emplace_back(v.bound / v.weight, id);
    // A constraint only this variable crosses (most of a collective's links: its own NICs and the
    // images' hops) keeps its level, capacity / (coefficient x weight), until the variable is
    // fixed, and is never pushed again. Of a variable's private constraints only the lowest in
    // (level, id) can be the one that fixes it; the others would pop after it, stale, and be
    // skipped. So that one stands for them all, taken in (level, id) order beside the heap of the
    // shared constraints: the same pops in the same order as pushing every constraint.
    const LevelEntry& best = private_best(id);
    if (best.constraint != kNone) private_.push_back(best);
  }
  std::sort(bounded_.begin(), bounded_.end());
  std::sort(private_.begin(), private_.end(), [](const LevelEntry& a, const LevelEntry& b) { return b > a; });
  for (ConstraintId c : cnsts) heap_.push_back(LevelEntry{remaining_[c] / sumw_[c], c, version_[c]});
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
}

void MaxMinSystem::push_level(ConstraintId c, double level) {
  heap_.push_back(LevelEntry{level, c, version_[c]});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
}

// Fixes a variable's rate and takes it out of the shared constraints it crosses; their saturation
// levels can only rise, so they are pushed again rather than updated in place. Its private
// constraints carry no other variable: nothing to update there.
void MaxMinSystem::fix_variable(VariableId id, double rate, ConstraintId limiter) {
  Variable& v = vars_[id];
  fixed_[id] = 1;
  --unfixed_;
  v.rate = rate;
  v.limiter = limiter;
  for (std::uint32_t i : v.shared) {
    const VarUsage& u = v.usages[i];
    const ConstraintId c = u.constraint;
    remaining_[c] -= u.coefficient * rate;
    sumw_[c] -= u.coefficient * v.weight;
    ++version_[c];
    if (--unfixed_on_[c] > 0) push_level(c, std::max(remaining_[c] / sumw_[c], level_));
  }
}

// Progressive filling: every unfixed variable runs at weight x level; raise the common level until
// a constraint saturates (its unfixed variables are fixed there) or a bound is reached. Stale
// heap entries are recognised by their version, stale private ones by their variable being fixed.
void MaxMinSystem::fill(std::span<const VariableId> vars, std::span<const ConstraintId> cnsts) {
  prepare_fill(vars, cnsts);
  std::size_t next_bound = 0;
  while (unfixed_ > 0) {
    while (!heap_.empty() && heap_.front().version != version_[heap_.front().constraint]) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      heap_.pop_back();
    }
    while (next_private_ < private_.size() && fixed_[private_[next_private_].version]) ++next_private_;
    while (next_bound < bounded_.size() && fixed_[bounded_[next_bound].second]) ++next_bound;
    // The lowest (level, id) of the shared constraints' heap and the private constraints' list.
    const bool from_private =
        next_private_ < private_.size() && (heap_.empty() || heap_.front() > private_[next_private_]);
    const LevelEntry* top = from_private    ? &private_[next_private_]
                            : heap_.empty() ? nullptr
                                            : &heap_.front();
    const double tc = top ? top->level : kUnbounded;
    const double tb = next_bound < bounded_.size() ? bounded_[next_bound].first : kUnbounded;
    if (tb <= tc) {
      const VariableId id = bounded_[next_bound].second;
      level_ = std::max(level_, tb);
      fix_variable(id, vars_[id].bound, kNone);
      continue;
    }
    level_ = std::max(level_, tc);
    if (from_private) {
      const LevelEntry e = private_[next_private_++];
      fix_variable(e.version, vars_[e.version].weight * level_, e.constraint);
      continue;
    }
    const ConstraintId c = heap_.front().constraint;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
    for (const Element& e : cnsts_[c].elements)  // fixing never reorders this list
      if (!fixed_[e.var]) fix_variable(e.var, vars_[e.var].weight * level_, c);
  }
}

// A variable alone in its component (a collective whose links nothing else running uses: most
// re-solves of a step) needs no heap: all its constraints are private, and the lowest (level, id)
// is its private best, fixed unless the bound is reached first (the bound wins ties), at
// weight x level: the same operations in the same order as progressive filling, so the same bits.
void MaxMinSystem::fill_alone(VariableId id) {
  Variable& v = vars_[id];
  const LevelEntry& best = private_best(id);
  const double tc = best.constraint == kNone ? kUnbounded : best.level;
  const double tb = std::isfinite(v.bound) ? v.bound / v.weight : kUnbounded;
  if (v.usages.empty() || tb <= tc) {
    v.rate = v.bound;  // unconstrained, or at its bound
    v.limiter = kNone;
  } else {
    v.rate = v.weight * std::max(0.0, tc);
    v.limiter = best.constraint;
  }
}

std::string MaxMinSystem::check(double rel_tol) const {
  std::vector<VariableId> vars;
  for (VariableId id = 0; id < vars_.size(); ++id)
    if (vars_[id].alive) vars.push_back(id);
  std::vector<ConstraintId> cnsts(cnsts_.size());
  for (ConstraintId c = 0; c < cnsts_.size(); ++c) cnsts[c] = c;
  return check_subset(vars, cnsts, rel_tol);
}

std::string MaxMinSystem::check_subset(std::span<const VariableId> vars, std::span<const ConstraintId> cnsts,
                                       double rel_tol) const {
  std::ostringstream err;
  std::vector<double> loads(cnsts_.size(), 0.0), max_share(cnsts_.size(), 0.0);
  for (ConstraintId c : cnsts) {
    for (const Element& e : cnsts_[c].elements) {
      const Variable& v = vars_[e.var];
      loads[c] += v.usages[e.usage_index].coefficient * v.rate;
      max_share[c] = std::max(max_share[c], v.rate / v.weight);
    }
    if (loads[c] > cnsts_[c].capacity * (1.0 + rel_tol) + 1e-300)
      err << "constraint " << c << " load " << loads[c] << " exceeds capacity " << cnsts_[c].capacity << "; ";
  }
  for (VariableId id : vars) {
    const Variable& v = vars_[id];
    if (!v.alive) continue;
    if (v.limiter == kNone) {
      if (!(v.rate >= v.bound * (1.0 - rel_tol)))
        err << "variable " << id << " rate " << v.rate << " below its bound " << v.bound
            << " with no limiting constraint; ";
      continue;
    }
    const ConstraintId c = v.limiter;
    if (loads[c] < cnsts_[c].capacity * (1.0 - rel_tol))
      err << "variable " << id << " limited by unsaturated constraint " << c << "; ";
    if (v.rate / v.weight < max_share[c] * (1.0 - rel_tol))
      err << "variable " << id << " is not the largest share on its limiting constraint " << c << "; ";
  }
  return err.str();
}

void MaxMinSystem::verify_or_throw() const {
  // Only the component just solved: the rest is unchanged since it was last verified. Its
  // variables' private constraints are checked too (the component lists only shared ones).
  std::vector<ConstraintId> cnsts(comp_cnsts_);
  for (VariableId id : comp_vars_)
    for (const VarUsage& u : vars_[id].usages)
      if (!u.shared()) cnsts.push_back(u.constraint);
  const std::string problem = check_subset(comp_vars_, cnsts, 1e-6);
  if (!problem.empty()) throw std::logic_error("max-min solution invalid: " + problem);
}

}  // namespace stepsim::topo
