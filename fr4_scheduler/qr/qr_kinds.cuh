// The tiled QR's task kinds on the FR4 scheduler (docs/design.md §9, workload qr):
// one kind per TaskKind (kind id = its value), each a call of one of FR3's
// warp tile kernels (fr3_gpu/kernels) on tiles of 32, so FR4 runs exactly
// the arithmetic FR3 runs, in the order the DAG of common/dag.hpp allows.
// The same kinds apply Q or Qᵀ to another matrix's tiles (QrRunParams::c).
#pragma once

#include <cstdint>

#include "kernels/warp/geqrt.cuh"
#include "kernels/warp/ormqr.cuh"
#include "kernels/warp/tile.cuh"
#include "kernels/warp/tsmqr.cuh"
#include "kernels/warp/tsqrt.cuh"
#include "kernels/warp/ttmqr.cuh"
#include "kernels/warp/ttqrt.cuh"
#include "task.hpp"
#include "taskgraph/task_args.hpp"
#include "taskgraph/task_context.cuh"

namespace tiledqr::fr4 {

// One task's arguments: the task of the DAG and, for the update kinds,
// whether they apply Qᵀ (factorisation, apply_qt) or Q (apply_q).
struct QrTaskArgs {
  Task task;
  int32_t transpose;
};

// One run's data (all in device memory):
template <typename T>
struct QrRunParams {
  T* a;          // p·q tiles of (32, 32), ld = 32, tile (i, j) at (i + j·p)·1024: A, then V and R
  T* tau_local;  // (p·q·32): τ of geqrt on tile (i, k) at (i + k·p)·32
  T* tau_merge;  // (p·q·32): τ of tsqrt/ttqrt merging tile (i, k), same place
  T* c;          // the tiles the update kinds change: a itself when factoring, B's tiles (p rows) when applying Q
  int32_t p;     // tile rows of a and of c
};

// Shared memory each worker lends the kernels (fr3_gpu/kernels/warp_tile.cuh).
template <typename T>
constexpr int qr_scratch_bytes_per_warp() {
  return gpu::warp_shared_elements * int(sizeof(T));
}

// Each tile kernel behind its own call: ptxas allocates registers per
// kernel instead of for one function holding all six unrolled kernels and
// the scheduler loop (a call per task costs nothing next to a tile kernel).
template <typename T>
__device__ __noinline__ void run_geqrt(T* a, T* tau, T* shared, int lane) {
  gpu::warp_geqrt(a, tau, shared, lane);
}
template <typename T>
__device__ __noinline__ void run_ormqr(bool transpose, const T* v, const T* tau, T* c, T* shared, int lane) {
  gpu::warp_ormqr(transpose, v, tau, c, shared, lane);
}
template <typename T>
__device__ __noinline__ void run_tsqrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  gpu::warp_tsqrt(a1, a2, tau, shared, lane);
}
template <typename T>
__device__ __noinline__ void run_tsmqr(bool transpose, const T* v, const T* tau, T* a1, T* a2, T* shared,
                                       int lane) {
  gpu::warp_tsmqr(transpose, v, tau, a1, a2, shared, lane);
}
template <typename T>
__device__ __noinline__ void run_ttqrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  gpu::warp_ttqrt(a1, a2, tau, shared, lane);
}
template <typename T>
__device__ __noinline__ void run_ttmqr(bool transpose, const T* v, const T* tau, T* a1, T* a2, T* shared,
                                       int lane) {
  gpu::warp_ttmqr(transpose, v, tau, a1, a2, shared, lane);
}

template <typename T>
struct QrKinds {
  static __device__ T* tile(T* base, int32_t p, int32_t i, int32_t j) {
    return base + (int64_t(i) + int64_t(j) * p) * (gpu::warp_tile * gpu::warp_tile);
  }
  static __device__ T* tau(T* base, int32_t p, int32_t i, int32_t k) {
    return base + (int64_t(i) + int64_t(k) * p) * gpu::warp_tile;
  }

  template <class Ctx>
  __device__ static void run(int kind, const TaskArgs& args, Ctx& ctx) {
    const QrTaskArgs a = args.as<QrTaskArgs>();
    const QrRunParams<T> r = params_of<QrRunParams<T>>(ctx);
    T* shared = scratch_of<T>(ctx);
    const int lane = ctx.rank();
    const Task& t = a.task;
    const bool transpose = a.transpose != 0;
    T* v = tile(r.a, r.p, t.i, t.k);
    switch (static_cast<TaskKind>(kind)) {
      case TaskKind::geqrt:
        run_geqrt(v, tau(r.tau_local, r.p, t.i, t.k), shared, lane);
        break;
      case TaskKind::ormqr:
        run_ormqr<T>(transpose, v, tau(r.tau_local, r.p, t.i, t.k), tile(r.c, r.p, t.i, t.j), shared, lane);
        break;
      case TaskKind::tsqrt:
        run_tsqrt(tile(r.a, r.p, t.piv, t.k), v, tau(r.tau_merge, r.p, t.i, t.k), shared, lane);
        break;
      case TaskKind::tsmqr:
        run_tsmqr<T>(transpose, v, tau(r.tau_merge, r.p, t.i, t.k), tile(r.c, r.p, t.piv, t.j),
                     tile(r.c, r.p, t.i, t.j), shared, lane);
        break;
      case TaskKind::ttqrt:
        run_ttqrt(tile(r.a, r.p, t.piv, t.k), v, tau(r.tau_merge, r.p, t.i, t.k), shared, lane);
        break;
      case TaskKind::ttmqr:
        run_ttmqr<T>(transpose, v, tau(r.tau_merge, r.p, t.i, t.k), tile(r.c, r.p, t.piv, t.j),
                     tile(r.c, r.p, t.i, t.j), shared, lane);
        break;
    }
  }
};

}  // namespace tiledqr::fr4
