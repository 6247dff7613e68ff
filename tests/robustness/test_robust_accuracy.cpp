// In process: the flat tree's accuracy on
// tall-skinny shapes against the --check bound, rank-deficient least
// squares, entries near the overflow threshold, 64-bit sizes refused rather
// than wrapped, and FR1's ready-task selection on a wide matrix.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "checks.hpp"
#include "dag.hpp"
#include "errors.hpp"
#include "serial_executor.hpp"
#include "test_support.hpp"
#include "threaded_executor.hpp"

namespace tiledqr {
namespace {

using testing::all_finite;
using testing::make_engine;
using testing::random_matrix;

Options options_with(int tile, Tree tree, Backend backend = Backend::lapack) {
  Options o;
  o.tile = tile;
  o.tree = tree;
  o.backend = backend;
  return o;
}

// Item 12. Pass rule: FR1's flat tree on 100000 x 1 and 1000000 x 8
// (tile 32: tsqrt chains of 3125 and 31250) and 1000000 x 1 gives residual
// and orthogonality within check_bound(m, n, 50) = 50·√(m/n). The flat
// tree's error grows with its chain: on 100000 x 1, tile 2 (chain 50000)
// is worse than tile 128 (chain 782), and the binary tree (depth 12) stays
// within the plain 50.
TEST(RobustAccuracy, FlatTreeTallSkinnyWithinCheckBound) {
  std::mt19937_64 engine = make_engine(14012);
  for (const auto& [m, n] : {std::pair<int64_t, int64_t>{100000, 1}, {1000000, 1}, {1000000, 8}}) {
    const DenseMatrix<double> a = random_matrix<double>(m, n, engine);
    const Factorization<double> flat = factor(a.data.data(), m, n, m, options_with(32, Tree::flat));
    const Residuals res = check_factorization(a.data.data(), m, n, m, flat);
    EXPECT_LT(res.residual, check_bound(m, n, 50)) << m << " x " << n;
    EXPECT_LT(res.orthogonality, check_bound(m, n, 50)) << m << " x " << n;
  }
  const DenseMatrix<double> a = random_matrix<double>(100000, 1, engine);
  const Factorization<double> long_chain = factor(a.data.data(), 100000, 1, 100000, options_with(2, Tree::flat));
  const Factorization<double> short_chain = factor(a.data.data(), 100000, 1, 100000, options_with(128, Tree::flat));
  EXPECT_GT(check_factorization(a.data.data(), 100000, 1, 100000, long_chain).orthogonality,
            check_factorization(a.data.data(), 100000, 1, 100000, short_chain).orthogonality);
  const Factorization<double> binary = factor(a.data.data(), 100000, 1, 100000, options_with(32, Tree::binary));
  const Residuals tree = check_factorization(a.data.data(), 100000, 1, 100000, binary);
  EXPECT_LT(tree.residual, 50);
  EXPECT_LT(tree.orthogonality, 50);
  EXPECT_EQ(check_bound(500, 500, 50), 50);
  EXPECT_EQ(check_bound(10, 500, 50), 50);
}

// Item 13. Pass rule: solve() on a 300 x 5 A whose column 4 is column 1
// minus column 2 throws RankDeficientError with rank 4 of 5 columns and the
// message "matrix is rank deficient (numerical rank 4 < 5)", on FR1 and
// FR2, flat and binary; the full-rank A solves to the LAPACK-free check
// Aᵀ(AX − B) ≈ 0.
TEST(RobustAccuracy, RankDeficientSolveThrowsTypedError) {
  std::mt19937_64 engine = make_engine(14013);
  const int64_t m = 300, n = 5;
  DenseMatrix<double> a = random_matrix<double>(m, n, engine);
  const DenseMatrix<double> b = random_matrix<double>(m, 2, engine);
  const DenseMatrix<double> full = a;
  for (int64_t i = 0; i < m; ++i) a(i, 3) = a(i, 0) - a(i, 1);
  for (const Tree tree : {Tree::flat, Tree::binary}) {
    for (const bool threaded : {false, true}) {
      Options o = options_with(8, tree);
      o.threads = 2;
      const auto run = [&](const DenseMatrix<double>& x) {
        return threaded ? factor_threaded(x.data.data(), m, n, m, o) : factor(x.data.data(), m, n, m, o);
      };
      try {
        run(a).solve(b.data.data(), m, 2);
        ADD_FAILURE() << "no RankDeficientError, tree " << tree_name(tree);
      } catch (const RankDeficientError& e) {
        EXPECT_EQ(e.rank, 4);
        EXPECT_EQ(e.columns, 5);
        EXPECT_STREQ(e.what(), "matrix is rank deficient (numerical rank 4 < 5)");
      }
      const DenseMatrix<double> x = run(full).solve(b.data.data(), m, 2);
      for (int64_t c = 0; c < 2; ++c)
        for (int64_t j = 0; j < n; ++j) {
          double normal = 0;  // (Aᵀ(AX − B))_j
          for (int64_t i = 0; i < m; ++i) {
            double residual = -b(i, c);
            for (int64_t l = 0; l < n; ++l) residual += full(i, l) * x(l, c);
            normal += full(i, j) * residual;
          }
          EXPECT_LT(std::fabs(normal), 1e-10);
        }
    }
  }
}

// Item 14. Pass rule: a 30 x 12 A of entries ±(2.7e307 .. 3e307) (column
// norms up to 1.6e308, below DBL_MAX) factors with tile 4 on FR1 and FR2,
// every tree and backend, with finite tiles, T factors and R, R equal bit
// for bit to 2^20 times the R of A·2^−20, and residual and orthogonality
// below 50 (before, the merges overflowed to Inf and NaN). And an A whose
// column norm exceeds DBL_MAX has an Inf in r() (not in the stored tiles)
// that require_finite_r reports at its position, (2, 2).
TEST(RobustAccuracy, NearOverflowScaledExactly) {
  std::mt19937_64 engine = make_engine(14014);
  const int64_t m = 30, n = 12;
  DenseMatrix<double> a(m, n), small(m, n);
  for (int64_t e = 0; e < m * n; ++e) {
    a.data[size_t(e)] = (engine() % 2 ? 3e307 : -3e307) * (1 - 0.01 * double(engine() % 10));
    small.data[size_t(e)] = std::ldexp(a.data[size_t(e)], -20);
  }
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy})
    for (const Backend backend : {Backend::lapack, Backend::reference})
      for (const bool threaded : {false, true}) {
        SCOPED_TRACE(std::string(tree_name(tree)) + " " + backend_name(backend) + (threaded ? " FR2" : " FR1"));
        Options o = options_with(4, tree, backend);
        o.threads = 2;
        const auto run = [&](const DenseMatrix<double>& x) {
          return threaded ? factor_threaded(x.data.data(), m, n, m, o) : factor(x.data.data(), m, n, m, o);
        };
        const Factorization<double> f = run(a);
        EXPECT_GT(f.scale_exponent, 0);
        EXPECT_TRUE(all_finite(f.tiles.data));
        EXPECT_TRUE(all_finite(f.t_local));
        EXPECT_TRUE(all_finite(f.t_merge));
        const DenseMatrix<double> r = f.r();
        ASSERT_TRUE(all_finite(r.data));
        EXPECT_NO_THROW(require_finite_r(r));
        DenseMatrix<double> expected = run(small).r();
        for (double& x : expected.data) x = std::ldexp(x, 20);
        EXPECT_EQ(0, std::memcmp(r.data.data(), expected.data.data(), r.data.size() * sizeof(double)));
        const Residuals res = check_factorization(a.data.data(), m, n, m, f);
        EXPECT_LT(res.residual, 50);
        EXPECT_LT(res.orthogonality, 50);
      }
  DenseMatrix<double> huge(64, 3);
  for (int64_t i = 0; i < 64; ++i) {
    huge(i, 0) = 1;
    huge(i, 1) = i % 2 ? 1e308 : -1e308;  // ‖a_2‖ = 8e308
    huge(i, 2) = 2;
  }
  const Factorization<double> f = factor(huge.data.data(), 64, 3, 64, options_with(8, Tree::flat));
  EXPECT_TRUE(all_finite(f.tiles.data));
  try {
    require_finite_r(f.r());
    ADD_FAILURE() << "no NumericalError for an R beyond DBL_MAX";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("at (2, 2)"), std::string::npos) << e.what();
  }
  EXPECT_LT(check_factorization(huge.data.data(), 64, 3, 64, f).residual, 50);
}

// Item 14. Pass rule: to_precision<float> refuses 1e-50 (0 in float) and
// 1e39 (Inf in float) naming the position, keeps 1e-40 (subnormal, not 0)
// and lets NaN through for check_finite to judge.
TEST(RobustAccuracy, FloatConversionReportsUnderflow) {
  DenseMatrix<double> a(2, 2);
  a.data = {1, 2, 1e-50, 4};
  try {
    to_precision<float>(a, "a.mtx");
    ADD_FAILURE() << "1e-50 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("(1, 2)"), std::string::npos) << e.what();
  }
  a.data = {1, 1e39, 3, 4};
  EXPECT_THROW(to_precision<float>(a, "a.mtx"), InputError);
  a.data = {1, 1e-40, std::nan(""), 4};
  const DenseMatrix<float> f = to_precision<float>(a, "a.mtx");
  EXPECT_GT(f(1, 0), 0.0f);
  EXPECT_TRUE(std::isnan(f(0, 1)));
}

// Item 15. Pass rule: sizes whose product or index would leave 64 bits
// or the 32-bit ranges of BLAS and the kernels are refused with
// InputError, never wrapped: a 2^40 x 2^30 DenseMatrix (2^70 elements;
// this wrapped to an empty matrix), a DAG of more than 2^31 − 1 tasks,
// apply_qt with 2^31 right-hand sides, and a tile of 46341² > 2^31 − 1
// elements. Each is refused before allocating anything.
TEST(RobustAccuracy, SixtyFourBitSizesRefusedNotWrapped) {
  EXPECT_THROW(DenseMatrix<double>(int64_t(1) << 40, int64_t(1) << 30), InputError);
  EXPECT_THROW(DenseMatrix<double>(-1, 3), InputError);
  EXPECT_THROW(build_qr_dag(20000, 20000, Tree::binary), InputError);
  EXPECT_EQ(build_qr_dag(3, 2, Tree::binary).num_tasks(), 5 * 2 + 3 * 1);

  std::mt19937_64 engine = make_engine(14015);
  const DenseMatrix<double> a = random_matrix<double>(20, 4, engine);
  const Factorization<double> f = factor(a.data.data(), 20, 4, 20, options_with(8, Tree::flat));
  double dummy = 0;
  try {
    f.apply_qt(&dummy, 20, int64_t(1) << 31);
    ADD_FAILURE() << "2^31 right-hand sides accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("right-hand sides at once"), std::string::npos) << e.what();
  }
  std::vector<double> column(46341, 1.0);
  EXPECT_THROW(Factorization<double>(column.data(), 46341, 1, 46341, options_with(46341, Tree::flat)), InputError);
}

// Item 17. Pass rule: FR1 on a 16 x 400000 matrix with tile 4 (4 x 100000
// tiles, one geqrt making 99999 ormqr ready at once, 1.0 million tasks)
// finishes in under 60 s — about 2 s with the heap; the linear scan of the
// ready set took O(ready) per task, 10^10 comparisons here — and is bit for
// bit FR2's result on one thread.
TEST(RobustAccuracy, Fr1WideMatrixReadySetNotQuadratic) {
  std::mt19937_64 engine = make_engine(14017);
  const int64_t m = 16, n = 400000;
  const DenseMatrix<double> a = random_matrix<double>(m, n, engine);
  Options o = options_with(4, Tree::flat);
  o.threads = 1;
  const auto start = std::chrono::steady_clock::now();
  const Factorization<double> fr1 = factor(a.data.data(), m, n, m, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("FR1 16 x 400000, tile 4: %.2f s\n", seconds);
  EXPECT_LT(seconds, 60);
  const Factorization<double> fr2 = factor_threaded(a.data.data(), m, n, m, o);
  EXPECT_EQ(0, std::memcmp(fr1.tiles.data.data(), fr2.tiles.data.data(), fr1.tiles.data.size() * sizeof(double)));
}

}  // namespace
}  // namespace tiledqr
