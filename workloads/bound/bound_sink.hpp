#pragma once
// The step bound's sink (workloads/bound/step_bound.hpp): the layer emitters' kernels and collectives
// timed on one relaxed stream, as max-plus functions of when the stream is free and when the
// input is ready, plus a fingerprint of what they emit. Internal to step_bound.cpp and its test.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/bound/comm_bound.hpp"
#include "workloads/step/op_sink.hpp"
#include "workloads/step/rank_sink.hpp"

namespace stepsim::work::detail {

using Handle = OpSink::Handle;

/// 64-bit FNV-1a over the values mixed in, in order.
class Fingerprint {
 public:
  void add(std::uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h_ = (h_ ^ (v & 0xffu)) * 0x100000001b3ull;
  }
  void add(double v) { add(std::bit_cast<std::uint64_t>(v)); }
  void add(int v) { add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min() / 4;  // minus infinity

/// t + d, minus infinity staying minus infinity.
inline std::int64_t plus(std::int64_t t, std::int64_t d) {
  return t == kNone ? kNone : t + d;
}

/// A time as max(cursor + c, input + r), where `cursor` is when the rank's compute stream becomes
/// free for the segment and `input` when the segment's input is ready; kNone terms are absent.
/// Kernels and collectives only take maxima and add durations, so every time in a segment has
/// this form, and a segment is two of them: when the stream is free after it, and when its output is.
struct Lin {
  std::int64_t c = kNone, r = kNone;
  Lin plus(std::int64_t d) const { return {detail::plus(c, d), detail::plus(r, d)}; }
  Lin max(Lin o) const { return {std::max(c, o.c), std::max(r, o.r)}; }
  std::int64_t at(std::int64_t cursor, std::int64_t input) const {
    std::int64_t t = kNone;
    if (c != kNone && cursor != kNone) t = std::max(t, cursor + c);
    if (r != kNone && input != kNone) t = std::max(t, input + r);
    return t;
  }
};

/// One emitter call (a layer's forward, the head's backward, the optimizer) on one rank.
struct Segment {
  Lin stream;  ///< when the compute stream is free after its kernels
  Lin output;  ///< when its output op ends
  Time kernels{};
  Time tensor{};  ///< of which tensor-core-bound (compute-bound GEMM and attention kernels)
  std::uint64_t program = 0;
};

/// How a segment meets the step around it: whether it waits for the running output (the previous
/// segment's, or what the step received) and whether its output becomes the running one. Waiting
/// on less than the builder does only moves things earlier, which keeps the bound a bound.
enum class Feed : std::uint8_t {
  chain,  ///< input: the running output; output: the new running one (layer after layer)
  fresh,  ///< waits for nothing tracked (a loss computed long ago); its output runs on
  side,   ///< input: the running output; its output leads nowhere the step follows (a loss)
  alone,  ///< neither (a layer's recomputation, which waits only for its weights)
};

/// Where a step's stream and running output are: absolute times in picoseconds.
struct State {
  std::int64_t stream = 0;
  std::int64_t output = kNone;
  void apply(const Segment& s, Feed f) {
    const bool waits = f == Feed::chain || f == Feed::side;
    const std::int64_t in = waits ? output : kNone;
    const std::int64_t out = s.output.at(stream, in);
    stream = s.stream.at(stream, in);
    if (f == Feed::chain || f == Feed::fresh) output = out;
  }
};

/// The rank-grid part of a CommKey (shape[6..15]): sizes, expert_tp and placement strides.
CommKey grid_key(const ParallelSpec& parallel, const RankLayout& layout);
/// `grid` with the collective filled in: what it is, which rank issues it (or which stage sends it
/// and `to` receives it), its size and routing.
CommKey comm_key(CommKey grid, CollectiveKind kind, ParallelDim dim, CommScope scope, int peer_offset,
                 int rank, int to, double bytes, std::span<const double> pair_bytes = {});

/// A sink in which a rank's kernels run one after another at full speed and each collective takes
/// its CommBound (zero without one): for each op it keeps, as a Lin, the earliest it can end.
class BoundSink final : public OpSink {
 public:
  /// `groups` gives the collectives' groups (built only for requests `comm` has not seen);
  /// `grid` is grid_key of the job.
  BoundSink(const topo::GpuSpec& gpu, StepAssembler& groups, CommBound* comm, CommKey grid)
      : gpu_(gpu), groups_(groups), comm_(comm), grid_(std::move(grid)) {}

  /// Runs `emit(sink, input)` as a fresh segment of global rank `rank`; `input` stands for what
  /// the builder passes in, `emit` returns the output op.
  template <class Emit>
  Segment segment(int rank, Emit emit) {
    rank_ = rank;
    ops_.clear();
    cursor_ = Lin{0, kNone};
    kernels_ = Time::zero();
    tensor_ = Time::zero();
    fp_ = Fingerprint{};
    ops_.push_back(Lin{kNone, 0});
    const Handle out = emit(*this, Handle{0});
    Segment s;
    s.stream = cursor_;
    s.output = out.valid() ? ops_.at(out.id) : Lin{};
    s.kernels = kernels_;
    s.tensor = tensor_;
    s.program = fp_.value();
    return s;
  }

 protected:
  Handle emit_kernel(std::string_view, const topo::KernelWork& w, std::span<const Handle> deps) override;
  Handle emit_comm(std::string_view, const CommOp& c, std::span<const Handle> deps) override;
  void on_host_sync(Handle op, std::string_view) override {
    fp_.add(3);
    fp_.add(static_cast<std::uint64_t>(op.id));
  }
  void on_balanced_kernel(Handle op, const topo::KernelWork& w) override {
    fp_.add(4);
    fp_.add(static_cast<std::uint64_t>(op.id));
    fp_.add(w.flops.value());
    fp_.add(w.hbm_bytes.value());
  }
  void on_balanced_comm(Handle op, const CommOp& c) override {
    fp_.add(5);
    fp_.add(static_cast<std::uint64_t>(op.id));
    fp_.add(c.bytes);
    for (double v : c.pair_bytes) fp_.add(v);
  }

 private:
  Lin after(std::span<const Handle> deps) {
    Lin r;
    for (const Handle d : deps) {
      if (!d.valid()) continue;
      r = r.max(ops_.at(d.id));
      fp_.add(static_cast<std::uint64_t>(ops_.size() - d.id));  // dependencies, relative
    }
    return r;
  }
  Handle push(Lin t) {
    ops_.push_back(t);
    return Handle{static_cast<std::uint32_t>(ops_.size() - 1)};
  }

  const topo::GpuSpec& gpu_;
  StepAssembler& groups_;
  CommBound* comm_;
  CommKey grid_;
  int rank_ = 0;
  std::vector<Lin> ops_;
  Lin cursor_;
  Time kernels_{};
  Time tensor_{};
  Fingerprint fp_;
};

/// A schedule step: its segments in stream order, each with how it is fed.
struct StepCost {
  std::vector<std::pair<const Segment*, Feed>> parts;
  Time kernels{};
  Time tensor{};
  Fingerprint program;
  void then(const Segment& s, Feed f = Feed::chain) {
    parts.emplace_back(&s, f);
    kernels += s.kernels;
    tensor += s.tensor;
    program.add(s.program);
    program.add(static_cast<int>(f));
  }
  /// Runs the step from a stream free at `stream` and an input ready at `input`.
  State run(std::int64_t stream, std::int64_t input) const {
    State st{stream, input};
    for (const auto& [s, f] : parts) st.apply(*s, f);
    return st;
  }
};

/// The builder's planner is not needed to know a rank's groups.
class NoPlanner final : public CommPlanner {
 public:
  std::uint32_t plan(const CommRequest&) override { throw std::logic_error("step bound: nothing to plan"); }
  std::unique_ptr<sim::Network> make_network() override { throw std::logic_error("step bound: no network"); }
};

}  // namespace stepsim::work::detail
