// The Chrome trace: valid JSON with traceEvents, every op of the traced ranks exactly once with
// its times, name and figures, processes per node and threads per stream, the critical path as a
// track and as flow arrows, counter tracks for memory and link tiers, rank selection, and
// identical bytes for identical runs.
#include "output/run/trace_writer.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sim/error.hpp"
#include "tests/output/small_run.hpp"
#include "workloads/model/names.hpp"
#include "workloads/step/rank_sink.hpp"

using namespace stepsim;
using nlohmann::json;

namespace {

std::string trace_text(const work::Simulation& s, const out::StepLayout& layout) {
  std::ostringstream o;
  out::write_chrome_trace(o, s, layout, {"small test step", "test"});
  return o.str();
}

std::vector<json> events(const json& doc, const std::string& ph) {
  std::vector<json> out;
  for (const auto& e : doc.at("traceEvents"))
    if (e.at("ph") == ph) out.push_back(e);
  return out;
}

/// Complete events that stand for an op (not the copies drawn on its other streams).
std::vector<json> op_events(const json& doc) {
  std::vector<json> out;
  for (const auto& e : events(doc, "X"))
    if (e.at("args").contains("op")) out.push_back(e);
  return out;
}

/// Streams of `op` other than its first that belong to ranks in `layout`.
std::size_t traced_peers(const work::Simulation& s, const out::StepLayout& layout, sim::OpId op) {
  std::size_t n = 0;
  const auto streams = s.plan.graph.streams_of(op);
  for (std::size_t i = 1; i < streams.size(); ++i)
    for (const auto& r : layout.ranks)
      for (const auto& l : r.lanes) n += l.stream == streams[i];
  return n;
}

/// "12.345" (microseconds) from picoseconds, as the writer rounds: to the nearest nanosecond.
std::string us(Time t) {
  const long long ns = (t.count() + 500) / 1000;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", ns / 1000, ns % 1000);
  return buf;
}

}  // namespace

TEST_CASE("trace: every op of the simulated ranks appears exactly once", "[trace]") {
  const auto run = test::small_run();
  const auto& s = run.sim;
  const auto layout = out::select_ranks(s, {});
  const std::string text = trace_text(s, layout);
  const json doc = json::parse(text);
  REQUIRE(doc.contains("traceEvents"));
  const auto ops = op_events(doc);
  // Representative mode simulates one rank per stage (2) and the default selection keeps both.
  REQUIRE(layout.ranks.size() == 2);
  CHECK(ops.size() == s.plan.graph.op_count());
  // Pipeline sends occupy the sender's and the receiver's streams: drawn on both, once as a copy.
  std::size_t copies = 0;
  for (sim::OpId op = 0; op < s.plan.graph.op_count(); ++op) copies += traced_peers(s, layout, op);
  CHECK(copies > 0);
  // Every X event is an op, a copy of it on a peer's stream, or a slice of the critical-path track
  // (one per op of the path; the engine leaves no idle gaps on it here).
  CHECK(events(doc, "X").size() == ops.size() + copies + s.critical.ops.size());
  std::map<sim::OpId, int> seen;
  for (const auto& e : ops) ++seen[e.at("args").at("op").get<sim::OpId>()];
  CHECK(seen.size() == s.plan.graph.op_count());
  for (const auto& [op, n] : seen) CHECK(n == 1);
  // Each event says what the op is and when it ran (raw text: the ts of op k is exact).
  for (const auto& e : ops) {
    const auto op = e.at("args").at("op").get<sim::OpId>();
    const auto& info = s.plan.info[op];
    CHECK(e.at("name") == work::op_label(s.plan, op));
    CHECK(e.at("args").at("bound") == std::string(topo::name(topo::resource_of(s.run.ops[op].bound))));
    if (info.is_comm) {
      CHECK(e.at("cat") == "comm." + std::string(work::name(info.comm_dim)));
      CHECK(e.at("args").at("bytes").get<double>() == s.plan.graph.info(op).bytes);
    } else {
      CHECK(e.at("args").at("flops").get<double>() == s.plan.graph.info(op).flops);
    }
  }
  const sim::OpId last = static_cast<sim::OpId>(s.plan.graph.op_count() - 1);
  CHECK(text.find("\"ts\":" + us(s.run.ops[last].start) + ",") != std::string::npos);
}

TEST_CASE("trace: processes per node, threads per stream, no overlap on a thread", "[trace]") {
  const auto run = test::small_run(work::RankMode::all);
  const auto layout = out::select_ranks(run.sim, {});
  const json doc = json::parse(trace_text(run.sim, layout));
  std::set<int> nodes;
  std::size_t lanes = 0;
  for (const auto& r : layout.ranks) {
    nodes.insert(r.node);
    lanes += r.lanes.size();
  }
  // 16 ranks simulated (all) on 4 nodes; each rank has a compute stream, 4 group channels, 4
  // pipeline send/receive streams and, when the GPU launches eagerly, the host's: 9 or 10 threads.
  CHECK(layout.ranks.size() == 16);
  CHECK(nodes.size() == 4);
  const bool host = run.sim.plan.graph.stream_count() == 16 * 10;
  CHECK(lanes == 16 * (host ? 10 : 9));
  std::size_t processes = 0, threads = 0;
  for (const auto& e : events(doc, "M")) {
    processes += e.at("name") == "process_name";
    threads += e.at("name") == "thread_name";
  }
  CHECK(processes == nodes.size() + 2);  // + the network's counters and the critical path
  CHECK(threads == lanes + 1);           // + the critical path's one track
  // A stream runs one op at a time, so complete events on one thread never overlap.
  std::map<std::pair<int, long long>, std::vector<std::pair<double, double>>> by_thread;
  for (const auto& e : events(doc, "X"))
    by_thread[{e.at("pid").get<int>(), e.at("tid").get<long long>()}].emplace_back(e.at("ts").get<double>(),
                                                                                   e.at("dur").get<double>());
  for (auto& [k, v] : by_thread) {
    std::sort(v.begin(), v.end());
    for (std::size_t i = 1; i < v.size(); ++i) CHECK(v[i - 1].first + v[i - 1].second <= v[i].first + 1e-9);
  }
}

TEST_CASE("trace: the critical path as a track and as flow arrows between its ops", "[trace]") {
  const auto run = test::small_run();
  const auto& s = run.sim;
  const json doc = json::parse(trace_text(s, out::select_ranks(s, {})));
  std::vector<json> track;
  std::map<sim::OpId, json> flows;  // op -> its event, for events that carry a flow
  for (const auto& e : events(doc, "X")) {
    if (e.at("cat") == "critical") track.push_back(e);
    if (e.contains("bind_id")) flows[e.at("args").at("op").get<sim::OpId>()] = e;
  }
  // The track lists the path in order: step i is critical.ops[i].
  REQUIRE(track.size() == s.critical.ops.size());
  for (std::size_t i = 0; i < track.size(); ++i) {
    CHECK(track[i].at("args").at("step") == i);
    CHECK(track[i].at("args").at("copy_of") == s.critical.ops[i]);
  }
  // Both simulated ranks are traced, so one chain joins the whole path: the first op only sends
  // an arrow, the last only receives one, every other does both, all with the same id, unless two
  // ops start in the same instant in reverse op-id order (not so in this step: checked below).
  const auto& path = s.critical.ops;
  REQUIRE(path.size() >= 2);
  REQUIRE(flows.size() == path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    CAPTURE(i);
    const json& e = flows.at(path[i]);
    CHECK(e.at("bind_id") == 1);
    CHECK(e.value("flow_in", false) == (i > 0));
    CHECK(e.value("flow_out", false) == (i + 1 < path.size()));
    if (i > 0) CHECK(s.run.ops[path[i - 1]].start < s.run.ops[path[i]].start);
  }
}

TEST_CASE("trace: counter tracks for memory per GPU and utilisation per link tier", "[trace]") {
  const auto run = test::small_run();
  const json doc = json::parse(trace_text(run.sim, out::select_ranks(run.sim, {})));
  std::map<std::string, int> counters;
  for (const auto& e : events(doc, "C")) ++counters[e.at("name").get<std::string>()];
  // Simulated ranks 0 and 2 (stage 0 and 1 of the first replica).
  CHECK(counters["gpu0 memory"] > 1);
  CHECK(counters["gpu2 memory"] > 1);
  // TP on NVLink, DP across nodes through the NICs, and across rail leaves over leaf-spine links.
  for (const char* tier : {"nvlink utilisation", "nic utilisation", "leaf-spine utilisation"})
    CHECK(counters[tier] >= 2);
  for (const auto& e : events(doc, "C"))
    if (e.at("name") == "nic utilisation") {
      const double all = e.at("args").at("all links %").get<double>();
      const double used = e.at("args").at("links in use %").get<double>();
      CHECK(all >= 0.0);
      CHECK(all <= used + 1e-9);    // the links in use are a subset of all
      CHECK(used <= 100.0 + 1e-6);  // max-min sharing never overloads a link
    }
}

TEST_CASE("trace: --trace-ranks keeps the named GPUs and says what it left out", "[trace]") {
  const auto run = test::small_run(work::RankMode::all);
  const auto layout = out::select_ranks(run.sim, out::RankSelection::parse("0-3,9", "--trace-ranks"));
  REQUIRE(layout.ranks.size() == 5);
  std::size_t expected = 0;
  for (const auto& i : run.sim.plan.info)
    expected += run.sim.plan.ranks[i.rank].rank <= 3 || run.sim.plan.ranks[i.rank].rank == 9;
  const json doc = json::parse(trace_text(run.sim, layout));
  CHECK(op_events(doc).size() == expected);
  CHECK(doc.at("otherData").at("ops_traced") == expected);
  CHECK(doc.at("otherData").at("left_out").get<std::string>().find("11 of 16 simulated ranks") !=
        std::string::npos);
  CHECK_THROWS_AS(out::select_ranks(run.sim, out::RankSelection::parse("100-200", "--trace-ranks")),
                  UserError);
  CHECK_THROWS_AS(out::RankSelection::parse("3-1", "--trace-ranks"), UserError);
  CHECK_THROWS_AS(out::RankSelection::parse("0-x", "--trace-ranks"), UserError);
}

TEST_CASE("trace: the default selection stops at an op budget", "[trace]") {
  const auto run = test::small_run(work::RankMode::all);
  std::vector<std::size_t> ops(run.sim.plan.ranks.size(), 0);
  for (const auto& i : run.sim.plan.info) ++ops[i.rank];
  // A budget of three ranks' ops (plus one) takes exactly the first three simulated ranks.
  out::RankSelection budget;
  budget.max_ops = ops[0] + ops[1] + ops[2] + 1;
  const auto layout = out::select_ranks(run.sim, budget);
  REQUIRE(layout.ranks.size() == 3);
  CHECK(layout.ops_selected == ops[0] + ops[1] + ops[2]);
  // A budget below one rank's ops still traces that rank; a rank limit caps the count.
  budget.max_ops = 1;
  CHECK(out::select_ranks(run.sim, budget).ranks.size() == 1);
  budget.max_ops = out::RankSelection::kDefaultTraceOps;
  budget.max_ranks = 5;
  CHECK(out::select_ranks(run.sim, budget).ranks.size() == 5);
  // The default fits the whole small step.
  CHECK(out::select_ranks(run.sim, {}).ranks.size() == 16);
}

TEST_CASE("trace: identical runs give identical bytes", "[trace]") {
  const auto a = test::small_run(), b = test::small_run();
  CHECK(trace_text(a.sim, out::select_ranks(a.sim, {})) == trace_text(b.sim, out::select_ranks(b.sim, {})));
}
