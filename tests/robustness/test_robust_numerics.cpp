// Numerically hard matrices: extreme scaling, graded columns and
// rows, Kahan, Hilbert, rank-1, and LAPACK's dlatms test matrices with
// condition numbers 1e2 … 1e15 in each of its five singular-value modes.
// Householder QR is backward stable whatever the conditioning, so each must
// factor with the usual bounds. Every matrix goes through FR1 and FR2, both
// backends, flat and binary trees.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "checks.hpp"
#include "hard_matrices.hpp"
#include "serial_executor.hpp"
#include "test_support.hpp"
#include "threaded_executor.hpp"

namespace tiledqr {
namespace {

using testing::all_finite;
using testing::dlatms_matrix;
using testing::dlatms_name;
using testing::graded;
using testing::hilbert;
using testing::kahan;
using testing::rank_one;
using testing::rows_reversed;
using testing::scaled;
using testing::make_engine;
using testing::random_matrix;

struct Variant {
  bool threaded;  // FR2 (4 workers) or FR1
  Backend backend;
  Tree tree;
};

constexpr Variant kVariants[] = {
    {false, Backend::reference, Tree::flat}, {false, Backend::lapack, Tree::flat},
    {false, Backend::reference, Tree::binary}, {false, Backend::lapack, Tree::binary},
    {true, Backend::reference, Tree::flat}, {true, Backend::lapack, Tree::flat},
    {true, Backend::reference, Tree::binary}, {true, Backend::lapack, Tree::binary},
};

std::string describe(const Variant& v) {
  return std::string(v.threaded ? "FR2" : "FR1") + " " + backend_name(v.backend) + " " +
         tree_name(v.tree);
}

// Ragged on purpose: 70 = 8·8 + 6 rows, 45 = 5·8 + 5 columns.
constexpr int64_t kRows = 70, kCols = 45;
constexpr int kTile = 8;

// Pass rule, for every variant: expect_stable_factorization (residual and
// orthogonality below 50, nothing non-finite).
template <typename T>
void expect_backward_stable(const DenseMatrix<T>& a, const std::string& what) {
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(what + ", " + describe(v));
    Options options;
    options.tile = kTile;
    options.backend = v.backend;
    options.tree = v.tree;
    options.threads = 4;
    const Factorization<T> f = v.threaded
                                   ? factor_threaded(a.data.data(), a.rows, a.cols, a.ld(), options)
                                   : factor(a.data.data(), a.rows, a.cols, a.ld(), options);
    testing::expect_stable_factorization(a, f);
  }
}

// Pass rule: expect_backward_stable for A·1e+300 and A·1e−300 (entries
// near the overflow and underflow thresholds; the norms and reflectors must
// rescale, as LAPACK's dlassq and dlarfg do).
TEST(RobustNumerics, ExtremeScalingDouble) {
  std::mt19937_64 engine = make_engine(8101);
  const DenseMatrix<double> a = random_matrix<double>(kRows, kCols, engine);
  expect_backward_stable(scaled(a, 1e+300), "A * 1e+300");
  expect_backward_stable(scaled(a, 1e-300), "A * 1e-300");
}

// Pass rule: expect_backward_stable for A·1e+306 and A·1.7e+307, whose
// ‖A‖_F (about 3e308 for the second) is itself beyond DBL_MAX although the
// factorisation is not; and the residual is not exactly 0 (checks.cpp
// once formed ‖A‖_F·n·ε, which overflowed to Inf and made every residual
// of such a matrix 0, a check that could not fail).
TEST(RobustNumerics, ResidualNearOverflowThreshold) {
  std::mt19937_64 engine = make_engine(8106);
  const DenseMatrix<double> a = random_matrix<double>(kRows, kCols, engine);
  for (const double scale : {1e+306, 1.7e+307}) {
    char what[32];
    std::snprintf(what, sizeof what, "A * %.1e", scale);
    const DenseMatrix<double> big = scaled(a, scale);
    expect_backward_stable(big, what);
    Options options;
    options.tile = kTile;
    const Factorization<double> f = factor(big.data.data(), kRows, kCols, kRows, options);
    EXPECT_GT(check_factorization(big.data.data(), kRows, kCols, kRows, f).residual, 0) << what;
  }
}

// Pass rule: at 1e+308 the entries are within a factor 2 of DBL_MAX and
// the column norms are not, so R cannot be represented (LAPACK's own
// dgeqrt overflows too), but never silently: either the tiles are finite
// and the check passes, or they hold Inf/NaN and the check fails (residual
// or orthogonality not < 50). Since the tiles are scaled by a power of two
// first it is always the former; the stages then refuse
// the R that r() returns, which holds Inf (RobustLimits, RobustAccuracy).
TEST(RobustNumerics, OverflowNeverPassesTheCheck) {
  std::mt19937_64 engine = make_engine(8107);
  const DenseMatrix<double> a = scaled(random_matrix<double>(kRows, kCols, engine), 1e+308);
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(describe(v));
    Options options;
    options.tile = kTile;
    options.backend = v.backend;
    options.tree = v.tree;
    options.threads = 4;
    const Factorization<double> f =
        v.threaded ? factor_threaded(a.data.data(), kRows, kCols, kRows, options)
                   : factor(a.data.data(), kRows, kCols, kRows, options);
    const Residuals res = check_factorization(a.data.data(), kRows, kCols, kRows, f);
    const bool passes = res.residual < 50 && res.orthogonality < 50;
    EXPECT_EQ(passes, all_finite(f.tiles.data))
        << "residual " << res.residual << ", orthogonality " << res.orthogonality;
  }
}

// Pass rule: expect_backward_stable for columns graded from 1e−300 to
// 1e+300 (and back), and for rows graded the same way.
TEST(RobustNumerics, GradedDouble) {
  std::mt19937_64 engine = make_engine(8102);
  const DenseMatrix<double> a = random_matrix<double>(kRows, kCols, engine);
  expect_backward_stable(graded(a, -300, 300, false), "columns 1e-300 .. 1e+300");
  expect_backward_stable(graded(a, 300, -300, false), "columns 1e+300 .. 1e-300");
  expect_backward_stable(graded(a, -300, 300, true), "rows 1e-300 .. 1e+300");
}

// Pass rule: the same in float, near its own thresholds (1e±35, FLT_MAX is
// 3.4e38).
TEST(RobustNumerics, ExtremeScalingFloat) {
  std::mt19937_64 engine = make_engine(8103);
  const DenseMatrix<float> a = random_matrix<float>(kRows, kCols, engine);
  expect_backward_stable(scaled(a, 1e+35), "float A * 1e+35");
  expect_backward_stable(scaled(a, 1e-35), "float A * 1e-35");
  expect_backward_stable(graded(a, -35, 35, false), "float columns 1e-35 .. 1e+35");
}

// Pass rule: expect_backward_stable for Kahan's matrix (n = 60, θ = 1.2),
// as given and with its rows reversed (then nothing is triangular).
TEST(RobustNumerics, KahanMatrix) {
  const DenseMatrix<double> k = kahan(60, 1.2);
  expect_backward_stable(k, "Kahan 60");
  expect_backward_stable(rows_reversed(k), "Kahan 60, rows reversed");
}

// Pass rule: expect_backward_stable for the Hilbert matrix H(i, j) =
// 1/(i + j + 1), square (60 × 60, condition far beyond 1/ε) and tall
// (90 × 60).
TEST(RobustNumerics, HilbertMatrix) {
  for (const int64_t m : {60, 90}) expect_backward_stable(hilbert(m, 60), "Hilbert " + std::to_string(m) + " x 60");
}

// Pass rule: expect_backward_stable for rank-1 matrices u·vᵀ (after the
// first column everything left is rounding noise), tall and wide, and for a
// matrix whose columns all repeat the first.
TEST(RobustNumerics, RankOne) {
  std::mt19937_64 engine = make_engine(8104);
  for (const auto& [m, n] : {std::pair<int64_t, int64_t>{kRows, kCols}, {kCols, kRows}}) {
    const auto [product, same] = rank_one(m, n, engine);
    expect_backward_stable(product, "rank 1 " + std::to_string(m) + " x " + std::to_string(n));
    expect_backward_stable(same, "equal columns " + std::to_string(m) + " x " + std::to_string(n));
  }
}

// Pass rule: expect_backward_stable for A = U·diag(σ)·V (U, V random
// orthogonal) from LAPACKE_dlatms, for every condition number 1e2, 1e5,
// 1e10, 1e15 and every mode 1..5 (1: one σ = 1, the rest 1/cond; 2: all
// 1 but the last; 3: geometric; 4: arithmetic; 5: log-uniform random),
// uniform and normal random entries alternately.
TEST(RobustNumerics, DlatmsConditionNumbers) {
  std::mt19937_64 engine = make_engine(8105);
  for (const double cond : {1e2, 1e5, 1e10, 1e15})
    for (int mode = 1; mode <= 5; ++mode)
      expect_backward_stable(dlatms_matrix(kRows, kCols, cond, mode, engine), dlatms_name(cond, mode));
}

}  // namespace
}  // namespace tiledqr
