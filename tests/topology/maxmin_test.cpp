#include "topology/maxmin.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

using stepsim::topo::MaxMinSystem;
using Usage = MaxMinSystem::Usage;
using Catch::Detail::Approx;

namespace {
constexpr double kInf = MaxMinSystem::kUnbounded;
}

TEST_CASE("two equal flows on one link get half each", "[maxmin]") {
  MaxMinSystem s;
  const auto link = s.add_constraint(10.0);
  const Usage u[] = {{link, 1.0}};
  const auto a = s.add_variable(1.0, kInf, u);
  const auto b = s.add_variable(1.0, kInf, u);
  s.solve();
  // a + b = 10, a = b  ->  5 each, both limited by the link.
  CHECK(s.rate(a) == Approx(5.0));
  CHECK(s.rate(b) == Approx(5.0));
  CHECK(s.limiter(a) == link);
  CHECK(s.check().empty());
}

TEST_CASE("a flow limited elsewhere leaves its share to the others", "[maxmin]") {
  MaxMinSystem s;
  const auto wide = s.add_constraint(10.0);
  const auto narrow = s.add_constraint(2.0);
  const Usage ux[] = {{wide, 1.0}};
  const Usage uy[] = {{wide, 1.0}, {narrow, 1.0}};
  const auto x = s.add_variable(1.0, kInf, ux);
  const auto y = s.add_variable(1.0, kInf, uy);
  s.solve();
  // y <= 2 (narrow saturates first, at level 2 < 10/2); x takes the rest of wide: 10 - 2 = 8.
  CHECK(s.rate(y) == Approx(2.0));
  CHECK(s.rate(x) == Approx(8.0));
  CHECK(s.limiter(y) == narrow);
  CHECK(s.limiter(x) == wide);
}

TEST_CASE("textbook three-link example", "[maxmin]") {
  // L1 (10) carries f1 f2 f3; L2 (9) carries f1 f4; L3 (4) carries f2 f5.
  // Progressive filling: saturation levels L1 10/3 = 3.33, L2 9/2 = 4.5, L3 4/2 = 2.
  //   L3 first at t = 2: f2 = f5 = 2.
  //   Then L1 has 10 - 2 = 8 for f1, f3 -> level 4; L2 still 9/2 = 4.5: L1 saturates, f1 = f3 = 4.
  //   Then L2 has 9 - 4 = 5 for f4 alone: f4 = 5.
  MaxMinSystem s;
  const auto l1 = s.add_constraint(10.0), l2 = s.add_constraint(9.0), l3 = s.add_constraint(4.0);
  const Usage u1[] = {{l1, 1}, {l2, 1}}, u2[] = {{l1, 1}, {l3, 1}}, u3[] = {{l1, 1}}, u4[] = {{l2, 1}},
              u5[] = {{l3, 1}};
  const auto f1 = s.add_variable(1, kInf, u1), f2 = s.add_variable(1, kInf, u2),
             f3 = s.add_variable(1, kInf, u3), f4 = s.add_variable(1, kInf, u4),
             f5 = s.add_variable(1, kInf, u5);
  s.solve();
  CHECK(s.rate(f1) == Approx(4.0));
  CHECK(s.rate(f2) == Approx(2.0));
  CHECK(s.rate(f3) == Approx(4.0));
  CHECK(s.rate(f4) == Approx(5.0));
  CHECK(s.rate(f5) == Approx(2.0));
  CHECK(s.limiter(f2) == l3);
  CHECK(s.limiter(f1) == l1);
  CHECK(s.limiter(f4) == l2);
  // Loads: L1 = 4 + 2 + 4 = 10, L2 = 4 + 5 = 9, L3 = 2 + 2 = 4: all saturated.
  CHECK(s.load(l1) == Approx(10.0));
  CHECK(s.load(l2) == Approx(9.0));
  CHECK(s.check().empty());
}

TEST_CASE("a bounded variable stops at its bound", "[maxmin]") {
  MaxMinSystem s;
  const auto link = s.add_constraint(10.0);
  const Usage u[] = {{link, 1.0}};
  const auto x = s.add_variable(1.0, 3.0, u);
  const auto y = s.add_variable(1.0, kInf, u);
  s.solve();
  // x reaches its bound 3 at level 3 < 10/2; y gets 10 - 3 = 7.
  CHECK(s.rate(x) == Approx(3.0));
  CHECK(s.limiter(x) == MaxMinSystem::kNone);
  CHECK(s.rate(y) == Approx(7.0));
  CHECK(s.limiter(y) == link);
}

TEST_CASE("multiplicity and weights", "[maxmin]") {
  MaxMinSystem s;
  const auto link = s.add_constraint(12.0);
  SECTION("a variable crossing a link three times") {
    const Usage ux[] = {{link, 3.0}};
    const Usage uy[] = {{link, 1.0}};
    const auto x = s.add_variable(1.0, kInf, ux);
    const auto y = s.add_variable(1.0, kInf, uy);
    s.solve();
    // Equal rates t: 3t + t = 12 -> t = 3; x's three unit flows use 9 of the 12.
    CHECK(s.rate(x) == Approx(3.0));
    CHECK(s.rate(y) == Approx(3.0));
    CHECK(s.load(link) == Approx(12.0));
  }
  SECTION("repeated usages merge") {
    const Usage ux[] = {{link, 1.0}, {link, 2.0}};
    const auto x = s.add_variable(1.0, kInf, ux);
    s.solve();
    // Coefficient 1 + 2 = 3: x = 12 / 3 = 4.
    CHECK(s.rate(x) == Approx(4.0));
  }
  SECTION("weights") {
    const Usage u[] = {{link, 1.0}};
    const auto x = s.add_variable(2.0, kInf, u);
    const auto y = s.add_variable(1.0, kInf, u);
    s.solve();
    // Rates 2t and t: 3t = 12 -> x = 8, y = 4.
    CHECK(s.rate(x) == Approx(8.0));
    CHECK(s.rate(y) == Approx(4.0));
  }
}

TEST_CASE("only touched components are re-solved", "[maxmin]") {
  MaxMinSystem s;
  const auto a = s.add_constraint(10.0), b = s.add_constraint(6.0);
  const Usage ua[] = {{a, 1.0}}, ub[] = {{b, 1.0}};
  const auto x = s.add_variable(1.0, kInf, ua);
  const auto y = s.add_variable(1.0, kInf, ub);
  CHECK(s.solve().size() == 2);
  const auto z = s.add_variable(1.0, kInf, ua);
  const auto solved = s.solve();
  // Only link a's component {x, z} changes: 10 / 2 = 5 each; y keeps 6 and is not re-solved.
  REQUIRE(solved.size() == 2);
  CHECK(solved[0] == x);
  CHECK(solved[1] == z);
  CHECK(s.rate(x) == Approx(5.0));
  CHECK(s.rate(y) == Approx(6.0));
  s.remove_variable(z);
  s.solve();
  CHECK(s.rate(x) == Approx(10.0));  // alone again on a
  // Freed ids are reused lowest first.
  CHECK(s.add_variable(1.0, kInf, ub) == z);
  s.set_capacity(a, 4.0);
  s.solve();
  CHECK(s.rate(x) == Approx(4.0));
  CHECK(s.rate(y) == Approx(3.0));  // b now shared by y and the reused variable: 6 / 2
}

TEST_CASE("a variable alone on its constraints", "[maxmin]") {
  // Alone, progressive filling stops at the first constraint to saturate: rate = weight x min over
  // its constraints of capacity / (coefficient x weight), limited by the lowest such constraint,
  // unless the bound comes first or at the same level.
  MaxMinSystem s;
  const auto c0 = s.add_constraint(12.0), c1 = s.add_constraint(6.0), c2 = s.add_constraint(10.0);
  SECTION("the tightest constraint limits it") {
    const Usage u[] = {{c1, 1.0}, {c2, 2.0}};  // levels 6 / 1 = 6 and 10 / 2 = 5
    const auto x = s.add_variable(1.0, kInf, u);
    s.solve();
    CHECK(s.rate(x) == 5.0);
    CHECK(s.limiter(x) == c2);
    CHECK(s.load(c2) == 10.0);  // saturated: 2 x 5
  }
  SECTION("ties go to the lowest constraint, listed in any order") {
    const Usage u[] = {{c1, 1.0}, {c0, 2.0}};  // 12 / 2 = 6 / 1 = 6
    const auto x = s.add_variable(1.0, kInf, u);
    s.solve();
    CHECK(s.rate(x) == 6.0);
    CHECK(s.limiter(x) == c0);
  }
  SECTION("weights scale the level, not the rate") {
    const Usage u[] = {{c2, 1.0}};
    const auto x = s.add_variable(2.0, kInf, u);
    s.solve();
    // level 10 / (1 x 2) = 5, rate 2 x 5 = 10: the whole link.
    CHECK(s.rate(x) == 10.0);
    CHECK(s.limiter(x) == c2);
  }
  SECTION("a bound at the same level wins") {
    const Usage u[] = {{c1, 1.0}};
    const auto x = s.add_variable(1.0, 6.0, u);
    const auto y = s.add_variable(1.0, 7.0, std::span<const Usage>{});
    s.solve();
    CHECK(s.rate(x) == 6.0);
    CHECK(s.limiter(x) == MaxMinSystem::kNone);
    CHECK(s.rate(y) == 7.0);  // no constraints: its bound
  }
  SECTION("a zero capacity stops it") {
    const auto closed = s.add_constraint(0.0);
    const Usage u[] = {{c0, 1.0}, {closed, 1.0}};
    const auto x = s.add_variable(1.0, kInf, u);
    s.solve();
    CHECK(s.rate(x) == 0.0);
    CHECK(s.limiter(x) == closed);
  }
  CHECK(s.check().empty());
}

TEST_CASE("random systems: feasible, max-min, incremental equals fresh", "[maxmin][property]") {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 200; ++trial) {
    const int nc = 1 + static_cast<int>(rng() % 12);
    const int nv = 1 + static_cast<int>(rng() % 25);
    std::uniform_real_distribution<double> cap(0.5, 100.0), coef(0.25, 4.0), w(0.5, 3.0);
    MaxMinSystem inc, fresh;
    for (int c = 0; c < nc; ++c) {
      const double k = cap(rng);
      inc.add_constraint(k);
      fresh.add_constraint(k);
    }
    std::vector<MaxMinSystem::VariableId> ids;
    for (int v = 0; v < nv; ++v) {
      std::vector<Usage> us;
      const int k = static_cast<int>(rng() % 4);
      for (int i = 0; i <= k; ++i)
        us.push_back({static_cast<MaxMinSystem::ConstraintId>(rng() % nc), coef(rng)});
      const double bound = rng() % 5 == 0 ? cap(rng) / 4 : kInf;
      const double weight = w(rng);
      ids.push_back(inc.add_variable(weight, bound, us));
      fresh.add_variable(weight, bound, us);
      if (rng() % 3 == 0) inc.solve();  // solve incrementally at random points
    }
    inc.solve();
    fresh.solve();
    INFO("trial " << trial);
    CHECK(inc.check().empty());
    for (auto id : ids) CHECK(inc.rate(id) == Approx(fresh.rate(id)).epsilon(1e-9));
    // Removing half the variables keeps the solution valid.
    for (std::size_t i = 0; i < ids.size(); i += 2) inc.remove_variable(ids[i]);
    inc.solve();
    CHECK(inc.check().empty());
  }
}

TEST_CASE("the solver repairs no input: contract violations throw", "[maxmin]") {
  // Before, a bound <= 0 became unbounded, a weight <= 0 became 1, a coefficient <= 0 was dropped
  // and a negative capacity became 0: each hid a bug in the network model.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  MaxMinSystem s;
  const auto link = s.add_constraint(10.0);
  const Usage ok[] = {{link, 1.0}};
  SECTION("capacity") {
    CHECK_THROWS_AS(s.add_constraint(-1.0), std::logic_error);
    CHECK_THROWS_AS(s.add_constraint(nan), std::logic_error);
    CHECK_THROWS_AS(s.set_capacity(link, -1.0), std::logic_error);
    CHECK(s.add_constraint(0.0) == link + 1);  // a zero capacity is a constraint like any other
  }
  SECTION("weight") {
    CHECK_THROWS_WITH(s.add_variable(0.0, kInf, ok), Catch::Contains("weight must be > 0 and finite, got 0"));
    CHECK_THROWS_AS(s.add_variable(-2.0, kInf, ok), std::logic_error);
    CHECK_THROWS_AS(s.add_variable(kInf, kInf, ok), std::logic_error);
    CHECK_THROWS_AS(s.add_variable(nan, kInf, ok), std::logic_error);
  }
  SECTION("bound") {
    CHECK_THROWS_WITH(s.add_variable(1.0, 0.0, ok),
                      Catch::Contains("bound must be > 0 (kUnbounded for none)"));
    CHECK_THROWS_AS(s.add_variable(1.0, -5.0, ok), std::logic_error);
    CHECK_THROWS_AS(s.add_variable(1.0, nan, ok), std::logic_error);
  }
  SECTION("usages") {
    const Usage zero[] = {{link, 1.0}, {link, 0.0}}, negative[] = {{link, -1.0}},
                missing[] = {{link + 1, 1.0}};
    CHECK_THROWS_WITH(s.add_variable(1.0, kInf, zero), Catch::Contains("coefficient must be > 0, got 0"));
    CHECK_THROWS_AS(s.add_variable(1.0, kInf, negative), std::logic_error);
    CHECK_THROWS_WITH(s.add_variable(1.0, kInf, missing), Catch::Contains("names constraint 1 of 1"));
  }
  // A rejected variable leaves the system as it was: one valid variable still gets the whole link.
  const auto x = s.add_variable(1.0, kInf, ok);
  s.solve();
  CHECK(s.variable_count() == 1);
  CHECK(s.rate(x) == Approx(10.0));
}

namespace {
// Progressive filling as the solver's heap runs it, without a heap: every round takes the lowest
// (level, constraint) among the constraints that still carry unfixed variables, each level as last
// computed (capacity / weight sum at the start, max(remaining / weight sum, level) after a fix
// touches it). Usages without repeats, so no merging is needed.
struct RefVar {
  double weight, bound;
  std::vector<Usage> usages;
};
struct RefResult {
  std::vector<double> rate;
  std::vector<MaxMinSystem::ConstraintId> limiter;
};
// Up to `draws` distinct constraints of `nc`, sorted, each crossed once or twice (coefficient 1 or 2).
std::vector<Usage> random_usages(std::mt19937& rng, std::size_t nc, std::size_t draws) {
  std::vector<Usage> usages;
  std::vector<bool> used(nc, false);
  for (std::size_t i = 0; i < draws; ++i) {
    const auto c = static_cast<MaxMinSystem::ConstraintId>(rng() % nc);
    if (used[c]) continue;
    used[c] = true;
    usages.push_back({c, rng() % 3 == 0 ? 2.0 : 1.0});
  }
  std::sort(usages.begin(), usages.end(),
            [](const Usage& a, const Usage& b) { return a.constraint < b.constraint; });
  return usages;
}
RefResult reference_fill(const std::vector<double>& caps, const std::vector<RefVar>& vars) {
  const std::size_t nc = caps.size(), nv = vars.size();
  std::vector<double> remaining(caps), sumw(nc, 0.0), cur(nc, kInf);
  std::vector<int> unfixed_on(nc, 0);
  std::vector<bool> fixed(nv, false);
  RefResult r{std::vector<double>(nv, 0.0), std::vector<MaxMinSystem::ConstraintId>(nv, MaxMinSystem::kNone)};
  std::size_t unfixed = 0;
  std::vector<std::pair<double, std::size_t>> bounded;
  for (std::size_t v = 0; v < nv; ++v) {
    if (vars[v].usages.empty()) {
      fixed[v] = true;
      r.rate[v] = vars[v].bound;
      continue;
    }
    ++unfixed;
    for (const Usage& u : vars[v].usages)
      sumw[u.constraint] += u.coefficient * vars[v].weight, ++unfixed_on[u.constraint];
    if (vars[v].bound != kInf) bounded.emplace_back(vars[v].bound / vars[v].weight, v);
  }
  std::sort(bounded.begin(), bounded.end());
  for (std::size_t c = 0; c < nc; ++c)
    if (unfixed_on[c] > 0) cur[c] = remaining[c] / sumw[c];
  double level = 0.0;
  std::size_t next_bound = 0;
  const auto fix = [&](std::size_t v, double rate, MaxMinSystem::ConstraintId limiter) {
    fixed[v] = true;
    --unfixed;
    r.rate[v] = rate;
    r.limiter[v] = limiter;
    for (const Usage& u : vars[v].usages) {
      remaining[u.constraint] -= u.coefficient * rate;
      sumw[u.constraint] -= u.coefficient * vars[v].weight;
      if (--unfixed_on[u.constraint] > 0)
        cur[u.constraint] = std::max(remaining[u.constraint] / sumw[u.constraint], level);
    }
  };
  while (unfixed > 0) {
    std::size_t best = nc;
    for (std::size_t c = 0; c < nc; ++c)
      if (unfixed_on[c] > 0 && (best == nc || cur[c] < cur[best])) best = c;
    while (next_bound < bounded.size() && fixed[bounded[next_bound].second]) ++next_bound;
    const double tc = best == nc ? kInf : cur[best];
    const double tb = next_bound < bounded.size() ? bounded[next_bound].first : kInf;
    if (tb <= tc) {
      level = std::max(level, tb);
      fix(bounded[next_bound].second, vars[bounded[next_bound].second].bound, MaxMinSystem::kNone);
      continue;
    }
    level = std::max(level, tc);
    for (std::size_t v = 0; v < nv; ++v)  // the constraint's variables in the order they joined it
      if (!fixed[v])
        for (const Usage& u : vars[v].usages)
          if (u.constraint == best)
            fix(v, vars[v].weight * level, static_cast<MaxMinSystem::ConstraintId>(best));
  }
  return r;
}
}  // namespace

TEST_CASE("constraints only one variable crosses: the same rates and limiters as pushing them all",
          "[maxmin]") {
  SECTION("by hand: a private link ties the shared one, and the lower id limits") {
    // c0 (8) is shared by x and y; x alone crosses c1 (4) and c2 (4), y alone c3 (9).
    // Levels: c0 8 / 2 = 4, c1 4, c2 4, c3 9. The lowest (level, id) is c0 at 4: x and y are
    // fixed there at 4 each, limited by c0 (c1's equal level loses to c0's lower id).
    MaxMinSystem s;
    const auto c0 = s.add_constraint(8.0), c1 = s.add_constraint(4.0), c2 = s.add_constraint(4.0);
    const auto c3 = s.add_constraint(9.0);
    const Usage ux[] = {{c0, 1.0}, {c1, 1.0}, {c2, 1.0}};
    const Usage uy[] = {{c0, 1.0}, {c3, 1.0}};
    const auto x = s.add_variable(1.0, kInf, ux);
    const auto y = s.add_variable(1.0, kInf, uy);
    s.solve();
    CHECK(s.rate(x) == 4.0);
    CHECK(s.rate(y) == 4.0);
    CHECK(s.limiter(x) == c0);
    CHECK(s.limiter(y) == c0);
  }
  SECTION("by hand: the lowest private link fixes its variable first") {
    // c0 (10) shared; x alone on c1 (3) and c2 (3): level 3 beats c0's 5, and c1's id beats c2's.
    // x = 3 (c1); then c0's level is max((10 - 3) / 1, 3) = 7: y = 7 (c0).
    MaxMinSystem s;
    const auto c0 = s.add_constraint(10.0), c1 = s.add_constraint(3.0), c2 = s.add_constraint(3.0);
    const Usage ux[] = {{c0, 1.0}, {c1, 1.0}, {c2, 1.0}};
    const Usage uy[] = {{c0, 1.0}};
    const auto x = s.add_variable(1.0, kInf, ux);
    const auto y = s.add_variable(1.0, kInf, uy);
    s.solve();
    CHECK(s.rate(x) == 3.0);
    CHECK(s.limiter(x) == c1);
    CHECK(s.rate(y) == 7.0);
    CHECK(s.limiter(y) == c0);
  }
  SECTION("random systems with many private links and tied levels, bit for bit") {
    std::mt19937 rng(2026);
    for (int trial = 0; trial < 300; ++trial) {
      const std::size_t nc = 2 + rng() % 30, nv = 1 + rng() % 8;
      const double caps_set[] = {4.0, 6.0, 8.0, 12.0};  // few values: many tied levels
      std::vector<double> caps(nc);
      for (auto& c : caps) c = caps_set[rng() % 4];
      std::vector<RefVar> vars(nv);
      MaxMinSystem s;
      for (double c : caps) s.add_constraint(c);
      std::vector<MaxMinSystem::VariableId> ids;
      for (auto& v : vars) {
        v.weight = rng() % 2 ? 1.0 : 2.0;
        v.bound = rng() % 6 == 0 ? caps_set[rng() % 4] : kInf;
        v.usages = random_usages(rng, nc, 1 + rng() % nc);
        ids.push_back(s.add_variable(v.weight, v.bound, v.usages));
      }
      s.solve();
      const RefResult ref = reference_fill(caps, vars);
      INFO("trial " << trial);
      CHECK(s.check().empty());
      for (std::size_t v = 0; v < nv; ++v) {
        CHECK(s.rate(ids[v]) == ref.rate[v]);
        CHECK(s.limiter(ids[v]) == ref.limiter[v]);
      }
    }
  }
}

TEST_CASE("private and shared constraints kept incrementally: adds, removals and capacity changes",
          "[maxmin][property]") {
  // A variable's private constraints are summed up in a cached best (level, id), kept as other
  // variables join or leave its constraints and as capacities change. After every change the
  // incremental solution must equal progressive filling from scratch over the live variables.
  // Capacities are drawn from a continuous range, so no two levels tie and the limiters are
  // unique; rates may differ from the fresh fill in the last bits only (the order in which a
  // constraint's variables are fixed changes as they leave it).
  std::mt19937 rng(77);
  std::uniform_real_distribution<double> capd(1.0, 100.0);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t nc = 2 + rng() % 20;
    std::vector<double> caps(nc);
    MaxMinSystem s;
    for (auto& c : caps) s.add_constraint(c = capd(rng));
    std::vector<RefVar> live;
    std::vector<MaxMinSystem::VariableId> ids;
    for (int round = 0; round < 40; ++round) {
      const unsigned what = rng() % 6;
      if (what < 3 || live.empty()) {  // add a variable over a few constraints
        RefVar v;
        v.weight = rng() % 2 ? 1.0 : 1.5;
        v.bound = rng() % 7 == 0 ? capd(rng) : kInf;
        v.usages = random_usages(rng, nc, 1 + rng() % std::min<std::size_t>(nc, 6));
        ids.push_back(s.add_variable(v.weight, v.bound, v.usages));
        live.push_back(v);
      } else if (what < 5) {  // remove one
        const std::size_t i = rng() % live.size();
        s.remove_variable(ids[i]);
        ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(i));
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      } else {  // change a capacity, often one only a single variable crosses
        const auto c = static_cast<MaxMinSystem::ConstraintId>(rng() % nc);
        caps[c] = capd(rng);
        s.set_capacity(c, caps[c]);
      }
      if (rng() % 2 == 0) continue;  // several changes between solves, sometimes
      s.solve();
      const RefResult ref = reference_fill(caps, live);
      INFO("trial " << trial << " round " << round);
      REQUIRE(s.check().empty());
      for (std::size_t v = 0; v < live.size(); ++v) {
        CHECK(s.rate(ids[v]) == Approx(ref.rate[v]).epsilon(1e-12));
        CHECK(s.limiter(ids[v]) == ref.limiter[v]);
      }
    }
  }
}
