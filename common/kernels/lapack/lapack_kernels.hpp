// The second kernel backend (docs/design.md §3): the same four (six) tile
// operations as LAPACK's tile routines ?geqrt, ?gemqrt, ?tpqrt, ?tpmqrt —
// same arguments, same outputs (V, R and compact-WY T factors of inner
// block ib, T stored (ib, k) as LAPACK's routines store it) — built so that
// many threads can run them at once.
//
// What calls LAPACK/BLAS and what is this project's:
//   - geqrt: LAPACK's ?geqr2 factors each block of ib columns (Householder
//     vectors by ?larfg, applied by ?gemv/?ger); the block's T factor is
//     formed here (?gemv and a triangular product of our own), and the
//     block reflector is applied to the columns right of the block by the
//     gemm-based apply below.
//   - tpqrt: each column's reflector comes from LAPACK's ?larfg and is
//     applied inside its block by ?gemv/?ger; T as for geqrt; the block is
//     applied to the columns right of it by the gemm-based apply.
//   - gemqrt, tpmqrt: this project's gemm-based apply of the compact-WY
//     block reflectors, block by block (forward for Qᵀ, backward for Q, the
//     order of ?gemqrt/?tpmqrt): W = Vᵀ C (plus the identity rows for
//     tpmqrt), W = Tᵀ W or T W, C −= V W. V and T are copied into full
//     matrices with explicit zeros (thread-local buffers), so every product
//     is a plain no-transpose ?gemm.
// Why not LAPACK's own ?gemqrt/?tpmqrt/?geqrt/?tpqrt: they go through
// ?trmm (in ?larfb/?tprfb and ?geqrt3) and ?trmv (in ?larft/?geqrt2/
// ?tpqrt2), and OpenBLAS takes a process-wide lock to hand out a buffer on
// every such call; with 16 threads calling them the lock, not the
// arithmetic, set the pace (a 32×32 trmm went from 1.7 µs to 18 µs).
// OpenBLAS's small-matrix ?gemm path, ?gemv and ?ger take no such lock; the
// gemm calls are split by columns to stay within that path (m·n·k ≤ 100³).
//
// Every matrix is col-major; arguments follow LAPACK's order. Invalid
// arguments throw std::logic_error naming the routine and the argument.
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
