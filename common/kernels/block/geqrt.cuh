// Block geqrt (LAPACK ?geqrt): one thread block factors one tile, panel by
// panel of ib columns (panel_factor.cuh), the trailing columns updated on
// the FP64 tensor cores (float operands widened to double).
#pragma once

#include "panel_factor.cuh"

namespace tiledqr::kernels::block {

// A = Q R, Q = H_0 ⋯ H_{k−1}, k = min(m, n), in blocks of ib reflectors
// (compact WY: Q_b = I − V_b T_b V_bᵀ):
//   m, n ≤ NB, ib = IB;
//   a      (m, n) col-major, lda ≥ m: A in; R on and above the diagonal and
//          V below it out (unit diagonal implicit), as LAPACK's ?geqrt;
//   t      (IB, k) col-major, ldt ≥ IB: T_b of each inner block side by side,
//          zeros below each diagonal;
//   shared PanelLayout<T, NB, IB>::shared_bytes, 16-byte aligned;
// every thread of a block of PanelLayout<T, NB, IB>::threads calls it.
template <typename T, int NB, int IB>
__device__ void geqrt(int m, int n, T* a, int lda, T* t, int ldt, T* shared) {
  factor_tile<T, NB, IB>(PanelKind::geqrt, m, n, nullptr, 0, a, lda, t, ldt, shared);
}

}  // namespace tiledqr::kernels::block
