// The FR4 device executor for graphs whose kinds are all block kinds
// (docs/design.md §6): one persistent kernel, launched cooperatively, in
// which a worker is a whole thread block. The block's first warp takes
// tasks from the queue and releases their successors (scheduler_core.hpp,
// as a warp worker of persistent_executor.cuh does); every thread of the
// block runs each task. Kinds opt in with
//
//   struct Kinds {
//     static constexpr bool block_only = true;
//     static constexpr int block_threads = 256;  // the block size it is launched with
//     static constexpr int blocks_per_sm = 2;    // blocks a multiprocessor should hold
//     template <class Ctx>
//     __device__ static void run(int kind, const TaskArgs& args, Ctx& ctx);
//   };
//
// block_threads and blocks_per_sm become the kernel's launch bounds, so the
// compiler keeps each thread within the registers that many blocks leave it.
//
// Each block holds one task at a time, so the ready tasks spread over the
// blocks; the task's code is inlined at one place in the kernel, so heavy
// block kernels share their registers with the scheduler's few.
#pragma once

#include <type_traits>

#include "executor_params.hpp"
#include "scheduler_core.hpp"
#include "task_context.cuh"

namespace tiledqr::taskgraph {

template <class Kinds, class = void>
struct BlockOnlyKinds : std::false_type {};
template <class Kinds>
struct BlockOnlyKinds<Kinds, std::void_t<decltype(Kinds::block_only)>> : std::bool_constant<Kinds::block_only> {};

template <class Kinds>
__global__ void __launch_bounds__(Kinds::block_threads, Kinds::blocks_per_sm)
    block_executor(const __grid_constant__ ExecutorParams p) {
  extern __shared__ __align__(16) unsigned char scratch[];
  __shared__ BlockChannel channel;  // the abort flag the block's watcher keeps
  __shared__ int32_t posted;        // the block's next task, or exit_marker / signal_abort
  if (threadIdx.x == 0) {
    channel.block_task = channel_empty;
    channel.abort = 0;
  }
  __syncthreads();
  const bool leader = threadIdx.x < 32;
  const int lane = lane_index();
  WorkerState w;
  w.worker = static_cast<int32_t>(blockIdx.x);
  w.watcher = true;

  int32_t next = no_task;
  for (;;) {
    if (leader) {
      int32_t task = next;
      next = no_task;
      for (;;) {
        if (task == no_task) {
          int32_t acquired = 0;
          if (lane == 0) acquired = acquire_task(p.view, w, &channel, false);
          task = from_lane(acquired, 0);
        }
        if (task != signal_push_exits) break;
        push_exit_markers(p.view);
        task = no_task;
      }
      if (lane == 0) posted = task;
    }
    // Lane 0 acquired the task (or its predecessor did, for a chain): the
    // barrier orders every thread's reads of its tiles after that acquire.
    __syncthreads();
    const int32_t task = posted;
    if (task == exit_marker || task == signal_abort) return;
    const TaskHeader header = p.view.headers[task];
    if (threadIdx.x == 0 && header.pred_count > 1)
      DeviceAtomic<int32_t>(p.view.remaining[task]).store(header.pred_count, cuda::std::memory_order_relaxed);
    const int64_t start = p.trace != nullptr ? clock_ns() : 0;
    TaskContext ctx(task, w.worker, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), true, scratch,
                    p.scratch_bytes_per_warp * p.warps_per_block, &p.run_params, &p.view);
    Kinds::run(header.kind, p.args[task], ctx);
    __syncthreads();  // the task's writes precede the leader's releases; everyone has read `posted`
    if (leader) {
      if (p.trace != nullptr && lane == 0) p.trace[task] = TraceEvent{start, clock_ns(), w.worker, 0};
      next = finish_task(p.view, w, header);
      if (next != no_task && lane == 0 && w.unflushed >= flush_interval)
        flush_completions(p.view, w);  // cannot be the last completion: `next` is pending
    }
  }
}

}  // namespace tiledqr::taskgraph
