// Kernels for a matrix that is one tile, held in cache (docs/design.md §6):
// unblocked Householder QR, as LAPACK's ?geqr2, ?orm2r and ?org2r, written
// here without BLAS calls. A stack of small matrices spends its time in
// them: OpenBLAS takes a process-wide lock for the buffer of each ?gemm
// call outside its small-matrix path (all of them on processors it does not
// recognise), so threads factoring small matrices at once queued on it.
// Every product is a fused multiply-add in a fixed order of eight lanes,
// so the results are the same bits on every x86-64 processor; each
// function is compiled for AVX-512, AVX2 and plain x86-64, the best the
// processor runs chosen at the first call.
//
// A reflector is H = I − τ [1; v][1; v]ᵀ, v stored below the diagonal as
// ?geqr2 stores it; every matrix is col-major.
#pragma once

namespace tiledqr::small_kernels {

// A (m, n), lda ≥ m → R on and above the diagonal, the reflectors' v
// below it; tau (min(m, n)) their τ (LAPACK's ?geqr2).
template <typename T>
void geqr2(int m, int n, T* a, int lda, T* tau);

// C (m, n), ldc ≥ m ← Qᵀ C (transpose) or Q C, Q = H_0 ⋯ H_{k−1} from
// geqr2's v (m, k), ldv ≥ m, and tau (k) (LAPACK's ?orm2r, left side).
template <typename T>
void orm2r(bool transpose, int m, int n, int k, const T* v, int ldv, const T* tau, T* c, int ldc);

// Q (m, k), ldq ≥ m ← the first k columns of H_0 ⋯ H_{k−1}, from geqr2's
// v (m, ≥ k), ldv ≥ m, and tau (LAPACK's ?org2r, into Q rather than over
// V): the identity's columns, each changed only by the reflectors at or
// before its own index.
template <typename T>
void org2r(int m, int k, const T* v, int ldv, const T* tau, T* q, int ldq);

}  // namespace tiledqr::small_kernels
