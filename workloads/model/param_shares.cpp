#include "workloads/model/param_shares.hpp"

#include "workloads/model/params.hpp"

namespace stepsim::work {

double ParamShares::active_matmul(bool training) const {
  const double lookup = position + (lm_head > 0.0 ? embedding : 0.0);
  double p = active() - norms - lookup;
  // Each MTP module runs one more layer and the shared output head on every token.
  if (training && mtp_layers > 0) p += mtp_active + mtp_layers * (lm_head > 0.0 ? lm_head : embedding);
  return p;
}

ParamShares param_shares(const ModelSpec& m) {
  // The counts are workloads/model/params.hpp's; this only arranges them by how parallelism shards them.
  const ParamBreakdown b = count_params(m);
  ParamShares s;
  s.embedding = b.embedding;
  s.position = b.position;
  s.lm_head = b.lm_head;
  s.attention = b.attention;
  s.mamba = b.mamba;
  s.linear_attention = b.linear_attention;
  s.norms = b.norms;
  s.dense_mlp = b.dense_mlp;
  s.routed_experts = b.routed_experts;
  s.shared_experts = b.shared_experts;
  s.routers = b.routers;
  s.mtp = b.mtp;
  s.mtp_active = b.mtp_active;
  s.moe_layers = m.moe_layers();
  s.experts = m.experts;
  s.top_k = m.top_k;
  s.mtp_layers = m.mtp_layers;
  return s;
}

}  // namespace stepsim::work
