// Tile storage (docs/design.md §2) and the size checks behind it.
#include <gtest/gtest.h>

#include <set>

#include "factorization.hpp"
#include "size_check.hpp"
#include "test_support.hpp"
#include "tile_matrix.hpp"

namespace tiledqr {
namespace {

// Pass rule: for 400 random (m, n, b) with m, n in 1…300 and b in 1…64,
// to_colmajor(from_colmajor(A)) == A exactly, every element sits at
// tile(i/b, j/b)[i%b + (j%b)·b], and every padding element is exactly 0.
TEST(TileStorage, RoundTripRaggedShapes) {
  std::mt19937_64 engine = testing::make_engine(1);
  std::uniform_int_distribution<int> extent(1, 300), tile(1, 64);
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t m = extent(engine), n = extent(engine);
    const int b = tile(engine);
    const int64_t lda = m + trial % 3;
    std::vector<double> a(size_t(lda * n));
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (double& x : a) x = uniform(engine);
    const TileMatrix<double> t = TileMatrix<double>::from_colmajor(a.data(), m, n, lda, b);
    ASSERT_EQ(t.p, (m + b - 1) / b);
    ASSERT_EQ(t.q, (n + b - 1) / b);
    for (int64_t ti = 0; ti < t.p; ++ti)
      for (int64_t tj = 0; tj < t.q; ++tj)
        for (int jj = 0; jj < b; ++jj)
          for (int ii = 0; ii < b; ++ii) {
            const int64_t i = ti * b + ii, j = tj * b + jj;
            const double stored = t.tile(ti, tj)[ii + jj * b];
            if (i < m && j < n) ASSERT_EQ(stored, a[size_t(i + j * lda)]) << m << "x" << n << " b=" << b;
            else ASSERT_EQ(stored, 0.0) << "padding at (" << i << "," << j << ")";
          }
    std::vector<double> back(size_t(lda * n), 7.0);
    t.to_colmajor(back.data(), lda);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) ASSERT_EQ(back[size_t(i + j * lda)], a[size_t(i + j * lda)]);
  }
}

// Pass rule: float tiles round-trip exactly too.
TEST(TileStorage, FloatRoundTrip) {
  std::mt19937_64 engine = testing::make_engine(2);
  const DenseMatrix<float> a = testing::random_matrix<float>(77, 45, engine);
  const TileMatrix<float> t = TileMatrix<float>::from_colmajor(a.data.data(), 77, 45, 77, 16);
  std::vector<float> back(a.data.size());
  t.to_colmajor(back.data(), 77);
  EXPECT_EQ(back, a.data);
}

// Pass rule: impossible sizes raise InputError with both amounts, never bad_alloc.
TEST(SizeCheck, RefusesImpossibleSizes) {
  EXPECT_THROW(tile_count(0, 32), InputError);
  EXPECT_THROW(tile_count(10, 0), InputError);
  EXPECT_THROW(checked_elements({int64_t(1) << 40, int64_t(1) << 40}, 8, "A"), InputError);
  try {
    checked_elements({3000000000LL, 3000000000LL}, 8, "the matrix");
    FAIL() << "no error for 3e9 x 3e9";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("GiB"), std::string::npos) << e.what();
  }
  EXPECT_EQ(checked_elements({3, 4, 5}, 8, "x"), 60u);
}

}  // namespace
}  // namespace tiledqr

namespace tiledqr {
namespace {

// Pass rule: the packed T blocks of every factored tile are distinct and
// inside the arrays, for every tree and for tall, square and wide grids.
TEST(TileStorage, PackedTFactorBlocksAreDistinct) {
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy})
    for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{50, 20}, {30, 30}, {20, 70}}) {
      Options o;
      o.tile = 4;
      o.tree = tree;
      const std::vector<double> a(size_t(m * n), 1.0);
      const Factorization<double> f(a.data(), m, n, m, o);
      std::set<int64_t> local, merge;
      const int32_t panels = std::min(f.tiles.p, f.tiles.q);
      for (int32_t k = 0; k < panels; ++k)
        for (int32_t i = k; i < f.tiles.p; ++i) {
          if (tree != Tree::flat || i == k) {
            const int64_t block = f.local_block(i, k);
            EXPECT_TRUE(local.insert(block).second) << tree_name(tree);
            EXPECT_LT(block, f.local_block_count());
          }
          if (i > k) {
            const int64_t block = f.merge_block(i, k);
            EXPECT_TRUE(merge.insert(block).second) << tree_name(tree);
            EXPECT_LT(block, f.merge_block_count());
          }
        }
      EXPECT_EQ(int64_t(local.size()), f.local_block_count());
      EXPECT_EQ(int64_t(merge.size()), f.merge_block_count());
    }
}

}  // namespace
}  // namespace tiledqr
