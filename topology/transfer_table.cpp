#include "topology/transfer_table.hpp"

#include <algorithm>
#include <bit>
#include <set>
#include <stdexcept>
#include <string>

#include "sim/error.hpp"
#include "sim/variation.hpp"

namespace stepsim::topo {

std::span<const TransferPhase> TransferTable::phases(std::uint32_t payload) const {
  const TransferInfo& i = infos_[payload];
  return std::span<const TransferPhase>(phases_).subspan(i.phases_begin, i.phases_count);
}

std::span<const TransferFlow> TransferTable::flows(const TransferPhase& phase) const {
  return std::span<const TransferFlow>(flows_).subspan(phase.flows_begin, phase.flows_count);
}

std::span<const MaxMinSystem::Usage> TransferTable::solver_pattern(std::uint32_t id) const {
  return std::span<const MaxMinSystem::Usage>(solver_uses_)
      .subspan(solver_begin_[id], solver_begin_[id + 1] - solver_begin_[id]);
}

void TransferTable::index_twin_links() {
  const auto links = topo_->links();
  const std::size_t n_links = links.size(), n_patterns = pool_.size();
  // Which patterns cross each link, with what coefficient: a link's list in pattern order.
  std::vector<std::uint32_t> start(n_links + 1, 0);
  for (std::uint32_t p = 0; p < n_patterns; ++p)
    for (const LinkUse& u : pool_.uses(p)) ++start[u.link + 1];
  for (std::size_t l = 0; l < n_links; ++l) start[l + 1] += start[l];
  struct Crossing {
    std::uint32_t pattern;
    double coefficient;
    bool operator==(const Crossing&) const = default;
  };
  std::vector<Crossing> crossings(start[n_links]);
  std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
  for (std::uint32_t p = 0; p < n_patterns; ++p)
    for (const LinkUse& u : pool_.uses(p)) crossings[fill[u.link]++] = Crossing{p, u.coefficient};
  const auto crossing_span = [&](LinkId l) {
    return std::span<const Crossing>(crossings).subspan(start[l], start[l + 1] - start[l]);
  };
  // Group the crossed links by a hash of (capacity, crossings); equal hashes are compared whole.
  std::vector<std::pair<std::uint64_t, LinkId>> keyed;
  for (LinkId l = 0; l < n_links; ++l) {
    if (start[l + 1] == start[l]) continue;
    std::uint64_t h = std::bit_cast<std::uint64_t>(links[l].bw.value());
    for (const Crossing& c : crossing_span(l))
      h = sim::mix_seed(sim::mix_seed(h, c.pattern), std::bit_cast<std::uint64_t>(c.coefficient));
    keyed.emplace_back(h, l);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<LinkId> twin_of(n_links);  // per link: the lowest id of its twins
  for (LinkId l = 0; l < n_links; ++l) twin_of[l] = l;
  std::vector<LinkId> heads;  // distinct link sets within a run of equal hashes
  for (std::size_t i = 0; i < keyed.size();) {
    std::size_t end = i + 1;
    while (end < keyed.size() && keyed[end].first == keyed[i].first) ++end;
    heads.clear();
    for (std::size_t k = i; k < end; ++k) {  // increasing link id: the first of a set is its head
      const LinkId l = keyed[k].second;
      const auto twin = std::find_if(heads.begin(), heads.end(), [&](LinkId head) {
        const auto a = crossing_span(head), b = crossing_span(l);
        return links[head].bw.value() == links[l].bw.value() &&
               std::equal(a.begin(), a.end(), b.begin(), b.end());
      });
      if (twin != heads.end())
        twin_of[l] = *twin;
      else
        heads.push_back(l);
    }
    i = end;
  }
  constraint_of_.assign(n_links, MaxMinSystem::kNone);
  constraint_links_.clear();
  for (LinkId l = 0; l < n_links; ++l)
    if (twin_of[l] == l && start[l + 1] > start[l]) {
      constraint_of_[l] = static_cast<MaxMinSystem::ConstraintId>(constraint_links_.size());
      constraint_links_.push_back(l);
    }
  for (LinkId l = 0; l < n_links; ++l) constraint_of_[l] = constraint_of_[twin_of[l]];
  solver_uses_.clear();
  solver_begin_.assign(1, 0);
  for (std::uint32_t p = 0; p < n_patterns; ++p) {
    for (const LinkUse& u : pool_.uses(p))
      if (twin_of[u.link] == u.link) solver_uses_.push_back({constraint_of_[u.link], u.coefficient});
    solver_begin_.push_back(static_cast<std::uint32_t>(solver_uses_.size()));
  }
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
  if (!(r.kernel_rate_fraction >= 0.0 && r.kernel_rate_fraction <= 1.0))
    throw std::invalid_argument("kernel_rate_fraction must be in [0, 1]");
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
  std::vector<std::uint32_t> key{static_cast<std::uint32_t>(r.op),
                                 static_cast<std::uint32_t>(a),
                                 channels,
                                 r.root,
                                 static_cast<std::uint32_t>(r.groups.size()),
                                 r.communicator_ranks};
  for (const auto& g : r.groups) key.insert(key.end(), g.begin(), g.end());
  return key;
}

std::uint32_t kernel_ctas(const AlgoContext& ctx, const Plan& plan, CollectiveProtocol p, double bytes);

}  // namespace

TransferTableBuilder::TransferTableBuilder(std::shared_ptr<const Topology> topo, CommConfig config)
    : config_(config),
      table_(std::move(topo)),
      efficiency_(link_efficiency(table_.topology().spec().gpu)),
      builder_(table_.topology(), efficiency_) {}

std::uint32_t TransferTableBuilder::add(const CollectiveRequest& original) {
  const Topology& topo = table_.topology();
  validate(original, topo);
  CollectiveRequest forced;  // the job-wide algorithm or protocol applied to this request
  const bool force_algorithm = original.algorithm == CollectiveAlgorithm::automatic &&
                               config_.algorithm != CollectiveAlgorithm::automatic &&
                               implements(original.op, config_.algorithm);
  const bool force_protocol =
      original.protocol == CollectiveProtocol::automatic && config_.protocol != CollectiveProtocol::automatic;
  if (force_algorithm || force_protocol) {
    forced = original;
    if (force_algorithm) forced.algorithm = config_.algorithm;
    if (force_protocol) forced.protocol = config_.protocol;
  }
  const CollectiveRequest& request = force_algorithm || force_protocol ? forced : original;
  const double bytes = request_bytes(request);
  TransferInfo info;
  info.op = request.op;
  info.algorithm = request.algorithm;
  info.bytes = bytes;
  info.ranks = static_cast<std::uint32_t>(request.groups[0].size());
  info.groups = static_cast<std::uint32_t>(request.groups.size());
  info.communicator_ranks = request.communicator_ranks;
  info.average = request.average;
  info.phases_begin = static_cast<std::uint32_t>(table_.phases_.size());
  const auto payload = static_cast<std::uint32_t>(table_.infos_.size());
  if (info.ranks >= 2 && bytes > 0.0) {  // else nothing moves: it completes as soon as it starts
    AlgoContext ctx{topo,
                    request,
                    {},
                    1,
                    builder_,
                    table_.pool_,
                    efficiency_,
                    topo.spec().gpu.eff.nvls,
                    config_.collnet || is_collnet(request.algorithm),
                    config_.pat};
    for (const auto& g : request.groups) ctx.layouts.push_back(layout_of(topo, g));
    ctx.channels = config_.channels > 0 ? static_cast<std::uint32_t>(config_.channels)
                                        : nccl_group_channels(topo, ctx.layouts[0]);
    const auto [choice, time_s] = choose(ctx, bytes);
    info.algorithm = plans_[choice.plan].algorithm;
    info.protocol = choice.protocol;
    info.ctas = request.kernel_ctas > 0 ? request.kernel_ctas
                                        : kernel_ctas(ctx, plans_[choice.plan], info.protocol, bytes);
    info.time_alone_s = time_s;
    emit(choice, bytes);
  }
  info.phases_count = static_cast<std::uint32_t>(table_.phases_.size()) - info.phases_begin;
  table_.infos_.push_back(info);
  return payload;
}

namespace {

constexpr CollectiveProtocol kProtocols[] = {CollectiveProtocol::simple, CollectiveProtocol::ll128,
                                             CollectiveProtocol::ll};

// Channels of an algorithm as NCCL counts them for its per-channel ceilings (tuning.cc multiplies
// them by the graph's nChannels): rings as configured, one tree per NIC (a channel pair shares a
// host's representative, collective_tree.cpp), and for NVLS and NVLS-tree the NVLS graph's
// channels, one per head (a GPU with its NIC, at most NCCL_MAX_NVLS_ARITY = 32: nvls_heads), not
// the kernel's NVLS channels (transport/nvls.cc: 16 on Hopper, 24 or 32 on Blackwell), which set
// its pipeline fill (collective_nvls.cpp).
int nccl_channels(const AlgoContext& ctx, CollectiveAlgorithm a) {
  const int ch = static_cast<int>(ctx.channels);
  switch (a) {
    case CollectiveAlgorithm::tree: return std::max(1, ch / 2);
    case CollectiveAlgorithm::nvls:
    case CollectiveAlgorithm::nvls_tree: return static_cast<int>(nvls_heads(ctx.layouts[0].max_per_node));
    default: return ch;
  }
}

NcclShape shape_of(const AlgoContext& ctx, CollectiveAlgorithm a) {
  NcclShape s;
  s.op = ctx.request.op;
  s.algorithm = a;
  s.arch = ctx.topo.spec().gpu.arch;
  s.ranks = static_cast<int>(ctx.layouts[0].ranks);
  s.nodes = static_cast<int>(ctx.layouts[0].nodes.size());
  s.nvlink = ctx.topo.nvlink();
  s.channels = nccl_channels(ctx, a);
  return s;
}

// NCCL's collective channels of the group's communicator (`comm->nChannels`): the host rule over its
// ranks per node, or the graph search over a multi-host NVLink domain (stepsim's flow channels,
// ctx.channels, spread a ring over the NICs and may differ).
int communicator_channels(const AlgoContext& ctx) {
  const ClusterSpec& spec = ctx.topo.spec();
  const int local = static_cast<int>(ctx.layouts.front().max_per_node);
  int channels = nccl_comm_channels(local, spec.gpu.arch, spec.gpu.nvlink_bw.value() > 0.0);
  if (local > spec.gpus_per_node) channels = std::min(channels, nccl_mnnvl_channels(spec, local));
  return channels;
}

// The CTAs (SMs) the chosen collective's kernel holds while it runs (TransferInfo::ctas): NCCL runs a
// CTA per channel. Rings, trees, PAT and CollNet use the communicator's channels, rings, trees and
// PAT fewer for small messages (nccl_kernel_channels); NVLS and NVLS-tree their own NVLS channels.
// NCCL's point-to-point kernels (an all-to-all, a send/recv inside an NVLink domain) run on its p2p
// channels, the collective channels rounded up to a power of two (src/graph/paths.cc
// ncclTopoComputeP2pChannels; an NVLink peer may take as many, 2 per NVLink); a send/recv across
// the network takes its channels for the peer at its size (the plan's P2pChannels). DeepEP's kernels
// are not known here: 0 (their streams' own share applies).
std::uint32_t kernel_ctas(const AlgoContext& ctx, const Plan& plan, CollectiveProtocol p, double bytes) {
  switch (plan.algorithm) {
    case CollectiveAlgorithm::ring:
    case CollectiveAlgorithm::tree:
    case CollectiveAlgorithm::pat:
    case CollectiveAlgorithm::hierarchical: {
      NcclShape s = shape_of(ctx, plan.algorithm);
      s.channels = communicator_channels(ctx);
      return static_cast<std::uint32_t>(nccl_kernel_channels(s, p, bytes));
    }
    case CollectiveAlgorithm::nvls:
    case CollectiveAlgorithm::nvls_tree: {
      const GroupLayout& l = ctx.layouts.front();
      return static_cast<std::uint32_t>(
          nccl_nvls_channels(ctx, ctx.request.groups.front().front(), l.nodes.size(), l.max_per_node));
    }
    case CollectiveAlgorithm::collnet_direct:
    case CollectiveAlgorithm::collnet_chain: return static_cast<std::uint32_t>(communicator_channels(ctx));
    case CollectiveAlgorithm::pairwise:
    case CollectiveAlgorithm::direct:
      for (const PlanPhase& ph : plan.phases)  // a send/recv across the network
        if (ph.p2p.channel_Bps > 0.0) return static_cast<std::uint32_t>(ph.p2p.channels_for(bytes));
      return static_cast<std::uint32_t>(nccl_p2p_channels(communicator_channels(ctx)));
    default: return 0;
  }
}

}  // namespace

// Candidates: every (algorithm, protocol) pair allowed by the request that NCCL would run; the
// fastest on an idle network wins (ties keep table order, Simple first). NCCL ranks the same pairs
// by the same terms (ncclTopoGetAlgoTime: latency + bytes / bandwidth); stepsim's bandwidth is the
// flow model's instead of NCCL's graph-search estimate.
std::pair<TransferTableBuilder::Choice, double> TransferTableBuilder::choose(AlgoContext& ctx, double bytes) {
  const CollectiveRequest& request = ctx.request;
  const bool automatic = request.algorithm == CollectiveAlgorithm::automatic;
  const bool any_protocol = request.protocol == CollectiveProtocol::automatic;
  Choice best;
  double best_s = -1.0;
  std::string refused;
  const Strategy* unmet = nullptr;  // a forced algorithm's row that does not apply here
  bool applied = false;
  for (const Strategy& s : strategies()) {
    if (s.op != request.op || (!automatic && s.algorithm != request.algorithm)) continue;
    // Not NCCL's: stepsim's hierarchical ring and DeepEP's low-latency kernels run only when asked
    // for (a framework picks its MoE dispatcher; NCCL does not).
    if (automatic &&
        (s.algorithm == CollectiveAlgorithm::hierarchical || s.algorithm == CollectiveAlgorithm::deepep_ll))
      continue;
    if (!s.applies(ctx)) {
      if (unmet == nullptr) unmet = &s;
      continue;
    }
    applied = true;
    const NcclShape shape = shape_of(ctx, s.algorithm);
    const std::uint32_t id = plan_for(s, ctx);
    // A protocol forced for an operation NCCL does not tune (all-to-all, send/recv, broadcast)
    // does not apply to it: those run Simple.
    const bool tuned = nccl_tuned(request.op, s.algorithm);
    for (CollectiveProtocol p : kProtocols) {
      if (!any_protocol && tuned && p != request.protocol) continue;
      if (!protocol_applies(shape, p)) {
        if (!any_protocol && tuned && p == request.protocol)
          refused = std::string("protocol `") + std::string(name(p)) + "` cannot run algorithm `" +
                    std::string(name(s.algorithm)) + "`";
        continue;
      }
      Choice c{id, p, nccl_protocol_terms(shape, p), bus_bandwidth_factor(request.op, shape.ranks),
               request.kernel_rate_fraction};
      const double t = plan_time_s(c, bytes);
      if (best_s < 0.0 || t < best_s) best = c, best_s = t;
    }
  }
  if (!automatic && !applied && unmet != nullptr)
    throw UserError(std::string("algorithm `") + std::string(name(unmet->algorithm)) + "` cannot run this " +
                    std::string(name(request.op)) + ": it " + unmet->requirement);
  if (best_s < 0.0 && !refused.empty())
    throw UserError(refused + " (NVLS, NVLS-tree and CollNet run Simple only; LL128 needs NVLink)");
  if (best_s < 0.0)
    throw UserError(std::string("algorithm `") + std::string(name(request.algorithm)) +
                    "` does not implement " + std::string(name(request.op)));
  return {best, best_s};
}

// The collective's fixed cost: the kernel launch and the plan's route latencies, or NCCL's latency
// for the algorithm and protocol, or a send/recv's fixed cost across nodes, where that is larger
// (both include the launch).
double TransferTableBuilder::latency_s(const Plan& plan, const Choice& c) const {
  double route = table_.topology().spec().gpu.kernel_gap_s;
  double floor = c.terms.latency_s;
  for (const PlanPhase& ph : plan.phases) route += ph.latency_s, floor = std::max(floor, ph.p2p.fixed_s);
  return std::max(route, floor);
}

// The most unit bytes/s a variable moving `bytes_per_byte` unit bytes per request byte may run:
// the protocol's bus-bandwidth ceiling (divided by its factor), for a send/recv across the
// network its NCCL channels' at this size, and the request's kernel fraction of the rate its links
// allow on an idle network; the lowest holds, 0 = none.
double TransferTableBuilder::max_rate(const PlanVariable& v, const PlanPhase& phase, const Choice& c,
                                      double bytes) const {
  double rate = phase.p2p.ceiling_Bps(bytes) * v.bytes_per_byte;
  const auto lower = [&rate](double cap) { rate = rate > 0.0 ? std::min(rate, cap) : cap; };
  if (c.terms.busbw_ceiling_Bps > 0.0)
    lower(c.terms.busbw_ceiling_Bps / c.bus_factor * v.bytes_per_byte / c.terms.bandwidth_factor);
  if (c.kernel_rate_fraction > 0.0) {
    const double spb = table_.pool_.seconds_per_byte(v.pattern);
    if (spb > 0.0) lower(c.kernel_rate_fraction / spb);
  }
  return rate;
}

// Appends the plan's phases at this size; the fixed cost is paid once, before the first.
void TransferTableBuilder::emit(const Choice& c, double bytes) {
  const Plan& plan = plans_[c.plan];
  double later = 0.0;  // the latencies of the phases after the first
  for (std::size_t i = 1; i < plan.phases.size(); ++i) later += plan.phases[i].latency_s;
  const double first = latency_s(plan, c) - later;
  for (std::size_t i = 0; i < plan.phases.size(); ++i) {
    const PlanPhase& ph = plan.phases[i];
    const double latency = i == 0 ? first : ph.latency_s;
    const auto flows_begin = static_cast<std::uint32_t>(table_.flows_.size());
    for (const PlanVariable& v : ph.vars)
      table_.flows_.push_back(TransferFlow{v.pattern, v.bytes_per_byte * bytes / c.terms.bandwidth_factor,
                                           max_rate(v, ph, c, bytes)});
    table_.phases_.push_back(TransferPhase{from_seconds(latency + fill_s(ph, bytes, c)), flows_begin,
                                           static_cast<std::uint32_t>(ph.vars.size())});
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

namespace {
// Seconds per unit-flow byte of a variable alone: its bottleneck link, or its rate ceiling.
double seconds_per_byte(double pattern_spb, double max_rate) {
  return max_rate > 0.0 ? std::max(pattern_spb, 1.0 / max_rate) : pattern_spb;
}
}  // namespace

// A pipeline of h hops streams chunks; the fill is the h-1 (~h) chunk times before the last hop
// starts. Like NCCL, small messages use smaller chunks (at least ~h of them per channel), so the
// fill never exceeds the time of the message itself; except where NCCL keeps its chunk whatever
// the size (PlanPhase::simple_chunk_fixed): there a small message is one chunk per channel.
double TransferTableBuilder::fill_s(const PlanPhase& phase, double bytes, const Choice& c) const {
  if (phase.fill_hops <= 0.0 || phase.vars.empty()) return 0.0;
  const PlanVariable& v = phase.vars.front();
  const double per_channel = v.bytes_per_byte * bytes / c.terms.bandwidth_factor / phase.channels;
  const bool fixed = phase.simple_chunk_fixed && c.protocol == CollectiveProtocol::simple;
  double chunk = std::min(config_.chunk_bytes, fixed ? per_channel : per_channel / phase.fill_hops);
  if (phase.collnet_chain_depth > 0)
    chunk =
        std::min(per_channel, collnet_chain_chunk_bytes(bytes, phase.channels, phase.collnet_chain_depth));
  return phase.fill_hops * chunk * phase.channels *
         seconds_per_byte(table_.pool_.seconds_per_byte(v.pattern), max_rate(v, phase, c, bytes));
}

double TransferTableBuilder::plan_time_s(const Choice& c, double bytes) const {
  const Plan& plan = plans_[c.plan];
  double t = latency_s(plan, c);
  for (const PlanPhase& ph : plan.phases) {
    double slowest = 0.0;
    for (const PlanVariable& v : ph.vars)
      slowest = std::max(
          slowest, v.bytes_per_byte * bytes / c.terms.bandwidth_factor *
                       seconds_per_byte(table_.pool_.seconds_per_byte(v.pattern), max_rate(v, ph, c, bytes)));
    t += fill_s(ph, bytes, c) + slowest;
  }
  return t;
}

}  // namespace stepsim::topo
