// tiledqr_dag_bench's FR4 method: the host side of preparing the QR task
// graph for the GPU executor (fr4_scheduler/qr/qr_graph.hpp), with or
// without the CUDA toolkit in the build.
#pragma once

#include <cstdint>

#include "options.hpp"

namespace tiledqr::bench {

// Whether this build has FR4 (it needs the CUDA toolkit's headers).
bool fr4_prepare_available();

// What DeviceGraph does on the host for the graph of p×q tiles, less the
// copies to the device: the closed-form arrays, every chunk of the layout
// written into buffers of the stream's chunk capacity and checked, each
// task's counter set. Returns the number of edges streamed. Throws
// InputError where FR4 is not built or the graph is refused.
int64_t fr4_prepare_graph(int64_t p, int64_t q, Tree tree);

}  // namespace tiledqr::bench
