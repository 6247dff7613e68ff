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

// The GPU runs tile 32 (the warp kernels') with the GPU interface's default
// tree, binary for m ≥ 4n; the GPU calibration fills this table.
const std::vector<TileRow>& gpu_tile_table() {
  static const std::vector<TileRow> rows = {
      {kAnyWorkers, kAnyNarrow, 4.0, 32, 32, Tree::binary},
      {kAnyWorkers, kAnyNarrow, 0.0, 32, 32, Tree::flat},
  };
  return rows;
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
  const TileRow& row = matching_row(cpu ? cpu_tile_table() : gpu_tile_table(), workers, narrow, aspect);
  const int domains = row.tree == Tree::hierarchical ? workers : 1;
  if (!cpu) return TileChoice{row.tile, row.inner_block, row.tree, domains};
  const int64_t tiles = (narrow + row.tile - 1) / row.tile;
  const int64_t even = (narrow + tiles - 1) / tiles;
  const int tile = int(std::min(narrow, (even + 7) / 8 * 8));
  return TileChoice{tile, std::min(row.inner_block, tile), row.tree, domains};
}

}  // namespace tiledqr
