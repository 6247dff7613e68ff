// The lapack backend's tile routines (common/lapack_kernels) against
// LAPACK's own: the gemm-based apply against LAPACKE_?gemqrt/?tpmqrt on the
// same V and T, and the factorisations against LAPACKE_?geqrt/?tpqrt.
//
// Pass rules (double / float):
//   Apply: ‖C − C_lapack‖_F ≤ 1e-13 / 1e-5 · ‖C_lapack‖_F, for both
//     transposes, ib ∈ {1, 7, 32}, ragged shapes and column counts (some
//     wide enough that the gemm calls are split by columns), l = 0 and
//     l = n for tpmqrt. The parts of V and T that LAPACK leaves unspecified
//     (V above its unit diagonal or below its trapezoid, T below each
//     block's diagonal) hold NaN in our call: reading them fails the test.
//   Factorisations: R (and R̂), V and the blocks' T equal LAPACK's to
//     1e-13 / 1e-5 relative (Frobenius over each part), and nothing outside
//     the parts a routine defines changes.
//   Arguments LAPACK would reject throw std::logic_error.

#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/lapack/lapack_kernels.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

template <typename T>
double tolerance() {
  return sizeof(T) == sizeof(double) ? 1e-13 : 1e-5;
}

template <typename T>
T not_a_number() {
  return std::numeric_limits<T>::quiet_NaN();
}

template <typename T>
std::vector<T> random_values(size_t count, std::mt19937_64& engine) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<T> v(count);
  for (T& x : v) x = T(uniform(engine));
  return v;
}

// ‖x − y‖_F / ‖y‖_F over the entries (r, c), r < rows, c < cols (ld ld)
// that `inside(r, c)` selects.
template <typename T, typename Inside>
double relative_error(const std::vector<T>& x, const std::vector<T>& y, int rows, int cols, int ld,
                      Inside inside) {
  double diff = 0, norm = 0;
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) {
      if (!inside(r, c)) continue;
      const double a = double(x[r + size_t(c) * ld]), b = double(y[r + size_t(c) * ld]);
      diff += (a - b) * (a - b);
      norm += b * b;
    }
  if (std::isnan(diff)) return std::numeric_limits<double>::infinity();
  return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

template <typename T>
double relative_error(const std::vector<T>& x, const std::vector<T>& y, int rows, int cols, int ld) {
  return relative_error(x, y, rows, cols, ld, [](int, int) { return true; });
}

// Entry (r, c) of a T factor (ib, k) is specified when it lies on or above
// the diagonal of its block.
auto t_specified(int ib) {
  return [ib](int r, int c) { return r <= c % ib; };
}

// ---------------------------------------------------------------- LAPACKE

// The _work entry points with a workspace of ib·max(m, n, k) (LAPACK needs
// ib·n at most): LAPACKE_?gemqrt's own allocation is too small in 3.11 and
// writes past it.
template <typename T>
T* lapack_work(int ib, int m, int n, int k) {
  thread_local std::vector<T> work;
  work.assign(size_t(ib) * std::max({m, n, k, 1}), T(0));
  return work.data();
}

lapack_int lapacke_geqrt(int m, int n, int ib, double* a, int lda, double* t, int ldt) {
  return LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt,
                             lapack_work<double>(ib, m, n, 0));
}
lapack_int lapacke_geqrt(int m, int n, int ib, float* a, int lda, float* t, int ldt) {
  return LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt,
                             lapack_work<float>(ib, m, n, 0));
}
lapack_int lapacke_gemqrt(char trans, int m, int n, int k, int ib, const double* v, int ldv,
                          const double* t, int ldt, double* c, int ldc) {
  return LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc,
                              lapack_work<double>(ib, m, n, k));
}
lapack_int lapacke_gemqrt(char trans, int m, int n, int k, int ib, const float* v, int ldv,
                          const float* t, int ldt, float* c, int ldc) {
  return LAPACKE_sgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc,
                              lapack_work<float>(ib, m, n, k));
}
lapack_int lapacke_tpqrt(int m, int n, int l, int ib, double* a, int lda, double* b, int ldb,
                         double* t, int ldt) {
  return LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, a, lda, b, ldb, t, ldt,
                             lapack_work<double>(ib, m, n, 0));
}
lapack_int lapacke_tpqrt(int m, int n, int l, int ib, float* a, int lda, float* b, int ldb,
                         float* t, int ldt) {
  return LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, a, lda, b, ldb, t, ldt,
                             lapack_work<float>(ib, m, n, 0));
}
lapack_int lapacke_tpmqrt(char trans, int m, int n, int k, int l, int ib, const double* v, int ldv,
                          const double* t, int ldt, double* a, int lda, double* b, int ldb) {
  return LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, l, ib, v, ldv, t, ldt, a, lda,
                              b, ldb, lapack_work<double>(ib, m, n, k));
}
lapack_int lapacke_tpmqrt(char trans, int m, int n, int k, int l, int ib, const float* v, int ldv,
                          const float* t, int ldt, float* a, int lda, float* b, int ldb) {
  return LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, l, ib, v, ldv, t, ldt, a, lda,
                              b, ldb, lapack_work<float>(ib, m, n, k));
}

// ---------------------------------------------------------------- gemqrt

// (m, k): V is m × k; the number of columns of C comes from kColumns.
const std::vector<std::pair<int, int>> kGeqrtShapes = {{64, 64}, {37, 37}, {37, 20}, {200, 64},
                                                       {256, 32}, {1, 1}, {5, 3}};
const std::vector<int> kColumns = {1, 13, 64, 300};
const std::vector<int> kInnerBlocks = {1, 7, 32};

template <typename T>
void check_gemqrt() {
  std::mt19937_64 engine = testing::make_engine(100 + sizeof(T));
  for (const auto& [m, k] : kGeqrtShapes)
    for (const int ib : kInnerBlocks) {
      if (ib > k) continue;
      // V and T from LAPACK's geqrt.
      std::vector<T> v = random_values<T>(size_t(m) * k, engine);
      std::vector<T> t(size_t(ib) * k, T(0));
      ASSERT_EQ(lapacke_geqrt(m, k, ib, v.data(), m, t.data(), ib), 0);
      // Ours gets NaN wherever LAPACK leaves V and T unspecified.
      std::vector<T> v_ours = v, t_ours = t;
      for (int c = 0; c < k; ++c) {
        for (int r = 0; r <= c && r < m; ++r) v_ours[r + size_t(c) * m] = not_a_number<T>();
        for (int r = c % ib + 1; r < ib; ++r) t_ours[r + size_t(c) * ib] = not_a_number<T>();
      }
      for (const int n : kColumns)
        for (const bool transpose : {true, false}) {
          SCOPED_TRACE("m = " + std::to_string(m) + ", k = " + std::to_string(k) + ", ib = " +
                       std::to_string(ib) + ", n = " + std::to_string(n) + (transpose ? ", Qᵀ" : ", Q"));
          const std::vector<T> c = random_values<T>(size_t(m) * n, engine);
          std::vector<T> ours = c, lapack = c;
          lapack_kernels::gemqrt(transpose, m, n, k, ib, v_ours.data(), m, t_ours.data(), ib,
                                 ours.data(), m);
          ASSERT_EQ(lapacke_gemqrt(transpose ? 'T' : 'N', m, n, k, ib, v.data(), m, t.data(), ib,
                                   lapack.data(), m),
                    0);
          EXPECT_LE(relative_error(ours, lapack, m, n, m), tolerance<T>());
        }
    }
}

TEST(LapackKernels, GemqrtMatchesLapackDouble) { check_gemqrt<double>(); }
TEST(LapackKernels, GemqrtMatchesLapackFloat) { check_gemqrt<float>(); }

// A leading dimension larger than the rows, as apply_panel passes for a
// right-hand side: only the m rows of each column change.
TEST(LapackKernels, GemqrtRespectsLeadingDimension) {
  std::mt19937_64 engine = testing::make_engine(103);
  const int m = 40, k = 40, ib = 7, n = 9, ldc = 57;
  std::vector<double> v = random_values<double>(size_t(m) * k, engine), t(size_t(ib) * k, 0.0);
  ASSERT_EQ(lapacke_geqrt(m, k, ib, v.data(), m, t.data(), ib), 0);
  const std::vector<double> c = random_values<double>(size_t(ldc) * n, engine);
  std::vector<double> ours = c, lapack = c;
  lapack_kernels::gemqrt(true, m, n, k, ib, v.data(), m, t.data(), ib, ours.data(), ldc);
  ASSERT_EQ(lapacke_gemqrt('T', m, n, k, ib, v.data(), m, t.data(), ib, lapack.data(), ldc), 0);
  EXPECT_LE(relative_error(ours, lapack, m, n, ldc), 1e-13);
  for (int j = 0; j < n; ++j)
    for (int r = m; r < ldc; ++r) EXPECT_EQ(ours[r + size_t(j) * ldc], c[r + size_t(j) * ldc]);
}

// ---------------------------------------------------------------- tpmqrt

// [A (k, k) upper; B (m, k)] with l: l = 0 (a full B, tsqrt) and l = k
// (B upper trapezoidal, ttqrt), square tiles and ragged ones.
struct TpShape {
  int m, k, l;
};
const std::vector<TpShape> kTpShapes = {{64, 64, 0}, {64, 64, 64}, {37, 20, 0},  {20, 20, 20},
                                        {30, 20, 20}, {37, 20, 7},  {13, 20, 13}, {192, 48, 0},
                                        {1, 1, 0},   {1, 1, 1}};

// Row r of column c of a tpqrt V (m, k) is specified when r ≤ m − l + c.
auto v_specified(int m, int l) {
  return [m, l](int r, int c) { return r <= m - l + c; };
}

// Random [A; B] factored by LAPACK: A's strict lower part and B below its
// trapezoid hold `outside`.
template <typename T>
struct TpFactors {
  std::vector<T> a, b, t;
};

template <typename T>
TpFactors<T> lapack_tp_factors(const TpShape& s, int ib, T outside, std::mt19937_64& engine) {
  TpFactors<T> f;
  f.a = random_values<T>(size_t(s.k) * s.k, engine);
  f.b = random_values<T>(size_t(s.m) * s.k, engine);
  f.t.assign(size_t(ib) * s.k, T(0));
  const auto in_v = v_specified(s.m, s.l);
  for (int c = 0; c < s.k; ++c) {
    for (int r = c + 1; r < s.k; ++r) f.a[r + size_t(c) * s.k] = outside;
    for (int r = 0; r < s.m; ++r)
      if (!in_v(r, c)) f.b[r + size_t(c) * s.m] = outside;
  }
  EXPECT_EQ(lapacke_tpqrt(s.m, s.k, s.l, ib, f.a.data(), s.k, f.b.data(), s.m, f.t.data(), ib), 0);
  return f;
}

template <typename T>
void check_tpmqrt() {
  std::mt19937_64 engine = testing::make_engine(200 + sizeof(T));
  for (const TpShape& s : kTpShapes)
    for (const int ib : kInnerBlocks) {
      if (ib > s.k) continue;
      const TpFactors<T> f = lapack_tp_factors<T>(s, ib, T(0), engine);
      std::vector<T> v_ours = f.b, t_ours = f.t;
      const auto in_v = v_specified(s.m, s.l);
      for (int c = 0; c < s.k; ++c) {
        for (int r = 0; r < s.m; ++r)
          if (!in_v(r, c)) v_ours[r + size_t(c) * s.m] = not_a_number<T>();
        for (int r = c % ib + 1; r < ib; ++r) t_ours[r + size_t(c) * ib] = not_a_number<T>();
      }
      for (const int n : kColumns)
        for (const bool transpose : {true, false}) {
          SCOPED_TRACE("m = " + std::to_string(s.m) + ", k = " + std::to_string(s.k) + ", l = " +
                       std::to_string(s.l) + ", ib = " + std::to_string(ib) + ", n = " +
                       std::to_string(n) + (transpose ? ", Qᵀ" : ", Q"));
          const std::vector<T> top = random_values<T>(size_t(s.k) * n, engine);
          const std::vector<T> bottom = random_values<T>(size_t(s.m) * n, engine);
          std::vector<T> top_ours = top, bottom_ours = bottom, top_lapack = top,
                         bottom_lapack = bottom;
          lapack_kernels::tpmqrt(transpose, s.m, n, s.k, s.l, ib, v_ours.data(), s.m,
                                 t_ours.data(), ib, top_ours.data(), s.k, bottom_ours.data(), s.m);
          ASSERT_EQ(lapacke_tpmqrt(transpose ? 'T' : 'N', s.m, n, s.k, s.l, ib, f.b.data(), s.m,
                                   f.t.data(), ib, top_lapack.data(), s.k, bottom_lapack.data(),
                                   s.m),
                    0);
          EXPECT_LE(relative_error(top_ours, top_lapack, s.k, n, s.k), tolerance<T>()) << "A";
          EXPECT_LE(relative_error(bottom_ours, bottom_lapack, s.m, n, s.m), tolerance<T>())
              << "B";
        }
    }
}

TEST(LapackKernels, TpmqrtMatchesLapackDouble) { check_tpmqrt<double>(); }
TEST(LapackKernels, TpmqrtMatchesLapackFloat) { check_tpmqrt<float>(); }

// ---------------------------------------------------------------- geqrt

template <typename T>
void check_geqrt() {
  std::mt19937_64 engine = testing::make_engine(300 + sizeof(T));
  const std::vector<std::pair<int, int>> shapes = {{64, 64}, {37, 20}, {20, 37}, {200, 64},
                                                   {192, 192}, {1, 1}, {1, 4}, {5, 3}};
  for (const auto& [m, n] : shapes)
    for (const int ib : kInnerBlocks) {
      const int k = std::min(m, n);
      if (ib > k) continue;
      SCOPED_TRACE("m = " + std::to_string(m) + ", n = " + std::to_string(n) + ", ib = " +
                   std::to_string(ib));
      const std::vector<T> a = random_values<T>(size_t(m) * n, engine);
      std::vector<T> ours = a, lapack = a;
      std::vector<T> t_ours(size_t(ib) * k, T(0)), t_lapack = t_ours;
      lapack_kernels::geqrt(m, n, ib, ours.data(), m, t_ours.data(), ib);
      ASSERT_EQ(lapacke_geqrt(m, n, ib, lapack.data(), m, t_lapack.data(), ib), 0);
      EXPECT_LE(relative_error(ours, lapack, m, n, m, [](int r, int c) { return r <= c; }),
                tolerance<T>())
          << "R";
      EXPECT_LE(relative_error(ours, lapack, m, n, m, [](int r, int c) { return r > c; }),
                tolerance<T>())
          << "V";
      EXPECT_LE(relative_error(t_ours, t_lapack, ib, k, ib, t_specified(ib)), tolerance<T>())
          << "T";
    }
}

TEST(LapackKernels, GeqrtMatchesLapackDouble) { check_geqrt<double>(); }
TEST(LapackKernels, GeqrtMatchesLapackFloat) { check_geqrt<float>(); }

// ---------------------------------------------------------------- tpqrt

template <typename T>
void check_tpqrt() {
  std::mt19937_64 engine = testing::make_engine(400 + sizeof(T));
  const T sentinel = T(7);
  for (const TpShape& s : kTpShapes)
    for (const int ib : kInnerBlocks) {
      if (ib > s.k) continue;
      SCOPED_TRACE("m = " + std::to_string(s.m) + ", n = " + std::to_string(s.k) + ", l = " +
                   std::to_string(s.l) + ", ib = " + std::to_string(ib));
      // The same input for both: copy LAPACK's input before it factors.
      std::mt19937_64 replay = engine;
      const TpFactors<T> lapack = lapack_tp_factors<T>(s, ib, sentinel, engine);
      TpFactors<T> ours;
      ours.a = random_values<T>(size_t(s.k) * s.k, replay);
      ours.b = random_values<T>(size_t(s.m) * s.k, replay);
      ours.t.assign(size_t(ib) * s.k, T(0));
      const auto in_v = v_specified(s.m, s.l);
      for (int c = 0; c < s.k; ++c) {
        for (int r = c + 1; r < s.k; ++r) ours.a[r + size_t(c) * s.k] = sentinel;
        for (int r = 0; r < s.m; ++r)
          if (!in_v(r, c)) ours.b[r + size_t(c) * s.m] = sentinel;
      }
      lapack_kernels::tpqrt(s.m, s.k, s.l, ib, ours.a.data(), s.k, ours.b.data(), s.m,
                            ours.t.data(), ib);
      EXPECT_LE(relative_error(ours.a, lapack.a, s.k, s.k, s.k, [](int r, int c) { return r <= c; }),
                tolerance<T>())
          << "R̂";
      EXPECT_LE(relative_error(ours.b, lapack.b, s.m, s.k, s.m, in_v), tolerance<T>()) << "V";
      EXPECT_LE(relative_error(ours.t, lapack.t, ib, s.k, ib, t_specified(ib)), tolerance<T>())
          << "T";
      for (int c = 0; c < s.k; ++c) {
        for (int r = c + 1; r < s.k; ++r) EXPECT_EQ(ours.a[r + size_t(c) * s.k], sentinel);
        for (int r = 0; r < s.m; ++r) {
          if (!in_v(r, c)) {
            EXPECT_EQ(ours.b[r + size_t(c) * s.m], sentinel);
          }
        }
      }
    }
}

TEST(LapackKernels, TpqrtMatchesLapackDouble) { check_tpqrt<double>(); }
TEST(LapackKernels, TpqrtMatchesLapackFloat) { check_tpqrt<float>(); }

// ---------------------------------------------------------------- errors

TEST(LapackKernels, InvalidArgumentsThrow) {
  std::vector<double> a(64 * 64, 1.0), b(64 * 64, 1.0), t(64 * 64, 0.0);
  EXPECT_THROW(lapack_kernels::geqrt(8, 8, 0, a.data(), 8, t.data(), 8), std::logic_error);
  EXPECT_THROW(lapack_kernels::geqrt(8, 8, 9, a.data(), 8, t.data(), 9), std::logic_error);
  EXPECT_THROW(lapack_kernels::geqrt(8, 8, 4, a.data(), 7, t.data(), 4), std::logic_error);
  EXPECT_THROW(lapack_kernels::geqrt(8, 8, 4, a.data(), 8, t.data(), 3), std::logic_error);
  EXPECT_THROW(lapack_kernels::gemqrt(true, 8, 4, 9, 4, a.data(), 8, t.data(), 4, b.data(), 8),
               std::logic_error);
  EXPECT_THROW(lapack_kernels::gemqrt(true, 8, 4, 8, 4, a.data(), 8, t.data(), 4, b.data(), 7),
               std::logic_error);
  EXPECT_THROW(lapack_kernels::tpqrt(8, 8, 9, 4, a.data(), 8, b.data(), 8, t.data(), 4),
               std::logic_error);
  EXPECT_THROW(lapack_kernels::tpqrt(8, 8, 0, 4, a.data(), 7, b.data(), 8, t.data(), 4),
               std::logic_error);
  EXPECT_THROW(lapack_kernels::tpmqrt(false, 8, 4, 8, 9, 4, a.data(), 8, t.data(), 4, b.data(), 8,
                                     b.data(), 8),
               std::logic_error);
  EXPECT_THROW(lapack_kernels::tpmqrt(false, 8, 4, 8, 0, -1, a.data(), 8, t.data(), 4, b.data(), 8,
                                     b.data(), 8),
               std::logic_error);
  // Empty problems are no-ops, as in LAPACK.
  EXPECT_NO_THROW(lapack_kernels::gemqrt(true, 8, 0, 8, 4, a.data(), 8, t.data(), 4, b.data(), 8));
  EXPECT_NO_THROW(lapack_kernels::geqrt(0, 5, 1, a.data(), 1, t.data(), 1));
}

}  // namespace
}  // namespace tiledqr
