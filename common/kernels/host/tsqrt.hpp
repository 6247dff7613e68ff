// tsqrt and ttqrt: QR of a triangle stacked on a square or on a triangle, one template (the reference kernels).
#pragma once

#include "kernels/householder.hpp"

namespace tiledqr::kernels {

// [R; A2] = Q [R̂; 0], Q = H_0 ⋯ H_{n−1}, v_j = [e_j; V2(0..rows_j − 1, j)]
// with rows_j = lower_rows<lower>(j, m): the top part of each v is e_j (the
// implicit identity block of "Task-Based Scheduling Implementing Tiled
// Linear Algebra on GPUs" §I.C), so only the bottom part is stored, in A2.
//   a1  (n, n) col-major, lda1 ≥ n: upper triangle R in, R̂ out; the strict
//       lower triangle is not touched (it keeps geqrt's reflectors);
//   a2  (m, n) col-major, lda2 ≥ m: A2 in, V2 out (under a triangle only
//       the upper triangle, the strict lower one is not touched);
//   tau (n).
template <LowerTile lower, typename T>
TILEDQR_HOST_DEVICE void stacked_qrt(int m, int n, T* a1, int lda1, T* a2, int lda2, T* tau) {
  for (int j = 0; j < n; ++j) {
    const int rows = lower_rows<lower>(j, m);
    T* v = a2 + j * lda2;
    tau[j] = make_reflector(rows, a1[j + j * lda1], v, 1);
    apply_reflector(rows, n - j - 1, v, tau[j], a1 + j + (j + 1) * lda1, lda1, a2 + (j + 1) * lda2,
                    lda2);
  }
}

// tsqrt (the same paper's DTSQT2): a triangle on a square tile.
template <typename T>
TILEDQR_HOST_DEVICE void tsqrt(int m, int n, T* a1, int lda1, T* a2, int lda2, T* tau) {
  stacked_qrt<LowerTile::square>(m, n, a1, lda1, a2, lda2, tau);
}

// ttqrt: a triangle on a triangle, [R1; R2] = Q [R̂; 0], the merge step of
// the tall-skinny trees (docs/design.md §8; Hadri, Ltaief, Agullo, Dongarra,
// LAWN 222).
template <typename T>
TILEDQR_HOST_DEVICE void ttqrt(int m, int n, T* a1, int lda1, T* a2, int lda2, T* tau) {
  stacked_qrt<LowerTile::triangle>(m, n, a1, lda1, a2, lda2, tau);
}

}  // namespace tiledqr::kernels
