// Block ttmqr (LAPACK ?tpmqrt with l = k, side left): one thread block applies
// a ttqrt factor's Q or Qᵀ to a pair of tiles, on the FP64 tensor cores in
// both precisions (compact_wy_apply.cuh).
#pragma once

#include <cuda_runtime.h>

#include "compact_wy_apply.cuh"

namespace tiledqr::kernels::block {

// The engine's operands of one ttmqr (the arguments of ttmqr below).
template <typename T>
__host__ __device__ inline CompactWy<T> ttmqr_operands(int m, int n, int k, const T* v, int ldv, const T* t,
                                                       int ldt, T* a1, int lda1, T* a2, int lda2) {
  const int rows = m < k ? m : k;  // V2's rows past k are zero: A2 keeps them
  return CompactWy<T>{rows, n, k, 0, 0, v, ldv, t, ldt, a1, lda1, a2, lda2};
}

// [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], Q = I − V T Vᵀ block by
// block of ib columns, V = [I; V2] with V2 upper triangular: column l of V2
// has rows 0 … min(l, m − 1) (the merge of two triangles, docs/design.md §5):
//   m, n, k ≤ NB, ib = IB;
//   v      (m, k) col-major, ldv ≥ m: V2 in the upper triangle (ttqrt); the
//          strict lower part is not read;
//   t      (IB, k) col-major, ldt ≥ IB: ttqrt's T (strict lower parts not read);
//   a1     (k, n) col-major, lda1 ≥ k;
//   a2     (m, n) col-major, lda2 ≥ m: only rows 0 … min(m, k) − 1 change;
//   shared CompactWyLaunch<T, NB, IB>::shared_bytes, 16-byte aligned;
// every thread of a block of CompactWyLaunch<T, NB, IB>::threads calls it.
template <typename T, int NB, int IB>
__device__ void ttmqr(bool transpose, int m, int n, int k, const T* v, int ldv, const T* t, int ldt, T* a1,
                      int lda1, T* a2, int lda2, T* shared) {
  apply_compact_wy<T, NB, IB>(ReflectorShape::upper, transpose,
                              ttmqr_operands(m, n, k, v, ldv, t, ldt, a1, lda1, a2, lda2), shared);
}

}  // namespace tiledqr::kernels::block
