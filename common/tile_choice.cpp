// choose_tile and its tables; see tile_choice.hpp.
#include "tile_choice.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "errors.hpp"

namespace tiledqr {
namespace {

constexpr int kAnyWorkers = std::numeric_limits<int>::max();
constexpr int64_t kAnyNarrow = std::numeric_limits<int64_t>::max();

// The first row of `table` that matches.
const TileRow& matching_row(const std::vector<TileRow>& table, int workers, int64_t narrow, double aspect) {
  for (const TileRow& row : table)
    if (workers <= row.workers && narrow <= row.narrow && aspect >= row.aspect) return row;
  return table.back();
}

}  // namespace

const std::vector<TileRow>& cpu_tile_table() {
  static const std::vector<TileRow> rows = {
      {kAnyWorkers, kAnyNarrow, 0.0, 128, 32, Tree::flat},
  };
  return rows;
}

// The GPU's rows, one table a precision: the fastest tile of the task-graph
// factorisation (FR4) on an H100 80GB HBM3 (132 multiprocessors) among the
// warp kernels' tile 32 and the block kernels' 64, 128 and 256 (inner block
// 32), medians of 5 against cuSOLVER in the same run
// (report/data/tile_choice_gpu_h100.csv, tiledqr_bench --preset
// tile_choice_gpu). Double: tile 32 up to 4096² (14.8 ms against 15.2 at
// tile 64), 64 at 8192² (56.1 ms; 128: 67.3), 256 at 16384² (262 ms; 128:
// 400); the boundaries lie at the geometric means of the measured sides.
// Tall matrices (m ≥ 4n) take the binary tree: tile 32 up to 256 columns
// (262144 × 256: 15.7 ms; 64: 19.5), 64 at 1024 (118.6 ms; 32: 148.8; 128:
// 121.2). Single precision keeps tile 32 everywhere: its block kernels run
// FP32 without tensor cores and lose (8192²: 64.9 ms against 85.9 at tile
// 128; 16384²: 498 against 612). No row depends on the multiprocessor
// count yet: one class of GPU is measured.
const std::vector<TileRow>& gpu_tile_table(Precision precision) {
  static const std::vector<TileRow> double_rows = {
      {kAnyWorkers, 512, 4.0, 32, 32, Tree::binary},
      {kAnyWorkers, kAnyNarrow, 4.0, 64, 32, Tree::binary},
      {kAnyWorkers, 4096, 0.0, 32, 32, Tree::flat},
      {kAnyWorkers, 11585, 0.0, 64, 32, Tree::flat},
      {kAnyWorkers, kAnyNarrow, 0.0, 256, 32, Tree::flat},
  };
  static const std::vector<TileRow> single_rows = {
      {kAnyWorkers, kAnyNarrow, 4.0, 32, 32, Tree::binary},
      {kAnyWorkers, kAnyNarrow, 0.0, 32, 32, Tree::flat},
  };
  return precision == Precision::single_precision ? single_rows : double_rows;
}

TileChoice choose_tile(const TileQuery& query) {
  if (query.m < 0 || query.n < 0)
    throw InputError("choose_tile: negative size " + std::to_string(query.m) + "x" + std::to_string(query.n));
  const bool cpu = query.target == TileTarget::cpu;
  const int workers = cpu ? query.threads : query.sm_count;
  if (workers < 1)
    throw InputError(std::string("choose_tile: ") + (cpu ? "threads" : "sm_count") + " must be >= 1, got " +
                     std::to_string(workers));
  const int64_t narrow = std::min(query.m, query.n), wide = std::max(query.m, query.n);
  if (narrow == 0) return TileChoice{1, 1, Tree::flat};
  const double aspect = double(wide) / double(narrow);
  const TileRow& row = matching_row(cpu ? cpu_tile_table() : gpu_tile_table(query.precision), workers, narrow, aspect);
  const int domains = row.tree == Tree::hierarchical ? workers : 1;
  if (!cpu) return TileChoice{row.tile, row.inner_block, row.tree, domains};
  const int64_t tiles = (narrow + row.tile - 1) / row.tile;
  const int64_t even = (narrow + tiles - 1) / tiles;
  const int tile = int(std::min(narrow, (even + 7) / 8 * 8));
  return TileChoice{tile, std::min(row.inner_block, tile), row.tree, domains};
}

}  // namespace tiledqr
