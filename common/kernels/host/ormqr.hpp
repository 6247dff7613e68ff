// ormqr: the Q or Qᵀ of a geqrt applied to a tile (the reference kernels).
#pragma once

#include "kernels/householder.hpp"

namespace tiledqr::kernels {

// ormqr (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs": DLARFB) — C ← Qᵀ C (transpose) or C ← Q C, with
// Q = H_0 ⋯ H_{k−1} from geqrt.
//   v   (m, k) col-major, ldv ≥ m: reflectors below the diagonal, as geqrt leaves them;
//   tau (k);
//   c   (m, n) col-major, ldc ≥ m.
template <typename T>
TILEDQR_HOST_DEVICE void ormqr(bool transpose, int m, int n, int k, const T* v, int ldv,
                               const T* tau, T* c, int ldc) {
  for (int s = 0; s < k; ++s) {
    const int l = transpose ? s : k - 1 - s;
    apply_reflector(m - l - 1, n, v + (l + 1) + l * ldv, tau[l], c + l, ldc, c + l + 1, ldc);
  }
}

}  // namespace tiledqr::kernels
