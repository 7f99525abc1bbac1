// The transfer table's twin links (TransferTable::solver_pattern, solver_link): links that every
// pattern crosses alike are one constraint to the max-min solver, and the solution is the same bits
// as with every link.
#include <catch2/catch.hpp>
#include <map>

#include "tests/topology/test_cluster.hpp"
#include "topology/maxmin.hpp"
#include "topology/transfer_table.hpp"

using namespace stepsim;
using namespace stepsim::topo;
using namespace stepsim::test;

namespace twin_links_detail {

// Two ring all-reduces over the rails of 4 nodes (GPUs 0, 8, 16, 24 and 1, 9, 17, 25), an
// all-to-all over node 0 and a send from GPU 2 to GPU 18; GPU 9's NIC at half rate.
std::shared_ptr<const TransferTable> mixed_table() {
  ClusterSpec spec = cluster(4);
  spec.degraded = {{9, LinkDegradation::Part::nic, 0.5}};
  TransferTableBuilder tb(std::make_shared<const Topology>(spec));
  CollectiveRequest r;
  r.bytes = kGiB;
  r.algorithm = CollectiveAlgorithm::ring;
  r.groups = {{0, 8, 16, 24}};
  tb.add(r);
  r.groups = {{1, 9, 17, 25}};
  tb.add(r);
  r.op = CollectiveOp::all_to_all;
  r.algorithm = CollectiveAlgorithm::automatic;
  r.groups = {iota(0, 8)};
  tb.add(r);
  tb.add(send(2, 18, kGiB));
  return std::make_shared<const TransferTable>(std::move(tb).build());
}

// Which patterns cross a link, with what coefficient.
using Crossings = std::map<std::uint32_t, double>;
std::vector<Crossings> crossings_by_link(const TransferTable& t) {
  std::vector<Crossings> by_link(t.topology().links().size());
  for (std::uint32_t p = 0; p < t.pattern_count(); ++p)
    for (const LinkUse& u : t.pattern(p)) by_link[u.link][p] = u.coefficient;
  return by_link;
}

}  // namespace twin_links_detail

using namespace twin_links_detail;

TEST_CASE("twin links: every pattern crosses a link and its head alike, and heads are kept", "[topology]") {
  const auto table = mixed_table();
  const auto& links = table->topology().links();
  const auto by_link = crossings_by_link(*table);
  std::size_t twins = 0;
  for (LinkId l = 0; l < links.size(); ++l) {
    const LinkId head = table->solver_link(l);
    REQUIRE(head <= l);
    CHECK(table->solver_link(head) == head);
    if (head == l) continue;
    ++twins;
    // The same capacity and the same crossings (patterns and coefficients), and never merged with
    // a link no pattern crosses.
    CHECK(links[head].bw.value() == links[l].bw.value());
    CHECK(by_link[head] == by_link[l]);
    CHECK_FALSE(by_link[l].empty());
  }
  // GPU 9's half-rate NIC crosses the same pattern as GPU 1's healthy one: not twins.
  const Topology& topo = table->topology();
  CHECK(table->solver_link(topo.nic_up(9)) == topo.nic_up(9));
  // A link no other link is twin to keeps its place; every link of the first ring's NIC ups has the
  // same coefficient and capacity, so three of the four are twins of the first.
  CHECK(table->solver_link(topo.nic_up(8)) == table->solver_link(topo.nic_up(16)));
  CHECK(twins > 0);
  // Solver constraints: the crossed head links, in link order; the others have none.
  const auto constraint_links = table->constraint_links();
  for (std::size_t k = 0; k < constraint_links.size(); ++k) {
    CHECK(table->solver_constraint(constraint_links[k]) == k);
    if (k > 0) CHECK(constraint_links[k - 1] < constraint_links[k]);
  }
  for (LinkId l = 0; l < links.size(); ++l)
    CHECK((table->solver_constraint(l) == MaxMinSystem::kNone) == by_link[l].empty());
  // The solver's patterns are the patterns less the twins, in link order, over constraints.
  std::size_t full = 0, kept = 0;
  for (std::uint32_t p = 0; p < table->pattern_count(); ++p) {
    std::vector<LinkUse> expect;
    for (const LinkUse& u : table->pattern(p))
      if (table->solver_link(u.link) == u.link) expect.push_back(u);
    const auto got = table->solver_pattern(p);
    REQUIRE(got.size() == expect.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(constraint_links[got[i].constraint] == expect[i].link);
      CHECK(got[i].coefficient == expect[i].coefficient);
    }
    full += table->pattern(p).size();
    kept += got.size();
  }
  CHECK(kept < full);
}

TEST_CASE("twin links: the solver gives the same rates, limiters and loads, bit for bit", "[topology]") {
  // Every pattern as a variable (weight 1, unbounded) in two solvers: one with whole patterns,
  // one with the solver's; then the first two removed and solved again (an incremental re-solve).
  const auto table = mixed_table();
  const auto& links = table->topology().links();
  MaxMinSystem whole, twins;
  for (const Link& l : links) whole.add_constraint(l.bw.value());
  const auto constraint_links = table->constraint_links();
  for (const LinkId l : constraint_links) twins.add_constraint(links[l].bw.value());
  const auto usages = [](std::span<const LinkUse> uses) {
    std::vector<MaxMinSystem::Usage> out;
    for (const LinkUse& u : uses) out.push_back({u.link, u.coefficient});
    return out;
  };
  std::vector<MaxMinSystem::VariableId> vw, vt;
  for (std::uint32_t p = 0; p < table->pattern_count(); ++p) {
    vw.push_back(whole.add_variable(1.0, MaxMinSystem::kUnbounded, usages(table->pattern(p))));
    vt.push_back(twins.add_variable(1.0, MaxMinSystem::kUnbounded, table->solver_pattern(p)));
  }
  const auto same = [&] {
    for (std::size_t i = 0; i < vw.size(); ++i) {
      if (vw[i] == MaxMinSystem::kNone) continue;
      CHECK(whole.rate(vw[i]) == twins.rate(vt[i]));  // exact
      const auto limiter = twins.limiter(vt[i]);
      CHECK(whole.limiter(vw[i]) == (limiter == MaxMinSystem::kNone ? limiter : constraint_links[limiter]));
    }
    for (LinkId l = 0; l < links.size(); ++l) {
      const auto c = table->solver_constraint(l);
      CHECK(whole.load(l) == (c == MaxMinSystem::kNone ? 0.0 : twins.load(c)));
    }
  };
  whole.solve();
  twins.solve();
  same();
  REQUIRE(vw.size() >= 3);
  for (int i = 0; i < 2; ++i) {
    whole.remove_variable(vw[i]);
    twins.remove_variable(vt[i]);
    vw[i] = vt[i] = MaxMinSystem::kNone;
  }
  whole.solve();
  twins.solve();
  same();
}
