// Block tsmqr (LAPACK ?tpmqrt with l = 0, side left): one thread block applies
// a tsqrt factor's Q or Qᵀ to a pair of tiles, on the FP64 tensor cores in
// both precisions (compact_wy_apply.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "compact_wy_apply.cuh"

namespace tiledqr::kernels::block {

// The engine's operands of one tsmqr (the arguments of tsmqr below).
template <typename T>
__host__ __device__ inline CompactWy<T> tsmqr_operands(int m, int n, int k, const T* v, int ldv, const T* t,
                                                       int ldt, T* a1, int lda1, T* a2, int lda2) {
  return CompactWy<T>{m, n, k, 0, 0, v, ldv, t, ldt, a1, lda1, a2, lda2};
}

// [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], Q = I − V T Vᵀ block by
// block of ib columns, V = [I; V2] (Buttari et al.'s DSSRFB):
//   m, n, k ≤ NB, ib = IB;
//   v      (m, k) col-major, ldv ≥ m: V2 from tsqrt (LAPACK ?tpqrt, l = 0);
//   t      (IB, k) col-major, ldt ≥ IB: the upper triangular T of each
//          inner block side by side (strict lower parts are not read);
//   a1     (k, n) col-major, lda1 ≥ k: the tile the triangle came from;
//   a2     (m, n) col-major, lda2 ≥ m;
//   shared CompactWyLaunch<T, NB, IB>::shared_bytes, 16-byte aligned;
// every thread of a block of CompactWyLaunch<T, NB, IB>::threads calls it.
template <typename T, int NB, int IB>
__device__ void tsmqr(bool transpose, int m, int n, int k, const T* v, int ldv, const T* t, int ldt, T* a1,
                      int lda1, T* a2, int lda2, T* shared) {
  apply_compact_wy<T, NB, IB>(ReflectorShape::full, transpose,
                              tsmqr_operands(m, n, k, v, ldv, t, ldt, a1, lda1, a2, lda2), shared);
}

}  // namespace tiledqr::kernels::block
