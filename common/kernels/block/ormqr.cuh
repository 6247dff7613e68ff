// Block ormqr (LAPACK ?gemqrt, side left): one thread block applies a geqrt
// factor's Q or Qᵀ to one tile, on the FP64 tensor cores in both precisions
// (compact_wy_apply.cuh).
#pragma once

#include <cuda_runtime.h>

#include "compact_wy_apply.cuh"

namespace tiledqr::kernels::block {

// The engine's operands of one ormqr (the arguments of ormqr below).
template <typename T>
__host__ __device__ inline CompactWy<T> ormqr_operands(int m, int n, int k, const T* v, int ldv, const T* t,
                                                       int ldt, T* c, int ldc) {
  return CompactWy<T>{m, n, k, 0, 0, v, ldv, t, ldt, nullptr, 0, c, ldc};
}

// C ← Qᵀ C (transpose) or Q C, Q = I − V T Vᵀ block by block of ib columns
// (Buttari et al.'s DLARFB):
//   m, n, k ≤ NB, k ≤ m, ib = IB;
//   v      (m, k) col-major, ldv ≥ m: geqrt's V below its unit diagonal
//          (the diagonal and the R above it are not read);
//   t      (IB, k) col-major, ldt ≥ IB: geqrt's T (strict lower parts not read);
//   c      (m, n) col-major, ldc ≥ m;
//   shared CompactWyLaunch<T, NB, IB>::shared_bytes, 16-byte aligned;
// every thread of a block of CompactWyLaunch<T, NB, IB>::threads calls it.
template <typename T, int NB, int IB>
__device__ void ormqr(bool transpose, int m, int n, int k, const T* v, int ldv, const T* t, int ldt, T* c,
                      int ldc, T* shared) {
  apply_compact_wy<T, NB, IB>(ReflectorShape::unit_lower, transpose,
                              ormqr_operands(m, n, k, v, ldv, t, ldt, c, ldc), shared);
}

}  // namespace tiledqr::kernels::block
