// Block ttqrt (LAPACK ?tpqrt with l = min(m, n)): one thread block merges a
// triangle into the triangle above it, panel by panel of ib columns
// (panel_factor.cuh); the tall-skinny trees' merge (docs/design.md §5).
#pragma once

#include "panel_factor.cuh"

namespace tiledqr::kernels::block {

// [R1; R2] = Q [R̂; 0] with Q = I − V T Vᵀ block by block, V = [I; V2], V2
// upper triangular (column j of R2 has rows 0 … min(j, m − 1)):
//   m, n ≤ NB, ib = IB;
//   r1     (n, n) col-major, ldr1 ≥ n: upper triangle R1 in, R̂ out;
//   r2     (m, n) col-major, ldr2 ≥ m: upper triangle R2 in, V2 out; the
//          strict lower part is neither read nor written;
//   t      (IB, n) col-major, ldt ≥ IB: T_b side by side, zeros below each diagonal;
//   shared PanelLayout<T, NB, IB>::shared_bytes, 16-byte aligned;
// every thread of a block of PanelLayout<T, NB, IB>::threads calls it.
template <typename T, int NB, int IB>
__device__ void ttqrt(int m, int n, T* r1, int ldr1, T* r2, int ldr2, T* t, int ldt, T* shared) {
  factor_tile<T, NB, IB>(PanelKind::ttqrt, m, n, r1, ldr1, r2, ldr2, t, ldt, shared);
}

}  // namespace tiledqr::kernels::block
