// The small-matrix kernels (common/kernels/small/) against LAPACK's own
// ?geqr2, ?org2r and ?orm2r on the same input.
//
// Pass rules (double / float):
//   geqr2: R, V and τ equal LAPACKE_?geqr2's to 1e-13 / 1e-5 relative
//     (Frobenius over each part), on square, tall, wide, one-row and
//     one-column shapes, lda > m, and on columns that are zero or hold
//     entries near the overflow (1e300 / 1e36) or underflow (1e-300 /
//     1e-36) threshold, where the kernels hand the reflector to ?larfg.
//   org2r: Q (m, k) equals LAPACK's ?org2r's (over V) to the same tolerance
//     for k = 0, 1, min(m, n); rows beyond m in ldq > m are not touched.
//   orm2r: Qᵀ C and Q C equal LAPACK's ?orm2r's, and Q C from orm2r on the
//     identity's first k columns is org2r's Q bit for bit.

#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/small/small_kernels.hpp"
#include "test_support.hpp"

extern "C" {
void dorg2r_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             int* info);
void sorg2r_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             int* info);
void dorm2r_(const char* side, const char* trans, const int* m, const int* n, const int* k, const double* a,
             const int* lda, const double* tau, double* c, const int* ldc, double* work, int* info);
void sorm2r_(const char* side, const char* trans, const int* m, const int* n, const int* k, const float* a,
             const int* lda, const float* tau, float* c, const int* ldc, float* work, int* info);
}

namespace tiledqr {
namespace {

template <typename T>
double tolerance() {
  return sizeof(T) == sizeof(double) ? 1e-13 : 1e-5;
}

// The largest over the columns of ‖x_c − y_c‖ / ‖y_c‖ (‖x_c − y_c‖ for a
// zero y_c), each column divided by its largest |y| first, so that entries
// near the overflow threshold square without overflowing and a column of
// ordinary entries is not measured against a huge one.
template <typename T>
double relative_error(const T* x, const T* y, int rows, int cols, int ldx, int ldy) {
  double worst = 0;
  for (int c = 0; c < cols; ++c) {
    double largest = 0;
    for (int r = 0; r < rows; ++r) largest = std::max(largest, std::fabs(double(y[r + size_t(c) * ldy])));
    if (largest == 0) largest = 1;
    double diff = 0, norm = 0;
    for (int r = 0; r < rows; ++r) {
      const double a = double(x[r + size_t(c) * ldx]) / largest, b = double(y[r + size_t(c) * ldy]) / largest;
      diff += (a - b) * (a - b);
      norm += b * b;
    }
    worst = std::max(worst, norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm));
  }
  return worst;
}

int lapack_geqr2(int m, int n, double* a, int lda, double* tau) {
  std::vector<double> work(size_t(std::max(n, 1)));
  return LAPACKE_dgeqr2_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work.data());
}
int lapack_geqr2(int m, int n, float* a, int lda, float* tau) {
  std::vector<float> work(size_t(std::max(n, 1)));
  return LAPACKE_sgeqr2_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work.data());
}
int lapack_org2r(int m, int n, int k, double* a, int lda, const double* tau) {
  std::vector<double> work(size_t(std::max(n, 1)));
  int info = 0;
  dorg2r_(&m, &n, &k, a, &lda, tau, work.data(), &info);
  return info;
}
int lapack_org2r(int m, int n, int k, float* a, int lda, const float* tau) {
  std::vector<float> work(size_t(std::max(n, 1)));
  int info = 0;
  sorg2r_(&m, &n, &k, a, &lda, tau, work.data(), &info);
  return info;
}
int lapack_orm2r(char trans, int m, int n, int k, const double* v, int ldv, const double* tau, double* c, int ldc) {
  std::vector<double> work(size_t(std::max(n, 1)));
  const char side = 'L';
  int info = 0;
  dorm2r_(&side, &trans, &m, &n, &k, v, &ldv, tau, c, &ldc, work.data(), &info);
  return info;
}
int lapack_orm2r(char trans, int m, int n, int k, const float* v, int ldv, const float* tau, float* c, int ldc) {
  std::vector<float> work(size_t(std::max(n, 1)));
  const char side = 'L';
  int info = 0;
  sorm2r_(&side, &trans, &m, &n, &k, v, &ldv, tau, c, &ldc, work.data(), &info);
  return info;
}

struct Shape {
  int m, n, lda;
};

const std::vector<Shape> kShapes = {{64, 64, 64}, {1, 1, 1},   {1, 9, 3},   {9, 1, 9},  {70, 33, 75},
                                    {33, 70, 40}, {17, 17, 17}, {100, 8, 101}, {8, 8, 8}};

// Columns of A made special: column 1 zero, column 2 near the overflow
// threshold, column 3 near the underflow threshold (where n allows).
template <typename T>
void make_special(std::vector<T>& a, const Shape& s) {
  const T huge = sizeof(T) == 8 ? T(1e300) : T(1e36), tiny = sizeof(T) == 8 ? T(1e-300) : T(1e-36);
  for (int r = 0; r < s.m; ++r) {
    if (s.n > 1) a[r + size_t(1) * s.lda] = 0;
    if (s.n > 2) a[r + size_t(2) * s.lda] *= huge;
    if (s.n > 3) a[r + size_t(3) * s.lda] *= tiny;
  }
}

template <typename T>
void check_against_lapack(uint64_t salt) {
  for (const bool special : {false, true})
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n) + " lda " + std::to_string(s.lda) +
                   (special ? " special columns" : ""));
      std::mt19937_64 engine = testing::make_engine(salt++);
      std::vector<T> a = testing::random_matrix<T>(s.lda, s.n, engine).data;
      if (special) make_special(a, s);
      const int k = std::min(s.m, s.n);
      const size_t reflectors = size_t(k);
      std::vector<T> mine = a, theirs = a, tau(reflectors), tau_lapack(reflectors);
      small_kernels::geqr2(s.m, s.n, mine.data(), s.lda, tau.data());
      ASSERT_EQ(lapack_geqr2(s.m, s.n, theirs.data(), s.lda, tau_lapack.data()), 0);
      EXPECT_LT(relative_error(mine.data(), theirs.data(), s.lda, s.n, s.lda, s.lda), tolerance<T>()) << "R and V";
      EXPECT_LT(relative_error(tau.data(), tau_lapack.data(), k, 1, k, k), tolerance<T>()) << "tau";
      for (int c = 0; c < s.n; ++c)  // rows beyond m are not touched
        for (int r = s.m; r < s.lda; ++r) ASSERT_EQ(mine[r + size_t(c) * s.lda], a[r + size_t(c) * s.lda]);

      for (const int kq : {0, 1, k}) {
        const int ldq = s.m + 2;
        std::vector<T> q(size_t(ldq) * size_t(std::max(kq, 1)), T(7)), q_lapack = mine;
        small_kernels::org2r(s.m, kq, mine.data(), s.lda, tau.data(), q.data(), ldq);
        ASSERT_EQ(lapack_org2r(s.m, kq, kq, q_lapack.data(), s.lda, tau.data()), 0);
        EXPECT_LT(relative_error(q.data(), q_lapack.data(), s.m, kq, ldq, s.lda), tolerance<T>()) << "org2r k " << kq;
        for (int c = 0; c < kq; ++c)
          for (int r = s.m; r < ldq; ++r) ASSERT_EQ(q[r + size_t(c) * ldq], T(7));
        // Q on the identity's first kq columns through orm2r: org2r's bits.
        std::vector<T> identity(size_t(ldq) * size_t(std::max(kq, 1)), T(7));
        for (int c = 0; c < kq; ++c)
          for (int r = 0; r < s.m; ++r) identity[r + size_t(c) * ldq] = T(r == c);
        small_kernels::orm2r(false, s.m, kq, kq, mine.data(), s.lda, tau.data(), identity.data(), ldq);
        EXPECT_EQ(std::memcmp(identity.data(), q.data(), identity.size() * sizeof(T)), 0) << "orm2r on I, k " << kq;
      }

      const int cols = 5;
      const std::vector<T> c0 = testing::random_matrix<T>(s.m, cols, engine).data;
      for (const bool transpose : {true, false}) {
        std::vector<T> c = c0, c_lapack = c0, v = mine;
        small_kernels::orm2r(transpose, s.m, cols, k, mine.data(), s.lda, tau.data(), c.data(), s.m);
        ASSERT_EQ(lapack_orm2r(transpose ? 'T' : 'N', s.m, cols, k, v.data(), s.lda, tau.data(), c_lapack.data(), s.m),
                  0);
        EXPECT_LT(relative_error(c.data(), c_lapack.data(), s.m, cols, s.m, s.m), tolerance<T>())
            << (transpose ? "Q^T C" : "Q C");
      }
    }
}

TEST(SmallKernels, AgainstLapackDouble) { check_against_lapack<double>(1000); }
TEST(SmallKernels, AgainstLapackFloat) { check_against_lapack<float>(2000); }

}  // namespace
}  // namespace tiledqr
