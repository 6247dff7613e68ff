#pragma once

#include "kernels/householder.hpp"

namespace tiledqr::kernels {

// ttmqr — [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], with Q from
// ttqrt: v_l = [e_l; V2(0..min(l, m−1), l)] (docs/design.md §8).
//   v   (m, k) col-major, ldv ≥ m: upper triangle holds V2;
//   tau (k);
//   a1  (k, n) col-major, lda1 ≥ k;
//   a2  (m, n) col-major, lda2 ≥ m.
template <typename T>
TILEDQR_HOST_DEVICE void ttmqr(bool transpose, int m, int n, int k, const T* v, int ldv,
                               const T* tau, T* a1, int lda1, T* a2, int lda2) {
  for (int s = 0; s < k; ++s) {
    const int l = transpose ? s : k - 1 - s;
    const int rows = l + 1 < m ? l + 1 : m;
    apply_reflector(rows, n, v + l * ldv, tau[l], a1 + l, lda1, a2, lda2);
  }
}

}  // namespace tiledqr::kernels
