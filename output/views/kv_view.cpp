#include "output/views/kv_view.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "output/common/format.hpp"

namespace stepsim::out {

namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json optional(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

}  // namespace

nlohmann::ordered_json kv_json(const work::KvReport& r, const work::KvQuery& q, const KvLabels& labels) {
  Json j;
  j["model"] = labels.model;
  j["gpu"] = labels.gpu.empty() ? Json(nullptr) : Json(labels.gpu);
  j["gpus"] = q.gpus;
  j["context"] = q.context;
  j["batch"] = q.batch;
  j["overhead"] = q.overhead;
  j["kv_bytes_per_element"] = q.kv_bytes;
  j["target_tokens_per_s"] = optional(q.target_tokens_per_s);
  j["bytes_per_token"] = r.bytes_per_token;
  j["bytes_per_sequence"] = r.bytes_per_sequence;
  if (r.state_bytes_per_sequence > 0.0)
    j["state_bytes_per_sequence"] = r.state_bytes_per_sequence;  // hybrid models
  j["cache_bytes"] = r.cache_bytes;
  j["weights_bytes"] = r.weights_bytes;
  j["total_bytes"] = r.total_bytes;
  j["decode_bytes_per_token"] = r.decode_bytes_per_token;
  j["decode_bandwidth_Bps"] = optional(r.decode_bandwidth_Bps);
  j["capacity_bytes"] = optional(r.capacity_bytes);
  j["fits"] = optional(r.fits);
  j["max_tokens_per_s"] = optional(r.max_tokens_per_s);
  j["max_batch"] = optional(r.max_batch);
  j["max_context"] = optional(r.max_context);
  return j;
}

std::string kv_json_text(const work::KvReport& r, const work::KvQuery& q, const KvLabels& labels) {
  return kv_json(r, q, labels).dump(2) + "\n";
}

std::string kv_table(const work::KvReport& r, const work::KvQuery& q, const KvLabels& labels) {
  std::string out =
      fmt::format("KV cache of {}: {} sequence{} x {} tokens, overhead x{:.2f}\n\n", labels.model, q.batch,
                  q.batch == 1 ? "" : "s", format_number(q.context, 0), q.overhead);
  out += fmt::format("per token     {} ({} B)\n", format_bytes(r.bytes_per_token),
                     format_number(r.bytes_per_token, 0));
  out += fmt::format("per sequence  {}{}\n", format_bytes(r.bytes_per_sequence),
                     r.local_attention ? " (local layers keep at most their window)" : "");
  if (r.state_bytes_per_sequence > 0.0)
    out += fmt::format(
        "  of which    {} the recurrent (Mamba, Gated DeltaNet) layers' fixed state (any context)\n",
        format_bytes(r.state_bytes_per_sequence));
  out += fmt::format("cache         {}\n", format_bytes(r.cache_bytes));
  out += fmt::format("weights       {}\n", format_bytes(r.weights_bytes));
  out += fmt::format("total         {}\n", format_bytes(r.total_bytes));
  out += fmt::format("\ndecode reads {} per generated token (weights / batch + {})\n",
                     format_bytes(r.decode_bytes_per_token),
                     r.local_attention ? "the keys each layer's window leaves x KV per layer"
                     : r.state_bytes_per_sequence > 0.0
                         ? "context x KV per token + the recurrent state read and written"
                         : "context x KV per token");
  if (r.decode_bandwidth_Bps)
    out += fmt::format("at {} tokens/s: {}/s of memory bandwidth\n", format_number(*q.target_tokens_per_s, 0),
                       format_bytes(*r.decode_bandwidth_Bps));
  if (!r.capacity_bytes) return out;
  out += fmt::format("\non {} x {}: capacity {}: {}\n", q.gpus, labels.gpu, format_bytes(*r.capacity_bytes),
                     *r.fits ? "fits" : "DOES NOT FIT");
  out += fmt::format("  decode ceiling {} tokens/s (usable HBM bandwidth / bytes per token)\n",
                     format_number(*r.max_tokens_per_s, 1));
  out += fmt::format("  largest batch at {} tokens: {}\n", format_number(q.context, 0), *r.max_batch);
  out += fmt::format("  longest context at batch {}: {} tokens\n", q.batch,
                     format_number(double(*r.max_context), 0));
  return out;
}

}  // namespace stepsim::out
