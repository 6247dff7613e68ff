// Block tsqrt (LAPACK ?tpqrt with l = 0): one thread block merges a full tile
// into the triangle above it, panel by panel of ib columns (panel_factor.cuh).
#pragma once

#include "panel_factor.cuh"

namespace tiledqr::kernels::block {

// [R; A] = Q [R̂; 0] with Q = I − V T Vᵀ block by block, V = [I; V2]
// (the elimination of a tile by the triangle above it):
//   m, n ≤ NB, ib = IB;
//   r      (n, n) col-major, ldr ≥ n: R in the upper triangle in, R̂ out (the
//          strict lower part is not touched);
//   a      (m, n) col-major, lda ≥ m: A in, V2 out;
//   t      (IB, n) col-major, ldt ≥ IB: T_b side by side, zeros below each diagonal;
//   shared PanelLayout<T, NB, IB>::shared_bytes, 16-byte aligned;
// every thread of a block of PanelLayout<T, NB, IB>::threads calls it.
template <typename T, int NB, int IB>
__device__ void tsqrt(int m, int n, T* r, int ldr, T* a, int lda, T* t, int ldt, T* shared) {
  factor_tile<T, NB, IB>(PanelKind::tsqrt, m, n, r, ldr, a, lda, t, ldt, shared);
}

}  // namespace tiledqr::kernels::block
