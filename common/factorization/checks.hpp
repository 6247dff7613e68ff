// Norms and the two accuracy measures every stage reports (docs/design.md §7,
// PLASMA's testers): residual ‖A − QR‖_F / (‖A‖_F·n·ε) and orthogonality
// ‖I − QᵀQ‖_F / (n·ε), ε the unit roundoff of T (LAPACK's dlamch('E')).
#pragma once

#include <cstdint>
#include <string>

#include "factorization.hpp"

namespace tiledqr {

// ‖A‖_F of A (m, n), lda, accumulated with a running scale (LAPACK's
// dlassq), so entries near the overflow threshold do not overflow.
template <typename T>
double frobenius_norm(int64_t m, int64_t n, const T* a, int64_t lda);

// ‖A‖_F as scale·√sum_of_squares (LAPACK's dlassq). The two parts are kept
// apart where a ratio of norms is wanted: ‖A‖_F itself overflows for a
// matrix of entries near 1e307 that factors without trouble. A NaN entry
// makes scale NaN for good.
struct ScaledSumOfSquares {
  double scale = 0;
  double sum_of_squares = 1;
  void add(double value);                        // one more entry
  void merge(const ScaledSumOfSquares& other);   // the entries of both
};

template <typename T>
ScaledSumOfSquares scaled_sum_of_squares(int64_t m, int64_t n, const T* a, int64_t lda);

// ‖A − QR‖_F / (‖A‖_F·n·ε) from the scaled sums of A − QR and A, divided
// step by step: the product ‖A‖_F·n·ε overflows to Inf for ‖A‖_F above
// about 1e306, and the residual then read 0, a check that always passes.
double residual_ratio(const ScaledSumOfSquares& difference, const ScaledSumOfSquares& a, int64_t n,
                      double eps);

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

// The bound --check holds both measures to: tolerance·√(max(m, n)/n).
// Every Householder QR's rounding error grows with the length of the
// columns it transforms (the classical bound is linear in m; LAPACK's own
// QR tests divide by max(m, n)); the flat tree's panel is a chain of p =
// m/b tsqrt, each rounding R_kk and Q's rows once more, so its error grows
// like √p in practice (100000×1, tile 32: 87 n·ε; tile 2: 323). The
// square root keeps square and wide matrices at `tolerance` exactly.
double check_bound(int64_t m, int64_t n, double tolerance);

// A matrix read in double, in precision T: throws InputError naming the
// first entry (1-based) that overflows T or underflows to zero in T (a
// nonzero 1e-50 is 0 in float), instead of changing it silently.
template <typename T>
DenseMatrix<T> to_precision(const DenseMatrix<double>& a, const std::string& what);

// Throws NumericalError naming the first non-finite entry (1-based) of R,
// which overflows where a column's norm exceeds the largest finite T.
template <typename T>
void require_finite_r(const DenseMatrix<T>& r);

// Unit roundoff of T.
template <typename T>
double unit_roundoff();

}  // namespace tiledqr
