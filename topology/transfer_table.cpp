#include "topology/transfer_table.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "sim/error.hpp"

namespace stepsim::topo {

std::span<const TransferPhase> TransferTable::phases(std::uint32_t payload) const {
  const TransferInfo& i = infos_[payload];
  return std::span<const TransferPhase>(phases_).subspan(i.phases_begin, i.phases_count);
}

std::span<const TransferFlow> TransferTable::flows(const TransferPhase& phase) const {
  return std::span<const TransferFlow>(flows_).subspan(phase.flows_begin, phase.flows_count);
}

namespace {

// Protocol efficiency by link kind, from the GPU's catalog figures: NVLink at the NVLink figure,
// everything a NIC's DMA traffic crosses (PCIe, NIC, fabric) at the NIC figure.
std::array<double, kLinkKindCount> link_efficiency(const GpuSpec& gpu) {
  std::array<double, kLinkKindCount> e{};
  e.fill(gpu.eff.nic > 0.0 ? gpu.eff.nic : 1.0);
  e[static_cast<std::size_t>(LinkKind::nvlink)] = gpu.eff.nvlink > 0.0 ? gpu.eff.nvlink : 1.0;
  return e;
}

void validate(const CollectiveRequest& r, const Topology& topo) {
  if (r.groups.empty() || r.groups[0].empty())
    throw std::invalid_argument("collective request without ranks");
  const std::size_t p = r.groups[0].size();
  for (const auto& g : r.groups) {
    if (g.size() != p) throw std::invalid_argument("collective groups differ in size");
    std::set<GpuId> seen;
    for (GpuId gpu : g) {
      if (gpu >= topo.gpu_count())
        throw std::invalid_argument("collective rank gpu" + std::to_string(gpu) + " is not in the cluster");
      if (!seen.insert(gpu).second) throw std::invalid_argument("collective group repeats a rank");
    }
  }
  if (r.op == CollectiveOp::broadcast && r.root >= p)
    throw std::invalid_argument("broadcast root out of range");
  if (!r.pair_bytes.empty()) {
    if (r.op != CollectiveOp::all_to_all || r.pair_bytes.size() != p * p)
      throw std::invalid_argument("pair_bytes must be a p x p matrix of an all-to-all");
    for (double b : r.pair_bytes)
      if (!(b >= 0.0)) throw std::invalid_argument("pair_bytes must be non-negative");
  }
}

double request_bytes(const CollectiveRequest& r) {
  if (r.pair_bytes.empty()) return r.bytes;
  double total = 0.0;
  for (double b : r.pair_bytes) total += b;
  return total / static_cast<double>(r.groups[0].size());
}

// Plans do not depend on the size, so they are shared by every request with the same groups.
std::vector<std::uint32_t> plan_key(const CollectiveRequest& r, CollectiveAlgorithm a,
                                    std::uint32_t channels) {
  std::vector<std::uint32_t> key{static_cast<std::uint32_t>(r.op), static_cast<std::uint32_t>(a), channels,
                                 r.root, static_cast<std::uint32_t>(r.groups.size())};
  for (const auto& g : r.groups) key.insert(key.end(), g.begin(), g.end());
  return key;
}

}  // namespace

TransferTableBuilder::TransferTableBuilder(std::shared_ptr<const Topology> topo, CommConfig config)
    : config_(config),
      table_(std::move(topo)),
      efficiency_(link_efficiency(table_.topology().spec().gpu)),
      builder_(table_.topology(), efficiency_) {}

std::uint32_t TransferTableBuilder::add(const CollectiveRequest& request) {
  const Topology& topo = table_.topology();
  validate(request, topo);
  const double bytes = request_bytes(request);
  TransferInfo info;
  info.op = request.op;
  info.algorithm = request.algorithm;
  info.bytes = bytes;
  info.ranks = static_cast<std::uint32_t>(request.groups[0].size());
  info.groups = static_cast<std::uint32_t>(request.groups.size());
  info.phases_begin = static_cast<std::uint32_t>(table_.phases_.size());
  const auto payload = static_cast<std::uint32_t>(table_.infos_.size());
  if (info.ranks >= 2 && bytes > 0.0) {  // else nothing moves: it completes as soon as it starts
    AlgoContext ctx{topo, request, {}, 1, builder_, table_.pool_, efficiency_, topo.spec().gpu.eff.nvls};
    for (const auto& g : request.groups) ctx.layouts.push_back(layout_of(topo, g));
    ctx.channels = config_.channels > 0 ? static_cast<std::uint32_t>(config_.channels)
                                        : static_cast<std::uint32_t>(2 * ctx.layouts[0].max_per_host);
    const auto [plan, time_s] = choose(ctx, bytes);
    info.algorithm = plans_[plan].algorithm;
    info.time_alone_s = time_s;
    emit(plans_[plan], bytes);
  }
  info.phases_count = static_cast<std::uint32_t>(table_.phases_.size()) - info.phases_begin;
  table_.infos_.push_back(info);
  return payload;
}

// Candidates: the forced algorithm, or every applicable one; the fastest alone wins (ties keep
// table order).
std::pair<std::uint32_t, double> TransferTableBuilder::choose(AlgoContext& ctx, double bytes) {
  const CollectiveRequest& request = ctx.request;
  const bool automatic = request.algorithm == CollectiveAlgorithm::automatic;
  std::uint32_t best = 0;  // index into plans_ (which may grow while candidates are built)
  double best_s = -1.0;
  for (const Strategy& s : strategies()) {
    if (s.op != request.op || (!automatic && s.algorithm != request.algorithm)) continue;
    if (!s.applies(ctx)) {
      if (automatic) continue;
      throw UserError(std::string("algorithm `") + std::string(name(s.algorithm)) + "` cannot run this " +
                      std::string(name(request.op)) + ": it " + s.requirement);
    }
    const std::uint32_t id = plan_for(s, ctx);
    const double t = plan_time_s(plans_[id], bytes);
    if (best_s < 0.0 || t < best_s) best = id, best_s = t;
  }
  if (best_s < 0.0)
    throw UserError(std::string("algorithm `") + std::string(name(request.algorithm)) +
                    "` does not implement " + std::string(name(request.op)));
  return {best, best_s};
}

// Appends the plan's phases at this size; the kernel launch is paid once, before the first.
void TransferTableBuilder::emit(const Plan& plan, double bytes) {
  for (std::size_t i = 0; i < plan.phases.size(); ++i) {
    const PlanPhase& ph = plan.phases[i];
    const double launch = i == 0 ? table_.topology().spec().gpu.kernel_gap_s : 0.0;
    const auto flows_begin = static_cast<std::uint32_t>(table_.flows_.size());
    for (const PlanVariable& v : ph.vars)
      table_.flows_.push_back(TransferFlow{v.pattern, v.bytes_per_byte * bytes});
    table_.phases_.push_back(TransferPhase{from_seconds(launch + ph.latency_s + fill_s(ph, bytes)),
                                           flows_begin, static_cast<std::uint32_t>(ph.vars.size())});
  }
}

std::uint32_t TransferTableBuilder::plan_for(const Strategy& s, AlgoContext& ctx) {
  const bool cacheable = ctx.request.pair_bytes.empty();
  std::vector<std::uint32_t> key;
  if (cacheable) {
    key = plan_key(ctx.request, s.algorithm, ctx.channels);
    const auto it = plan_index_.find(key);
    if (it != plan_index_.end()) return it->second;
  }
  plans_.push_back(s.build(ctx));
  const auto id = static_cast<std::uint32_t>(plans_.size() - 1);
  if (cacheable) plan_index_.emplace(std::move(key), id);
  return id;
}

// A pipeline of h hops streams chunks; the fill is the h-1 (~h) chunk times before the last hop
// starts. Like NCCL, small messages use smaller chunks (at least ~h of them per channel), so the
// fill never exceeds the time of the message itself.
double TransferTableBuilder::fill_s(const PlanPhase& phase, double bytes) const {
  if (phase.fill_hops <= 0.0 || phase.vars.empty()) return 0.0;
  const PlanVariable& v = phase.vars.front();
  const double per_channel = v.bytes_per_byte * bytes / phase.channels;
  const double chunk = std::min(config_.chunk_bytes, per_channel / phase.fill_hops);
  return phase.fill_hops * chunk * phase.channels * table_.pool_.seconds_per_byte(v.pattern);
}

double TransferTableBuilder::plan_time_s(const Plan& plan, double bytes) const {
  double t = table_.topology().spec().gpu.kernel_gap_s;
  for (const PlanPhase& ph : plan.phases) {
    double slowest = 0.0;
    for (const PlanVariable& v : ph.vars)
      slowest = std::max(slowest, v.bytes_per_byte * bytes * table_.pool_.seconds_per_byte(v.pattern));
    t += ph.latency_s + fill_s(ph, bytes) + slowest;
  }
  return t;
}

}  // namespace stepsim::topo
