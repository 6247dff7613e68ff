// choose_tile (common/tile_choice.hpp): the tile, inner block and tree a
// factorisation gets when the caller leaves them to the library.
#include "tile_choice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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
// worker for the hierarchical tree (one otherwise); the last row of each
// table matches every query.
TEST(TileChoice, TablesAreReadInOrder) {
  for (const std::vector<TileRow>* table : {&cpu_tile_table(), &gpu_tile_table()}) {
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
          EXPECT_EQ(c.domains, row.tree == Tree::hierarchical ? workers : 1);
        }
        break;
      }
    }
  }
}

// Pass rule: the GPU gets tile 32 (its warp kernels') and the GPU
// interface's tree, binary for m ≥ 4n, until its table is calibrated.
TEST(TileChoice, GpuKeepsTile32) {
  const TileChoice square = choose_tile({TileTarget::gpu, 4096, 4096, Precision::double_precision, 1, "any", 132});
  EXPECT_EQ(square.tile, 32);
  EXPECT_EQ(square.tree, Tree::flat);
  const TileChoice tall = choose_tile({TileTarget::gpu, 262144, 64, Precision::single_precision, 1, "any", 132});
  EXPECT_EQ(tall.tile, 32);
  EXPECT_EQ(tall.tree, Tree::binary);
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
