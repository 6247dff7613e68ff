// Block ormqr (LAPACK ?gemqrt, side left): one thread block applies a geqrt
// factor's Q or Qᵀ to one tile, on the FP64 tensor cores for double and with
// FP32 FMA for float (compact_wy_apply.cuh).
#pragma once

#include <cuda_runtime.h>

#include "compact_wy_apply.cuh"

namespace tiledqr::kernels::block {

// C ← Qᵀ C (transpose) or Q C, Q = I − V T Vᵀ block by block of ib columns
// (seed 000: DLARFB):
//   m, n, k ≤ NB, k ≤ m, ib = IB;
//   v      (m, k) col-major, ldv ≥ m: geqrt's V below its unit diagonal
//          (the diagonal and the R above it are not read);
//   t      (IB, k) col-major, ldt ≥ IB: geqrt's T (strict lower parts not read);
//   c      (m, n) col-major, ldc ≥ m;
//   shared CompactWyLaunch<T, NB, IB>::shared_bytes, 16-byte aligned;
// every thread of a block of CompactWyLaunch<T, NB, IB>::threads calls it.
template <typename T, int NB, int IB>
__device__ void ormqr(bool transpose, int m, int n, int k, const T* v, int ldv, const T* t, int ldt,
                      T* c, int ldc, T* shared) {
  if constexpr (CompactWyLaunch<T, NB, IB>::tensor_cores) {
    if (transpose)
      apply_compact_wy_mma<NB, IB, ReflectorShape::unit_lower, true>(m, n, k, v, ldv, t, ldt,
                                                                      nullptr, 0, c, ldc, shared);
    else
      apply_compact_wy_mma<NB, IB, ReflectorShape::unit_lower, false>(m, n, k, v, ldv, t, ldt,
                                                                       nullptr, 0, c, ldc, shared);
  } else {
    apply_compact_wy_fma<T, NB, IB, ReflectorShape::unit_lower>(transpose, m, n, k, v, ldv, t, ldt,
                                                                nullptr, 0, c, ldc, shared);
  }
}

// One independent ormqr: the arguments above, device pointers.
template <typename T>
struct OrmqrTask {
  int m, n, k;
  const T* v;
  int ldv;
  const T* t;
  int ldt;
  T* c;
  int ldc;
};

// Block i runs tasks[i].
template <typename T, int NB, int IB>
__global__ void __launch_bounds__(CompactWyLaunch<T, NB, IB>::threads, 1)
    ormqr_tasks_kernel(bool transpose, const OrmqrTask<T>* tasks) {
  extern __shared__ __align__(16) unsigned char ormqr_shared[];
  const OrmqrTask<T> task = tasks[blockIdx.x];
  ormqr<T, NB, IB>(transpose, task.m, task.n, task.k, task.v, task.ldv, task.t, task.ldt, task.c,
                   task.ldc, reinterpret_cast<T*>(ormqr_shared));
}

// Runs `count` tasks (device array) concurrently, one block each; the caller
// checks each task's sizes beforehand. Returns the launch's error.
template <typename T, int NB, int IB>
cudaError_t launch_ormqr_tasks(bool transpose, const OrmqrTask<T>* tasks, int count, cudaStream_t stream) {
  return launch_compact_wy_tasks<T, NB, IB>(ormqr_tasks_kernel<T, NB, IB>, transpose, tasks, count, stream);
}

}  // namespace tiledqr::kernels::block
