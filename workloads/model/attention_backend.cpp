// Transformer Engine's attention backend choice for training (attention_backend.hpp).
#include "workloads/model/attention_backend.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace stepsim::work {

std::optional<SoftwareVersion> parse_version(const std::string& text) {
  std::string_view t = text;
  if (!t.empty() && (t[0] == 'v' || t[0] == 'V')) t.remove_prefix(1);
  const auto number = [&t](int& out) {
    std::size_t n = 0;
    out = 0;
    while (n < t.size() && n < 4 && std::isdigit(static_cast<unsigned char>(t[n])))
      out = out * 10 + (t[n++] - '0');
    if (n == 0 || (n < t.size() && std::isdigit(static_cast<unsigned char>(t[n])))) return false;
    t.remove_prefix(n);
    return true;
  };
  SoftwareVersion v;
  if (!number(v.major) || t.empty() || t[0] != '.') return std::nullopt;
  t.remove_prefix(1);
  if (!number(v.minor)) return std::nullopt;
  if (!t.empty() && t[0] != '.') return std::nullopt;  // ".0", ".dev0": a patch level, ignored
  if (!v.stated()) return std::nullopt;
  return v;
}

HeadDims attention_head_dims(const ModelSpec& m) {
  if (m.attention == AttentionKind::mla)
    return {m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim, m.mla.v_head_dim};
  const int d = m.head_dim > 0 ? m.head_dim : (m.heads > 0 ? m.hidden / m.heads : 0);
  return {d, d};
}

std::optional<UnfusedReason> te_training_attention_unfused(SoftwareVersion te, topo::GpuArch arch,
                                                           HeadDims dims) {
  // Transformer Engine 2.1 to 2.4 refuse cuDNN's fused attention on Blackwell (sm_arch >= 100)
  // for any head wider than 128 (fused_attn.cpp, "special conditions for blackwell": added in 2.1,
  // replaced in 2.5 by per-cuDNN-version rules), and turn FlashAttention off whenever the query/key
  // and value heads differ in width ("Disabling FlashAttention as it does not support MLA",
  // utils.py, 2.2 to 2.5). With both off, DotProductAttention runs UnfusedDotProductAttention:
  // baddbmm scores, a fused masked softmax, bmm with V. Equal widths above 128 can still take
  // FlashAttention 2, which runs on sm100 up to 256.
  const SoftwareVersion first{2, 1}, fixed{2, 5};
  if (arch != topo::GpuArch::blackwell || te < first || !(te < fixed)) return std::nullopt;
  if (std::max(dims.qk, dims.v) <= 128 || dims.qk == dims.v) return std::nullopt;
  return UnfusedReason{
      "Transformer Engine " + te.str() +
      " has no fused attention on Blackwell for heads wider than 128 (query/key " + std::to_string(dims.qk) +
      ", value " + std::to_string(dims.v) +
      ") and no FlashAttention for unequal widths (MLA): it runs UnfusedDotProductAttention"};
}

}  // namespace stepsim::work
