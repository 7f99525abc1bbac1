#include "output/profile/profile_trace.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "sim/error.hpp"

namespace stepsim::out {
namespace profile_trace {

struct KernelRule {
  const char* cls;      ///< the class a matching kernel gets
  const char* pattern;  ///< ECMAScript regex searched in the kernel name (case-insensitive)
};

// The one table of rules, first match wins: so the order matters where names overlap (a SwiGLU
// fused with its FP8 cast is activation; DeepSeek's GEMM helpers live in `grouped_gemm::` too).
// tools/calibration/profile_kernels.py classed DeepSeek's profile with the same rules.
const KernelRule kRules[] = {
    // DeepEP: dispatch, combine and their notify kernels (their time includes waiting for peers).
    {"ep_comm", R"(dpsk::ep::(internode|intranode)::|deep_ep::|deepep)"},
    // NCCL collectives, one class each (the kernel name says which: ncclDevKernel_AllReduce_...).
    {"nccl_all_reduce", R"(nccl.*allreduce)"},
    {"nccl_all_gather", R"(nccl.*allgather)"},
    {"nccl_reduce_scatter", R"(nccl.*reducescatter)"},
    {"nccl_all_to_all", R"(nccl.*(alltoall|all_to_all))"},
    {"nccl_send_recv", R"(nccl.*(sendrecv|send|recv))"},
    {"nccl_broadcast", R"(nccl.*(broadcast|bcast))"},
    {"nccl_other", R"(^(void )?nccl)"},
    // FlashAttention (flash::, FA3's compute_attn_ws), fused MHA (fmha), cuDNN's SDPA kernels,
    // PyTorch's memory-efficient attention, FlexAttention's Inductor templates (flex_attention,
    // flex_decoding in the kernel's name).
    {"attention",
     R"(flash|fmha|cudnn.*(attn|attention|sdpa)|sdpa|efficient_attention|attention_kernel|flex_(attention|decoding))"},
    // LayerNorm and RMSNorm, fused or not (apex/TE layer_norm::, rms_norm, RMSNorm).
    {"norm", R"(layer_?norm|rms_?norm|ln_(fwd|bwd))"},
    // Gated activations and their gradients (some fused with the following FP8 cast).
    {"activation", R"(swiglu|silu|gelu|geglu|act_and_mul)"},
    // Casts to and from FP8 and the transposes that feed the weight-gradient GEMMs.
    {"quantize", R"(per_token_cast|per_channel_cast|per_block_cast|cast_back|cast_to_fp8|fp8_quant|quantize|)"
                 R"(cast_transpose|transpose)"},
    // MoE routing: top-k, aux-loss statistics, permutation, token layouts, histograms, sorts.
    {"moe_routing",
     R"(topk|aux_fi|unique_group|get_fused_mapping|clean_and_count|expand_to_fused|reduce_fused|)"
     R"(get_dispatch_layout|_scatter_gather|permute|moe_align|histogram|radixsort|sort_)"},
    // Optimizer steps: apex/PyTorch multi_tensor_apply (fused Adam), Adam kernels.
    {"optimizer", R"(multi_tensor_apply|adam|lamb_)"},
    // GEMM set-up kernels (TMA descriptors), not GEMMs: element-wise work.
    {"elementwise", R"(fill_tensormaps)"},
    // Grouped GEMMs, one per expert: the name says grouped (DeepGEMM's m_grouped, CUTLASS
    // GroupedGemm, torch grouped_mm). DeepSeek's `grouped_gemm::` namespace alone is not grouped.
    {"gemm_expert", R"(m_grouped|k_grouped|groupedgemm|grouped_mm|moe_gemm)"},
    // Every other GEMM library: CUTLASS, cuBLAS/cuBLASLt (sm80/sm90 xmma, nvjet, splitK), DeepGEMM.
    {"gemm_dense", R"(gemm|cutlass|cublas|xmma|nvjet|deep_gemm|splitkreduce|s\d+gemm|hmma|imma)"},
    // The rest of PyTorch's kernels and common element-wise work: copies, fills, rotary, reductions.
    {"elementwise", R"(at::native|_ZN2at6native|elementwise|reduce_kernel|copy|fill|rotary|rope|triton_|)"
                    R"(vectorized|unrolled)"},
};

const std::vector<std::pair<std::string, std::regex>>& compiled_rules() {
  static const auto rules = [] {
    std::vector<std::pair<std::string, std::regex>> out;
    for (const KernelRule& r : kRules)
      out.emplace_back(r.cls, std::regex(r.pattern, std::regex::ECMAScript | std::regex::icase));
    return out;
  }();
  return rules;
}

SourceLocation location_of(const std::filesystem::path& source, std::string_view text, std::size_t byte) {
  SourceLocation where{source.string(), 1, 1};
  for (std::size_t i = 0; i < std::min(byte, text.size()); ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  return where;
}

int int_arg(const nlohmann::json& e, const char* key, const char* fallback) {
  const auto args = e.find("args");
  if (args != e.end() && args->is_object()) {
    const auto v = args->find(key);
    if (v != args->end() && v->is_number()) return v->get<int>();
  }
  const auto f = e.find(fallback);
  return f != e.end() && f->is_number() ? f->get<int>() : 0;
}

using Dims = std::vector<std::int64_t>;

/// One GEMM op of PyTorch: which of its "Input Dims" are the two matrices and how to read them.
struct GemmOp {
  const char* name;
  int a, b;          ///< indices of the two operands in "Input Dims"
  int rank;          ///< both operands' rank (2: mm, 3: bmm); 0 = any, with matmul's broadcasting
  bool b_is_weight;  ///< b is a Linear weight [n, k], i.e. the operand transposed
};

// addmm/baddbmm take the added tensor first; linear's weight is [out_features, in_features].
const GemmOp kGemmOps[] = {
    {"aten::mm", 0, 1, 2, false},    {"aten::addmm", 1, 2, 2, false},   {"aten::_scaled_mm", 0, 1, 2, false},
    {"aten::bmm", 0, 1, 3, false},   {"aten::baddbmm", 1, 2, 3, false}, {"aten::matmul", 0, 1, 0, false},
    {"aten::linear", 0, 1, 0, true},
};

/// torch.matmul's FLOPs for operands of shapes `a` and `b`: 2 m n k per output matrix, times the
/// broadcast batch; a 1-D operand is a vector. Empty when the shapes do not multiply.
std::optional<double> matmul_flops(Dims a, Dims b) {
  if (a.empty() || b.empty()) return std::nullopt;
  if (a.size() == 1) a.insert(a.begin(), 1);  // a vector: one row
  if (b.size() == 1) b.push_back(1);          // a vector: one column
  const std::int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  if (b[b.size() - 2] != k) return std::nullopt;
  double batch = 1.0;
  const std::size_t batch_dims = std::max(a.size(), b.size()) - 2;
  for (std::size_t i = 0; i < batch_dims; ++i) {
    // Batch dims aligned from the right; a missing dim broadcasts as 1.
    const std::int64_t da = i + 2 < a.size() ? a[a.size() - 3 - i] : 1;
    const std::int64_t db = i + 2 < b.size() ? b[b.size() - 3 - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    batch *= static_cast<double>(std::max(da, db));
  }
  return 2.0 * batch * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

/// "Input Dims" entry `i` as a shape; empty for a scalar, a tensor list or a malformed entry.
std::optional<Dims> input_dims(const nlohmann::json& dims, int i) {
  if (!dims.is_array() || i >= static_cast<int>(dims.size()) || !dims[i].is_array()) return std::nullopt;
  Dims out;
  for (const auto& d : dims[i]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0) return std::nullopt;
    out.push_back(d.get<std::int64_t>());
  }
  return out;
}

/// FLOPs of a CPU op event when it is a GEMM op with its input dims recorded.
std::optional<double> gemm_op_flops(std::string_view op, const nlohmann::json& dims) {
  for (const GemmOp& g : kGemmOps) {
    if (op != g.name) continue;
    std::optional<Dims> a = input_dims(dims, g.a), b = input_dims(dims, g.b);
    if (!a || !b) return std::nullopt;
    if (g.rank && (static_cast<int>(a->size()) != g.rank || static_cast<int>(b->size()) != g.rank))
      return std::nullopt;
    if (g.b_is_weight) {
      if (b->size() != 2) return std::nullopt;
      std::swap((*b)[0], (*b)[1]);
    }
    return matmul_flops(std::move(*a), std::move(*b));
  }
  return std::nullopt;
}

long long id_arg(const nlohmann::json& e, const char* key) {
  const auto args = e.find("args");
  if (args == e.end() || !args->is_object()) return 0;
  const auto v = args->find(key);
  return v != args->end() && v->is_number_integer() ? v->get<long long>() : 0;
}

/// A runtime or driver call that launches GPU work.
bool is_launch_call(const std::string& name) {
  static const std::set<std::string> calls{"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
                                           "cuLaunchKernelEx", "cudaMemsetAsync",     "cudaMemcpyAsync",
                                           "cudaGraphLaunch"};
  return calls.count(name) > 0;
}

/// What links kernels to the CPU ops that launched them, gathered in one pass over the events.
struct LaunchLinks {
  std::map<long long, double> op_flops;                     ///< External id of a GEMM op with shapes -> FLOPs
  std::map<long long, long long> launch_op;                 ///< correlation of a launch event -> External id
  std::vector<std::pair<long long, long long>> kernel_ids;  ///< per kernel: External id, correlation

  void add_cpu_event(const nlohmann::json& e, const std::string& category) {
    if (category == "cpu_op") {
      const auto name = e.find("name");
      const auto args = e.find("args");
      if (name == e.end() || !name->is_string() || args == e.end() || !args->is_object()) return;
      const auto dims = args->find("Input Dims");
      if (dims == args->end()) return;
      if (const auto flops = gemm_op_flops(name->get<std::string>(), *dims);
          flops && id_arg(e, "External id") > 0)
        op_flops[id_arg(e, "External id")] = *flops;
    } else if (category == "cuda_runtime" || category == "cuda_driver") {
      if (id_arg(e, "correlation") > 0 && id_arg(e, "External id") > 0)
        launch_op[id_arg(e, "correlation")] = id_arg(e, "External id");
      const auto name = e.find("name"), ts = e.find("ts");
      if (name != e.end() && name->is_string() && ts != e.end() && ts->is_number() &&
          is_launch_call(name->get_ref<const std::string&>()))
        launches_us.push_back(ts->get<double>());
    }
  }
  std::vector<double> launches_us;  ///< host launch calls' starts

  /// Marks the GEMM kernels of ops with known shapes; an op's FLOPs go to its first GEMM kernel.
  void apply(std::vector<TraceKernel>& kernels) const {
    std::vector<std::size_t> order(kernels.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return kernels[x].ts_us < kernels[y].ts_us; });
    std::set<long long> counted;
    for (const std::size_t i : order) {
      auto [external, correlation] = kernel_ids[i];
      if (external <= 0)
        if (const auto l = launch_op.find(correlation); l != launch_op.end()) external = l->second;
      const auto op = op_flops.find(external);
      if (op == op_flops.end()) continue;
      TraceKernel& k = kernels[i];
      const std::string cls = kernel_class(k.name, k.category);
      if (cls != "gemm_dense" && cls != "gemm_expert") continue;
      k.shaped = true;
      if (counted.insert(external).second) k.flops = op->second;
    }
  }
};

}  // namespace profile_trace

GpuTrace parse_kineto_trace(std::string_view text, const std::filesystem::path& source) {
  using namespace profile_trace;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(location_of(source, text, e.byte > 0 ? e.byte - 1 : 0), "traceEvents",
                    "not valid JSON: " + std::string(e.what()),
                    "give the Chrome trace PyTorch's profiler wrote (prof.export_chrome_trace or "
                    "tensorboard_trace_handler), uncompressed");
  }
  const nlohmann::json* events = &doc;
  if (doc.is_object()) {
    const auto it = doc.find("traceEvents");
    if (it == doc.end() || !it->is_array())
      throw UserError(SourceLocation{source.string(), 1, 1}, "traceEvents", "no \"traceEvents\" array",
                      "give a Chrome trace from PyTorch's profiler (Kineto)");
    events = &*it;
  } else if (!doc.is_array()) {
    throw UserError(SourceLocation{source.string(), 1, 1}, "traceEvents",
                    "expected a JSON object with \"traceEvents\" or an array of events",
                    "give a Chrome trace from PyTorch's profiler (Kineto)");
  }
  GpuTrace trace;
  trace.path = source;
  LaunchLinks links;
  for (const auto& e : *events) {
    if (!e.is_object()) continue;
    const auto cat = e.find("cat");
    if (cat == e.end() || !cat->is_string()) continue;
    const std::string category = cat->get<std::string>();
    if (category != "kernel" && category != "gpu_memcpy" && category != "gpu_memset") {
      links.add_cpu_event(e, category);
      continue;
    }
    const auto name = e.find("name"), ts = e.find("ts"), dur = e.find("dur");
    if (name == e.end() || !name->is_string() || ts == e.end() || !ts->is_number() || dur == e.end() ||
        !dur->is_number())
      throw UserError(
          SourceLocation{source.string(), 1, 1}, "traceEvents",
          "a GPU " + category + " event without a name, \"ts\" or \"dur\": " + e.dump().substr(0, 200),
          "GPU events of a Kineto trace carry all three; was the trace edited?");
    TraceKernel k;
    k.name = name->get<std::string>();
    k.category = category;
    k.ts_us = ts->get<double>();
    k.dur_us = dur->get<double>();
    k.device = int_arg(e, "device", "pid");
    k.stream = int_arg(e, "stream", "tid");
    trace.kernels.push_back(std::move(k));
    links.kernel_ids.emplace_back(id_arg(e, "External id"), id_arg(e, "correlation"));
  }
  if (trace.kernels.empty())
    throw UserError(SourceLocation{source.string(), 1, 1}, "traceEvents",
                    "the trace holds no GPU kernel events (\"cat\": \"kernel\")",
                    "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] so that the "
                    "GPU's kernels are recorded");
  links.apply(trace.kernels);
  trace.launches_us = std::move(links.launches_us);
  return trace;
}

GpuTrace read_kineto_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    throw UserError("cannot read the trace " + path.string() +
                    " (hint: give the .json file PyTorch's profiler wrote; gunzip a .json.gz first)");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_kineto_trace(text.str(), path);
}

std::string kernel_class(std::string_view name, std::string_view category) {
  if (category == "gpu_memcpy") return "memcpy";
  if (category == "gpu_memset") return "memset";
  const std::string n(name);
  for (const auto& [cls, re] : profile_trace::compiled_rules())
    if (std::regex_search(n, re)) return cls;
  return {};
}

bool is_comm_class(std::string_view cls) {
  return cls == "ep_comm" || cls.rfind("nccl_", 0) == 0;
}

double uncovered_time(std::vector<Interval> covered, std::vector<Interval> hiding) {
  const auto merge = [](std::vector<Interval>& v) {
    std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    std::vector<Interval> out;
    for (const Interval& i : v) {
      if (!out.empty() && i.begin <= out.back().end)
        out.back().end = std::max(out.back().end, i.end);
      else
        out.push_back(i);
    }
    v = std::move(out);
  };
  merge(covered);
  merge(hiding);
  double total = 0.0;
  std::size_t h = 0;
  for (const Interval& c : covered) {
    double at = c.begin;
    while (h < hiding.size() && hiding[h].end <= at) ++h;
    for (std::size_t j = h; j < hiding.size() && hiding[j].begin < c.end; ++j) {
      if (hiding[j].begin > at) total += hiding[j].begin - at;
      at = std::max(at, hiding[j].end);
    }
    if (c.end > at) total += c.end - at;
  }
  return total;
}

HostLaunches measure_host(const GpuTrace& trace) {
  HostLaunches h;
  std::vector<double> t = trace.launches_us;
  std::sort(t.begin(), t.end());
  h.launches = static_cast<long>(t.size());
  for (std::size_t i = 1; i < t.size(); ++i) {
    const double gap_s = (t[i] - t[i - 1]) * 1e-6;
    if (gap_s < HostLaunches::kHostWaitS) {
      ++h.gaps;
      h.busy_s += gap_s;
    } else {
      ++h.waits;
      h.wait_s += gap_s;
    }
  }
  return h;
}

MeasuredProfile measure_profile(const GpuTrace& trace) {
  MeasuredProfile out;
  out.host = measure_host(trace);
  std::map<std::string, UnclassifiedKernel> unknown;
  // Per device: the intervals of each communication class and of all other GPU work.
  std::map<int, std::map<std::string, std::vector<Interval>>> comm;
  std::map<int, std::vector<Interval>> other;
  // Kineto's clock counts microseconds since the epoch (~1.7e15): in seconds from there a double
  // would keep only quarter-microseconds, so intervals start from the trace's first activity.
  double t0_us = trace.kernels.empty() ? 0.0 : trace.kernels.front().ts_us;
  for (const TraceKernel& k : trace.kernels) t0_us = std::min(t0_us, k.ts_us);
  for (const TraceKernel& k : trace.kernels) {
    ++out.kernels;
    const double dur_s = k.dur_us * 1e-6;
    const Interval span{(k.ts_us - t0_us) * 1e-6, (k.ts_us - t0_us + k.dur_us) * 1e-6};
    const std::string cls = kernel_class(k.name, k.category);
    if (cls.empty()) {
      UnclassifiedKernel& u = unknown[k.name];
      u.name = k.name;
      ++u.count;
      u.time_s += dur_s;
      other[k.device].push_back(span);
      continue;
    }
    MeasuredClass& m = out.classes[cls];
    ++m.count;
    m.time_s += dur_s;
    m.flops += k.flops;
    m.shaped += k.shaped ? 1 : 0;
    (is_comm_class(cls) ? comm[k.device][cls] : other[k.device]).push_back(span);
  }
  for (auto& [device, classes] : comm)
    for (auto& [cls, spans] : classes) out.exposed_comm_s[cls] += uncovered_time(spans, other[device]);
  for (auto& [name, u] : unknown) out.unclassified.push_back(std::move(u));
  std::stable_sort(
      out.unclassified.begin(), out.unclassified.end(),
      [](const UnclassifiedKernel& a, const UnclassifiedKernel& b) { return a.time_s > b.time_s; });
  return out;
}

}  // namespace stepsim::out
