#include "workloads/layout/placement.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "sim/error.hpp"

namespace stepsim::work {

namespace {

// The four dimensions that multiply to the world size, indexed tp=0, cp=1, pp=2, dp=3.
constexpr std::array<ParallelDim, 4> kWorldDims{ParallelDim::tp, ParallelDim::cp, ParallelDim::pp,
                                                ParallelDim::dp};

int index_of(ParallelDim d) {
  for (std::size_t i = 0; i < kWorldDims.size(); ++i)
    if (kWorldDims[i] == d) return static_cast<int>(i);
  return -1;  // ep: not a world dimension (carved out of dp x cp)
}

struct WorldLayout {
  std::array<long long, 4> size{};
  std::array<long long, 4> stride{};
};

WorldLayout layout_of(const ParallelSpec& par) {
  WorldLayout l;
  l.size = {par.tp, par.cp, par.pp, par.dp};
  // The user's order first (ep skipped, repeats ignored), then any missing dimension in Megatron's.
  std::vector<int> order;
  auto add = [&](ParallelDim d) {
    const int i = index_of(d);
    if (i >= 0 && std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  };
  for (ParallelDim d : par.order) add(d);
  for (ParallelDim d : kWorldDims) add(d);
  long long stride = 1;
  for (int i : order) {
    l.stride[i] = stride;
    stride *= l.size[i];
  }
  return l;
}

/// A dense id (in [0, world)) of the group of `g` that rank `r` belongs to; ranks with equal ids
/// share a group.
long long group_key(const WorldLayout& l, const ParallelSpec& par, RankGroup g, long long r) {
  std::array<long long, 4> c{};
  for (int i = 0; i < 4; ++i) c[i] = (r / l.stride[i]) % l.size[i];
  auto without = [&](std::initializer_list<int> dims) {
    long long key = r;
    for (int i : dims) key -= c[i] * l.stride[i];
    return key;
  };
  // Megatron-Core's expert layout: the stage's tp x cp x dp ranks in ascending rank order (drop the
  // pp digit) are expert_tp (innermost) x ep x expert_dp. Keys are dense: < world / group size.
  const long long i = r % l.stride[2] + r / (l.stride[2] * l.size[2]) * l.stride[2];
  const long long etp = par.expert_tp, ep = par.ep;
  const long long etp_i = i % etp, ep_i = i / etp % ep, edp_i = i / (etp * ep);
  const long long edp = l.size[0] * l.size[1] * l.size[3] / (etp * ep);
  switch (g) {
    case RankGroup::tp: return without({0});
    case RankGroup::cp: return without({1});
    case RankGroup::pp: return without({2});
    case RankGroup::dp: return without({3});
    case RankGroup::dp_cp: return without({1, 3});
    case RankGroup::ep: return (c[2] * etp + etp_i) * edp + edp_i;
    case RankGroup::expert_dp: return (c[2] * etp + etp_i) * ep + ep_i;
  }
  return r;
}

int group_size(const ParallelSpec& par, RankGroup g) {
  switch (g) {
    case RankGroup::tp: return par.tp;
    case RankGroup::cp: return par.cp;
    case RankGroup::pp: return par.pp;
    case RankGroup::dp: return par.dp;
    case RankGroup::dp_cp: return par.dp * par.cp;
    case RankGroup::ep: return par.ep;
    case RankGroup::expert_dp: return par.expert_dp();
  }
  return 1;
}

}  // namespace

GroupPlacement place(const ParallelSpec& par, RankGroup group, int domain_size) {
  const int stage_ranks = par.tp * par.cp * par.dp;
  if (par.ep < 1 || par.expert_tp < 1 || stage_ranks % (par.ep * par.expert_tp) != 0)
    throw UserError("parallelism.ep x expert_tp = " + std::to_string(par.ep) + " x " + std::to_string(par.expert_tp) +
                    " must divide tp x cp x dp = " + std::to_string(stage_ranks) +
                    " (experts are spread over the ranks of each pipeline stage)");
  const WorldLayout l = layout_of(par);
  const long long world = par.world();
  const long long domain = std::max(1, domain_size);
  GroupPlacement p;
  p.size = group_size(par, group);
  p.per_domain = p.size;
  // One pass, domain by domain (ranks are numbered domain-major): count each group's members in
  // the domain, then fold the counts into the group's totals. Linear in the GPU count, no maps.
  std::vector<int> members(static_cast<std::size_t>(world), 0);
  std::vector<int> domains(static_cast<std::size_t>(world), 0);
  std::vector<long long> touched;
  for (long long first = 0; first < world; first += domain) {
    touched.clear();
    for (long long r = first; r < std::min(world, first + domain); ++r) {
      const auto key = static_cast<std::size_t>(group_key(l, par, group, r));
      if (members[key]++ == 0) touched.push_back(static_cast<long long>(key));
    }
    for (long long key : touched) {
      auto& count = members[static_cast<std::size_t>(key)];
      p.per_domain = std::min(p.per_domain, count);
      p.domains = std::max(p.domains, ++domains[static_cast<std::size_t>(key)]);
      count = 0;
    }
  }
  return p;
}

std::string_view name(RankGroup g) {
  switch (g) {
    case RankGroup::tp: return "tp";
    case RankGroup::cp: return "cp";
    case RankGroup::pp: return "pp";
    case RankGroup::dp: return "dp";
    case RankGroup::dp_cp: return "dp_cp";
    case RankGroup::ep: return "ep";
    case RankGroup::expert_dp: return "expert_dp";
  }
  return "unknown";
}

}  // namespace stepsim::work
