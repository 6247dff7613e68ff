// tsmqr and ttmqr: the Q of a tsqrt or a ttqrt applied to a stacked pair of tiles, one template (the reference kernels).
#pragma once

#include "kernels/householder.hpp"

namespace tiledqr::kernels {

// [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], Q = H_0 ⋯ H_{k−1} from
// stacked_qrt<lower>: v_l = [e_l; V2(0..rows_l − 1, l)], rows_l =
// lower_rows<lower>(l, m).
//   v   (m, k) col-major, ldv ≥ m: V2 (under a triangle, its upper triangle);
//   tau (k);
//   a1  (k, n) col-major, lda1 ≥ k: the row block the triangle came from;
//   a2  (m, n) col-major, lda2 ≥ m.
template <LowerTile lower, typename T>
TILEDQR_HOST_DEVICE void stacked_mqr(bool transpose, int m, int n, int k, const T* v, int ldv, const T* tau, T* a1,
                                     int lda1, T* a2, int lda2) {
  for (int s = 0; s < k; ++s) {
    const int l = transpose ? s : k - 1 - s;
    apply_reflector(lower_rows<lower>(l, m), n, v + l * ldv, tau[l], a1 + l, lda1, a2, lda2);
  }
}

// tsmqr ("Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs":
// DSSRFB): the Q of a tsqrt.
template <typename T>
TILEDQR_HOST_DEVICE void tsmqr(bool transpose, int m, int n, int k, const T* v, int ldv, const T* tau, T* a1,
                               int lda1, T* a2, int lda2) {
  stacked_mqr<LowerTile::square>(transpose, m, n, k, v, ldv, tau, a1, lda1, a2, lda2);
}

// ttmqr: the Q of a ttqrt (docs/design.md §8).
template <typename T>
TILEDQR_HOST_DEVICE void ttmqr(bool transpose, int m, int n, int k, const T* v, int ldv, const T* tau, T* a1,
                               int lda1, T* a2, int lda2) {
  stacked_mqr<LowerTile::triangle>(transpose, m, n, k, v, ldv, tau, a1, lda1, a2, lda2);
}

}  // namespace tiledqr::kernels
