#include "topology/collective_sweep.hpp"

#include "sim/engine.hpp"
#include "sim/graph.hpp"
#include "topology/flow_network.hpp"
#include "topology/transfer_table.hpp"

namespace stepsim::topo {

namespace {

// One transfer op occupying a comm stream of every rank of the measured group, run by the engine
// on a fresh FlowNetwork: the same path a step graph's collectives take.
sim::OpRecord run_alone(const std::shared_ptr<const TransferTable>& table, std::uint32_t payload,
                        const std::vector<GpuId>& ranks) {
  sim::StepGraphBuilder b;
  std::vector<sim::StreamId> streams;
  for (GpuId g : ranks)
    streams.push_back(
        b.add_stream(b.add_processor({}), sim::StreamRole::comm, "gpu" + std::to_string(g) + ".comm"));
  sim::Op op;
  op.kind = sim::OpKind::transfer;
  op.payload = payload;
  op.bytes = table->info(payload).bytes;
  b.add_op(op, streams);
  const sim::StepGraph graph = std::move(b).build();
  FlowNetwork net(table);
  sim::Engine engine(graph, &net);
  return engine.run().ops.front();
}

}  // namespace

std::vector<CollectiveSample> sweep_collective(std::shared_ptr<const Topology> topo,
                                               const SweepRequest& request) {
  TransferTableBuilder tb(topo, request.config);
  std::vector<std::uint32_t> ids;
  for (double bytes : request.sizes_bytes) {
    CollectiveRequest r;
    r.op = request.op;
    r.groups = request.groups;
    r.bytes = bytes;
    r.algorithm = request.algorithm;
    r.protocol = request.protocol;
    r.root = request.root;
    r.communicator_ranks = request.communicator_ranks;
    ids.push_back(tb.add(r));
  }
  auto table = std::make_shared<const TransferTable>(std::move(tb).build());
  const int p = static_cast<int>(request.groups.front().size());
  std::vector<CollectiveSample> out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const sim::OpRecord rec = run_alone(table, ids[i], request.groups.front());
    const double t = to_seconds(rec.end - rec.start);
    CollectiveSample s;
    s.bytes = request.sizes_bytes[i];
    s.time_s = t;
    s.algbw_GBps = t > 0.0 ? s.bytes / t / 1e9 : 0.0;
    s.busbw_GBps = s.algbw_GBps * bus_bandwidth_factor(request.op, p);
    s.algorithm = table->info(ids[i]).algorithm;
    s.protocol = table->info(ids[i]).protocol;
    s.bound = resource_of(rec.bound);
    out.push_back(s);
  }
  return out;
}

}  // namespace stepsim::topo
