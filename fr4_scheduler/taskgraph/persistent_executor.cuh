// The FR4 device executor (docs/design.md §9): one persistent kernel, launched
// cooperatively so every block is resident; each warp is a worker running
// the loop of scheduler_core.hpp. Task kinds are a compile-time functor:
//
//   struct Kinds {
//     template <class Ctx>
//     __device__ static void run(int kind, const TaskArgs& args, Ctx& ctx);
//   };
//
// whose run() switches on the kind id (no device function pointers). A kind
// registered with Team::block runs on every thread of one block: the warp
// that draws it claims its block's channel, every warp of the block joins
// at the next point where it looks for work, and the claiming warp releases
// the task's successors.
#pragma once

#include "executor_params.hpp"
#include "scheduler_core.hpp"
#include "task_context.cuh"

namespace tiledqr::taskgraph {

// True on every lane when lane 0 sees a block task waiting in the channel.
__device__ inline bool warp_sees_block_task(const BlockChannel& channel) {
  int pending = 0;
  if (lane_index() == 0) pending = block_task_pending(&channel) ? 1 : 0;
  return from_lane(pending, 0) != 0;
}

// Claims the channel for `task`: 1 claimed, 0 another block task is waiting
// (take part in it first), −1 the block is leaving after an abort. Lane 0.
__device__ inline int claim_block_channel(BlockChannel& channel, int32_t task) {
  BlockAtomic<int32_t> slot(channel.block_task);
  int32_t expected = channel_empty;
  if (slot.compare_exchange_strong(expected, task, cuda::std::memory_order_acq_rel)) return 1;
  return expected == channel_closed ? -1 : 0;
}

// Runs the block task waiting in the channel on every thread of the block.
// Every warp of the block calls this once per block task.
template <class Kinds>
__device__ void run_block_task(const ExecutorParams& p, BlockChannel& channel,
                               unsigned char* block_scratch, int32_t first_worker) {
  __syncthreads();  // every warp has arrived
  const int32_t task = BlockAtomic<int32_t>(channel.block_task).load(cuda::std::memory_order_acquire);
  const TaskHeader header = p.view.headers[task];
  if (threadIdx.x == 0 && header.pred_count > 1)
    DeviceAtomic<int32_t>(p.view.remaining[task]).store(header.pred_count, cuda::std::memory_order_relaxed);
  const int64_t start = p.trace != nullptr ? clock_ns() : 0;
  TaskContext ctx(task, first_worker, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), true,
                  block_scratch, p.scratch_bytes_per_warp * p.warps_per_block, &p.run_params,
                  &p.view);
  Kinds::run(header.kind, p.args[task], ctx);
  __syncthreads();  // the task's writes are done; everyone has read `task`
  if (threadIdx.x == 0) {
    if (p.trace != nullptr) p.trace[task] = TraceEvent{start, clock_ns(), first_worker, 0};
    BlockAtomic<int32_t>(channel.block_task).store(channel_empty, cuda::std::memory_order_release);
  }
  __syncthreads();  // nobody sees this task as waiting again
}

// Leaves after an abort without stranding a block task's barrier: closes the
// channel, first taking part in any block task already waiting in it.
template <class Kinds>
__device__ void leave_block(const ExecutorParams& p, BlockChannel& channel,
                            unsigned char* block_scratch, int32_t first_worker) {
  if (!p.has_block_tasks) return;
  for (;;) {
    int closed = 0;
    if (lane_index() == 0) {
      int32_t expected = channel_empty;
      BlockAtomic<int32_t> slot(channel.block_task);
      closed = slot.compare_exchange_strong(expected, channel_closed, cuda::std::memory_order_acq_rel) ||
               expected == channel_closed;
    }
    if (from_lane(closed, 0) != 0) return;
    run_block_task<Kinds>(p, channel, block_scratch, first_worker);
  }
}

template <class Kinds>
__global__ void persistent_executor(const __grid_constant__ ExecutorParams p) {
  extern __shared__ __align__(16) unsigned char scratch[];
  __shared__ BlockChannel channel;
  if (threadIdx.x == 0) {
    channel.block_task = channel_empty;
    channel.abort = 0;
  }
  __syncthreads();

  const int warp_in_block = static_cast<int>(threadIdx.x >> 5);
  const int32_t first_worker = static_cast<int32_t>(blockIdx.x) * p.warps_per_block;
  WorkerState w;
  w.worker = first_worker + warp_in_block;
  if (w.worker == p.test_absent_worker) return;  // the test's warp that never started
  // The block's first warp watches for an abort (its second, when the test
  // hook keeps the first from starting).
  w.watcher = warp_in_block == (first_worker == p.test_absent_worker ? 1 : 0);
  unsigned char* warp_scratch = scratch + warp_in_block * p.scratch_bytes_per_warp;
  const int lane = lane_index();

  int32_t next = no_task;
  for (;;) {
    int32_t task = next;
    next = no_task;
    if (task == no_task) {
      int32_t acquired = 0;
      if (lane == 0) acquired = acquire_task(p.view, w, &channel, p.has_block_tasks);
      task = from_lane(acquired, 0);
    } else if (p.has_block_tasks && warp_sees_block_task(channel)) {
      run_block_task<Kinds>(p, channel, scratch, first_worker);  // let the block go first
      next = task;
      continue;
    }

    if (task == signal_push_exits) {
      push_exit_markers(p.view);
      continue;
    }
    if (task == signal_join_block) {
      run_block_task<Kinds>(p, channel, scratch, first_worker);
      continue;
    }
    if (task == signal_abort) {
      leave_block<Kinds>(p, channel, scratch, first_worker);
      return;
    }
    if (task == exit_marker) return;

    const TaskHeader header = p.view.headers[task];
    if (header.team != 0) {
      for (;;) {
        int claim = 0;
        if (lane == 0) claim = claim_block_channel(channel, task);
        claim = from_lane(claim, 0);
        if (claim < 0) return;  // aborted: the block has closed
        run_block_task<Kinds>(p, channel, scratch, first_worker);
        if (claim == 1) break;  // that was ours; otherwise try again
      }
      next = finish_task(p.view, w, header);
      continue;
    }

    // One lane acquired `task` (lane 0 from the queue, or the lane whose
    // counter reached zero in finish_task) and shuffled it to the others;
    // a shuffle orders no memory. The barrier makes that lane's acquire
    // order every lane's reads of the task's tiles.
    __syncwarp();
    rearm_counter(p.view, task, header);
    const int64_t start = p.trace != nullptr ? clock_ns() : 0;
    TaskContext ctx(task, w.worker, lane, 32, false, warp_scratch, p.scratch_bytes_per_warp,
                    &p.run_params, &p.view);
    Kinds::run(header.kind, p.args[task], ctx);
    __syncwarp();  // the task's writes precede lane 0's releases below
    if (p.trace != nullptr && lane == 0) p.trace[task] = TraceEvent{start, clock_ns(), w.worker, 0};
    next = finish_task(p.view, w, header);
    if (next != no_task && lane == 0 && w.unflushed >= flush_interval)
      flush_completions(p.view, w);  // cannot be the last completion: `next` is pending
  }
}

}  // namespace tiledqr::taskgraph
