// Block tsmqr (LAPACK ?tpmqrt with l = 0, side left): one thread block applies
// a tsqrt factor's Q or Qᵀ to a pair of tiles, on the FP64 tensor cores for
// double and with FP32 FMA for float (compact_wy_apply.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "compact_wy_apply.cuh"

namespace tiledqr::kernels::block {

// [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], Q = I − V T Vᵀ block by
// block of ib columns, V = [I; V2] (seed 000: DSSRFB):
//   m, n, k ≤ NB, ib = IB;
//   v      (m, k) col-major, ldv ≥ m: V2 from tsqrt (LAPACK ?tpqrt, l = 0);
//   t      (IB, k) col-major, ldt ≥ IB: the upper triangular T of each
//          inner block side by side (strict lower parts are not read);
//   a1     (k, n) col-major, lda1 ≥ k: the tile the triangle came from;
//   a2     (m, n) col-major, lda2 ≥ m;
//   shared CompactWyLaunch<T, NB, IB>::shared_bytes, 16-byte aligned;
// every thread of a block of CompactWyLaunch<T, NB, IB>::threads calls it.
template <typename T, int NB, int IB>
__device__ void tsmqr(bool transpose, int m, int n, int k, const T* v, int ldv, const T* t, int ldt,
                      T* a1, int lda1, T* a2, int lda2, T* shared) {
  if constexpr (CompactWyLaunch<T, NB, IB>::tensor_cores) {
    if (transpose)
      apply_compact_wy_mma<NB, IB, ReflectorShape::full, true>(m, n, k, v, ldv, t, ldt, a1, lda1,
                                                                a2, lda2, shared);
    else
      apply_compact_wy_mma<NB, IB, ReflectorShape::full, false>(m, n, k, v, ldv, t, ldt, a1, lda1,
                                                                 a2, lda2, shared);
  } else {
    apply_compact_wy_fma<T, NB, IB, ReflectorShape::full>(transpose, m, n, k, v, ldv, t, ldt, a1,
                                                          lda1, a2, lda2, shared);
  }
}

// One independent tsmqr: the arguments above, device pointers.
template <typename T>
struct TsmqrTask {
  int m, n, k;
  const T* v;
  int ldv;
  const T* t;
  int ldt;
  T* a1;
  int lda1;
  T* a2;
  int lda2;
};

// Block i runs tasks[i].
template <typename T, int NB, int IB>
__global__ void __launch_bounds__(CompactWyLaunch<T, NB, IB>::threads, 1)
    tsmqr_tasks_kernel(bool transpose, const TsmqrTask<T>* tasks) {
  extern __shared__ __align__(16) unsigned char tsmqr_shared[];
  const TsmqrTask<T> task = tasks[blockIdx.x];
  tsmqr<T, NB, IB>(transpose, task.m, task.n, task.k, task.v, task.ldv, task.t, task.ldt, task.a1,
                   task.lda1, task.a2, task.lda2, reinterpret_cast<T*>(tsmqr_shared));
}

// Runs `count` tasks (device array) concurrently, one block each; the caller
// checks each task's sizes (m, n, k ≤ NB) beforehand. Returns the launch's
// error.
template <typename T, int NB, int IB>
cudaError_t launch_tsmqr_tasks(bool transpose, const TsmqrTask<T>* tasks, int count, cudaStream_t stream) {
  return launch_compact_wy_tasks<T, NB, IB>(tsmqr_tasks_kernel<T, NB, IB>, transpose, tasks, count, stream);
}

}  // namespace tiledqr::kernels::block
