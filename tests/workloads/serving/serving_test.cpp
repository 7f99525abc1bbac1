#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include "sim/error.hpp"
#include "workloads/serving/serving.hpp"

using namespace stepsim;
using namespace stepsim::work;

namespace {

ServingConfig engine(int max_batch, int max_num_tokens, long long kv_capacity_tokens, bool chunked) {
  ServingConfig c;
  c.max_batch = max_batch;
  c.max_num_tokens = max_num_tokens;
  c.kv_capacity_tokens = kv_capacity_tokens;
  c.chunked_prefill = chunked;
  return c;
}

IterationCost fixed_cost(double seconds) {
  return [seconds](const IterationShape&) { return seconds; };
}

/// base + per prompt token + per decoding sequence: prefill is compute-bound in its tokens, decode pays
/// a weight read (base) and a little per sequence.
IterationCost linear_cost(double base_s, double per_prefill_token_s, double per_decode_seq_s) {
  return [=](const IterationShape& s) {
    return base_s + per_prefill_token_s * s.prefill_tokens + per_decode_seq_s * s.decode_seqs;
  };
}

/// A cost that also keeps every shape it was asked about, in order.
IterationCost recording(std::vector<IterationShape>& shapes, IterationCost inner) {
  return [&shapes, inner](const IterationShape& s) {
    shapes.push_back(s);
    return inner(s);
  };
}

}  // namespace

TEST_CASE("Serving: one request costs one prefill iteration, then one decode iteration per token") {
  // Prefill iterations cost 0.05 s, decode iterations 0.02 s.
  std::vector<IterationShape> shapes;
  const IterationCost cost =
      recording(shapes, [](const IterationShape& s) { return s.prefill_tokens > 0 ? 0.05 : 0.02; });
  const ServingResult r = simulate_serving({{1.0, 100, 5}}, engine(8, 512, 10'000, true), cost);
  const RequestRecord& rec = r.records.at(0);
  CHECK(rec.admitted_s == 1.0);                       // an idle engine starts at the arrival
  CHECK(rec.ttft_s() == Approx(0.05));                // one prefill iteration
  CHECK(rec.tpot_s().value() == Approx(0.02));        // (finish - first) / 4 = 4 * 0.02 / 4
  CHECK(rec.latency_s() == Approx(0.05 + 4 * 0.02));  // TTFT + (5 - 1) decodes = 0.13 s
  CHECK(rec.queueing_s() == 0.0);
  REQUIRE(shapes.size() == 5);  // 1 prefill + 4 decodes
  CHECK(shapes[0].prefill_tokens == 100);
  CHECK(shapes[0].prefill_seqs == 1);
  CHECK(shapes[0].decode_seqs == 0);
  // The first decode feeds output token 1 against the 100 cached prompt tokens; the last feeds token 4
  // against 100 + 3.
  CHECK(shapes[1].decode_seqs == 1);
  CHECK(shapes[1].decode_context_tokens == 100.0);
  CHECK(shapes[4].decode_context_tokens == 103.0);
  CHECK(r.summary.iterations == 5);
  CHECK(r.summary.duration_s == Approx(0.13));
  CHECK(r.summary.output_tokens_per_s == Approx(5 / 0.13));
  CHECK(r.summary.input_tokens_per_s == Approx(100 / 0.13));
  // One request in the system, and in a slot, for the whole duration.
  CHECK(r.summary.mean_in_system == Approx(1.0));
  CHECK(r.summary.mean_running == Approx(1.0));
  CHECK(r.summary.peak_kv_reserved_tokens == 105);  // 100 + 5
}

TEST_CASE("Serving: output_len 1 finishes at its prefill and has no TPOT") {
  const ServingResult r = simulate_serving({{0.0, 64, 1}}, engine(4, 256, 1000, true), fixed_cost(0.03));
  CHECK(r.records[0].finish_s == Approx(0.03));
  CHECK(r.records[0].ttft_s() == r.records[0].latency_s());
  CHECK_FALSE(r.records[0].tpot_s().has_value());
  CHECK(r.summary.tpot.count == 0);
  CHECK(r.summary.iterations == 1);
}

TEST_CASE("Serving: a request arriving during an iteration joins at the iteration's end") {
  // 0.01 s iterations. R1 arrives at 0.005, while R0's prefill runs over [0, 0.01].
  SECTION("beside a running request") {
    // It 2 [0.01, 0.02]: R0 decodes, R1 prefills and, with one output token, finishes.
    const ServingResult r =
        simulate_serving({{0.0, 10, 3}, {0.005, 10, 1}}, engine(8, 64, 1000, true), fixed_cost(0.01));
    CHECK(r.records[1].admitted_s == Approx(0.01));
    CHECK(r.records[1].finish_s == Approx(0.02));
  }
  SECTION("on an engine that falls idle at that end") {
    // R0 finishes at 0.01 and leaves the engine empty; its clock is past R1's arrival and must not go back.
    const ServingResult r =
        simulate_serving({{0.0, 10, 1}, {0.005, 10, 1}}, engine(8, 64, 1000, true), fixed_cost(0.01));
    CHECK(r.records[1].admitted_s == Approx(0.01));
    CHECK(r.records[1].queueing_s() == Approx(0.005));
    CHECK(r.records[1].finish_s == Approx(0.02));
  }
}

TEST_CASE("Serving: requests arriving together with room for all prefill in one iteration (static-like)") {
  // cost = 0.005 + 1e-4 per prompt token + 1e-3 per decoding sequence.
  const IterationCost cost = linear_cost(0.005, 1e-4, 1e-3);
  const std::vector<Request> reqs = {{0.0, 100, 3}, {0.0, 200, 3}, {0.0, 300, 3}, {0.0, 400, 3}};

  SECTION("budget >= all prompts: one prefill iteration, then the batch decodes in lockstep") {
    std::vector<IterationShape> shapes;
    const ServingResult r = simulate_serving(reqs, engine(4, 1024, 100'000, false), recording(shapes, cost));
    // Iteration 1 prefills 1,000 tokens: 0.005 + 0.1 = 0.105 s; everyone's first token is at 0.105.
    for (const RequestRecord& rec : r.records) CHECK(rec.first_token_s == Approx(0.105));
    // Two decode iterations of 4 sequences: 0.005 + 0.004 = 0.009 s each -> finish at 0.123.
    for (const RequestRecord& rec : r.records) CHECK(rec.finish_s == Approx(0.123));
    REQUIRE(shapes.size() == 3);
    CHECK(shapes[0].prefill_seqs == 4);
    CHECK(shapes[0].prefill_tokens == 1000);
    CHECK(shapes[0].prefill_context_tokens == 0.0);
    CHECK(shapes[1].decode_context_tokens == 1000.0);  // the four prompts
    CHECK(shapes[2].decode_context_tokens == 1004.0);  // plus each one's first output token
    CHECK(r.summary.ttft.p99_s == Approx(0.105));
    CHECK(r.summary.tpot.mean_s == Approx(0.009));
  }

  SECTION("a whole prompt waits when it does not fit the budget, and blocks the prompts behind it") {
    const ServingResult r = simulate_serving(reqs, engine(4, 500, 100'000, false), cost);
    // It 1: 100 + 200 = 300 fit; 300 more would make 600 > 500. Cost 0.005 + 0.03 = 0.035.
    CHECK(r.records[0].first_token_s == Approx(0.035));
    CHECK(r.records[1].first_token_s == Approx(0.035));
    // It 2: 2 decodes leave 498; the 300-token prompt fits, 400 does not. 0.005 + 0.03 + 0.002 = 0.037.
    CHECK(r.records[2].first_token_s == Approx(0.072));
    // It 3: 3 decodes leave 497 for the 400-token prompt. 0.005 + 0.04 + 0.003 = 0.048 -> 0.120; the
    // first two produce their third token and finish.
    CHECK(r.records[3].first_token_s == Approx(0.120));
    CHECK(r.records[0].finish_s == Approx(0.120));
    // All four were admitted at 0 (slots and KV allow it); waiting for the budget is not queueing.
    for (const RequestRecord& rec : r.records) CHECK(rec.admitted_s == 0.0);
  }

  SECTION("a shorter prompt behind a blocked one does not overtake it (vLLM breaks its prefill pass)") {
    // Prompts 100, 400, 50 with budget 450. It 1: 100 fits, 400 > 350 stops the pass, so 50 waits too:
    // 0.005 + 0.01 = 0.015. It 2: 1 decode leaves 449: 400 fits, 50 > 49 waits: 0.005 + 0.04 + 0.001 =
    // 0.046 -> 0.061. It 3: 2 decodes leave 448: 50 fits: 0.005 + 0.005 + 0.002 = 0.012 -> 0.073.
    const ServingResult r =
        simulate_serving({{0.0, 100, 3}, {0.0, 400, 3}, {0.0, 50, 3}}, engine(4, 450, 100'000, false), cost);
    CHECK(r.records[0].first_token_s == Approx(0.015));
    CHECK(r.records[1].first_token_s == Approx(0.061));
    CHECK(r.records[2].first_token_s == Approx(0.073));
  }
}

TEST_CASE("Serving: with max_batch 1 requests run one after another") {
  // Each request holds the slot for 1 prefill + 3 decodes = 4 iterations of 0.01 s = 0.04 s; request k
  // is admitted when request k - 1 finishes: queueing delay 0.04 k, TTFT 0.04 k + 0.01.
  const std::vector<Request> reqs(4, Request{0.0, 10, 4});
  const ServingResult r = simulate_serving(reqs, engine(1, 64, 1000, true), fixed_cost(0.01));
  for (int k = 0; k < 4; ++k) {
    CHECK(r.records[k].queueing_s() == Approx(0.04 * k));
    CHECK(r.records[k].ttft_s() == Approx(0.04 * k + 0.01));
    CHECK(r.records[k].finish_s == Approx(0.04 * (k + 1)));
  }
  CHECK(r.summary.mean_running == Approx(1.0));  // the slot is never empty over the 0.16 s
  // In system: 4, 3, 2, 1 requests for 0.04 s each: (4 + 3 + 2 + 1) / 4 = 2.5.
  CHECK(r.summary.mean_in_system == Approx(2.5));
  CHECK(r.summary.queueing.max_s == Approx(0.12));
}

TEST_CASE("Serving: the whole-sequence KV reservation blocks admission until a request finishes") {
  // A reserves 400 + 200 = 600 of 1,000; B needs 300 + 200 = 500: 1,100 > 1,000, so B waits. C (200)
  // would fit beside A but is behind B in the FCFS queue. A runs 1 prefill + 199 decodes of 0.01 s and
  // frees its 600 at t = 2.0; then B and C (500 + 200 = 700) are admitted together.
  const std::vector<Request> reqs = {{0.0, 400, 200}, {0.0, 300, 200}, {0.0, 100, 100}};
  const ServingResult r = simulate_serving(reqs, engine(8, 1024, 1000, true), fixed_cost(0.01));
  CHECK(r.records[0].finish_s == Approx(2.0));
  CHECK(r.records[1].admitted_s == Approx(2.0));
  CHECK(r.records[2].admitted_s == Approx(2.0));
  CHECK(r.records[1].first_token_s == Approx(2.01));
  CHECK(r.records[1].finish_s == Approx(4.0));  // 2.0 + 200 iterations
  CHECK(r.summary.peak_kv_reserved_tokens == 700);

  SECTION("with room for both, B is admitted at once") {
    const ServingResult wide = simulate_serving(reqs, engine(8, 1024, 1100, true), fixed_cost(0.01));
    CHECK(wide.records[1].admitted_s == 0.0);
    CHECK(wide.records[2].admitted_s == Approx(2.0));  // 600 + 500 + 200 > 1,100 until A is done
  }
}

TEST_CASE("Serving: a model with local attention reserves only its window in the local layers") {
  // Half of each token's KV bytes in layers with a 128-token window (GPT-OSS's alternation): a request
  // of n tokens reserves ceil(n / 2 + min(n, 128) / 2). A: 400 + 200 = 600 -> 300 + 64 = 364; B: 500
  // -> 250 + 64 = 314: 678 <= 700, so both run at once, where whole sequences (1,100) would not fit.
  ServingConfig c = engine(8, 1024, 700, true);
  c.kv_local_share = 0.5;
  c.kv_window = 128;
  CHECK(kv_need(c, 600) == 364);
  CHECK(kv_need(c, 100) == 100);  // within the window: every layer keeps it all
  CHECK(kv_need(c, 129) == 129);  // ceil(64.5 + 64)
  const std::vector<Request> reqs = {{0.0, 400, 200}, {0.0, 300, 200}};
  const ServingResult r = simulate_serving(reqs, c, fixed_cost(0.01));
  CHECK(r.records[1].admitted_s == 0.0);
  CHECK(r.summary.peak_kv_reserved_tokens == 678);
  c.kv_local_share = 0.0;  // every layer global: B waits for A, as above
  CHECK(simulate_serving(reqs, c, fixed_cost(0.01)).records[1].admitted_s == Approx(2.0));
}

TEST_CASE("Serving: chunked prefill splits a prompt over ceil(input / budget) iterations") {
  // 1,000 prompt tokens, budget 256: chunks 256, 256, 256, 232 -> ceil(1000 / 256) = 4 iterations,
  // then one decode for the second output token.
  std::vector<IterationShape> shapes;
  const ServingResult r =
      simulate_serving({{0.0, 1000, 2}}, engine(4, 256, 10'000, true), recording(shapes, fixed_cost(0.01)));
  REQUIRE(shapes.size() == 5);
  const int chunks[] = {256, 256, 256, 232};
  for (int i = 0; i < 4; ++i) {
    CHECK(shapes[i].prefill_tokens == chunks[i]);
    CHECK(shapes[i].prefill_context_tokens == 256.0 * i);  // earlier chunks are cached
  }
  CHECK(r.records[0].ttft_s() == Approx(0.04));

  SECTION("decodes take their tokens first") {
    // A (10-token prompt) and B (1,014) arrive together. It 1: A 10, B 246. It 2-4: A decodes and
    // leaves 255 for B each time (1,011 done). It 5: the last 3: B's first token after 5 iterations.
    // (Were decodes free, B would get 256 three times, 1,014, and finish in 4.)
    std::vector<IterationShape> two_shapes;
    const ServingResult two = simulate_serving({{0.0, 10, 100}, {0.0, 1014, 2}}, engine(4, 256, 10'000, true),
                                               recording(two_shapes, fixed_cost(0.01)));
    CHECK(two.records[0].first_token_s == Approx(0.01));
    CHECK(two.records[1].first_token_s == Approx(0.05));
    REQUIRE(two_shapes.size() >= 5);
    CHECK(two_shapes[0].prefill_tokens == 256);  // 10 + 246
    CHECK(two_shapes[0].prefill_seqs == 2);
    CHECK(two_shapes[1].prefill_tokens == 255);
    CHECK(two_shapes[1].prefill_context_tokens == 246.0);
    CHECK(two_shapes[4].prefill_tokens == 3);
  }

  SECTION("without chunking a prompt longer than the budget can never run") {
    CHECK_THROWS_WITH(
        simulate_serving({{0.0, 10, 2}, {0.0, 1000, 2}}, engine(4, 256, 10'000, false), fixed_cost(0.01)),
        Catch::Contains("request 1") && Catch::Contains("1000-token prompt") &&
            Catch::Contains("max_num_tokens = 256"));
  }
}

TEST_CASE("Serving: Little's law holds at a steady moderate load") {
  PoissonWorkload w;
  w.rate_per_s = 40.0;
  w.requests = 10'000;
  w.input = {64, 512};
  w.output = {16, 256};
  w.seed = 7;
  // Full batch of 64 decodes: 0.005 + 0.00064 s per iteration, about 11,000 tokens/s, against
  // 40 x 136 = 5,440 output tokens/s offered plus 40 x 288 x 2e-5 = 0.23 s/s of prefill: a moderate load.
  const ServingResult r = simulate_serving(poisson_requests(w), engine(64, 4096, 10'000'000, true),
                                           linear_cost(0.005, 2e-5, 1e-5));
  const ServingSummary& s = r.summary;
  // Over the whole run (empty at both ends) L = lambda W is an identity: integral of the in-system count
  // = sum of latencies. The engines integrate their slot and queue counts per iteration; the latencies
  // come from the records: equal up to rounding, or the time accounting has a hole.
  CHECK(s.mean_in_system == Approx(s.requests_per_s * s.latency.mean_s).epsilon(1e-9));
  // The same identity for the queue alone: time-averaged queue length = rate x mean queueing delay.
  CHECK(s.mean_in_system - s.mean_running == Approx(s.requests_per_s * s.queueing.mean_s).epsilon(1e-9));
  // Against the offered rate: below saturation completions keep up with arrivals, so the measured rate is
  // 40/s up to the Poisson count's noise (1 / sqrt(10,000) = 1%) and the drain after the last arrival
  // (a fraction of a second in about 250 s). 4% is four standard deviations; a saturated or idle-losing
  // engine misses it by far more.
  CHECK(s.mean_in_system == Approx(w.rate_per_s * s.latency.mean_s).epsilon(0.04));
  CHECK(s.mean_running <= 64.0);
  CHECK(s.mean_running > 1.0);  // batching does happen: a lone request at a time would be 1 or less
}

TEST_CASE("Serving: the Poisson generator is deterministic for a seed and scales with the rate") {
  PoissonWorkload w;
  w.rate_per_s = 5.0;
  w.requests = 10'000;
  w.input = {32, 64};
  w.output = LengthDistribution::fixed(7);
  w.seed = 42;
  const std::vector<Request> a = poisson_requests(w);
  const std::vector<Request> b = poisson_requests(w);
  REQUIRE(a.size() == 10'000);
  bool identical = true;
  for (std::size_t i = 0; i < a.size(); ++i)
    identical = identical && a[i].arrival_s == b[i].arrival_s && a[i].input_len == b[i].input_len;
  CHECK(identical);
  // Mean gap 1 / 5 = 0.2 s; the sample mean of 10,000 exponentials has a 1% standard deviation.
  CHECK(a.back().arrival_s / 10'000 == Approx(0.2).epsilon(0.04));
  const auto [lo, hi] = std::minmax_element(
      a.begin(), a.end(), [](const Request& x, const Request& y) { return x.input_len < y.input_len; });
  CHECK(lo->input_len == 32);  // 10,000 draws over 33 values hit both ends
  CHECK(hi->input_len == 64);
  CHECK(std::all_of(a.begin(), a.end(), [](const Request& r) { return r.output_len == 7; }));

  SECTION("doubling the rate halves every arrival exactly (division by 2 is exact)") {
    PoissonWorkload fast = w;
    fast.rate_per_s = 10.0;
    const std::vector<Request> f = poisson_requests(fast);
    bool halved = true;
    for (std::size_t i = 0; i < a.size(); ++i)
      halved = halved && f[i].arrival_s == a[i].arrival_s / 2 && f[i].input_len == a[i].input_len;
    CHECK(halved);
  }

  SECTION("another seed, another sequence") {
    PoissonWorkload other = w;
    other.seed = 43;
    CHECK(poisson_requests(other)[0].arrival_s != a[0].arrival_s);
  }

  SECTION("the same requests simulate to identical records") {
    const ServingConfig c = engine(16, 512, 100'000, true);
    const ServingResult x = simulate_serving(a, c, linear_cost(0.01, 1e-5, 1e-4));
    const ServingResult y = simulate_serving(b, c, linear_cost(0.01, 1e-5, 1e-4));
    bool same = true;
    for (std::size_t i = 0; i < a.size(); ++i)
      same = same && x.records[i].admitted_s == y.records[i].admitted_s &&
             x.records[i].first_token_s == y.records[i].first_token_s &&
             x.records[i].finish_s == y.records[i].finish_s;
    CHECK(same);
    CHECK(x.summary.iterations == y.summary.iterations);
  }
}

TEST_CASE("Serving: the CSV trace parser reads rows and names the line of a bad one") {
  const std::vector<Request> t =
      parse_request_trace("arrival_s,input_len,output_len\r\n0.0, 128, 16\r\n\n 0.25 ,64,1\n1.5e0,8,300\n");
  REQUIRE(t.size() == 3);
  CHECK(t[1].arrival_s == 0.25);
  CHECK(t[1].input_len == 64);
  CHECK(t[2].arrival_s == 1.5);
  CHECK(t[2].output_len == 300);

  const char* header = "arrival_s,input_len,output_len\n";
  // Line 1 is the header, line 2 a good row, line 3 blank, line 4 the bad one.
  CHECK_THROWS_WITH(parse_request_trace(std::string(header) + "0,10,5\n\n0.5,abc,5\n", "t.csv"),
                    Catch::StartsWith("t.csv:4: input_len"));
  CHECK_THROWS_WITH(parse_request_trace(std::string(header) + "1.0,10,5\n0.5,10,5\n", "t.csv"),
                    Catch::StartsWith("t.csv:3: ") && Catch::Contains("arrival order"));
  CHECK_THROWS_WITH(parse_request_trace(std::string(header) + "0,10\n", "t.csv"),
                    Catch::StartsWith("t.csv:2: "));
  CHECK_THROWS_WITH(parse_request_trace(std::string(header) + "0,10,0\n", "t.csv"),
                    Catch::StartsWith("t.csv:2: output_len"));
  CHECK_THROWS_WITH(parse_request_trace("time,in,out\n0,1,1\n", "t.csv"), Catch::StartsWith("t.csv:1: "));
  CHECK_THROWS_AS(parse_request_trace(header, "t.csv"), UserError);  // no rows
}

TEST_CASE("Serving: replicas route round-robin or to the least loaded engine") {
  // max_batch 1, 0.01 s iterations. R0 (100 tokens out) holds replica 0 until t = 1.0; R1 (2 out) is
  // done on replica 1 at 0.02.
  const ServingConfig base = [] {
    ServingConfig c = engine(1, 64, 1000, true);
    c.replicas = 2;
    return c;
  }();
  const std::vector<Request> reqs = {{0.0, 10, 100}, {0.0, 10, 2}, {0.5, 10, 2}};

  SECTION("round-robin sends R2 to replica 0 (2 mod 2), where it queues behind R0") {
    const ServingResult r = simulate_serving(reqs, base, fixed_cost(0.01));
    CHECK(r.records[2].replica == 0);
    CHECK(r.records[2].queueing_s() == Approx(0.5));  // admitted at 1.0
  }

  SECTION("least-loaded sends R2 to idle replica 1 (outstanding 1 against 0)") {
    ServingConfig c = base;
    c.routing = Routing::least_loaded;
    const ServingResult r = simulate_serving(reqs, c, fixed_cost(0.01));
    CHECK(r.records[1].replica == 1);
    CHECK(r.records[2].replica == 1);
    CHECK(r.records[2].queueing_s() == 0.0);
  }

  SECTION("least-loaded counts a request as outstanding until its iteration ends") {
    ServingConfig c = base;
    c.routing = Routing::least_loaded;
    // At 0.015 R1's last iteration [0.01, 0.02] is running: a tie, so the lowest index (0) wins.
    CHECK(simulate_serving({reqs[0], reqs[1], {0.015, 10, 2}}, c, fixed_cost(0.01)).records[2].replica == 0);
    // At 0.02 it has finished: replica 1 is empty.
    CHECK(simulate_serving({reqs[0], reqs[1], {0.02, 10, 2}}, c, fixed_cost(0.01)).records[2].replica == 1);
  }
}

TEST_CASE("Serving: invariants over random configurations and workloads") {
  std::mt19937_64 g(2024);
  for (int trial = 0; trial < 20; ++trial) {
    // One draw per statement: the order of evaluation of function arguments is unspecified.
    const int max_batch = 1 + static_cast<int>(g() % 32);
    const int max_num_tokens = max_batch + static_cast<int>(g() % 600);
    const auto kv_capacity_tokens = static_cast<long long>(2000 + g() % 20'000);
    ServingConfig c = engine(max_batch, max_num_tokens, kv_capacity_tokens, g() % 2 == 1);
    c.replicas = 1 + static_cast<int>(g() % 3);
    c.routing = g() % 2 ? Routing::least_loaded : Routing::round_robin;
    PoissonWorkload w;
    w.rate_per_s = 1.0 + static_cast<double>(g() % 200);
    w.requests = 300;
    w.input = {1, std::min(c.max_num_tokens, 500)};
    w.output = {1, 300};
    w.seed = g();
    const double base_s = 0.004;
    const ServingResult r = simulate_serving(poisson_requests(w), c, linear_cost(base_s, 1e-5, 1e-5));
    CAPTURE(trial, max_batch, c.max_num_tokens, c.kv_capacity_tokens, c.chunked_prefill, c.replicas);
    CHECK(r.summary.peak_kv_reserved_tokens <= c.kv_capacity_tokens);
    CHECK(r.summary.mean_running <= double(max_batch) * c.replicas * (1 + 1e-12));
    for (const RequestRecord& rec : r.records) {
      // Every step of a request's life takes at least one iteration of at least base_s.
      CHECK(rec.admitted_s >= rec.arrival_s);
      CHECK(rec.first_token_s >= rec.admitted_s + base_s * (1 - 1e-12));
      CHECK(rec.finish_s >= rec.first_token_s + (rec.output_len - 1) * base_s * (1 - 1e-9));
    }
  }
}

TEST_CASE("Serving: impossible requests and configurations are user errors") {
  const IterationCost cost = fixed_cost(0.01);
  CHECK_THROWS_WITH(simulate_serving({{0.0, 10, 5}, {0.0, 900, 200}}, engine(4, 1024, 1000, true), cost),
                    Catch::Contains("request 1 needs 1100 KV tokens (input 900 + output 200)") &&
                        Catch::Contains("kv_capacity_tokens = 1000"));
  CHECK_THROWS_WITH(simulate_serving({{0.0, 10, 5}}, engine(64, 32, 1000, true), cost),
                    Catch::StartsWith("serving.max_num_tokens: must be at least max_batch (64)"));
  CHECK_THROWS_WITH(simulate_serving({{1.0, 10, 5}, {0.5, 10, 5}}, engine(4, 64, 1000, true), cost),
                    Catch::Contains("request 1 arrives") && Catch::Contains("arrival order"));
  CHECK_THROWS_AS(simulate_serving({{0.0, 0, 5}}, engine(4, 64, 1000, true), cost), UserError);
  CHECK_THROWS_AS(simulate_serving({}, engine(4, 64, 1000, true), cost), UserError);
  // A cost model returning 0 is a bug in the cost model, not the user's input.
  CHECK_THROWS_AS(simulate_serving({{0.0, 10, 5}}, engine(4, 64, 1000, true), fixed_cost(0.0)),
                  std::logic_error);
}

TEST_CASE("Serving: percentiles interpolate linearly between closest ranks (numpy's default)") {
  // Sorted {1, 2, 3, 4}: h = 3 p / 100. p50: h = 1.5 -> 2.5; p99: h = 2.97 -> 3 + 0.97 = 3.97.
  CHECK(percentile({4, 1, 3, 2}, 50) == Approx(2.5));
  CHECK(percentile({4, 1, 3, 2}, 99) == Approx(3.97));
  CHECK(percentile({4, 1, 3, 2}, 0) == 1.0);
  CHECK(percentile({4, 1, 3, 2}, 100) == 4.0);
  CHECK(percentile({7}, 90) == 7.0);
  CHECK_THROWS_AS(percentile({1}, 101), std::invalid_argument);
  const MetricStats m = metric_stats({4, 1, 3, 2});
  CHECK(m.count == 4);
  CHECK(m.mean_s == 2.5);
  CHECK(m.p90_s == Approx(3.7));  // h = 2.7
  CHECK(m.max_s == 4.0);
}

TEST_CASE("Serving: meets_slo checks the chosen percentile of TTFT and of TPOT") {
  // TTFTs 0.1, 0.2, 0.3, 1.0 s (first token at 0.1 k past arrival 0, the last at 1.0). TPOTs: request 0
  // has 1 output token (none), the others (finish - first) / (out - 1) = 0.01, 0.02, 0.05 s.
  ServingResult r;
  const double first[] = {0.1, 0.2, 0.3, 1.0};
  const double finish[] = {0.1, 0.21, 0.34, 1.1};
  const int out[] = {1, 2, 3, 3};
  for (int i = 0; i < 4; ++i) r.records.push_back({0.0, 0.0, first[i], finish[i], 10, out[i], 0});
  ServingSlo slo;
  slo.ttft_s = 0.5;
  slo.percentile = 50;  // p50 TTFT: h = 1.5 -> 0.25 <= 0.5
  CHECK(meets_slo(r, slo));
  slo.percentile = 99;  // p99 TTFT: h = 2.97 -> 0.3 + 0.97 x 0.7 = 0.979 > 0.5
  CHECK_FALSE(meets_slo(r, slo));
  slo.ttft_s.reset();
  slo.tpot_s = 0.03;
  slo.percentile = 50;  // TPOTs {0.01, 0.02, 0.05}: p50 = 0.02 <= 0.03 (request 0 does not count)
  CHECK(meets_slo(r, slo));
  slo.percentile = 90;  // h = 1.8 -> 0.02 + 0.8 x 0.03 = 0.044 > 0.03
  CHECK_FALSE(meets_slo(r, slo));
}

TEST_CASE("Serving: the SLO search finds the highest rate whose p99 TTFT meets the bound") {
  // 256-token prompts, 64 output tokens. At a full batch of 32 an iteration is 0.004 + 32 x 5e-5 =
  // 0.0056 s and each request needs 2 batch-iterations of decode plus 256 x 2e-5 = 0.005 s of prefill:
  // capacity about 1 / 0.016 = 60 requests/s, where the queue starts to grow and TTFT with it.
  const IterationCost cost = linear_cost(0.004, 2e-5, 5e-5);
  const ServingConfig config = engine(32, 2048, 1'000'000, true);
  const RequestsAtRate at = [](double rate) {
    PoissonWorkload w;
    w.rate_per_s = rate;
    w.requests = 2000;
    w.input = LengthDistribution::fixed(256);
    w.output = LengthDistribution::fixed(64);
    w.seed = 11;  // one arrival pattern, scaled by 1 / rate: meeting the SLO is monotone in the rate
    return poisson_requests(w);
  };
  ServingSlo slo;
  slo.ttft_s = 0.1;
  RateSearch search;
  search.start_rate_per_s = 8.0;
  const SloSearchResult found = max_rate_meeting_slo(at, config, cost, slo, search);
  REQUIRE(found.outcome == SloSearchOutcome::bracketed);
  CAPTURE(found.rate_per_s, found.failing_rate_per_s, found.simulations);
  CHECK(found.result.summary.ttft.p99_s <= 0.1);
  CHECK(found.failing_rate_per_s <= found.rate_per_s * 1.01);
  CHECK(found.rate_per_s > 10.0);  // well above a lone request at a time...
  CHECK(found.rate_per_s < 70.0);  // ...and not beyond the capacity estimate
  // The failing rate is at most 1% above; with the monotone pattern 1.1x must fail too, since it lies
  // above a rate already found failing.
  CHECK(simulate_serving(at(found.failing_rate_per_s), config, cost).summary.ttft.p99_s > 0.1);
  CHECK(simulate_serving(at(1.1 * found.rate_per_s), config, cost).summary.ttft.p99_s > 0.1);

  SECTION("a bound below one prefill iteration is met by no rate") {
    ServingSlo tight;
    tight.ttft_s = 0.005;  // a lone prompt alone takes 0.004 + 256 x 2e-5 = 0.00912 s
    const SloSearchResult none = max_rate_meeting_slo(at, config, cost, tight, search);
    CHECK(none.outcome == SloSearchOutcome::none_met);
    CHECK(none.rate_per_s == search.min_rate_per_s);
  }

  SECTION("a search capped below capacity meets the SLO at its maximum") {
    RateSearch capped = search;
    capped.max_rate_per_s = 10.0;
    const SloSearchResult all = max_rate_meeting_slo(at, config, cost, slo, capped);
    CHECK(all.outcome == SloSearchOutcome::all_met);
    CHECK(all.rate_per_s == 10.0);
  }
}

// ---- Prefill/decode disaggregation ----------------------------------------------------------------

namespace {

/// `base` with `prefill` prefill engines, `decode` decode engines and a KV transfer of `per_token_s`
/// seconds per prompt token.
ServingConfig disaggregated(ServingConfig base, int prefill, int decode, double per_token_s) {
  Disaggregation d;
  d.prefill_replicas = prefill;
  d.decode_replicas = decode;
  d.kv_transfer = [per_token_s](int input_len) { return per_token_s * input_len; };
  base.disaggregation = d;
  return base;
}

}  // namespace

TEST_CASE("Serving disaggregated: one request prefills, transfers its KV, then decodes") {
  // Prefill iterations cost 0.05 s, decode iterations 0.02 s; the transfer 1e-4 s per prompt token.
  std::vector<IterationShape> shapes;
  const IterationCost cost =
      recording(shapes, [](const IterationShape& s) { return s.prefill_tokens > 0 ? 0.05 : 0.02; });
  const ServingResult r =
      simulate_serving({{1.0, 100, 5}}, disaggregated(engine(8, 512, 10'000, true), 1, 1, 1e-4), cost);
  const RequestRecord& rec = r.records.at(0);
  CHECK(rec.admitted_s == 1.0);                         // the idle prefill engine starts at the arrival
  CHECK(rec.ttft_s() == Approx(0.05));                  // the first token comes from the prefill iteration
  CHECK(rec.kv_transfer_s == Approx(0.01));             // 100 tokens x 1e-4 s
  CHECK(rec.decode_admitted_s == Approx(1.05 + 0.01));  // first token + transfer; decode engine idle
  CHECK(rec.finish_s == Approx(1.06 + 4 * 0.02));       // (5 - 1) decode iterations: 1.14 s
  CHECK(rec.tpot_s().value() == Approx((1.14 - 1.05) / 4));  // 0.0225 s: the transfer is in TPOT
  CHECK(rec.replica == 0);
  CHECK(rec.decode_replica == 0);
  REQUIRE(shapes.size() == 5);  // 1 prefill + 4 decodes
  CHECK(shapes[0].prefill_tokens == 100);
  CHECK(shapes[0].decode_seqs == 0);
  CHECK(shapes[1].decode_seqs == 1);
  CHECK(shapes[1].decode_context_tokens == 100);  // the prompt is cached; the first token is the input
  CHECK(shapes[4].decode_context_tokens == 103);
  const ServingSummary& s = r.summary;
  CHECK(s.iterations == 5);
  CHECK(s.kv_transfer.mean_s == Approx(0.01));
  CHECK(s.decode_queueing.max_s == Approx(0.0).margin(1e-12));
  CHECK(s.peak_kv_reserved_tokens == 105);  // the decode engine's input + output; the prefill held 100
  // In system 0.14 s of a 0.14 s run; transferring 0.01 s of it.
  CHECK(s.mean_in_system == Approx(1.0));
  CHECK(s.mean_transferring == Approx(0.01 / 0.14));
}

TEST_CASE("Serving disaggregated: prefill engines never decode and decode engines never see prompts") {
  PoissonWorkload w;
  w.rate_per_s = 30.0;
  w.requests = 2'000;
  w.input = {16, 700};
  w.output = {1, 200};
  w.seed = 11;
  const std::vector<Request> requests = poisson_requests(w);
  std::vector<IterationShape> prefill_shapes, decode_shapes;
  ServingConfig c = disaggregated(engine(32, 1024, 40'000, true), 2, 3, 2e-6);
  c.routing = Routing::least_loaded;
  c.disaggregation->decode_routing = Routing::least_loaded;
  c.disaggregation->decode_cost = recording(decode_shapes, linear_cost(0.006, 0.0, 2e-4));
  const ServingResult r =
      simulate_serving(requests, c, recording(prefill_shapes, linear_cost(0.004, 3e-5, 0.0)));
  long long prompt_tokens = 0, decode_tokens = 0, prefill_tokens_seen = 0, decode_seqs_seen = 0;
  for (const Request& q : requests) prompt_tokens += q.input_len, decode_tokens += q.output_len - 1;
  for (const IterationShape& s : prefill_shapes) {
    CHECK(s.decode_seqs == 0);
    CHECK(s.prefill_tokens > 0);
    prefill_tokens_seen += s.prefill_tokens;
  }
  for (const IterationShape& s : decode_shapes) {
    CHECK(s.prefill_tokens == 0);
    CHECK(s.prefill_seqs == 0);
    CHECK(s.decode_seqs > 0);
    decode_seqs_seen += s.decode_seqs;
  }
  // Every prompt token is prefilled once, and every output token but the first is decoded once.
  CHECK(prefill_tokens_seen == prompt_tokens);
  CHECK(decode_seqs_seen == decode_tokens);
  CHECK(r.summary.iterations == static_cast<long long>(prefill_shapes.size() + decode_shapes.size()));
  for (const RequestRecord& rec : r.records) {
    if (rec.output_len == 1) {  // done at its prefill: never handed off
      CHECK(rec.decode_replica == -1);
      CHECK(rec.finish_s == rec.first_token_s);
      continue;
    }
    CHECK(rec.kv_transfer_s == Approx(2e-6 * rec.input_len));
    CHECK(rec.decode_admitted_s >= rec.first_token_s + rec.kv_transfer_s);
    CHECK(rec.finish_s > rec.decode_admitted_s);
  }
}

TEST_CASE("Serving disaggregated: Little's law holds with transfers and two queues") {
  PoissonWorkload w;
  w.rate_per_s = 40.0;
  w.requests = 5'000;
  w.input = {64, 512};
  w.output = {1, 256};
  w.seed = 5;
  const ServingResult r =
      simulate_serving(poisson_requests(w), disaggregated(engine(64, 4096, 30'000, true), 1, 2, 1e-4),
                       linear_cost(0.005, 2e-5, 1e-5));
  const ServingSummary& s = r.summary;
  // Over the whole run the integral of the in-system count (engine slots, both queues, transfers) equals
  // the sum of latencies: L = lambda W exactly, up to rounding.
  CHECK(s.mean_in_system == Approx(s.requests_per_s * s.latency.mean_s).epsilon(1e-9));
  // The same for the pieces, from the records: transfers, and the two queues (prefill queueing plus the
  // wait between transfer end and decode admission), each summed over all requests / duration.
  double transfer = 0.0, queues = 0.0;
  for (const RequestRecord& rec : r.records) {
    transfer += rec.kv_transfer_s;
    queues += rec.queueing_s();
    if (rec.decode_replica >= 0) queues += rec.decode_admitted_s - rec.first_token_s - rec.kv_transfer_s;
  }
  CHECK(s.mean_transferring == Approx(transfer / s.duration_s).epsilon(1e-9));
  CHECK(s.mean_in_system - s.mean_running - s.mean_transferring ==
        Approx(queues / s.duration_s).epsilon(1e-9));
  CHECK(s.mean_transferring > 0.0);
  CHECK(s.kv_transfer.count == s.decode_queueing.count);
  CHECK(s.kv_transfer.count < s.requests);  // output_len 1 requests are not transferred
}

TEST_CASE("Serving disaggregated: a decode engine admits in transfer-end order, not handoff order") {
  // KV capacity 1010: the prefill engine reserves prompts only (1000 + 10 fits), so A and B prefill
  // together in one 0.1 s iteration (1010 tokens of a 2048 budget) and both hand off at 0.1. The decode
  // engine reserves input + output (1003 + 13 = 1016 > 1010), so it holds one at a time. Transfers of
  // 1e-4 s per token: A 0.1 s, ready at 0.2; B 0.001 s, ready at 0.101. B, ready first, is admitted at
  // 0.101 and decodes twice (0.02 s each) to 0.141; A starts at its ready time 0.2 and ends at 0.24.
  // Queued in handoff (request) order instead, A would go first at 0.2 and B wait until 0.24.
  const IterationCost cost = [](const IterationShape& s) { return s.prefill_tokens > 0 ? 0.1 : 0.02; };
  const ServingResult r = simulate_serving({{0.0, 1000, 3}, {0.0, 10, 3}},
                                           disaggregated(engine(2, 2048, 1010, true), 1, 1, 1e-4), cost);
  const RequestRecord &a = r.records[0], &b = r.records[1];
  CHECK(a.first_token_s == Approx(0.1));
  CHECK(b.first_token_s == Approx(0.1));
  CHECK(b.decode_admitted_s == Approx(0.101));
  CHECK(b.finish_s == Approx(0.141));
  CHECK(a.decode_admitted_s == Approx(0.2));
  CHECK(a.finish_s == Approx(0.24));
  CHECK(r.summary.decode_queueing.max_s == Approx(0.0).margin(1e-12));  // neither waited after its transfer
}

TEST_CASE("Serving disaggregated: decode engines are routed round-robin or to the least loaded") {
  // Three requests 1 s apart, each 0.05 s of prefill, 0.01 s transfer (100 tokens x 1e-4) and 9 decodes
  // of 0.02 s. Round robin over 2 decode engines: 0, 1, 0. Least loaded: every earlier request has
  // finished (0.24 s after arrival) when the next hands off, so all tie at 0 and go to engine 0.
  const IterationCost cost = [](const IterationShape& s) { return s.prefill_tokens > 0 ? 0.05 : 0.02; };
  const std::vector<Request> requests = {{0.0, 100, 10}, {1.0, 100, 10}, {2.0, 100, 10}};
  ServingConfig c = disaggregated(engine(8, 512, 10'000, true), 1, 2, 1e-4);
  const ServingResult rr = simulate_serving(requests, c, cost);
  CHECK(rr.records[0].decode_replica == 0);
  CHECK(rr.records[1].decode_replica == 1);
  CHECK(rr.records[2].decode_replica == 0);
  c.disaggregation->decode_routing = Routing::least_loaded;
  const ServingResult ll = simulate_serving(requests, c, cost);
  for (const RequestRecord& rec : ll.records) CHECK(rec.decode_replica == 0);
  // Arriving together instead, the second finds the first still in transfer on engine 0 (routed, not
  // finished) and goes to engine 1; the third ties 1-1 and takes engine 0.
  const ServingResult busy = simulate_serving({{0.0, 100, 10}, {0.0, 100, 10}, {0.0, 100, 10}}, c, cost);
  CHECK(busy.records[0].decode_replica == 0);
  CHECK(busy.records[1].decode_replica == 1);
  CHECK(busy.records[2].decode_replica == 0);
}

TEST_CASE("Serving disaggregated: impossible configurations and requests are user errors") {
  const IterationCost cost = fixed_cost(0.01);
  const ServingConfig base = engine(4, 1024, 1000, true);
  CHECK_THROWS_WITH(simulate_serving({{0.0, 10, 5}}, disaggregated(base, 1, 0, 1e-4), cost),
                    Catch::StartsWith("serving.decode_replicas: must be at least 1"));
  CHECK_THROWS_WITH(simulate_serving({{0.0, 10, 5}}, disaggregated(base, 0, 2, 1e-4), cost),
                    Catch::StartsWith("serving.prefill_replicas: must be at least 1"));
  ServingConfig no_transfer = disaggregated(base, 1, 1, 1e-4);
  no_transfer.disaggregation->kv_transfer = nullptr;
  CHECK_THROWS_AS(simulate_serving({{0.0, 10, 5}}, no_transfer, cost), UserError);
  // 900 + 200 tokens fit no decode engine of 1000 KV tokens, though the 900-token prompt fits a prefill one.
  CHECK_THROWS_WITH(simulate_serving({{0.0, 10, 5}, {0.0, 900, 200}}, disaggregated(base, 1, 1, 1e-4), cost),
                    Catch::Contains("request 1 needs 1100 KV tokens"));
  ServingConfig whole = disaggregated(engine(4, 256, 10'000, false), 1, 1, 1e-4);
  CHECK_THROWS_WITH(simulate_serving({{0.0, 1000, 5}}, whole, cost), Catch::Contains("1000-token prompt"));
  // A negative transfer time is a cost-model bug.
  ServingConfig negative = disaggregated(base, 1, 1, -1e-4);
  CHECK_THROWS_AS(simulate_serving({{0.0, 10, 5}}, negative, cost), std::logic_error);
}
