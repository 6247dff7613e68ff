// Kernels on a whole row block of a tall matrix (the leaves of the tsqr
// tree, docs/design.md §8): LAPACK's own blocked routines ?geqrt and
// ?gemqrt, one call on the whole block. Their recursive panel (?geqrt3)
// and compact-WY updates are level-3 BLAS over all the block's rows, where
// the tile kernels of kernels/lapack/ cut the work into small products;
// on a block of 10⁵ rows the few ?trmm calls inside, and the buffer lock
// OpenBLAS takes for each, cost nothing next to the arithmetic.
//
// Every matrix is col-major; arguments follow LAPACK's order. An argument
// LAPACK rejects throws std::logic_error naming the routine and the
// argument's position.
#pragma once

namespace tiledqr::row_block_kernels {

// A (m, n) → V below the diagonal, R on and above it; t (ib, min(m, n)),
// ldt ≥ ib, the compact-WY T factors of each block of ib reflectors;
// 1 ≤ ib ≤ min(m, n) (LAPACK's ?geqrt).
template <typename T>
void geqrt(int m, int n, int ib, T* a, int lda, T* t, int ldt);

// C (m, n) ← Qᵀ C (transpose) or Q C, Q = H_0 ⋯ H_{k−1} from geqrt's
// v (m, k), ldv ≥ m, and t (ib, k) (LAPACK's ?gemqrt, left side).
template <typename T>
void gemqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t, int ldt, T* c,
            int ldc);

}  // namespace tiledqr::row_block_kernels
