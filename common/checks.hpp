// Norms and the two accuracy measures every stage reports (docs/design.md §7,
// PLASMA's testers): residual ‖A − QR‖_F / (‖A‖_F·n·ε) and orthogonality
// ‖I − QᵀQ‖_F / (n·ε), ε the unit roundoff of T (LAPACK's dlamch('E')).
#pragma once

#include <cstdint>

#include "factorization.hpp"

namespace tiledqr {

// ‖A‖_F of A (m, n), lda, accumulated with a running scale (LAPACK's
// dlassq), so entries near the overflow threshold do not overflow.
template <typename T>
double frobenius_norm(int64_t m, int64_t n, const T* a, int64_t lda);

struct Residuals {
  double residual = 0;       // ‖A − QR‖_F / (‖A‖_F·n·ε)
  double orthogonality = 0;  // ‖I − QᵀQ‖_F / (n·ε)
};

// Both measures for factorisation f of A (m, n), lda.
template <typename T>
Residuals check_factorization(const T* a, int64_t m, int64_t n, int64_t lda,
                              const Factorization<T>& f);

// Both measures for an explicit factorisation A = Q R of A (m, n) with Q
// (m, k), R (k, n), k = min(m, n), all col-major with ld = rows: for peers
// (LAPACK, cuSOLVER) whose Q is formed with ?orgqr.
template <typename T>
Residuals residuals_of_explicit_qr(const T* a, int64_t m, int64_t n, const T* q, const T* r);

// Floating-point operations of a Householder QR of an m×n matrix:
// 2mn² − 2n³/3 for m ≥ n, 2nm² − 2m³/3 otherwise.
double qr_flops(int64_t m, int64_t n);

// Unit roundoff of T.
template <typename T>
double unit_roundoff();

}  // namespace tiledqr
