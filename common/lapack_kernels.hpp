// The second kernel backend (DESIGN §2.2): the same four (six) tile
// operations through LAPACK's own tile routines — ?geqrt, ?gemqrt, ?tpqrt,
// ?tpmqrt — with compact-WY T factors of inner block ib. Arguments follow
// LAPACK's order; every matrix is col-major.
#pragma once

namespace tiledqr::lapack_kernels {

// A (m, n) → V, R;  t (ib, min(m, n)), ldt ≥ ib.
template <typename T>
void geqrt(int m, int n, int ib, T* a, int lda, T* t, int ldt);

// C (m, n) ← Qᵀ C or Q C;  v (m, k), t (ib, k) from geqrt.
template <typename T>
void gemqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t, int ldt,
            T* c, int ldc);

// [A (n, n) upper; B (m, n)] → [R̂; V].  l = 0: B is a full tile (tsqrt);
// l = n: B is upper triangular (ttqrt).  t (ib, n).
template <typename T>
void tpqrt(int m, int n, int l, int ib, T* a, int lda, T* b, int ldb, T* t, int ldt);

// [A (k, n); B (m, n)] ← Qᵀ [A; B] or Q [A; B];  v (m, k) with l as in tpqrt.
template <typename T>
void tpmqrt(bool transpose, int m, int n, int k, int l, int ib, const T* v, int ldv, const T* t,
            int ldt, T* a, int lda, T* b, int ldb);

// Makes OpenBLAS run single-threaded in this process: tile kernels are small
// and the executors supply the parallelism.
void use_single_threaded_blas();

}  // namespace tiledqr::lapack_kernels
