// What a task kind's code sees while it runs (docs/design.md §9): who runs it (a
// warp, or every thread of a block), the team's shared scratch memory, and
// the run's parameter block.
//
//   struct MyKinds {
//     template <class Ctx>
//     __device__ static void run(int kind, const TaskArgs& args, Ctx& ctx) {
//       const Axpy a = args.as<Axpy>();
//       for (int i = ctx.rank(); i < a.n; i += ctx.size()) a.y[i] += a.alpha * a.x[i];
//     }
//   };
//
// In a template on Ctx, params_of<P>(ctx) and scratch_of<T>(ctx) spare the
// caller the `ctx.template params<P>()` spelling.
#pragma once

#include <cstdint>

#include "scheduler_core.hpp"
#include "task_args.hpp"

namespace tiledqr::taskgraph {

class TaskContext {
 public:
  __device__ TaskContext(int32_t task, int32_t worker, int rank, int size, bool whole_block,
                         unsigned char* scratch, int scratch_bytes, const RunParams* run_params,
                         const SchedulerView* view)
      : task_(task), worker_(worker), rank_(rank), size_(size), whole_block_(whole_block),
        scratch_(scratch), scratch_bytes_(scratch_bytes), run_params_(run_params), view_(view) {}

  // The running task's id (its index in the Graph).
  __device__ int32_t task() const { return task_; }
  // The warp that runs it (for a block task: the block's first warp).
  __device__ int32_t worker() const { return worker_; }
  // This thread's index in the team, 0 … size() − 1.
  __device__ int rank() const { return rank_; }
  // 32 for a warp task; the block's thread count for a block task.
  __device__ int size() const { return size_; }
  __device__ bool whole_block() const { return whole_block_; }

  // A barrier over the team (with memory ordering among its threads).
  __device__ void sync() const {
    if (whole_block_) __syncthreads();
    else __syncwarp();
  }

  // The team's shared memory: ExecOptions::scratch_bytes_per_warp for a warp,
  // that times the block's warps for a block task; 16-byte aligned.
  template <class T>
  __device__ T* scratch() const {
    return reinterpret_cast<T*>(scratch_);
  }
  __device__ int scratch_bytes() const { return scratch_bytes_; }

  // The run's parameter block (GraphExec::run(params)).
  template <class P>
  __device__ P params() const {
    return run_params_->as<P>();
  }

  // True once the host watchdog has ended the run: a kind that waits on
  // something should poll this (with a back-off, e.g. __nanosleep) and return.
  __device__ bool aborted() const { return run_aborted(*view_); }

 private:
  int32_t task_;
  int32_t worker_;
  int rank_;
  int size_;
  bool whole_block_;
  unsigned char* scratch_;
  int scratch_bytes_;
  const RunParams* run_params_;
  const SchedulerView* view_;
};

// The run's parameter block of `ctx`: params_of<MyParams>(ctx).
template <class P, class Ctx>
__device__ P params_of(const Ctx& ctx) {
  return ctx.template params<P>();
}

// The team's shared scratch memory of `ctx` as T*: scratch_of<double>(ctx).
template <class T, class Ctx>
__device__ T* scratch_of(const Ctx& ctx) {
  return ctx.template scratch<T>();
}

}  // namespace tiledqr::taskgraph
