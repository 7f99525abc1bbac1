#include "workloads/layout/rank_layout.hpp"

#include <algorithm>
#include <string>

#include "sim/error.hpp"
#include "workloads/model/names.hpp"

namespace stepsim::work {
namespace {
constexpr std::size_t idx(ParallelDim d) { return static_cast<std::size_t>(d); }
constexpr ParallelDim kPlaced[] = {ParallelDim::tp, ParallelDim::cp, ParallelDim::pp, ParallelDim::dp};
}  // namespace

RankLayout::RankLayout(const ParallelSpec& p) : ep_(p.ep), expert_tp_(p.expert_tp) {
  size_[idx(ParallelDim::tp)] = p.tp;
  size_[idx(ParallelDim::cp)] = p.cp;
  size_[idx(ParallelDim::pp)] = p.pp;
  size_[idx(ParallelDim::dp)] = p.dp;
  size_[idx(ParallelDim::ep)] = p.ep;
  std::vector<ParallelDim> order;
  for (ParallelDim d : p.order)
    if (d != ParallelDim::ep) order.push_back(d);
  for (ParallelDim d : kPlaced) {
    if (std::count(order.begin(), order.end(), d) != 1)
      throw UserError("parallelism.order must name tp, cp, pp and dp exactly once each; `" +
                      std::string(name(d)) + "` appears " +
                      std::to_string(std::count(order.begin(), order.end(), d)) + " times");
  }
  int stride = 1;
  for (ParallelDim d : order) {
    if (size_[idx(d)] < 1) throw UserError("parallelism." + std::string(name(d)) + " must be >= 1");
    stride_[idx(d)] = stride;
    stride *= size_[idx(d)];
  }
  world_ = stride;
  stride_[idx(ParallelDim::ep)] = stride_[idx(ParallelDim::dp)];
  const int stage_ranks = p.tp * p.cp * p.dp;
  if (ep_ < 1 || expert_tp_ < 1 || stage_ranks % (ep_ * expert_tp_) != 0)
    throw UserError("parallelism.ep x expert_tp = " + std::to_string(ep_) + " x " +
                    std::to_string(expert_tp_) +
                    " must divide tp x cp x dp = " + std::to_string(stage_ranks));
}

int RankLayout::size(ParallelDim d) const { return size_[idx(d)]; }
int RankLayout::stride(ParallelDim d) const { return stride_[idx(d)]; }

int RankLayout::get(const RankCoords& c, ParallelDim d) const {
  switch (d) {
    case ParallelDim::tp: return c.tp;
    case ParallelDim::cp: return c.cp;
    case ParallelDim::pp: return c.pp;
    case ParallelDim::dp:
    case ParallelDim::ep: return c.dp;
  }
  return 0;
}

RankCoords RankLayout::coords(int rank) const {
  auto at = [&](ParallelDim d) { return (rank / stride_[idx(d)]) % size_[idx(d)]; };
  return {at(ParallelDim::tp), at(ParallelDim::cp), at(ParallelDim::pp), at(ParallelDim::dp)};
}

int RankLayout::rank(const RankCoords& c) const {
  int r = 0;
  for (ParallelDim d : kPlaced) r += get(c, d) * stride_[idx(d)];
  return r;
}

std::vector<int> RankLayout::group(int rank, ParallelDim d) const {
  if (d == ParallelDim::ep) return ep_group(rank);
  const int own = get(coords(rank), d);
  const int base = rank - own * stride_[idx(d)];
  std::vector<int> out(static_cast<std::size_t>(size_[idx(d)]));
  for (int i = 0; i < size_[idx(d)]; ++i) out[static_cast<std::size_t>(i)] = base + i * stride_[idx(d)];
  return out;
}

std::vector<int> RankLayout::stage_group(int rank) const {
  RankCoords c = coords(rank);
  std::vector<int> out;
  for (c.tp = 0; c.tp < size(ParallelDim::tp); ++c.tp)
    for (c.cp = 0; c.cp < size(ParallelDim::cp); ++c.cp)
      for (c.dp = 0; c.dp < size(ParallelDim::dp); ++c.dp) out.push_back(this->rank(c));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> RankLayout::grad_group(int rank) const {
  RankCoords c = coords(rank);
  std::vector<int> out;
  for (int dp = 0; dp < size(ParallelDim::dp); ++dp) {
    for (int cp = 0; cp < size(ParallelDim::cp); ++cp) {
      c.dp = dp;
      c.cp = cp;
      out.push_back(this->rank(c));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

int RankLayout::stage_index(int rank) const {
  // rank = low + pp x stride_pp + high x stride_pp x pp_size with low < stride_pp: drop the pp digit.
  const int s = stride_[idx(ParallelDim::pp)];
  const int above = s * size_[idx(ParallelDim::pp)];
  return rank % s + rank / above * s;
}

int RankLayout::stage_rank(int stage, int index) const {
  const int s = stride_[idx(ParallelDim::pp)];
  return index % s + stage * s + index / s * s * size_[idx(ParallelDim::pp)];
}

std::vector<int> RankLayout::expert_group(int rank, int which) const {
  const int i = stage_index(rank);
  const std::array<int, 3> size{expert_tp_, ep_, world_ / size_[idx(ParallelDim::pp)] / (ep_ * expert_tp_)};
  const std::array<int, 3> stride{1, expert_tp_, expert_tp_ * ep_};
  const auto w = static_cast<std::size_t>(which);
  const int base = i - (i / stride[w]) % size[w] * stride[w];
  std::vector<int> out(static_cast<std::size_t>(size[w]));
  for (int k = 0; k < size[w]; ++k)
    out[static_cast<std::size_t>(k)] = stage_rank(coords(rank).pp, base + k * stride[w]);
  return out;
}

std::vector<int> RankLayout::ep_group(int rank) const { return expert_group(rank, 1); }
std::vector<int> RankLayout::expert_tp_group(int rank) const { return expert_group(rank, 0); }
std::vector<int> RankLayout::expert_dp_group(int rank) const { return expert_group(rank, 2); }
int RankLayout::ep_index(int rank) const { return stage_index(rank) / expert_tp_ % ep_; }

std::vector<std::vector<int>> RankLayout::groups(ParallelDim d) const {
  std::vector<std::vector<int>> out;
  for (int r = 0; r < world_; ++r) {
    auto g = group(r, d);
    if (g.front() == r) out.push_back(std::move(g));
  }
  return out;
}

}  // namespace stepsim::work
