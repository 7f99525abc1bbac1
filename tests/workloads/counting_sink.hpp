#pragma once
// A test OpSink that records what a layer emits, so hand derivations can be checked.
#include <string>
#include <utility>
#include <vector>

#include "workloads/step/op_sink.hpp"

namespace stepsim::work::fakes {

struct Recorded {
  std::string name;
  bool is_comm = false;
  topo::KernelWork work;
  CommOp comm;
  std::vector<std::uint32_t> deps;
};

class CountingSink : public OpSink {
 public:
  std::vector<Recorded> ops;
  /// Host synchronisations: the op the host waits for, and the sync's name.
  std::vector<std::pair<std::uint32_t, std::string>> syncs;

  double flops(topo::OpClass c) const {
    double f = 0;
    for (const auto& o : ops)
      if (!o.is_comm && o.work.op_class == c) f += o.work.flops.value();
    return f;
  }
  double gemm_flops() const { return flops(topo::OpClass::gemm); }
  double bytes() const {
    double b = 0;
    for (const auto& o : ops)
      if (!o.is_comm) b += o.work.hbm_bytes.value();
    return b;
  }
  std::vector<const Recorded*> comms(CollectiveKind k) const {
    std::vector<const Recorded*> out;
    for (const auto& o : ops)
      if (o.is_comm && o.comm.kind == k) out.push_back(&o);
    return out;
  }
  const Recorded* find(const std::string& name) const {
    for (const auto& o : ops)
      if (o.name == name) return &o;
    return nullptr;
  }

 protected:
  Handle emit_kernel(std::string_view name, const topo::KernelWork& w,
                     std::span<const Handle> deps) override {
    Recorded r{std::string(name), false, w, {}, {}};
    for (auto d : deps) r.deps.push_back(d.id);
    ops.push_back(std::move(r));
    return Handle{static_cast<std::uint32_t>(ops.size() - 1)};
  }
  void on_host_sync(Handle op, std::string_view name) override {
    syncs.emplace_back(op.id, std::string(name));
  }
  Handle emit_comm(std::string_view name, const CommOp& op, std::span<const Handle> deps) override {
    Recorded r{std::string(name), true, {}, op, {}};
    for (auto d : deps) r.deps.push_back(d.id);
    ops.push_back(std::move(r));
    return Handle{static_cast<std::uint32_t>(ops.size() - 1)};
  }
};

}  // namespace stepsim::work::fakes
