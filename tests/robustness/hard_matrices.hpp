// Numerically hard test matrices, shared by the CPU and GPU
// robustness tests: extreme scalings, graded columns and rows, Kahan,
// Hilbert, rank-1 and LAPACK's dlatms matrices of a given condition number
// and singular-value mode.
#pragma once

#include <lapacke.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "dense_matrix.hpp"
#include "factorization.hpp"
#include "test_support.hpp"

namespace tiledqr::testing {

template <typename T>
DenseMatrix<T> scaled(DenseMatrix<T> a, double factor) {
  for (T& x : a.data) x = T(double(x) * factor);
  return a;
}

// Column j (row i) multiplied by 10^(low + (high − low)·j/(n − 1)).
template <typename T>
DenseMatrix<T> graded(DenseMatrix<T> a, double low, double high, bool by_rows) {
  const int64_t count = by_rows ? a.rows : a.cols;
  for (int64_t j = 0; j < a.cols; ++j) {
    for (int64_t i = 0; i < a.rows; ++i) {
      const double position = double(by_rows ? i : j) / double(count - 1);
      a(i, j) = T(double(a(i, j)) * std::pow(10.0, low + (high - low) * position));
    }
  }
  return a;
}

// Kahan's matrix K = diag(1, s, …, s^{n−1})·(I − c·U), U strictly upper
// ones, c = cos θ, s = sin θ: upper triangular, so every reflector below the
// diagonal is the identity (τ = 0), and badly conditioned.
inline DenseMatrix<double> kahan(int64_t n, double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  DenseMatrix<double> k(n, n);
  double row_scale = 1;
  for (int64_t i = 0; i < n; ++i, row_scale *= s) {
    k(i, i) = row_scale;
    for (int64_t j = i + 1; j < n; ++j) k(i, j) = -c * row_scale;
  }
  return k;
}

inline DenseMatrix<double> rows_reversed(const DenseMatrix<double>& a) {
  DenseMatrix<double> out(a.rows, a.cols);
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < a.rows; ++i) out(i, j) = a(a.rows - 1 - i, j);
  return out;
}

// H(i, j) = 1/(i + j + 1).
inline DenseMatrix<double> hilbert(int64_t m, int64_t n) {
  DenseMatrix<double> h(m, n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) h(i, j) = 1.0 / double(i + j + 1);
  return h;
}

// u·vᵀ with random u, v (rank 1), and the matrix whose columns all equal u.
inline std::pair<DenseMatrix<double>, DenseMatrix<double>> rank_one(int64_t m, int64_t n,
                                                                    std::mt19937_64& engine) {
  const DenseMatrix<double> u = random_matrix<double>(m, 1, engine);
  const DenseMatrix<double> v = random_matrix<double>(1, n, engine);
  DenseMatrix<double> a(m, n), same(m, n);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      a(i, j) = u(i, 0) * v(0, j);
      same(i, j) = u(i, 0);
    }
  }
  return {a, same};
}

// A = U·diag(σ)·V (U, V random orthogonal) from LAPACKE_dlatms with
// condition number `cond` and singular-value mode 1..5 (1: one σ = 1, the
// rest 1/cond; 2: all 1 but the last; 3: geometric; 4: arithmetic; 5:
// log-uniform random); uniform entries for odd modes, normal for even.
inline DenseMatrix<double> dlatms_matrix(int64_t m, int64_t n, double cond, int mode, std::mt19937_64& engine) {
  std::uniform_int_distribution<int> seed_part(0, 4095);
  lapack_int iseed[4] = {seed_part(engine), seed_part(engine), seed_part(engine),
                         seed_part(engine) | 1};  // dlatms wants the last one odd
  const char dist = mode % 2 == 0 ? 'N' : 'U';
  DenseMatrix<double> a(m, n);
  std::vector<double> sigma(size_t(std::min(m, n)));
  const lapack_int info = LAPACKE_dlatms(LAPACK_COL_MAJOR, lapack_int(m), lapack_int(n), dist, iseed, 'N',
                                         sigma.data(), mode, cond, 1.0, lapack_int(m - 1), lapack_int(n - 1), 'N',
                                         a.data.data(), lapack_int(m));
  if (info != 0) throw std::runtime_error("dlatms failed with info " + std::to_string(info));
  return a;
}

inline std::string dlatms_name(double cond, int mode) {
  char what[64];
  std::snprintf(what, sizeof what, "dlatms cond %.0e mode %d dist %c", cond, mode, mode % 2 == 0 ? 'N' : 'U');
  return what;
}

// The pass rule of every hard matrix, whatever stage factored it:
// ‖A − QR‖_F / (‖A‖_F·n·ε) < 50 and ‖I − QᵀQ‖_F / (n·ε) < 50
// (common/factorization/checks.hpp), and no Inf or NaN in the tiles, the T factors, R or Q.
template <typename T>
void expect_stable_factorization(const DenseMatrix<T>& a, const Factorization<T>& f) {
  EXPECT_TRUE(all_finite(f.tiles.data));
  EXPECT_TRUE(all_finite(f.t_local));
  EXPECT_TRUE(all_finite(f.t_merge));
  EXPECT_TRUE(all_finite(f.r().data));
  EXPECT_TRUE(all_finite(f.thin_q().data));
  const Residuals res = check_factorization(a.data.data(), a.rows, a.cols, a.ld(), f);
  EXPECT_LT(res.residual, 50);
  EXPECT_LT(res.orthogonality, 50);
}

// Every hard double matrix of the issue, m x n where the kind allows it
// (Kahan and Hilbert have their own sizes), named for failure messages.
inline std::vector<std::pair<std::string, DenseMatrix<double>>> hard_double_matrices(int64_t m, int64_t n,
                                                                                     std::mt19937_64& engine) {
  std::vector<std::pair<std::string, DenseMatrix<double>>> out;
  const DenseMatrix<double> a = random_matrix<double>(m, n, engine);
  out.emplace_back("A * 1e+300", scaled(a, 1e+300));
  out.emplace_back("A * 1e-300", scaled(a, 1e-300));
  out.emplace_back("columns 1e-300 .. 1e+300", graded(a, -300, 300, false));
  out.emplace_back("columns 1e+300 .. 1e-300", graded(a, 300, -300, false));
  out.emplace_back("rows 1e-300 .. 1e+300", graded(a, -300, 300, true));
  const DenseMatrix<double> k = kahan(60, 1.2);
  out.emplace_back("Kahan 60", k);
  out.emplace_back("Kahan 60, rows reversed", rows_reversed(k));
  out.emplace_back("Hilbert 60 x 60", hilbert(60, 60));
  out.emplace_back("Hilbert 90 x 60", hilbert(90, 60));
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{m, n}, {n, m}}) {
    auto [product, same] = rank_one(rows, cols, engine);
    const std::string size = std::to_string(rows) + " x " + std::to_string(cols);
    out.emplace_back("rank 1 " + size, std::move(product));
    out.emplace_back("equal columns " + size, std::move(same));
  }
  for (const double cond : {1e2, 1e5, 1e10, 1e15})
    for (int mode = 1; mode <= 5; ++mode) out.emplace_back(dlatms_name(cond, mode), dlatms_matrix(m, n, cond, mode, engine));
  return out;
}

}  // namespace tiledqr::testing
