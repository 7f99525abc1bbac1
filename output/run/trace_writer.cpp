// Chrome trace-event JSON, formatted by hand with fmt so that the bytes are fixed: times in
// microseconds with nanosecond decimals from integer nanoseconds, figures in shortest round-trip
// form, keys in a fixed order.
#include "output/run/trace_writer.hpp"

#include <fmt/format.h>

#include <cmath>

#include "workloads/model/names.hpp"

namespace stepsim::out {
namespace {

constexpr std::size_t kFlushBytes = 1 << 20;
constexpr int kLanesPerGpu = 64;  // thread id = gpu x 64 + lane; ranks have far fewer streams

/// Nanoseconds, rounded, from picoseconds.
std::int64_t ns_of(Time t) {
  return (t.count() + 500) / 1000;
}
std::int64_t ns_of_seconds(double s) {
  return std::llround(s * 1e9);
}

/// Microseconds with three decimals, exactly.
void append_us(std::string& b, std::int64_t ns) {
  const char* sign = ns < 0 ? "-" : "";
  const std::int64_t a = ns < 0 ? -ns : ns;
  fmt::format_to(std::back_inserter(b), "{}{}.{:03}", sign, a / 1000, a % 1000);
}

void append_escaped(std::string& b, std::string_view s) {
  for (const char c : s) {
    switch (c) {
      case '"': b += "\\\""; break;
      case '\\': b += "\\\\"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          fmt::format_to(std::back_inserter(b), "\\u{:04x}", static_cast<unsigned>(c));
        else
          b += c;
    }
  }
}

std::string_view pass_tag(work::Pass p) {
  switch (p) {
    case work::Pass::forward: return "fwd";
    case work::Pass::backward: return "bwd";
    case work::Pass::recompute: return "recompute";
    case work::Pass::optimizer: return "optimizer";
  }
  return "?";
}

std::string_view kind_name(sim::OpKind k) {
  switch (k) {
    case sim::OpKind::compute: return "compute";
    case sim::OpKind::memory: return "memory";
    case sim::OpKind::transfer: return "transfer";
    case sim::OpKind::delay: return "delay";
  }
  return "?";
}

/// Process ids: 1 is the network's counters (sorted first), node n is n + 2. Perfetto reads pid 0
/// as the kernel's idle task in system traces, so it stays unused.
constexpr int kNetworkPid = 1;
/// The critical path's own process and thread: a pid no node reaches, sorted before the nodes.
constexpr std::int64_t kCriticalPid = 0x7fffffff;
int pid_of(int node) {
  return node + 2;
}

std::int64_t tid_of(const RankRow& r, const LaneRow& l) {
  return static_cast<std::int64_t>(r.gpu) * kLanesPerGpu + l.lane;
}

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(std::ostream& out, const work::Simulation& s, TraceMeta meta)
    : out_(out), sim_(s), meta_(std::move(meta)) {
  buf_.reserve(kFlushBytes + 4096);
}

ChromeTraceWriter::~ChromeTraceWriter() {
  flush_all();
}

void ChromeTraceWriter::flush_if_full() {
  if (buf_.size() >= kFlushBytes) flush_all();
}

void ChromeTraceWriter::flush_all() {
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

void ChromeTraceWriter::event_begin() {
  buf_ += events_++ ? ",\n{" : "\n{";
}

void ChromeTraceWriter::begin(const StepLayout& layout) {
  write_other_data(layout);
  buf_ += ",\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  name_tracks(layout);
  flush_if_full();
}

// What the trace covers and what it left out, for the reader of the file.
void ChromeTraceWriter::write_other_data(const StepLayout& layout) {
  auto o = std::back_inserter(buf_);
  buf_ += "{\"otherData\":{\"generator\":\"stepsim ";
  append_escaped(buf_, meta_.version);
  buf_ += "\",\"scenario\":\"";
  append_escaped(buf_, meta_.scenario);
  fmt::format_to(
      o,
      "\",\"gpus\":{},\"simulated_ranks\":{},\"traced_ranks\":{},\"ops_total\":{},\"ops_traced\":{},"
      "\"left_out\":\"",
      sim_.plan.world, layout.simulated_ranks, layout.ranks.size(), layout.ops_total, layout.ops_selected);
  const bool cut = layout.ranks.size() < layout.simulated_ranks;
  if (cut)
    fmt::format_to(o, "{} of {} simulated ranks and their {} ops (select with --trace-ranks)",
                   layout.simulated_ranks - layout.ranks.size(), layout.simulated_ranks,
                   layout.ops_total - layout.ops_selected);
  if (static_cast<std::size_t>(sim_.plan.world) > layout.simulated_ranks)
    fmt::format_to(o, "{}{} ranks not simulated: they mirror the simulated ones (representative ranks)",
                   cut ? "; " : "", sim_.plan.world - static_cast<int>(layout.simulated_ranks));
  buf_ += "\"}";
}

// Process names per node and thread names per stream, sorted as the ranks and streams are.
void ChromeTraceWriter::name_tracks(const StepLayout& layout) {
  auto o = std::back_inserter(buf_);
  int last_node = -1;
  for (const RankRow& r : layout.ranks) {
    const int pid = pid_of(r.node);
    if (r.node != last_node) {
      last_node = r.node;
      event_begin();
      fmt::format_to(o,
                     "\"ph\":\"M\",\"pid\":{},\"name\":\"process_name\",\"args\":{{\"name\":\"node {}\"}}}}",
                     pid, r.node);
      event_begin();
      fmt::format_to(
          o, "\"ph\":\"M\",\"pid\":{},\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":{}}}}}", pid,
          pid);
    }
    for (const LaneRow& l : r.lanes) {
      event_begin();
      fmt::format_to(
          o, "\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":\"gpu{} ", pid,
          tid_of(r, l), r.gpu);
      append_escaped(buf_, l.name);
      fmt::format_to(o, " (stage {})\"}}}}", r.stage);
      event_begin();
      fmt::format_to(o,
                     "\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"thread_sort_index\",\"args\":{{\"sort_"
                     "index\":{}}}}}",
                     pid, tid_of(r, l), tid_of(r, l));
    }
  }
}

// `"ph":"X",...,"name":"<label>` of a complete event; the caller closes the name and adds the rest.
void ChromeTraceWriter::slice_head(const RankRow& rank, const LaneRow& lane, const OpRow& row) {
  const std::int64_t start = ns_of(row.start);
  event_begin();
  fmt::format_to(std::back_inserter(buf_), "\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":", pid_of(rank.node),
                 tid_of(rank, lane));
  append_us(buf_, start);
  buf_ += ",\"dur\":";
  append_us(buf_, ns_of(row.end) - start);
  buf_ += ",\"name\":\"";
  append_escaped(buf_, row.label);
}

// The critical path twice: as a track of its own, every op on it (the selected ranks' and the
// others') and the idle waits between them, so that the path reads left to right; and as flow
// arrows (trace-event flow v2: bind_id, flow_in, flow_out on the ops' own events) between
// consecutive ops of the path that the trace shows. A chain breaks where the path passes through
// a rank the trace leaves out, and where two ops start in the same instant in an order the
// trace's op-id order would reverse (viewers sort events by time, then by their place in the file).
void ChromeTraceWriter::critical_path(const std::vector<CriticalStep>& path) {
  auto o = std::back_inserter(buf_);
  event_begin();
  fmt::format_to(
      o, "\"ph\":\"M\",\"pid\":{},\"name\":\"process_name\",\"args\":{{\"name\":\"critical path\"}}}}",
      kCriticalPid);
  event_begin();
  fmt::format_to(o,
                 "\"ph\":\"M\",\"pid\":{},\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":-1}}}}",
                 kCriticalPid);
  event_begin();
  fmt::format_to(
      o,
      "\"ph\":\"M\",\"pid\":{0},\"tid\":{0},\"name\":\"thread_name\",\"args\":{{\"name\":\"critical "
      "path ({1} ops)\"}}}}",
      kCriticalPid, path.size());
  std::uint32_t chain = 0;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const CriticalStep& c = path[i];
    if (c.wait > Time{}) {
      event_begin();
      fmt::format_to(o, "\"ph\":\"X\",\"pid\":{0},\"tid\":{0},\"ts\":", kCriticalPid);
      append_us(buf_, ns_of(c.start - c.wait));
      buf_ += ",\"dur\":";
      append_us(buf_, ns_of(c.start) - ns_of(c.start - c.wait));
      buf_ +=
          ",\"name\":\"idle (waiting on a "
          "dependency)\",\"cat\":\"critical.wait\",\"args\":{\"bound\":\"dependency\"}}";
    }
    event_begin();
    fmt::format_to(o, "\"ph\":\"X\",\"pid\":{0},\"tid\":{0},\"ts\":", kCriticalPid);
    append_us(buf_, ns_of(c.start));
    buf_ += ",\"dur\":";
    append_us(buf_, ns_of(c.end) - ns_of(c.start));
    buf_ += ",\"name\":\"";
    append_escaped(buf_, c.label);
    fmt::format_to(
        o,
        "\",\"cat\":\"critical\",\"args\":{{\"step\":{},\"copy_of\":{},\"gpu\":{},\"class\":\"{}\","
        "\"bound\":\"{}\","
        "\"traced\":{}}}}}",
        i, c.op, c.gpu, name(c.category), topo::name(c.bound), c.selected ? "true" : "false");
    if (!c.selected) continue;
    const CriticalStep* prev = i > 0 ? &path[i - 1] : nullptr;
    const bool linked = prev != nullptr && prev->selected &&
                        (prev->start < c.start || (prev->start == c.start && prev->op < c.op));
    if (linked) {
      flows_[prev->op].out = true;
      flows_[c.op] = Flow{chain, true, false};
    } else {
      flows_[c.op] = Flow{++chain, false, false};
    }
    flush_if_full();
  }
  // Ops that neither start nor end an arrow carry no flow.
  std::erase_if(flows_, [](const auto& f) { return !f.second.in && !f.second.out; });
  flush_if_full();
}

void ChromeTraceWriter::op(const OpRow& row) {
  auto o = std::back_inserter(buf_);
  const work::OpInfo& info = *row.info;
  slice_head(*row.rank, *row.lane, row);
  if (info.is_comm)
    fmt::format_to(
        o, "\",\"cat\":\"comm.{}\",\"args\":{{\"op\":{},\"class\":\"{}\",\"group\":\"{}\",\"bytes\":{}",
        work::name(info.comm_dim), row.op, name(category_of(row)), work::name(info.comm_dim), row.bytes);
  else
    fmt::format_to(o, "\",\"cat\":\"{}\",\"args\":{{\"op\":{},\"class\":\"{}\",\"flops\":{},\"hbm_bytes\":{}",
                   pass_tag(info.pass), row.op, name(category_of(row)), row.flops, row.bytes);
  fmt::format_to(o, ",\"bound\":\"{}\"", topo::name(row.bound));
  // Kernels and transfers are told apart by the category; other kinds say what they are.
  if (row.kind == sim::OpKind::memory || row.kind == sim::OpKind::delay)
    fmt::format_to(o, ",\"kind\":\"{}\"", kind_name(row.kind));
  if (info.layer >= 0) fmt::format_to(o, ",\"layer\":{}", info.layer);
  if (info.microbatch >= 0) fmt::format_to(o, ",\"microbatch\":{}", info.microbatch);
  if (!row.also_on.empty()) {
    buf_ += ",\"also_on\":\"";
    for (std::size_t i = 0; i < row.also_on.size() && i < 8; ++i) {
      if (i) buf_ += ' ';
      append_escaped(buf_, row.also_on[i]);
    }
    if (row.also_on.size() > 8) fmt::format_to(o, " and {} more", row.also_on.size() - 8);
    buf_ += '"';
  }
  buf_ += '}';
  if (const auto f = flows_.find(row.op); f != flows_.end()) {
    fmt::format_to(o, ",\"bind_id\":{}", f->second.id);
    if (f->second.in) buf_ += ",\"flow_in\":true";
    if (f->second.out) buf_ += ",\"flow_out\":true";
  }
  buf_ += '}';
  // The op also occupies these traced streams (a collective's other members, a send's receiver):
  // draw it there as well, marked as a copy so that each op id has one primary event.
  for (const auto& [rank, lane] : row.peer_lanes) {
    slice_head(*rank, *lane, row);
    fmt::format_to(o, "\",\"cat\":\"{}\",\"args\":{{\"copy_of\":{}}}}}", info.is_comm ? "comm.copy" : "copy",
                   row.op);
  }
  flush_if_full();
}

// A rank's memory often changes several times in one instant (a free, then an allocation); a
// counter shows one value per instant, so only the last of a run of equal times is written.
void ChromeTraceWriter::memory(const MemoryRow& row) {
  if (pending_memory_ && (pending_memory_->rank != row.rank || pending_memory_->time_s != row.time_s))
    write_memory(*pending_memory_);
  pending_memory_ = row;
}

void ChromeTraceWriter::write_memory(const MemoryRow& row) {
  auto o = std::back_inserter(buf_);
  event_begin();
  fmt::format_to(o, "\"ph\":\"C\",\"pid\":{},\"name\":\"gpu{} memory\",\"ts\":", pid_of(row.rank->node),
                 row.rank->gpu);
  append_us(buf_, ns_of_seconds(row.time_s));
  fmt::format_to(o, ",\"args\":{{\"GB\":{:.4f}}}}}", row.bytes / 1e9);
  flush_if_full();
}

void ChromeTraceWriter::flush_memory() {
  if (pending_memory_) write_memory(*pending_memory_);
  pending_memory_.reset();
}

void ChromeTraceWriter::tier_load(const TierLoad& row) {
  flush_memory();
  auto o = std::back_inserter(buf_);
  if (!network_named_) {
    network_named_ = true;
    event_begin();
    fmt::format_to(o,
                   "\"ph\":\"M\",\"pid\":{},\"name\":\"process_name\",\"args\":{{\"name\":\"network (link "
                   "utilisation per tier)\"}}}}",
                   kNetworkPid);
    event_begin();
    fmt::format_to(o,
                   "\"ph\":\"M\",\"pid\":{},\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":0}}}}",
                   kNetworkPid);
  }
  event_begin();
  fmt::format_to(o, "\"ph\":\"C\",\"pid\":{},\"name\":\"{} utilisation\",\"ts\":", kNetworkPid,
                 topo::name(row.tier));
  append_us(buf_, ns_of(row.time));
  fmt::format_to(o, ",\"args\":{{\"all links %\":{:.3f},\"links in use %\":{:.3f}}}}}", 100.0 * row.mean,
                 100.0 * row.in_use);
  flush_if_full();
}

void ChromeTraceWriter::end() {
  flush_memory();
  buf_ += "\n]}\n";
  flush_all();
  out_.flush();
}

void write_chrome_trace(std::ostream& out, const work::Simulation& s, const StepLayout& layout,
                        const TraceMeta& meta) {
  ChromeTraceWriter w(out, s, meta);
  emit_step(s, layout, w);
}

}  // namespace stepsim::out
