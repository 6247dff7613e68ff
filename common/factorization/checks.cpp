// The accuracy measures and the norms behind them; see checks.hpp.
#include "checks.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "errors.hpp"
#include "kernels/householder.hpp"

namespace tiledqr {
namespace {

// Q·[R; 0] with R as the tiles hold it (A·2^−scale_exponent = Q R): the
// product the residual compares with A·2^−scale_exponent, so the check
// itself never overflows where the factorisation did not.
template <typename T>
DenseMatrix<T> q_times_r(const Factorization<T>& f) {
  const DenseMatrix<T> r = f.stored_r();
  DenseMatrix<T> qr(f.rows(), f.cols());
  for (int64_t j = 0; j < r.cols; ++j)
    for (int64_t i = 0; i < r.rows; ++i) qr(i, j) = r(i, j);
  f.apply_q(qr.data.data(), qr.ld(), qr.cols);
  return qr;
}

// C (m, n) ← A (m, k) B (k, n) − C.
void product_minus(int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0, a, int(m), b,
              int(k), -1.0, c, int(m));
}
void product_minus(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, a, int(m), b,
              int(k), -1.0f, c, int(m));
}

void gram_block(int m, int k, const double* q, int ldq, double* g) {
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, k, m, -1.0, q, ldq, q, ldq, 1.0, g, k);
}
void gram_block(int m, int k, const float* q, int ldq, float* g) {
  cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, k, m, -1.0f, q, ldq, q, ldq, 1.0f, g, k);
}

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// G (k, k) −= Qᵀ Q for Q (m, k), ld m. BLAS takes 32-bit sizes: beyond
// them the rows go through a copy (ld = rows of the piece) piece by piece.
template <typename T>
void gram(int64_t m, int64_t k, const T* q, T* g) {
  if (k > kInt32Max) throw InputError("orthogonality check: more than 2^31 - 1 columns");
  if (m <= kInt32Max) {
    gram_block(int(m), int(k), q, int(m), g);
    return;
  }
  const int64_t piece = std::max<int64_t>(1, std::min<int64_t>(kInt32Max, (int64_t(1) << 24) / k));
  std::vector<T> buffer(size_t(piece * k));
  for (int64_t r0 = 0; r0 < m; r0 += piece) {
    const int64_t rows = std::min(piece, m - r0);
    for (int64_t j = 0; j < k; ++j) std::copy_n(q + r0 + j * m, rows, buffer.data() + j * rows);
    gram_block(int(rows), int(k), buffer.data(), int(rows), g);
  }
}

}  // namespace

void ScaledSumOfSquares::add(double value) {
  const double x = std::fabs(value);
  if (x == 0 || std::isnan(scale)) return;
  if (std::isnan(x)) {
    *this = {x, 1};
  } else if (scale < x) {
    sum_of_squares = 1 + sum_of_squares * (scale / x) * (scale / x);
    scale = x;
  } else {
    sum_of_squares += (x / scale) * (x / scale);
  }
}

void ScaledSumOfSquares::merge(const ScaledSumOfSquares& other) {
  if (other.scale == 0 || std::isnan(scale)) return;
  if (std::isnan(other.scale) || scale < other.scale) {
    const double ratio = scale / other.scale;
    *this = {other.scale, other.sum_of_squares + sum_of_squares * ratio * ratio};
  } else {
    const double ratio = other.scale / scale;
    sum_of_squares += other.sum_of_squares * ratio * ratio;
  }
}

template <typename T>
ScaledSumOfSquares scaled_sum_of_squares(int64_t m, int64_t n, const T* a, int64_t lda) {
  ScaledSumOfSquares s;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) s.add(double(a[i + j * lda]));
  return s;
}

double residual_ratio(const ScaledSumOfSquares& difference, const ScaledSumOfSquares& a,
                      int64_t n, double eps) {
  if (difference.scale == 0) return 0;
  if (a.scale == 0) return std::numeric_limits<double>::infinity();
  return difference.scale / a.scale * std::sqrt(difference.sum_of_squares / a.sum_of_squares) /
         (double(n) * eps);
}

template <typename T>
double unit_roundoff() {
  return double(kernels::RealLimits<T>::eps);
}

template <typename T>
double frobenius_norm(int64_t m, int64_t n, const T* a, int64_t lda) {
  const ScaledSumOfSquares s = scaled_sum_of_squares(m, n, a, lda);
  return s.scale * std::sqrt(s.sum_of_squares);
}

template <typename T>
Residuals check_factorization(const T* a, int64_t m, int64_t n, int64_t lda,
                              const Factorization<T>& f) {
  const double eps = unit_roundoff<T>();
  Residuals out;
  DenseMatrix<T> qr = q_times_r(f);
  const int s = f.scale_exponent;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) qr(i, j) = std::ldexp(a[i + j * lda], -s) - qr(i, j);
  ScaledSumOfSquares a_sum = scaled_sum_of_squares(m, n, a, lda);
  a_sum.scale = std::ldexp(a_sum.scale, -s);
  out.residual = residual_ratio(scaled_sum_of_squares(m, n, qr.data.data(), m), a_sum, n, eps);

  const DenseMatrix<T> q = f.thin_q();
  const int64_t k = q.cols;
  DenseMatrix<T> g(k, k);
  for (int64_t i = 0; i < k; ++i) g(i, i) = T(1);
  gram(m, k, q.data.data(), g.data.data());
  out.orthogonality = frobenius_norm(k, k, g.data.data(), k) / (double(n) * eps);
  return out;
}

template <typename T>
Residuals residuals_of_explicit_qr(const T* a, int64_t m, int64_t n, const T* q, const T* r) {
  const double eps = unit_roundoff<T>();
  const int64_t k = std::min(m, n);
  if (m > kInt32Max || n > kInt32Max)
    throw InputError("residuals_of_explicit_qr: m and n must fit BLAS's 32-bit sizes");
  Residuals out;
  std::vector<T> diff(a, a + m * n);
  product_minus(m, n, k, q, r, diff.data());  // QR − A
  out.residual = residual_ratio(scaled_sum_of_squares(m, n, diff.data(), m),
                                scaled_sum_of_squares(m, n, a, m), n, eps);
  std::vector<T> g(size_t(k * k), T(0));
  for (int64_t i = 0; i < k; ++i) g[size_t(i + i * k)] = T(1);
  gram_block(int(m), int(k), q, int(m), g.data());
  out.orthogonality = frobenius_norm(k, k, g.data(), k) / (double(n) * eps);
  return out;
}

double check_bound(int64_t m, int64_t n, double tolerance) {
  return tolerance * std::sqrt(double(std::max(m, n)) / double(n));
}

namespace {

std::string position(int64_t i, int64_t j) {
  return "(" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ")";
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

}  // namespace

template <typename T>
DenseMatrix<T> to_precision(const DenseMatrix<double>& a, const std::string& what) {
  DenseMatrix<T> out(a.rows, a.cols);
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < a.rows; ++i) {
      const double x = a(i, j);
      const T y = T(x);
      if (std::isfinite(x) && !std::isfinite(y))
        throw InputError(what + ": entry " + number(x) + " at " + position(i, j) +
                         " overflows float to a non-finite value (largest " +
                         number(std::numeric_limits<T>::max()) + "); use --precision double");
      if (x != 0 && y == 0)
        throw InputError(what + ": entry " + number(x) + " at " + position(i, j) +
                         " underflows to 0 in float (smallest " + number(std::numeric_limits<T>::denorm_min()) +
                         "); use --precision double or rescale the matrix");
      out(i, j) = y;
    }
  return out;
}

template <typename T>
void require_finite_r(const DenseMatrix<T>& r) {
  for (int64_t j = 0; j < r.cols; ++j)
    for (int64_t i = 0; i < r.rows && i <= j; ++i)
      if (!std::isfinite(r(i, j)))
        throw NumericalError("R has a non-finite entry " + number(double(r(i, j))) + " at " + position(i, j) +
                             ": a column's norm exceeds the largest finite number");
}

template DenseMatrix<float> to_precision<float>(const DenseMatrix<double>&, const std::string&);
template DenseMatrix<double> to_precision<double>(const DenseMatrix<double>&, const std::string&);
template void require_finite_r<float>(const DenseMatrix<float>&);
template void require_finite_r<double>(const DenseMatrix<double>&);

double qr_flops(int64_t m, int64_t n) {
  const double big = double(std::max(m, n)), small = double(std::min(m, n));
  return 2.0 * big * small * small - 2.0 * small * small * small / 3.0;
}

template double unit_roundoff<float>();
template double unit_roundoff<double>();
template double frobenius_norm<float>(int64_t, int64_t, const float*, int64_t);
template double frobenius_norm<double>(int64_t, int64_t, const double*, int64_t);
template Residuals residuals_of_explicit_qr<float>(const float*, int64_t, int64_t, const float*,
                                                   const float*);
template Residuals residuals_of_explicit_qr<double>(const double*, int64_t, int64_t, const double*,
                                                    const double*);
template ScaledSumOfSquares scaled_sum_of_squares<float>(int64_t, int64_t, const float*, int64_t);
template ScaledSumOfSquares scaled_sum_of_squares<double>(int64_t, int64_t, const double*, int64_t);
template Residuals check_factorization<float>(const float*, int64_t, int64_t, int64_t,
                                              const Factorization<float>&);
template Residuals check_factorization<double>(const double*, int64_t, int64_t, int64_t,
                                               const Factorization<double>&);

}  // namespace tiledqr
