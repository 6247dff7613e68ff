// Tests of the C interface (include/tiledqr/tiledqr.h) through the shared
// library, as an installed user calls it: accuracy of geqrf/ormqr/orgqr in
// both precisions and every option, least squares against LAPACK's dgels,
// the rank check, and a clear status (never an exception or a crash) for
// every kind of bad argument.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "test_support.hpp"
#include "tiledqr/tiledqr.h"

namespace {

using tiledqr::DenseMatrix;
using tiledqr::testing::make_engine;
using tiledqr::testing::random_matrix;

// C API entry points by precision, so every test runs for double and float.
struct D {
  using T = double;
  static int geqrf(int64_t m, int64_t n, T* a, int64_t lda, tiledqr_factors** f, const tiledqr_options* o) {
    return tiledqr_dgeqrf(m, n, a, lda, f, o);
  }
  static int ormqr(char t, int64_t m, int64_t k, const tiledqr_factors* f, T* b, int64_t ldb) {
    return tiledqr_dormqr(t, m, k, f, b, ldb);
  }
  static int orgqr(int64_t m, int64_t k, const tiledqr_factors* f, T* q, int64_t ldq) {
    return tiledqr_dorgqr(m, k, f, q, ldq);
  }
  static int gels(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T* b, int64_t ldb, const tiledqr_options* o) {
    return tiledqr_dgels(m, n, k, a, lda, b, ldb, o);
  }
};
struct S {
  using T = float;
  static int geqrf(int64_t m, int64_t n, T* a, int64_t lda, tiledqr_factors** f, const tiledqr_options* o) {
    return tiledqr_sgeqrf(m, n, a, lda, f, o);
  }
  static int ormqr(char t, int64_t m, int64_t k, const tiledqr_factors* f, T* b, int64_t ldb) {
    return tiledqr_sormqr(t, m, k, f, b, ldb);
  }
  static int orgqr(int64_t m, int64_t k, const tiledqr_factors* f, T* q, int64_t ldq) {
    return tiledqr_sorgqr(m, k, f, q, ldq);
  }
  static int gels(int64_t m, int64_t n, int64_t k, T* a, int64_t lda, T* b, int64_t ldb, const tiledqr_options* o) {
    return tiledqr_sgels(m, n, k, a, lda, b, ldb, o);
  }
};

template <typename P>
class CapiFactor : public ::testing::Test {};
using Precisions = ::testing::Types<D, S>;
TYPED_TEST_SUITE(CapiFactor, Precisions);

// Frobenius norm of the (m, n) matrix x (ld) minus y (ld), and of x.
template <typename T>
double diff_norm(const T* x, const T* y, int64_t m, int64_t n, int64_t ldx, int64_t ldy) {
  double s = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      const double d = double(x[i + j * ldx]) - (y ? double(y[i + j * ldy]) : 0.0);
      s += d * d;
    }
  return std::sqrt(s);
}

// Pass rule: ‖A − QR‖_F / (‖A‖_F·n·ε) < 50 and ‖I − QᵀQ‖_F / (n·ε) < 50,
// with Q from orgqr (thin) and QR rebuilt by ormqr('N') on [R; 0].
template <typename P>
void expect_accurate(int64_t m, int64_t n, int64_t lda, const tiledqr_options& opts, uint64_t salt) {
  using T = typename P::T;
  auto engine = make_engine(salt);
  const DenseMatrix<T> a = random_matrix<T>(lda, n, engine);
  std::vector<T> r = a.data;
  tiledqr_factors* f = nullptr;
  ASSERT_EQ(P::geqrf(m, n, r.data(), lda, &f, &opts), TILEDQR_SUCCESS) << tiledqr_last_error();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(tiledqr_factors_rows(f), m);
  EXPECT_EQ(tiledqr_factors_cols(f), n);
  const double eps = std::numeric_limits<T>::epsilon();
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j + 1; i < m; ++i) ASSERT_EQ(r[size_t(i + j * lda)], T(0)) << "below the diagonal";
  for (int64_t j = 0; j < n; ++j)  // rows beyond m (lda > m) are not touched
    for (int64_t i = m; i < lda; ++i) ASSERT_EQ(r[size_t(i + j * lda)], a.data[size_t(i + j * lda)]);
  std::vector<T> qr = r;
  ASSERT_EQ(P::ormqr('N', m, n, f, qr.data(), lda), TILEDQR_SUCCESS) << tiledqr_last_error();
  const double backward = diff_norm(a.data.data(), qr.data(), m, n, lda, lda) /
                          (diff_norm<T>(a.data.data(), nullptr, m, n, lda, 0) * double(n) * eps);
  EXPECT_LT(backward, 50) << m << "x" << n;
  // Qᵀ (Q R) gives R back.
  ASSERT_EQ(P::ormqr('T', m, n, f, qr.data(), lda), TILEDQR_SUCCESS) << tiledqr_last_error();
  EXPECT_LT(diff_norm(r.data(), qr.data(), m, n, lda, lda) / (diff_norm<T>(r.data(), nullptr, m, n, lda, 0) * n * eps),
            50);
  const int64_t k = std::min(m, n);
  std::vector<T> q(size_t(m * k));
  ASSERT_EQ(P::orgqr(m, k, f, q.data(), m), TILEDQR_SUCCESS) << tiledqr_last_error();
  std::vector<T> qtq(size_t(k * k), T(0)), identity(size_t(k * k), T(0));
  for (int64_t i = 0; i < k; ++i) identity[size_t(i + i * k)] = T(1);
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < k; ++i) {
      double s = 0;
      for (int64_t l = 0; l < m; ++l) s += double(q[size_t(l + i * m)]) * double(q[size_t(l + j * m)]);
      qtq[size_t(i + j * k)] = T(s);
    }
  EXPECT_LT(diff_norm(identity.data(), qtq.data(), k, k, k, k) / (double(n) * eps), 50);
  tiledqr_factors_free(f);
}

TYPED_TEST(CapiFactor, DefaultsOnShapes) {
  const tiledqr_options defaults{};
  uint64_t salt = 1;
  for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {5, 3}, {3, 5}, {100, 37}, {64, 64},
                                                                        {37, 100}, {300, 20}})
    expect_accurate<TypeParam>(m, n, m, defaults, salt++);
}

TYPED_TEST(CapiFactor, EveryOption) {
  uint64_t salt = 100;
  for (int tree : {TILEDQR_TREE_AUTO, TILEDQR_TREE_FLAT, TILEDQR_TREE_BINARY, TILEDQR_TREE_GREEDY, TILEDQR_TREE_TSQR})
    for (int backend : {TILEDQR_BACKEND_LAPACK, TILEDQR_BACKEND_REFERENCE})
      for (int threads : {1, 3}) {
        SCOPED_TRACE("tree " + std::to_string(tree) + " backend " + std::to_string(backend) + " threads " +
                     std::to_string(threads));
        const tiledqr_options opts{16, 8, tree, threads, backend};
        expect_accurate<TypeParam>(150, 70, 160, opts, salt++);
      }
}

// Pass rule: the tsqr tree through the C interface is accurate (as
// expect_accurate) on ragged shapes — m a multiple of nothing, n = 1,
// m = n + 1, a wide matrix, lda > m — on 1, 2 and 5 threads, with the tile
// chosen (0) or given; Q formed through it has orthonormal columns; gels
// solves with it as LAPACK's dgels does.
TYPED_TEST(CapiFactor, TsqrTree) {
  using T = typename TypeParam::T;
  uint64_t salt = 300;
  for (const auto& [m, n, lda] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {1001, 37, 1001}, {1000, 1, 1003}, {38, 37, 38}, {3, 7, 5}, {2053, 64, 2060}})
    for (int threads : {1, 2, 5})
      for (int tile : {0, 16}) {
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " threads " + std::to_string(threads) + " tile " +
                     std::to_string(tile));
        const tiledqr_options opts{tile, 0, TILEDQR_TREE_TSQR, threads, TILEDQR_BACKEND_LAPACK};
        expect_accurate<TypeParam>(m, n, lda, opts, salt++);
      }
  auto engine = make_engine(salt);
  const int64_t m = 900, n = 25;
  const DenseMatrix<T> a = random_matrix<T>(m, n, engine);
  const DenseMatrix<T> b = random_matrix<T>(m, 2, engine);
  std::vector<T> a1 = a.data, b1 = b.data, a2 = a.data, b2 = b.data;
  const tiledqr_options opts{0, 0, TILEDQR_TREE_TSQR, 3, TILEDQR_BACKEND_LAPACK};
  ASSERT_EQ(TypeParam::gels(m, n, 2, a1.data(), m, b1.data(), m, &opts), TILEDQR_SUCCESS) << tiledqr_last_error();
  int info = 0;
  if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', int(m), int(n), 2, a2.data(), int(m), b2.data(), int(m));
  else
    info = LAPACKE_sgels(LAPACK_COL_MAJOR, 'N', int(m), int(n), 2, a2.data(), int(m), b2.data(), int(m));
  ASSERT_EQ(info, 0);
  EXPECT_LT(diff_norm(b1.data(), b2.data(), n, 2, m, m) / diff_norm<T>(b2.data(), nullptr, n, 2, m, 0),
            100 * double(n) * std::numeric_limits<T>::epsilon());
}

// Pass rule: the same call on the same matrix with the tsqr tree gives the
// same bits twice, for 1, 2 and 3 threads (R in A and Q from orgqr).
TYPED_TEST(CapiFactor, TsqrSameBitsEveryRun) {
  using T = typename TypeParam::T;
  auto engine = make_engine(320);
  const int64_t m = 3001, n = 19;
  const DenseMatrix<T> a = random_matrix<T>(m, n, engine);
  for (int threads : {1, 2, 3}) {
    const tiledqr_options opts{0, 0, TILEDQR_TREE_TSQR, threads, TILEDQR_BACKEND_LAPACK};
    std::vector<T> r[2], q[2];
    for (int run = 0; run < 2; ++run) {
      r[run] = a.data;
      q[run].assign(size_t(m * n), T(0));
      tiledqr_factors* f = nullptr;
      ASSERT_EQ(TypeParam::geqrf(m, n, r[run].data(), m, &f, &opts), TILEDQR_SUCCESS) << tiledqr_last_error();
      ASSERT_EQ(TypeParam::orgqr(m, n, f, q[run].data(), m), TILEDQR_SUCCESS) << tiledqr_last_error();
      tiledqr_factors_free(f);
    }
    EXPECT_EQ(std::memcmp(r[0].data(), r[1].data(), r[0].size() * sizeof(T)), 0) << "threads " << threads;
    EXPECT_EQ(std::memcmp(q[0].data(), q[1].data(), q[0].size() * sizeof(T)), 0) << "threads " << threads;
  }
}

TYPED_TEST(CapiFactor, CompleteQ) {
  // orgqr with k = m: every column of the square Q has unit norm and Qᵀ A = R.
  using T = typename TypeParam::T;
  auto engine = make_engine(7);
  const int64_t m = 50, n = 20;
  const DenseMatrix<T> a = random_matrix<T>(m, n, engine);
  std::vector<T> r = a.data;
  tiledqr_factors* f = nullptr;
  ASSERT_EQ(TypeParam::geqrf(m, n, r.data(), m, &f, nullptr), TILEDQR_SUCCESS);
  std::vector<T> q(size_t(m * m));
  ASSERT_EQ(TypeParam::orgqr(m, m, f, q.data(), m), TILEDQR_SUCCESS) << tiledqr_last_error();
  for (int64_t j = 0; j < m; ++j) {
    double s = 0;
    for (int64_t i = 0; i < m; ++i) s += double(q[size_t(i + j * m)]) * q[size_t(i + j * m)];
    EXPECT_NEAR(s, 1.0, 100 * std::numeric_limits<T>::epsilon()) << "column " << j;
  }
  tiledqr_factors_free(f);
}

template <typename P>
class CapiLeastSquares : public ::testing::Test {};
TYPED_TEST_SUITE(CapiLeastSquares, Precisions);

// Pass rule: ‖X − X_lapack‖_F ≤ 100·n·ε·κ-free scale ‖X_lapack‖_F on a
// well-conditioned random problem (LAPACKE_?gels on the same input).
TYPED_TEST(CapiLeastSquares, MatchesLapack) {
  using T = typename TypeParam::T;
  auto engine = make_engine(11);
  const int64_t m = 120, n = 45, nrhs = 3, lda = 125, ldb = 130;
  const DenseMatrix<T> a = random_matrix<T>(lda, n, engine);
  const DenseMatrix<T> b = random_matrix<T>(ldb, nrhs, engine);
  std::vector<T> a1 = a.data, b1 = b.data, a2 = a.data, b2 = b.data;
  const tiledqr_options opts{16, 0, TILEDQR_TREE_BINARY, 2, TILEDQR_BACKEND_LAPACK};
  ASSERT_EQ(TypeParam::gels(m, n, nrhs, a1.data(), lda, b1.data(), ldb, &opts), TILEDQR_SUCCESS)
      << tiledqr_last_error();
  int info = 0;
  if constexpr (std::is_same_v<T, double>)
    info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', int(m), int(n), int(nrhs), a2.data(), int(lda), b2.data(), int(ldb));
  else
    info = LAPACKE_sgels(LAPACK_COL_MAJOR, 'N', int(m), int(n), int(nrhs), a2.data(), int(lda), b2.data(), int(ldb));
  ASSERT_EQ(info, 0);
  const double scale = diff_norm<T>(b2.data(), nullptr, n, nrhs, ldb, 0);
  EXPECT_LT(diff_norm(b1.data(), b2.data(), n, nrhs, ldb, ldb) / scale,
            100 * double(n) * std::numeric_limits<T>::epsilon());
  // R's diagonal agrees with LAPACK's up to sign.
  for (int64_t i = 0; i < n; ++i)
    EXPECT_NEAR(std::abs(double(a1[size_t(i + i * lda)])), std::abs(double(a2[size_t(i + i * lda)])),
                1e3 * std::numeric_limits<T>::epsilon() * std::abs(double(a2[size_t(i + i * lda)])));
}

// A matrix with two equal columns is rank-deficient: the status says so, B
// is unchanged, A holds R.
TYPED_TEST(CapiLeastSquares, RankCheck) {
  using T = typename TypeParam::T;
  auto engine = make_engine(13);
  const int64_t m = 40, n = 10;
  DenseMatrix<T> a = random_matrix<T>(m, n, engine);
  for (int64_t i = 0; i < m; ++i) a(i, 6) = a(i, 2);
  const DenseMatrix<T> b = random_matrix<T>(m, 1, engine);
  std::vector<T> b1 = b.data;
  EXPECT_EQ(TypeParam::gels(m, n, 1, a.data.data(), m, b1.data(), m, nullptr), TILEDQR_RANK_DEFICIENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("rank-deficient"), std::string::npos) << tiledqr_last_error();
  EXPECT_EQ(b1, b.data);
  // The zero matrix too (max |r_jj| = 0).
  std::vector<T> zero(size_t(m * n), T(0));
  EXPECT_EQ(TypeParam::gels(m, n, 1, zero.data(), m, b1.data(), m, nullptr), TILEDQR_RANK_DEFICIENT);
}

// Each bad argument gives its status and a message naming it; nothing is
// written and no handle is returned.
TEST(CapiErrors, BadArguments) {
  std::vector<double> a(20, 1.0), b(20, 1.0);
  a[0] = 2;
  tiledqr_factors* f = reinterpret_cast<tiledqr_factors*>(&a);  // must be overwritten with NULL
  const auto expect = [&](int status, int expected, const char* fragment) {
    EXPECT_EQ(status, expected) << tiledqr_last_error();
    EXPECT_NE(std::string(tiledqr_last_error()).find(fragment), std::string::npos)
        << "message '" << tiledqr_last_error() << "' lacks '" << fragment << "'";
  };
  expect(tiledqr_dgeqrf(-1, 3, a.data(), 1, &f, nullptr), TILEDQR_ERR_INVALID_ARGUMENT, "must be >= 0");
  EXPECT_EQ(f, nullptr);
  expect(tiledqr_dgeqrf(4, 3, a.data(), 3, &f, nullptr), TILEDQR_ERR_INVALID_ARGUMENT, "lda");
  expect(tiledqr_dgeqrf(4, 3, nullptr, 4, &f, nullptr), TILEDQR_ERR_INVALID_ARGUMENT, "A is NULL");
  for (const tiledqr_options& o : {tiledqr_options{-1, 0, 0, 0, 0}, tiledqr_options{0, -2, 0, 0, 0},
                                   tiledqr_options{0, 0, 9, 0, 0}, tiledqr_options{0, 0, 0, -1, 0},
                                   tiledqr_options{0, 0, 0, 0, 5}})
    expect(tiledqr_dgeqrf(4, 3, a.data(), 4, &f, &o), TILEDQR_ERR_INVALID_ARGUMENT, "options.");
  const std::vector<double> unchanged = a;
  a[5] = std::numeric_limits<double>::quiet_NaN();
  expect(tiledqr_dgeqrf(4, 3, a.data(), 4, &f, nullptr), TILEDQR_ERR_INVALID_ARGUMENT, "A(2,2) is not finite");
  a[5] = unchanged[5];
  EXPECT_EQ(a, unchanged);
  EXPECT_EQ(f, nullptr);
  expect(tiledqr_dgels(3, 4, 1, a.data(), 3, b.data(), 3, nullptr), TILEDQR_ERR_INVALID_ARGUMENT, "m >= n");

  ASSERT_EQ(tiledqr_dgeqrf(4, 3, a.data(), 4, &f, nullptr), TILEDQR_SUCCESS);
  EXPECT_STREQ(tiledqr_last_error(), "");
  expect(tiledqr_dormqr('X', 4, 1, f, b.data(), 4), TILEDQR_ERR_INVALID_ARGUMENT, "trans");
  expect(tiledqr_dormqr('T', 5, 1, f, b.data(), 5), TILEDQR_ERR_INVALID_ARGUMENT, "rows (4)");
  expect(tiledqr_dormqr('T', 4, 1, f, b.data(), 3), TILEDQR_ERR_INVALID_ARGUMENT, "ldb");
  expect(tiledqr_dormqr('T', 4, -1, f, b.data(), 4), TILEDQR_ERR_INVALID_ARGUMENT, "nrhs");
  expect(tiledqr_dormqr('T', 4, 1, nullptr, b.data(), 4), TILEDQR_ERR_INVALID_ARGUMENT, "NULL");
  expect(tiledqr_dorgqr(4, 5, f, b.data(), 4), TILEDQR_ERR_INVALID_ARGUMENT, "k must be");
  expect(tiledqr_dorgqr(4, -1, f, b.data(), 4), TILEDQR_ERR_INVALID_ARGUMENT, "k must be");
  std::vector<float> bf(4, 1.0f);
  expect(tiledqr_sormqr('T', 4, 1, f, bf.data(), 4), TILEDQR_ERR_INVALID_ARGUMENT, "double-precision");
  tiledqr_factors_free(f);
  tiledqr_factors_free(nullptr);
}

TEST(CapiErrors, StatusNames) {
  for (int s : {TILEDQR_SUCCESS, TILEDQR_RANK_DEFICIENT, TILEDQR_ERR_INVALID_ARGUMENT, TILEDQR_ERR_OUT_OF_MEMORY,
                TILEDQR_ERR_NO_GPU, TILEDQR_ERR_GPU, TILEDQR_ERR_GPU_ARCH, TILEDQR_ERR_STALLED, TILEDQR_ERR_INTERNAL})
    EXPECT_STRNE(tiledqr_strerror(s), "unknown tiledqr status") << s;
  EXPECT_STREQ(tiledqr_strerror(12345), "unknown tiledqr status");
  EXPECT_STREQ(tiledqr_version(), TILEDQR_EXPECTED_VERSION);
}

// The executors run BLAS on one thread inside tasks; the caller's OpenBLAS
// thread count is the same after a call as before it.
TEST(CapiErrors, BlasThreadsRestored) {
  openblas_set_num_threads(2);
  const int before = openblas_get_num_threads();
  auto engine = make_engine(17);
  DenseMatrix<double> a = random_matrix<double>(80, 80, engine);
  ASSERT_EQ(tiledqr_dgeqrf(80, 80, a.data.data(), 80, nullptr, nullptr), TILEDQR_SUCCESS);
  EXPECT_EQ(openblas_get_num_threads(), before);
}

// m = 0 or n = 0 is LAPACK's quick return: geqrf succeeds (A, which may be
// NULL, untouched) with a handle of that shape whose Q is the identity
// (ormqr leaves B as it was, orgqr gives the identity's columns, k = 0
// included); gels sets B's first max(m, n) rows to zero; nrhs = 0 solves
// nothing and still factors A.
TEST(CapiEmpty, QuickReturnsAsLapack) {
  for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {3, 0}, {0, 0}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const tiledqr_options tsqr{0, 0, TILEDQR_TREE_TSQR, 0, TILEDQR_BACKEND_LAPACK};
    for (const tiledqr_options* opts : {static_cast<const tiledqr_options*>(nullptr), &tsqr})
    for (double* a : {static_cast<double*>(nullptr), std::vector<double>(1, 5.0).data()}) {
      tiledqr_factors* f = nullptr;
      ASSERT_EQ(tiledqr_dgeqrf(m, n, a, std::max<int64_t>(1, m), &f, opts), TILEDQR_SUCCESS) << tiledqr_last_error();
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(tiledqr_factors_rows(f), m);
      EXPECT_EQ(tiledqr_factors_cols(f), n);
      std::vector<double> b = {1, 2, 3, 4, 5, 6};
      const std::vector<double> b_before = b;
      EXPECT_EQ(tiledqr_dormqr('T', m, 2, f, b.data(), 3), TILEDQR_SUCCESS) << tiledqr_last_error();
      EXPECT_EQ(tiledqr_dormqr('N', m, 2, f, b.data(), 3), TILEDQR_SUCCESS) << tiledqr_last_error();
      EXPECT_EQ(b, b_before);
      std::vector<double> q(9, -1.0);
      ASSERT_EQ(tiledqr_dorgqr(m, m, f, q.data(), std::max<int64_t>(1, m)), TILEDQR_SUCCESS) << tiledqr_last_error();
      for (int64_t j = 0; j < m; ++j)
        for (int64_t i = 0; i < m; ++i) EXPECT_EQ(q[size_t(i + j * m)], i == j ? 1.0 : 0.0);
      EXPECT_EQ(tiledqr_dorgqr(m, 0, f, nullptr, std::max<int64_t>(1, m)), TILEDQR_SUCCESS) << tiledqr_last_error();
      tiledqr_factors_free(f);
    }
    std::vector<double> b(8, 7.0);
    ASSERT_EQ(tiledqr_dgels(m, n, 2, nullptr, std::max<int64_t>(1, m), b.data(), 4, nullptr), TILEDQR_SUCCESS)
        << tiledqr_last_error();
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(b[size_t(i + 4 * j)], i < std::max(m, n) ? 0.0 : 7.0);
  }
  std::vector<float> fa = {2, 1, 1, 3}, fb;
  EXPECT_EQ(tiledqr_sgels(2, 2, 0, fa.data(), 2, nullptr, 2, nullptr), TILEDQR_SUCCESS) << tiledqr_last_error();
  EXPECT_EQ(fa[1], 0.0f) << "A holds R";
  std::vector<double> b(3, 1.0);
  EXPECT_EQ(tiledqr_dgels(0, 3, 1, nullptr, 1, b.data(), 2, nullptr), TILEDQR_ERR_INVALID_ARGUMENT)
      << "ldb must hold max(m, n) rows";
}

// The tile is cut to the matrix (a 2^30 tile would need 2^60 elements, so
// these calls fail without the cut) and the threads to the CPUs (100000
// threads fail to start without it); both give accurate factors, as the
// chosen tile (0) does on every shape of DefaultsOnShapes.
TEST(CapiTile, HugeTileAndThreadsAreCutToFit) {
  uint64_t salt = 300;
  for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{5, 3}, {3, 5}, {300, 200}, {1000, 7}})
    for (const tiledqr_options& opts : {tiledqr_options{1 << 30, 0, 0, 0, 0}, tiledqr_options{0, 0, 0, 100000, 0},
                                        tiledqr_options{46341, 46341, TILEDQR_TREE_BINARY, 1 << 30, 0}}) {
      SCOPED_TRACE("tile " + std::to_string(opts.tile) + " threads " + std::to_string(opts.threads));
      expect_accurate<D>(m, n, m, opts, salt++);
    }
}

// A batch gives, matrix by matrix, the bits of factoring each matrix alone
// with the same options on one thread (many matrices: one worker each) or on
// all threads (one matrix: all workers on it); orgqr_batch the bits of
// orgqr. Padding between matrices (lda > m, stride > lda·n) is not touched.
template <typename P>
class CapiBatch : public ::testing::Test {};
TYPED_TEST_SUITE(CapiBatch, Precisions);

template <typename T>
int geqrf_batch(int64_t b, int64_t m, int64_t n, T* a, int64_t lda, int64_t stride, tiledqr_factors** f,
                const tiledqr_options* o) {
  if constexpr (std::is_same_v<T, double>) return tiledqr_dgeqrf_batch(b, m, n, a, lda, stride, f, o);
  else return tiledqr_sgeqrf_batch(b, m, n, a, lda, stride, f, o);
}
template <typename T>
int orgqr_batch(int64_t b, int64_t m, int64_t k, tiledqr_factors* const* f, T* q, int64_t ldq, int64_t stride,
                int threads) {
  if constexpr (std::is_same_v<T, double>) return tiledqr_dorgqr_batch(b, m, k, f, q, ldq, stride, threads);
  else return tiledqr_sorgqr_batch(b, m, k, f, q, ldq, stride, threads);
}

TYPED_TEST(CapiBatch, EachMatrixAsAlone) {
  using T = typename TypeParam::T;
  auto engine = make_engine(400);
  const int64_t m = 45, n = 30, lda = 47, stride = lda * n + 5;
  for (const int64_t batch : {int64_t(1), int64_t(9)})
    for (const int threads : {1, 2, 0}) {
      SCOPED_TRACE("batch " + std::to_string(batch) + " threads " + std::to_string(threads));
      const DenseMatrix<T> a = random_matrix<T>(stride, batch, engine);  // batch matrices and their padding
      std::vector<T> stack = a.data;
      std::vector<tiledqr_factors*> f(size_t(batch), nullptr);
      const tiledqr_options opts{0, 0, TILEDQR_TREE_AUTO, threads, TILEDQR_BACKEND_LAPACK};
      ASSERT_EQ(geqrf_batch(batch, m, n, stack.data(), lda, stride, f.data(), &opts), TILEDQR_SUCCESS)
          << tiledqr_last_error();
      std::vector<T> q(size_t(batch * m * n), T(-1));
      ASSERT_EQ(orgqr_batch<T>(batch, m, n, f.data(), q.data(), m, m * n, threads), TILEDQR_SUCCESS)
          << tiledqr_last_error();
      // Alone: one thread when the batch was spread, else the batch's threads.
      tiledqr_options alone = opts;
      if (batch > 1) alone.threads = 1;
      for (int64_t i = 0; i < batch; ++i) {
        std::vector<T> one(a.data.begin() + i * stride, a.data.begin() + (i + 1) * stride);
        tiledqr_factors* g = nullptr;
        ASSERT_EQ(TypeParam::geqrf(m, n, one.data(), lda, &g, &alone), TILEDQR_SUCCESS) << tiledqr_last_error();
        EXPECT_TRUE(std::equal(one.begin(), one.end(), stack.begin() + i * stride)) << "matrix " << i;
        std::vector<T> q_one(size_t(m * n));
        ASSERT_EQ(TypeParam::orgqr(m, n, g, q_one.data(), m), TILEDQR_SUCCESS) << tiledqr_last_error();
        EXPECT_TRUE(std::equal(q_one.begin(), q_one.end(), q.begin() + i * m * n)) << "Q of matrix " << i;
        tiledqr_factors_free(g);
        tiledqr_factors_free(f[size_t(i)]);
      }
    }
}

template <typename T>
int qr_batch(int64_t b, int64_t m, int64_t n, T* a, int64_t lda, int64_t stride_a, int64_t k, T* q, int64_t ldq,
             int64_t stride_q, const tiledqr_options* o) {
  if constexpr (std::is_same_v<T, double>) return tiledqr_dqr_batch(b, m, n, a, lda, stride_a, k, q, ldq, stride_q, o);
  else return tiledqr_sqr_batch(b, m, n, a, lda, stride_a, k, q, ldq, stride_q, o);
}

// Pass rule: qr_batch gives the bits of geqrf_batch then orgqr_batch, for
// squares that are one tile (factored in place: 64 x 64 at the chosen tile,
// 24 x 24 at tile 24), squares of several tiles, an A so large the tiled
// path scales it (the in-place path declines), a padded rectangle, k of
// min(m, n), m and 0 (R only), one or many matrices on 1, 2 or all threads.
TYPED_TEST(CapiBatch, QrBatchIsGeqrfThenOrgqr) {
  using T = typename TypeParam::T;
  auto engine = make_engine(410);
  struct Case {
    int64_t m, n, lda;
    int tile;
    T scale;
  };
  const T huge = std::numeric_limits<T>::max() / T(64);
  for (const Case& c : {Case{64, 64, 64, 0, T(1)}, Case{24, 24, 24, 24, T(1)}, Case{40, 40, 40, 16, T(1)},
                        Case{24, 24, 24, 24, huge}, Case{45, 30, 47, 0, T(1)}})
    for (const int64_t k : {std::min(c.m, c.n), c.m, int64_t(0)})
      for (const int64_t batch : {int64_t(1), int64_t(7)})
        for (const int threads : {1, 2, 0}) {
          SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + " tile " + std::to_string(c.tile) + " k " +
                       std::to_string(k) + " batch " + std::to_string(batch) + " threads " + std::to_string(threads) +
                       (c.scale != T(1) ? " near overflow" : ""));
          const int64_t stride = c.lda * c.n + 3, stride_q = c.m * k + 2;
          DenseMatrix<T> a = random_matrix<T>(stride, batch, engine);
          for (T& x : a.data) x *= c.scale;
          const tiledqr_options opts{c.tile, 0, TILEDQR_TREE_AUTO, threads, TILEDQR_BACKEND_LAPACK};
          std::vector<T> fused = a.data, apart = a.data;
          std::vector<T> q_fused(size_t(stride_q * batch), T(-1)), q_apart(q_fused.size(), T(-1));
          ASSERT_EQ(qr_batch(batch, c.m, c.n, fused.data(), c.lda, stride, k, q_fused.data(), c.m, stride_q, &opts),
                    TILEDQR_SUCCESS)
              << tiledqr_last_error();
          std::vector<tiledqr_factors*> f(size_t(batch), nullptr);
          ASSERT_EQ(geqrf_batch(batch, c.m, c.n, apart.data(), c.lda, stride, f.data(), &opts), TILEDQR_SUCCESS)
              << tiledqr_last_error();
          ASSERT_EQ(orgqr_batch<T>(batch, c.m, k, f.data(), q_apart.data(), c.m, stride_q, threads), TILEDQR_SUCCESS)
              << tiledqr_last_error();
          for (tiledqr_factors* h : f) tiledqr_factors_free(h);
          EXPECT_EQ(std::memcmp(fused.data(), apart.data(), fused.size() * sizeof(T)), 0) << "R";
          EXPECT_EQ(std::memcmp(q_fused.data(), q_apart.data(), q_fused.size() * sizeof(T)), 0) << "Q";
          if (c.scale == T(1)) EXPECT_NE(fused, a.data) << "nothing was factored";
        }
}

template <typename T>
int qr_batch_strided(int64_t b, int64_t m, int64_t n, const T* a, int64_t stride_a, int64_t row_stride,
                     int64_t col_stride, T* r, int64_t ldr, int64_t stride_r, int64_t k, T* q, int64_t ldq,
                     int64_t stride_q, const tiledqr_options* o) {
  if constexpr (std::is_same_v<T, double>)
    return tiledqr_dqr_batch_strided(b, m, n, a, stride_a, row_stride, col_stride, r, ldr, stride_r, k, q, ldq,
                                     stride_q, o);
  else
    return tiledqr_sqr_batch_strided(b, m, n, a, stride_a, row_stride, col_stride, r, ldr, stride_r, k, q, ldq,
                                     stride_q, o);
}

// Pass rule: qr_batch_strided reading the stack where it lies — C order
// (row stride n), column order with padding (ld m + 2), rows reversed
// (a negative row stride), a padded batch stride — gives the bits of
// copying each matrix into R and calling qr_batch on R, for one-tile,
// many-tile and tall shapes, k = min(m, n) and m, on 1 and 2 threads; A is
// not written (a C-ordered stack compared with its copy); a NaN is named by
// its matrix and position; A NULL, ldr < m and stride_r < ldr·n are refused.
TYPED_TEST(CapiBatch, QrBatchStridedIsCopyThenQrBatch) {
  using T = typename TypeParam::T;
  auto engine = make_engine(430);
  for (const auto& [m, n, tile] : std::vector<std::tuple<int64_t, int64_t, int>>{{64, 64, 0}, {40, 40, 16}, {300, 20, 0}})
    for (const int layout : {0, 1, 2})
      for (const int64_t k : {std::min(m, n), m})
        for (const int threads : {1, 2}) {
          SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " layout " + std::to_string(layout) + " k " +
                       std::to_string(k) + " threads " + std::to_string(threads));
          const int64_t batch = 5, ld = layout == 1 ? m + 2 : (layout == 0 ? n : m);
          const int64_t stride_a = (layout == 1 ? ld * n : m * n) + 5;
          const DenseMatrix<T> storage = random_matrix<T>(stride_a, batch, engine);
          // Entry (r, c) of matrix i: C order, padded column order, or column order with the rows reversed.
          const auto at = [&](int64_t r, int64_t c) {
            if (layout == 0) return r * n + c;
            if (layout == 1) return r + c * ld;
            return (m - 1 - r) + c * m;
          };
          const int64_t row_stride = layout == 0 ? n : (layout == 1 ? 1 : -1);
          const int64_t col_stride = layout == 0 ? 1 : (layout == 1 ? ld : m);
          const T* a = storage.data.data() + (layout == 2 ? m - 1 : 0);
          const tiledqr_options opts{tile, 0, TILEDQR_TREE_AUTO, threads, TILEDQR_BACKEND_LAPACK};
          const int64_t stride_r = m * n, stride_q = m * k;
          std::vector<T> r(size_t(stride_r * batch), T(-1)), q(size_t(stride_q * batch), T(-1));
          ASSERT_EQ(qr_batch_strided(batch, m, n, a, stride_a, row_stride, col_stride, r.data(), m, stride_r, k,
                                     q.data(), m, stride_q, &opts),
                    TILEDQR_SUCCESS)
              << tiledqr_last_error();
          std::vector<T> r_copy(r.size()), q_copy(q.size(), T(-1));
          for (int64_t i = 0; i < batch; ++i)
            for (int64_t c = 0; c < n; ++c)
              for (int64_t row = 0; row < m; ++row)
                r_copy[size_t(i * stride_r + row + c * m)] = storage.data[size_t(i * stride_a + at(row, c))];
          ASSERT_EQ(qr_batch(batch, m, n, r_copy.data(), m, stride_r, k, q_copy.data(), m, stride_q, &opts),
                    TILEDQR_SUCCESS)
              << tiledqr_last_error();
          EXPECT_EQ(std::memcmp(r.data(), r_copy.data(), r.size() * sizeof(T)), 0) << "R";
          EXPECT_EQ(std::memcmp(q.data(), q_copy.data(), q.size() * sizeof(T)), 0) << "Q";
        }
  // A is only read; a NaN in matrix 2 is named by its index and (row, column) in A.
  const int64_t m = 6, n = 4, batch = 3;
  std::vector<T> a(size_t(m * n * batch), T(1)), r(a.size()), q(size_t(m * m * batch));
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t d = 0; d < n; ++d) a[size_t(i * m * n + d * n + d)] += T(i + 2);  // C order
  const std::vector<T> before = a;
  ASSERT_EQ(qr_batch_strided<T>(batch, m, n, a.data(), m * n, n, 1, r.data(), m, m * n, m, q.data(), m, m * m,
                                nullptr),
            TILEDQR_SUCCESS)
      << tiledqr_last_error();
  EXPECT_EQ(a, before);
  a[size_t(2 * m * n + 4 * n + 1)] = std::numeric_limits<T>::quiet_NaN();  // A[2](5,2)
  EXPECT_EQ(qr_batch_strided<T>(batch, m, n, a.data(), m * n, n, 1, r.data(), m, m * n, m, q.data(), m, m * m,
                                nullptr),
            TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("A[2](5,2) is not finite"), std::string::npos)
      << tiledqr_last_error();
  EXPECT_EQ(qr_batch_strided<T>(batch, m, n, nullptr, m * n, n, 1, r.data(), m, m * n, m, q.data(), m, m * m,
                                nullptr),
            TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("A is NULL"), std::string::npos) << tiledqr_last_error();
  EXPECT_EQ(qr_batch_strided<T>(batch, m, n, before.data(), m * n, n, 1, r.data(), m - 1, m * n, m, q.data(), m,
                                m * m, nullptr),
            TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("ldr"), std::string::npos) << tiledqr_last_error();
  EXPECT_EQ(qr_batch_strided<T>(batch, m, n, before.data(), m * n, n, 1, r.data(), m, m * n - 1, m, q.data(), m,
                                m * m, nullptr),
            TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("stride_r"), std::string::npos) << tiledqr_last_error();
}

TEST(CapiBatch, QrBatchArguments) {
  const int64_t m = 6, n = 4, batch = 3;
  std::vector<double> a(size_t(m * n * batch), 1.0), q(size_t(m * m * batch));
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t d = 0; d < n; ++d) a[size_t(i * m * n + d + d * m)] += double(i + 2);
  const std::vector<double> before = a;
  const auto expect = [&](int status, const char* fragment) {
    EXPECT_EQ(status, TILEDQR_ERR_INVALID_ARGUMENT) << tiledqr_last_error();
    EXPECT_NE(std::string(tiledqr_last_error()).find(fragment), std::string::npos) << tiledqr_last_error();
    EXPECT_EQ(a, before);
  };
  expect(tiledqr_dqr_batch(batch, m, n, a.data(), m, m * n, m + 1, q.data(), m, m * m, nullptr), "k must be in [0, m]");
  expect(tiledqr_dqr_batch(batch, m, n, a.data(), m, m * n, m, q.data(), m, m * m - 1, nullptr), "stride_q");
  expect(tiledqr_dqr_batch(batch, m, n, a.data(), m, m * n, m, nullptr, m, m * m, nullptr), "Q is NULL");
  expect(tiledqr_dqr_batch(batch, m, n, a.data(), m, m * n, m, q.data(), m - 1, m * m, nullptr), "ldq");
  expect(tiledqr_dqr_batch(batch, m, n, a.data(), m, m * n - 1, m, q.data(), m, m * m, nullptr), "stride_a");
  EXPECT_EQ(tiledqr_dqr_batch(0, m, n, nullptr, m, 0, m, nullptr, m, 0, nullptr), TILEDQR_SUCCESS);
  std::vector<float> af(a.begin(), a.end()), qf(q.size());
  EXPECT_EQ(tiledqr_sqr_batch(batch, m, n, af.data(), m, m * n, n, qf.data(), m, m * n, nullptr), TILEDQR_SUCCESS)
      << tiledqr_last_error();
}

// Pass rule: every bad argument of the batch calls gives
// TILEDQR_ERR_INVALID_ARGUMENT naming it; a NaN in one matrix is named by
// its index and position, before any matrix is written, and no handle is
// returned; batch = 0 and empty matrices return at once.
TEST(CapiBatch, ArgumentsAndEmptyBatches) {
  const int64_t m = 6, n = 4, batch = 5;
  std::vector<double> a(size_t(m * n * batch), 1.0);
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t d = 0; d < n; ++d) a[size_t(i * m * n + d + d * m)] += double(i + 2);
  std::vector<tiledqr_factors*> f(size_t(batch), reinterpret_cast<tiledqr_factors*>(&a));
  const auto expect = [&](int status, const char* fragment) {
    EXPECT_EQ(status, TILEDQR_ERR_INVALID_ARGUMENT) << tiledqr_last_error();
    EXPECT_NE(std::string(tiledqr_last_error()).find(fragment), std::string::npos) << tiledqr_last_error();
    for (tiledqr_factors* h : f) EXPECT_EQ(h, nullptr);
  };
  EXPECT_EQ(tiledqr_dgeqrf_batch(-1, m, n, a.data(), m, m * n, f.data(), nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("batch"), std::string::npos) << tiledqr_last_error();
  expect(tiledqr_dgeqrf_batch(batch, m, n, a.data(), m, m * n - 1, f.data(), nullptr), "stride_a");
  expect(tiledqr_dgeqrf_batch(batch, m, n, a.data(), m - 1, m * n, f.data(), nullptr), "lda");
  const std::vector<double> before = a;
  a[size_t(3 * m * n + 2 + 1 * m)] = std::numeric_limits<double>::infinity();
  expect(tiledqr_dgeqrf_batch(batch, m, n, a.data(), m, m * n, f.data(), nullptr), "A[3](3,2) is not finite");
  // Two bad matrices, checked on the workers: the first is named, whatever
  // the threads' order.
  a[size_t((batch - 1) * m * n)] = std::numeric_limits<double>::quiet_NaN();
  for (int threads : {1, 2, 4}) {
    const tiledqr_options o{0, 0, TILEDQR_TREE_AUTO, threads, TILEDQR_BACKEND_LAPACK};
    expect(tiledqr_dgeqrf_batch(batch, m, n, a.data(), m, m * n, f.data(), &o), "A[3](3,2) is not finite");
  }
  a[size_t((batch - 1) * m * n)] = before[size_t((batch - 1) * m * n)];
  a[size_t(3 * m * n + 2 + 1 * m)] = 1.0;
  EXPECT_EQ(a, before);
  EXPECT_EQ(tiledqr_dgeqrf_batch(0, m, n, nullptr, m, 0, nullptr, nullptr), TILEDQR_SUCCESS);
  EXPECT_EQ(tiledqr_dgeqrf_batch(batch, 0, n, nullptr, 1, 0, f.data(), nullptr), TILEDQR_SUCCESS);
  for (tiledqr_factors* h : f) {
    EXPECT_EQ(tiledqr_factors_rows(h), 0);
    tiledqr_factors_free(h);
  }
  ASSERT_EQ(tiledqr_dgeqrf_batch(batch, m, n, a.data(), m, m * n, f.data(), nullptr), TILEDQR_SUCCESS);
  std::vector<double> q(size_t(m * m * batch));
  EXPECT_EQ(tiledqr_dorgqr_batch(batch, m, m, f.data(), q.data(), m, m * m - 1, 0), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("stride_q"), std::string::npos) << tiledqr_last_error();
  EXPECT_EQ(tiledqr_dorgqr_batch(batch, m, m + 1, f.data(), q.data(), m, m * m, 0), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tiledqr_dorgqr_batch(batch, m, m, nullptr, q.data(), m, m * m, 0), TILEDQR_ERR_INVALID_ARGUMENT);
  std::vector<float> qf(q.size());
  EXPECT_EQ(tiledqr_sorgqr_batch(batch, m, m, f.data(), qf.data(), m, m * m, 0), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("double-precision"), std::string::npos) << tiledqr_last_error();
  EXPECT_EQ(tiledqr_dorgqr_batch(batch, m, m, f.data(), q.data(), m, m * m, -1), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tiledqr_dorgqr_batch(batch, m, m, f.data(), q.data(), m, m * m, 0), TILEDQR_SUCCESS);
  for (tiledqr_factors* h : f) tiledqr_factors_free(h);
}

}  // namespace
