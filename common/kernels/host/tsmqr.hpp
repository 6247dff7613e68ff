#pragma once

#include "kernels/householder.hpp"

namespace tiledqr::kernels {

// tsmqr (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs": DSSRFB) — [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2],
// with Q = H_0 ⋯ H_{k−1} from tsqrt (v_l = [e_l; V2(:, l)]).
//   v   (m, k) col-major, ldv ≥ m: V2 from tsqrt;
//   tau (k);
//   a1  (k, n) col-major, lda1 ≥ k: the row block the triangle came from;
//   a2  (m, n) col-major, lda2 ≥ m.
template <typename T>
TILEDQR_HOST_DEVICE void tsmqr(bool transpose, int m, int n, int k, const T* v, int ldv,
                               const T* tau, T* a1, int lda1, T* a2, int lda2) {
  for (int s = 0; s < k; ++s) {
    const int l = transpose ? s : k - 1 - s;
    apply_reflector(m, n, v + l * ldv, tau[l], a1 + l, lda1, a2, lda2);
  }
}

}  // namespace tiledqr::kernels
