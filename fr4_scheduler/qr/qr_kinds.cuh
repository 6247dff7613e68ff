// The tiled QR's task kinds on the FR4 scheduler (docs/design.md §9, workload qr):
// one kind per TaskKind (kind id = its value), each run by the warp
// binding (common/kernels/warp_binding.cuh) on tiles of 32, so FR4 runs
// exactly the arithmetic FR3 runs, in the order the DAG of common/task_graph/qr_dag.hpp
// allows.
// The same kinds apply Q or Qᵀ to another matrix's tiles (QrRunParams::c).
#pragma once

#include <cstdint>

#include "kernels/warp_binding.cuh"
#include "qr_graph.hpp"
#include "task.hpp"
#include "taskgraph/task_args.hpp"
#include "taskgraph/task_context.cuh"

namespace tiledqr::gpu {

// This header is the QR stage's own (included by fr4_qr_impl.cuh only):
// the task-graph library's names unqualified.
using namespace tiledqr::taskgraph;

// One run's data: the warp binding's tiles and τ (device memory).
template <typename T>
using QrRunParams = gpu::WarpTaskData<T>;

// Shared memory each worker lends the kernels (common/kernels/warp/tile.cuh).
template <typename T>
constexpr int qr_scratch_bytes_per_warp() {
  return gpu::warp_shared_elements * int(sizeof(T));
}

// Each kernel behind its own call (WarpCall::separate): ptxas allocates
// registers per kernel instead of for one function holding all six
// unrolled kernels and the scheduler loop (a call per task costs nothing
// next to a tile kernel).
template <typename T>
struct QrKinds {
  template <class Ctx>
  __device__ static void run(int kind, const TaskArgs& args, Ctx& ctx) {
    const QrTaskArgs a = args.as<QrTaskArgs>();
    (void)kind;  // the same as a.task.kind
    gpu::run_warp_task<gpu::WarpCall::separate, gpu::WarpKinds::all_trees>(
        a.task, a.transpose != 0, params_of<QrRunParams<T>>(ctx), scratch_of<T>(ctx), ctx.rank());
  }
};

}  // namespace tiledqr::gpu
