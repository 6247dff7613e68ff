// FR1 against LAPACK (LAPACKE_?geqrf, ?gels via OpenBLAS): accuracy, special
// inputs, the API operations and determinism.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "errors.hpp"
#include "serial_executor.hpp"
#include "task_grid.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

struct Shape {
  int64_t m, n;
  int tile;
};

std::string describe(const Shape& s, const Options& o, const char* precision) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + " tile " + std::to_string(s.tile) +
         " " + backend_name(o.backend) + " " + tree_name(o.tree) + " " + precision;
}

int lapack_geqrf(int64_t m, int64_t n, double* a, double* tau) {
  return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, int(m), int(n), a, int(m), tau);
}
int lapack_geqrf(int64_t m, int64_t n, float* a, float* tau) {
  return LAPACKE_sgeqrf(LAPACK_COL_MAJOR, int(m), int(n), a, int(m), tau);
}

// Factors a random A, checks both residuals < 50 and |diag R| against
// LAPACK's geqrf to `diag_tolerance` relative.
template <typename T>
void expect_matches_lapack(const Shape& s, Options options, double diag_tolerance, uint64_t salt) {
  std::mt19937_64 engine = testing::make_engine(salt);
  const DenseMatrix<T> a = testing::random_matrix<T>(s.m, s.n, engine);
  options.tile = s.tile;
  const Factorization<T> f = factor(a.data.data(), s.m, s.n, s.m, options);
  const std::string what = describe(s, options, sizeof(T) == 8 ? "double" : "float");
  const Residuals res = check_factorization(a.data.data(), s.m, s.n, s.m, f);
  EXPECT_LT(res.residual, 50) << what;
  EXPECT_LT(res.orthogonality, 50) << what;

  DenseMatrix<T> ref = a;
  std::vector<T> tau(size_t(std::min(s.m, s.n)));
  ASSERT_EQ(lapack_geqrf(s.m, s.n, ref.data.data(), tau.data()), 0);
  const DenseMatrix<T> r = f.r();
  for (int64_t i = 0; i < r.rows; ++i) {
    const double mine = std::fabs(double(r(i, i))), theirs = std::fabs(double(ref(i, i)));
    ASSERT_NEAR(mine, theirs, diag_tolerance * std::max(theirs, 1e-300)) << what << " R(" << i << ")";
  }
  for (int64_t j = 0; j < r.cols; ++j)
    for (int64_t i = j + 1; i < r.rows; ++i) ASSERT_EQ(r(i, j), T(0)) << what;
}

const std::vector<Shape> kShapes = {
    {96, 96, 32},    // square, tile multiple
    {100, 70, 32},   // ragged
    {300, 40, 16},   // tall-skinny, ragged
    {40, 130, 16},   // wide
    {1, 1, 32},      {1, 37, 8},  // m = 1
    {53, 1, 8},      // n = 1
    {64, 64, 1},     // tile 1
    {77, 77, 100},   // tile larger than the matrix
    {129, 65, 7},
};

// Pass rule: ‖A−QR‖_F/(‖A‖_F·n·ε) < 50, ‖I−QᵀQ‖_F/(n·ε) < 50 and |diag R|
// equal to LAPACKE_dgeqrf's to 1e-10 relative, lapack backend, double.
TEST(Fr1VsLapack, LapackBackendDouble) {
  Options o;
  o.backend = Backend::lapack;
  for (size_t s = 0; s < kShapes.size(); ++s) expect_matches_lapack<double>(kShapes[s], o, 1e-10, 100 + s);
}

// Pass rule: as above, reference backend (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs" Algorithm 3), double.
TEST(Fr1VsLapack, ReferenceBackendDouble) {
  Options o;
  o.backend = Backend::reference;
  for (size_t s = 0; s < kShapes.size(); ++s) expect_matches_lapack<double>(kShapes[s], o, 1e-10, 200 + s);
}

// Pass rule: both residuals < 50 and |diag R| within 1e-3 relative of
// LAPACKE_sgeqrf (float's ε is 6e-8), both backends.
TEST(Fr1VsLapack, BothBackendsFloat) {
  for (const Backend backend : {Backend::lapack, Backend::reference}) {
    Options o;
    o.backend = backend;
    for (size_t s = 0; s < kShapes.size(); ++s) expect_matches_lapack<float>(kShapes[s], o, 1e-3, 300 + s);
  }
}

// Pass rule: the binary and greedy trees meet the same rules as the flat
// tree, both backends, double, including wide and ragged shapes.
TEST(Fr1VsLapack, TallSkinnyTrees) {
  for (const Tree tree : {Tree::binary, Tree::greedy})
    for (const Backend backend : {Backend::lapack, Backend::reference}) {
      Options o;
      o.tree = tree;
      o.backend = backend;
      for (const Shape& s : {Shape{500, 30, 16}, Shape{333, 100, 32}, Shape{40, 90, 8}, Shape{64, 64, 8}})
        expect_matches_lapack<double>(s, o, 1e-10, 400);
    }
}

// Pass rule: the inner block of the lapack backend changes nothing the
// checks see (ib = 1, 7, b).
TEST(Fr1VsLapack, InnerBlockSizes) {
  for (const int ib : {1, 7, 32}) {
    Options o;
    o.inner_block = ib;
    expect_matches_lapack<double>({150, 90, 32}, o, 1e-10, 500);
  }
}

// Special matrices: no NaN or Inf anywhere in the factors, residuals < 50.
template <typename T>
void expect_clean_factorization(const DenseMatrix<T>& a, const Options& o, const std::string& what) {
  const Factorization<T> f = factor(a.data.data(), a.rows, a.cols, a.ld(), o);
  EXPECT_TRUE(testing::all_finite(f.tiles.data)) << what;
  EXPECT_TRUE(testing::all_finite(f.t_local)) << what;
  EXPECT_TRUE(testing::all_finite(f.t_merge)) << what;
  const Residuals res = check_factorization(a.data.data(), a.rows, a.cols, a.ld(), f);
  EXPECT_LT(res.residual, 50) << what;
  EXPECT_LT(res.orthogonality, 50) << what;
}

// Pass rule: zero matrix, zero columns, rank-deficient, identity and columns
// graded from 1e-150 to 1e+150 factor with no NaN/Inf and residuals < 50,
// both backends and every tree.
TEST(Fr1SpecialInputs, NoNanAndSmallResiduals) {
  std::mt19937_64 engine = testing::make_engine(600);
  const int64_t m = 90, n = 60;
  DenseMatrix<double> zero(m, n);
  DenseMatrix<double> zero_columns = testing::random_matrix<double>(m, n, engine);
  for (const int64_t j : {0, 17, 33, 59})
    for (int64_t i = 0; i < m; ++i) zero_columns(i, j) = 0;
  // Rank 5: a product of a 90×5 and a 5×60 random matrix.
  const DenseMatrix<double> left = testing::random_matrix<double>(m, 5, engine);
  const DenseMatrix<double> right = testing::random_matrix<double>(5, n, engine);
  DenseMatrix<double> rank_deficient(m, n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t l = 0; l < 5; ++l)
      for (int64_t i = 0; i < m; ++i) rank_deficient(i, j) += left(i, l) * right(l, j);
  DenseMatrix<double> identity(m, n);
  for (int64_t j = 0; j < n; ++j) identity(j, j) = 1;
  DenseMatrix<double> graded = testing::random_matrix<double>(m, n, engine);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) graded(i, j) *= std::pow(10.0, -150.0 + 300.0 * double(j) / double(n - 1));
  for (const Tree tree : {Tree::flat, Tree::binary})
    for (const Backend backend : {Backend::lapack, Backend::reference}) {
      Options o;
      o.tile = 16;
      o.tree = tree;
      o.backend = backend;
      const std::string tag = std::string(" ") + backend_name(backend) + " " + tree_name(tree);
      expect_clean_factorization(zero, o, "zero" + tag);
      expect_clean_factorization(zero_columns, o, "zero columns" + tag);
      expect_clean_factorization(rank_deficient, o, "rank 5" + tag);
      expect_clean_factorization(identity, o, "identity" + tag);
      expect_clean_factorization(graded, o, "graded 1e-150..1e150" + tag);
    }
}

// Pass rule: the zero matrix gives R = 0 exactly.
TEST(Fr1SpecialInputs, ZeroMatrixGivesZeroR) {
  const DenseMatrix<double> zero(40, 30);
  Options o;
  o.tile = 8;
  const DenseMatrix<double> r = factor(zero.data.data(), 40, 30, 40, o).r();
  for (const double x : r.data) EXPECT_EQ(x, 0.0);
}

// Pass rule: solve equals LAPACKE_dgels's least-squares solution to 1e-10
// relative (well-conditioned random A, 3 right-hand sides), every tree.
TEST(Fr1Solve, MatchesDgels) {
  std::mt19937_64 engine = testing::make_engine(700);
  const int64_t m = 230, n = 70, nrhs = 3;
  const DenseMatrix<double> a = testing::random_matrix<double>(m, n, engine);
  const DenseMatrix<double> b = testing::random_matrix<double>(m, nrhs, engine);
  DenseMatrix<double> a_copy = a, x_ref = b;
  ASSERT_EQ(LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', int(m), int(n), int(nrhs), a_copy.data.data(), int(m),
                          x_ref.data.data(), int(m)),
            0);
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy}) {
    Options o;
    o.tile = 32;
    o.tree = tree;
    const DenseMatrix<double> x = factor(a.data.data(), m, n, m, o).solve(b.data.data(), m, nrhs);
    ASSERT_EQ(x.rows, n);
    for (int64_t c = 0; c < nrhs; ++c)
      for (int64_t i = 0; i < n; ++i)
        EXPECT_NEAR(x(i, c), x_ref(i, c), 1e-10 * std::max(1.0, std::fabs(x_ref(i, c)))) << tree_name(tree);
  }
}

// Pass rule: solve refuses wide matrices and a wrong ldb with InputError,
// and rank deficiency with RankDeficientError.
TEST(Fr1Solve, RefusesWhatItCannotSolve) {
  std::mt19937_64 engine = testing::make_engine(701);
  const DenseMatrix<double> wide = testing::random_matrix<double>(10, 20, engine);
  const DenseMatrix<double> b = testing::random_matrix<double>(20, 1, engine);
  const Factorization<double> fw = factor(wide.data.data(), 10, 20, 10, Options());
  EXPECT_THROW(fw.solve(b.data.data(), 10, 1), InputError);
  DenseMatrix<double> singular = testing::random_matrix<double>(20, 10, engine);
  for (int64_t i = 0; i < 20; ++i) singular(i, 4) = 0;
  const Factorization<double> fs = factor(singular.data.data(), 20, 10, 20, Options());
  EXPECT_THROW(fs.solve(b.data.data(), 20, 1), RankDeficientError);
  EXPECT_THROW(fs.solve(b.data.data(), 5, 1), InputError);
}

// Pass rule: apply_q(apply_qt(B)) == B to 1e-13 relative, and apply_qt(A)
// equals [R; 0] to 1e-13·‖A‖, for flat and binary trees, tall and wide.
TEST(Fr1ApplyQ, RoundTripsAndReproducesR) {
  std::mt19937_64 engine = testing::make_engine(800);
  for (const Tree tree : {Tree::flat, Tree::binary})
    for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{120, 50}, {45, 100}}) {
      Options o;
      o.tile = 16;
      o.tree = tree;
      const DenseMatrix<double> a = testing::random_matrix<double>(m, n, engine);
      const Factorization<double> f = factor(a.data.data(), m, n, m, o);
      const DenseMatrix<double> b = testing::random_matrix<double>(m, 4, engine);
      DenseMatrix<double> c = b;
      f.apply_qt(c.data.data(), m, 4);
      f.apply_q(c.data.data(), m, 4);
      for (size_t e = 0; e < b.data.size(); ++e) EXPECT_NEAR(c.data[e], b.data[e], 1e-13) << tree_name(tree);
      DenseMatrix<double> qta = a;
      f.apply_qt(qta.data.data(), m, n);
      const DenseMatrix<double> r = f.r();
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
          const double expected = i < r.rows ? r(i, j) : 0.0;
          EXPECT_NEAR(qta(i, j), expected, 1e-13 * std::sqrt(double(m * n))) << tree_name(tree);
        }
    }
}

// Pass rule: thin_q has orthonormal columns, ‖I − QᵀQ‖_max < 1e-13, and the
// right shape (m × min(m, n)).
TEST(Fr1ThinQ, OrthonormalColumns) {
  std::mt19937_64 engine = testing::make_engine(900);
  for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{100, 40}, {30, 70}}) {
    const DenseMatrix<double> a = testing::random_matrix<double>(m, n, engine);
    Options o;
    o.tile = 16;
    const DenseMatrix<double> q = factor(a.data.data(), m, n, m, o).thin_q();
    ASSERT_EQ(q.rows, m);
    ASSERT_EQ(q.cols, std::min(m, n));
    for (int64_t i = 0; i < q.cols; ++i)
      for (int64_t j = 0; j < q.cols; ++j) {
        double dot = 0;
        for (int64_t r = 0; r < m; ++r) dot += q(r, i) * q(r, j);
        EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-13);
      }
  }
}

// Pass rule: form_q(k) — Q applied to the identity, tile columns before
// panel k left out and, in tile column k, each inner block applied from its
// first column on — agrees with apply_q on the identity (every update on
// every column) to 1e-14 in every entry (BLAS may round a narrower product
// differently in the last bit), for k = 0, 1, min(m, n) and m, every tree
// and backend, ragged shapes and an inner block that does not divide the
// tile; FR1's executor gives the same bits as program order.
TEST(Fr1FormQ, SameBitsAsApplyingQToTheIdentity) {
  std::mt19937_64 engine = testing::make_engine(950);
  for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{75, 30}, {30, 75}, {64, 64}, {150, 17}})
    for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy, Tree::hierarchical})
      for (const Backend backend : {Backend::lapack, Backend::reference}) {
        Options o;
        o.tile = 16;
        o.inner_block = 5;
        o.tree = tree;
        o.tree_domains = 2;
        o.backend = backend;
        const DenseMatrix<double> a = testing::random_matrix<double>(m, n, engine);
        const Factorization<double> f = factor(a.data.data(), m, n, m, o);
        for (const int64_t k : {int64_t(0), int64_t(1), std::min(m, n), m}) {
          const std::string what = std::to_string(m) + "x" + std::to_string(n) + " " + tree_name(tree) + " " +
                                   backend_name(backend) + " k " + std::to_string(k);
          DenseMatrix<double> full(m, k);
          for (int64_t j = 0; j < k; ++j) full(j, j) = 1;
          f.apply_q(full.data.data(), m, k);
          DenseMatrix<double> q(m, k), q_fr1(m, k);
          f.form_q(k, q.data.data(), m);
          f.form_q(k, q_fr1.data.data(), m, run_dag_serial);
          for (size_t e = 0; e < q.data.size(); ++e) ASSERT_NEAR(q.data[e], full.data[e], 1e-14) << what;
          if (!q.data.empty())  // k = 0: no entries, and memcmp must not see the empty vectors' null pointers
            EXPECT_EQ(std::memcmp(q_fr1.data.data(), q.data.data(), q.data.size() * sizeof(double)), 0) << what;
        }
        EXPECT_THROW(f.form_q(m + 1, nullptr, m), InputError);
      }
}

// Pass rule: two runs give bit-identical tiles (R and V) and T factors, for
// every tree and backend.
TEST(Fr1Determinism, TwoRunsBitIdentical) {
  std::mt19937_64 engine = testing::make_engine(1000);
  const DenseMatrix<double> a = testing::random_matrix<double>(150, 97, engine);
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy})
    for (const Backend backend : {Backend::lapack, Backend::reference}) {
      Options o;
      o.tile = 16;
      o.tree = tree;
      o.backend = backend;
      const Factorization<double> f1 = factor(a.data.data(), 150, 97, 150, o);
      const Factorization<double> f2 = factor(a.data.data(), 150, 97, 150, o);
      EXPECT_EQ(0, std::memcmp(f1.tiles.data.data(), f2.tiles.data.data(), f1.tiles.data.size() * sizeof(double)));
      EXPECT_EQ(0, std::memcmp(f1.t_merge.data(), f2.t_merge.data(), f1.t_merge.size() * sizeof(double)));
    }
}

// Pass rule: a random ready-task order (instead of the priority order)
// gives bit-identical results: every tile sees its updates in the same k
// order whatever the schedule (docs/design.md §5).
TEST(Fr1Determinism, RandomSchedulesBitIdentical) {
  std::mt19937_64 engine = testing::make_engine(1001);
  const DenseMatrix<double> a = testing::random_matrix<double>(70, 60, engine);
  for (const Tree tree : {Tree::flat, Tree::greedy}) {
    Options o;
    o.tile = 8;
    o.tree = tree;
    const Factorization<double> expected = factor(a.data.data(), 70, 60, 70, o);
    for (int trial = 0; trial < 20; ++trial) {
      Factorization<double> f(a.data.data(), 70, 60, 70, o);
      run_serial(f, [&engine](size_t count) { return size_t(engine() % count); });
      ASSERT_EQ(0, std::memcmp(f.tiles.data.data(), expected.tiles.data.data(),
                               f.tiles.data.size() * sizeof(double)))
          << tree_name(tree) << " trial " << trial;
    }
  }
}

// Pass rule: --trace records one entry per task, in a valid order
// (non-decreasing start times), with the grid's task count.
TEST(Fr1Determinism, TraceHasEveryTask) {
  std::mt19937_64 engine = testing::make_engine(1002);
  const DenseMatrix<double> a = testing::random_matrix<double>(64, 48, engine);
  Options o;
  o.tile = 16;
  o.trace = true;
  const Factorization<double> f = factor(a.data.data(), 64, 48, 64, o);
  ASSERT_EQ(int64_t(f.trace.size()), grid_task_count(4, 3));
  for (size_t t = 1; t < f.trace.size(); ++t) EXPECT_LE(f.trace[t - 1].end_ns, f.trace[t].start_ns);
}

}  // namespace
}  // namespace tiledqr
