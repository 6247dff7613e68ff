// geqrt: the QR of one tile (the reference kernels).
#pragma once

#include "kernels/householder.hpp"

namespace tiledqr::kernels {

// geqrt (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs": DGEQT2) — QR of one tile, A = Q R with Q = H_0 ⋯ H_{k−1},
// k = min(m, n), by the same paper Algorithm 3 (no explicit P).
//   a   (m, n) col-major, lda ≥ m: on exit R in the upper triangle and the
//       reflectors' v below the diagonal (unit diagonal implicit);
//   tau (k): the reflectors' τ.
template <typename T>
TILEDQR_HOST_DEVICE void geqrt(int m, int n, T* a, int lda, T* tau) {
  const int k = m < n ? m : n;
  for (int j = 0; j < k; ++j) {
    T* below = a + (j + 1) + j * lda;
    tau[j] = make_reflector(m - j - 1, a[j + j * lda], below, 1);
    apply_reflector(m - j - 1, n - j - 1, below, tau[j], a + j + (j + 1) * lda, lda,
                    a + (j + 1) + (j + 1) * lda, lda);
  }
}

}  // namespace tiledqr::kernels
