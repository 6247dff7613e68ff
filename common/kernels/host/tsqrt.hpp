#pragma once

#include "kernels/householder.hpp"

namespace tiledqr::kernels {

// tsqrt (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs": DTSQT2) — QR of a triangle on top of a square:
// [R; A2] = Q [R̂; 0]. The top part of each v is e_j (the implicit identity
// block of the same paper §I.C), so only the bottom part is stored, in A2.
//   a1  (n, n) col-major, lda1 ≥ n: upper triangle R in, R̂ out; the strict
//       lower triangle is not touched (it keeps geqrt's reflectors);
//   a2  (m, n) col-major, lda2 ≥ m: A2 in, V2 out;
//   tau (n).
template <typename T>
TILEDQR_HOST_DEVICE void tsqrt(int m, int n, T* a1, int lda1, T* a2, int lda2, T* tau) {
  for (int j = 0; j < n; ++j) {
    T* v = a2 + j * lda2;
    tau[j] = make_reflector(m, a1[j + j * lda1], v, 1);
    apply_reflector(m, n - j - 1, v, tau[j], a1 + j + (j + 1) * lda1, lda1, a2 + (j + 1) * lda2,
                    lda2);
  }
}

}  // namespace tiledqr::kernels
