// The reference tile kernels (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs" Algorithm 3) against LAPACK.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>

#include "kernels/host/geqrt.hpp"
#include "kernels/host/ormqr.hpp"
#include "kernels/host/tsmqr.hpp"
#include "kernels/host/tsqrt.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

// max |x − y| over max |y|, the relative difference the kernel tests bound.
double relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double diff = 0, scale = 0;
  for (size_t e = 0; e < x.size(); ++e) {
    diff = std::max(diff, std::fabs(x[e] - y[e]));
    scale = std::max(scale, std::fabs(y[e]));
  }
  return scale == 0 ? diff : diff / scale;
}

std::vector<double> random_values(size_t count, std::mt19937_64& engine) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> v(count);
  for (double& x : v) x = uniform(engine);
  return v;
}

constexpr double kTolerance = 1e-12;  // rounding of 32×32 tiles, far below any bug

// Pass rule: geqrt's R, V and τ equal LAPACKE_dgeqrf's to 1e-12 relative,
// for square, tall and wide tiles.
TEST(ReferenceKernels, GeqrtMatchesDgeqrf) {
  std::mt19937_64 engine = testing::make_engine(10);
  for (const auto& [m, n] : std::vector<std::pair<int, int>>{{32, 32}, {40, 17}, {9, 23}, {1, 5}, {6, 1}}) {
    std::vector<double> a = random_values(size_t(m) * n, engine), ref = a;
    std::vector<double> tau(size_t(std::min(m, n))), ref_tau(tau.size());
    kernels::geqrt(m, n, a.data(), m, tau.data());
    ASSERT_EQ(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, ref.data(), m, ref_tau.data()), 0);
    EXPECT_LT(relative_difference(a, ref), kTolerance) << m << "x" << n;
    EXPECT_LT(relative_difference(tau, ref_tau), kTolerance) << m << "x" << n;
  }
}

// Pass rule: ormqr (both transposes) equals LAPACKE_dormqr on the same
// reflectors to 1e-12 relative.
TEST(ReferenceKernels, OrmqrMatchesDormqr) {
  std::mt19937_64 engine = testing::make_engine(11);
  const int b = 32, n = 19;
  std::vector<double> v = random_values(b * b, engine), tau(b);
  kernels::geqrt(b, b, v.data(), b, tau.data());
  for (const bool transpose : {true, false}) {
    std::vector<double> c = random_values(size_t(b) * n, engine), ref = c;
    kernels::ormqr(transpose, b, n, b, v.data(), b, tau.data(), c.data(), b);
    ASSERT_EQ(LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', transpose ? 'T' : 'N', b, n, b, v.data(), b,
                             tau.data(), ref.data(), b),
              0);
    EXPECT_LT(relative_difference(c, ref), kTolerance) << "transpose " << transpose;
  }
}

// Pass rule: tsqrt's R̂, V2 and τ equal LAPACKE_dtpqrt's (l = 0; τ is the
// diagonal of T) to 1e-12 relative, and the strict lower triangle of the
// top tile is left untouched.
TEST(ReferenceKernels, TsqrtMatchesDtpqrt) {
  std::mt19937_64 engine = testing::make_engine(12);
  for (const int m : {32, 13}) {
    const int n = 32;
    std::vector<double> top = random_values(size_t(n) * n, engine);
    std::vector<double> bottom = random_values(size_t(m) * n, engine);
    std::vector<double> ref_top = top, ref_bottom = bottom, t(size_t(n) * n), tau(n);
    kernels::tsqrt(m, n, top.data(), n, bottom.data(), m, tau.data());
    ASSERT_EQ(LAPACKE_dtpqrt(LAPACK_COL_MAJOR, m, n, 0, n, ref_top.data(), n, ref_bottom.data(), m,
                             t.data(), n),
              0);
    std::vector<double> ref_tau(n);
    for (int j = 0; j < n; ++j) ref_tau[j] = t[size_t(j) + size_t(j) * n];
    EXPECT_LT(relative_difference(top, ref_top), kTolerance);
    EXPECT_LT(relative_difference(bottom, ref_bottom), kTolerance);
    EXPECT_LT(relative_difference(tau, ref_tau), kTolerance);
  }
}

// Pass rule: tsmqr (both transposes) equals LAPACKE_dtpmqrt to 1e-12 relative.
TEST(ReferenceKernels, TsmqrMatchesDtpmqrt) {
  std::mt19937_64 engine = testing::make_engine(13);
  const int b = 32, n = 21;
  std::vector<double> r = random_values(b * b, engine), v = random_values(b * b, engine);
  std::vector<double> tau(b), t(b * b);
  std::vector<double> r_copy = r, v_copy = v;
  kernels::tsqrt(b, b, r.data(), b, v.data(), b, tau.data());
  ASSERT_EQ(LAPACKE_dtpqrt(LAPACK_COL_MAJOR, b, b, 0, b, r_copy.data(), b, v_copy.data(), b,
                           t.data(), b),
            0);
  for (const bool transpose : {true, false}) {
    std::vector<double> a1 = random_values(size_t(b) * n, engine), a2 = random_values(size_t(b) * n, engine);
    std::vector<double> ref1 = a1, ref2 = a2;
    kernels::tsmqr(transpose, b, n, b, v.data(), b, tau.data(), a1.data(), b, a2.data(), b);
    ASSERT_EQ(LAPACKE_dtpmqrt(LAPACK_COL_MAJOR, 'L', transpose ? 'T' : 'N', b, n, b, 0, b,
                              v_copy.data(), b, t.data(), b, ref1.data(), b, ref2.data(), b),
              0);
    EXPECT_LT(relative_difference(a1, ref1), kTolerance) << "transpose " << transpose;
    EXPECT_LT(relative_difference(a2, ref2), kTolerance) << "transpose " << transpose;
  }
}

// Pass rule: a zero column gives τ = 0 (the identity reflector), a zero
// tile gives all τ = 0 and stays zero; no NaN anywhere.
TEST(KernelEdgeCases, ZeroColumnsGiveIdentityReflectors) {
  std::mt19937_64 engine = testing::make_engine(14);
  const int b = 8;
  std::vector<double> a = random_values(b * b, engine), tau(b);
  for (int i = 0; i < b; ++i) a[size_t(i) + 3 * b] = 0;  // column 3 is zero
  kernels::geqrt(b, b, a.data(), b, tau.data());
  EXPECT_TRUE(testing::all_finite(a));
  EXPECT_TRUE(testing::all_finite(tau));
  std::vector<double> zero(b * b, 0.0), zero_tau(b, 1.0);
  kernels::geqrt(b, b, zero.data(), b, zero_tau.data());
  for (const double x : zero) EXPECT_EQ(x, 0.0);
  for (const double x : zero_tau) EXPECT_EQ(x, 0.0);
  std::vector<double> top(b * b, 0.0), bottom(b * b, 0.0), ts_tau(b, 1.0);
  kernels::tsqrt(b, b, top.data(), b, bottom.data(), b, ts_tau.data());
  for (const double x : ts_tau) EXPECT_EQ(x, 0.0);
}

// Pass rule: columns near the underflow (1e-300) and overflow (1e+300)
// thresholds give finite R and V equal to LAPACK's to 1e-12 relative
// (scaled norms and dlarfg's rescaling, no overflow or flush to zero).
TEST(KernelEdgeCases, ExtremeScalesMatchLapack) {
  std::mt19937_64 engine = testing::make_engine(15);
  for (const double scale : {1e-300, 1e-310, 1e300}) {
    const int m = 16, n = 16;
    std::vector<double> a = random_values(size_t(m) * n, engine);
    for (double& x : a) x *= scale;
    std::vector<double> ref = a, tau(n), ref_tau(n);
    kernels::geqrt(m, n, a.data(), m, tau.data());
    ASSERT_EQ(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, ref.data(), m, ref_tau.data()), 0);
    EXPECT_TRUE(testing::all_finite(a)) << scale;
    EXPECT_LT(relative_difference(a, ref), kTolerance) << scale;
    for (int j = 0; j < n; ++j) EXPECT_NE(a[size_t(j) + size_t(j) * m], 0.0) << scale;
  }
}

// Pass rule: the float kernels match LAPACKE_sgeqrf to 1e-5 relative.
TEST(ReferenceKernels, FloatGeqrtMatchesSgeqrf) {
  std::mt19937_64 engine = testing::make_engine(16);
  const int m = 32, n = 32;
  std::vector<float> a(size_t(m) * n), tau(n), ref_tau(n);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float& x : a) x = uniform(engine);
  std::vector<float> ref = a;
  kernels::geqrt(m, n, a.data(), m, tau.data());
  ASSERT_EQ(LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, ref.data(), m, ref_tau.data()), 0);
  float diff = 0, scale = 0;
  for (size_t e = 0; e < a.size(); ++e) {
    diff = std::max(diff, std::fabs(a[e] - ref[e]));
    scale = std::max(scale, std::fabs(ref[e]));
  }
  EXPECT_LT(diff / scale, 1e-5f);
}

}  // namespace
}  // namespace tiledqr
