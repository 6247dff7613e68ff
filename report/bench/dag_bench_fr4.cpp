// tiledqr_dag_bench's FR4 method with FR4 built (dag_bench_fr4.hpp).
#include "dag_bench_fr4.hpp"

#include <vector>

#include "qr_graph.hpp"
#include "taskgraph/device_layout.hpp"

namespace tiledqr::bench {

bool fr4_prepare_available() { return true; }

int64_t fr4_prepare_graph(int64_t p, int64_t q, Tree tree) {
  using namespace taskgraph;
  const LayoutStream stream = gpu::qr_factor_graph(p, q, tree, 1, Team::warp);
  // consume_stream's chunk buffers: DeviceGraph's page-locked ones, here ordinary memory of the same size.
  std::vector<int32_t> counters(size_t(stream.chunk_tasks));
  int64_t edges = 0;
  consume_stream(stream, [&](const LayoutChunk& c) {
    for (int32_t k = 0; k < c.task_count; ++k) counters[size_t(k)] = c.headers[k].pred_count;
    edges += c.edge_count;
  });
  return edges;
}

}  // namespace tiledqr::bench
