#pragma once

#include "kernels/householder.hpp"

namespace tiledqr::kernels {

// ttqrt — QR of a triangle on top of a triangle, [R1; R2] = Q [R̂; 0], the
// merge step of the tall-skinny trees (docs/design.md §8; Hadri, Ltaief, Agullo,
// Dongarra, LAWN 222). Like tsqrt, but column j of R2 has only rows
// 0..min(j, m−1), so v_j does too and the upper triangle of A2 holds V2.
//   a1  (n, n) col-major, lda1 ≥ n: upper triangle R1 in, R̂ out;
//   a2  (m, n) col-major, lda2 ≥ m: upper triangle R2 in, V2 out; the strict
//       lower triangle is not touched;
//   tau (n).
template <typename T>
TILEDQR_HOST_DEVICE void ttqrt(int m, int n, T* a1, int lda1, T* a2, int lda2, T* tau) {
  for (int j = 0; j < n; ++j) {
    const int rows = j + 1 < m ? j + 1 : m;
    T* v = a2 + j * lda2;
    tau[j] = make_reflector(rows, a1[j + j * lda1], v, 1);
    apply_reflector(rows, n - j - 1, v, tau[j], a1 + j + (j + 1) * lda1, lda1,
                    a2 + (j + 1) * lda2, lda2);
  }
}

}  // namespace tiledqr::kernels
