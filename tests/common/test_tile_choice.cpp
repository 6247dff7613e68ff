// choose_tile (common/factorization/tile_choice.hpp): the tile, inner block and tree a
// factorisation gets when the caller leaves them to the library.
#include "tile_choice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "errors.hpp"

namespace tiledqr {
namespace {

// Pass rule: on the CPU, for every shape and thread count, 1 ≤ ib ≤ b ≤
// min(m, n) (no tile larger than the matrix's narrow side), the tiles
// cover the narrow side with less than one multiple of 8 of padding per
// tile beyond an even split, and the result is the matching table row's
// tile evened out.
TEST(TileChoice, CpuTileFitsTheMatrix) {
  const std::vector<std::pair<int64_t, int64_t>> shapes = {
      {1, 1}, {5, 3}, {3, 5000}, {100, 100}, {1000, 1000}, {4000, 4000}, {200000, 64}, {300, 200}, {65, 64}};
  for (const auto& [m, n] : shapes)
    for (const int threads : {1, 2, 16, 1000}) {
      const TileChoice c = choose_tile({TileTarget::cpu, m, n, Precision::double_precision, threads});
      const int64_t narrow = std::min(m, n);
      EXPECT_GE(c.inner_block, 1);
      EXPECT_LE(c.inner_block, c.tile);
      EXPECT_LE(c.tile, narrow) << m << "x" << n;
      const int64_t tiles = (narrow + c.tile - 1) / c.tile;
      EXPECT_LT(tiles * c.tile - narrow, tiles * 8) << m << "x" << n << " tile " << c.tile;
    }
}

// Pass rule: a matching row's tile is used as it stands when it divides the
// narrow side evenly, with its inner block and tree, and one domain per
// worker for the hierarchical and tsqr trees (one otherwise); the last row of each
// table matches every query.
TEST(TileChoice, TablesAreReadInOrder) {
  for (const std::vector<TileRow>* table : {&cpu_tile_table(), &gpu_tile_table(Precision::double_precision),
                                             &gpu_tile_table(Precision::single_precision)}) {
    ASSERT_FALSE(table->empty());
    const TileRow& last = table->back();
    EXPECT_EQ(last.aspect, 0.0);
    EXPECT_GE(last.narrow, int64_t(1) << 40);
  }
  for (const TileRow& row : cpu_tile_table()) {
    const int64_t narrow = std::min<int64_t>(row.narrow, int64_t(row.tile) * 8);
    if (narrow % row.tile != 0 || narrow < row.tile) continue;
    const int64_t m = int64_t(std::max(1.0, row.aspect) * double(narrow));
    const int workers = std::min(row.workers, 1000);
    const TileChoice c = choose_tile({TileTarget::cpu, m, narrow, Precision::double_precision, workers});
    // An earlier row may match first; then that row's tile applies.
    for (const TileRow& earlier : cpu_tile_table()) {
      if (workers <= earlier.workers && narrow <= earlier.narrow && double(m) / double(narrow) >= earlier.aspect) {
        if (&earlier == &row) {
          EXPECT_EQ(c.tile, row.tile);
          EXPECT_EQ(c.inner_block, std::min(row.inner_block, row.tile));
          EXPECT_EQ(c.tree, row.tree);
          EXPECT_EQ(c.domains, row.tree == Tree::hierarchical || row.tree == Tree::tsqr ? workers : 1);
        }
        break;
      }
    }
  }
}

// Pass rule: the GPU's choice is the measured winner of each calibrated
// shape (report/data/tile_choice_gpu_h100.csv): double takes the warp
// kernels' tile 32 up to 4096², the block kernels' 64 at 8192² and 9216²
// and 256 from 10240²; tall matrices the binary tree with tile 32 up to 128
// columns, then the hierarchical tree with tile 64 up to 512 columns and 256
// at 1024 (report/data/fr4_hierarchical_h200.csv,
// fr4_tile_choice_h200.csv); single precision (report/data/
// fr4_float_h200.csv) tile 32 up to 4096², 64 at 8192², 256 from 9216²,
// tall matrices tile 32 (binary) up to 128 columns and 256 (hierarchical)
// beyond. Every GPU tile is one the task-graph factorisation runs, its
// inner block 32 but for double squares of tiles 64 and 256, which take 16
// (report/data/fr4_inner_block_h200.csv, fr4_tile64_h200.csv); tall
// matrices of tile 64 keep 32 up to their last column count, 512
// (fr4_tile_choice_h200.csv, runs e and f). A matrix that fits one tile of
// 64 or 128 takes that tile with inner block 16 (the one-tile kernel,
// fr4_one_tile_h200.csv).
TEST(TileChoice, GpuTableGivesTheMeasuredWinners) {
  const auto gpu = [](int64_t m, int64_t n, Precision p) {
    return choose_tile({TileTarget::gpu, m, n, p, 1, "NVIDIA H100 80GB HBM3", 132});
  };
  const Precision d = Precision::double_precision, s = Precision::single_precision;
  struct Expected {
    int64_t m, n;
    Precision precision;
    int tile;
    Tree tree;
  };
  const std::vector<Expected> expected = {
      {512, 512, d, 32, Tree::flat},           {4096, 4096, d, 32, Tree::flat},
      {8192, 8192, d, 64, Tree::flat},         {16384, 16384, d, 256, Tree::flat},
      {262144, 32, d, 32, Tree::binary},       {262144, 256, d, 64, Tree::hierarchical},
      {262144, 1024, d, 256, Tree::hierarchical}, {4096, 4096, s, 32, Tree::flat},
      {8192, 8192, s, 64, Tree::flat},         {16384, 16384, s, 256, Tree::flat},
      {9216, 9216, d, 64, Tree::flat},         {10240, 10240, d, 256, Tree::flat},
      {9216, 9216, s, 256, Tree::flat},         {11264, 11264, d, 256, Tree::flat},
      {262144, 1024, s, 256, Tree::hierarchical}, {262144, 64, s, 32, Tree::binary},
      {3000, 5000, d, 32, Tree::flat},         {262144, 512, d, 64, Tree::hierarchical},
  };
  for (const Expected& e : expected) {
    const TileChoice c = gpu(e.m, e.n, e.precision);
    EXPECT_EQ(c.tile, e.tile) << e.m << "x" << e.n;
    EXPECT_EQ(c.tree, e.tree) << e.m << "x" << e.n;
    const bool square_16 = e.precision == d && (e.tile == 64 || e.tile == 256) && e.m == e.n;
    EXPECT_EQ(c.inner_block, square_16 ? 16 : 32) << e.m << "x" << e.n;
  }
  // A matrix that is one tile of 64 or 128, inner block 16 (report/data/fr4_one_tile_h200.csv).
  for (const Precision p : {d, s})
    for (const auto& [m, n, tile] : std::vector<std::tuple<int64_t, int64_t, int>>{
             {1, 1, 64}, {32, 32, 64}, {64, 64, 64}, {64, 1, 64}, {65, 64, 128}, {128, 128, 128}, {32, 128, 128},
             {128, 7, 128}, {129, 128, 32}, {128, 129, 32}}) {
      const TileChoice c = gpu(m, n, p);
      EXPECT_EQ(c.tile, tile) << m << "x" << n;
      EXPECT_EQ(c.inner_block, tile == 32 ? 32 : 16) << m << "x" << n;
      EXPECT_EQ(c.tree, Tree::flat) << m << "x" << n;
    }
  for (const Precision p : {d, s})
    for (const TileRow& row : gpu_tile_table(p)) {
      EXPECT_TRUE(row.tile == 32 || row.tile == 64 || row.tile == 128 || row.tile == 256) << row.tile;
      EXPECT_TRUE(row.inner_block == 32 || (row.inner_block == 16 && (row.tile == 64 || row.tile == 256)))
          << row.inner_block;
    }
}

// Pass rule: the CPU's choice is the measured winner of the calibrated
// tall shapes (report/data/tall_choice_cpu_2core.csv): on two threads or
// more the tsqr tree, one row block a thread, with inner block 16, for
// 262144 x 32 and 64 (and 10^6 x 64); the flat tree of 64-tiles on one
// thread at 131072 x 64; the hierarchical tree at 16384 x 512.
TEST(TileChoice, CpuTallRowsGiveTheMeasuredWinners) {
  const auto cpu = [](int64_t m, int64_t n, int threads) {
    return choose_tile({TileTarget::cpu, m, n, Precision::double_precision, threads});
  };
  for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{262144, 32}, {262144, 64}, {1000000, 64}})
    for (const int threads : {2, 16}) {
      const TileChoice c = cpu(m, n, threads);
      EXPECT_EQ(c.tree, Tree::tsqr) << m << "x" << n << " threads " << threads;
      EXPECT_EQ(c.domains, threads);
      EXPECT_EQ(c.inner_block, 16);
    }
  const TileChoice one = cpu(131072, 64, 1);
  EXPECT_EQ(one.tree, Tree::flat);
  EXPECT_EQ(one.tile, 64);
  EXPECT_EQ(cpu(16384, 512, 2).tree, Tree::hierarchical);
}

// Pass rule: an empty matrix gets tile 1; negative sizes and a worker count
// below 1 are InputErrors.
TEST(TileChoice, EdgesAndErrors) {
  EXPECT_EQ(choose_tile({TileTarget::cpu, 0, 5, Precision::double_precision, 2}).tile, 1);
  EXPECT_EQ(choose_tile({TileTarget::cpu, 7, 0, Precision::double_precision, 2}).tile, 1);
  EXPECT_THROW(choose_tile({TileTarget::cpu, -1, 5, Precision::double_precision, 2}), InputError);
  EXPECT_THROW(choose_tile({TileTarget::cpu, 5, 5, Precision::double_precision, 0}), InputError);
  EXPECT_THROW(choose_tile({TileTarget::gpu, 5, 5, Precision::double_precision, 1, "any", 0}), InputError);
}

}  // namespace
}  // namespace tiledqr
