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

// The CPU's rows: the fastest tile, inner block and tree of FR1 (one
// worker) and FR2 (two), least of the runs. Squares, 64² to 4096²: on a
// 2-core AMD EPYC with OpenBLAS 0.3.21, least of 3
// (report/data/tile_choice_cpu_2core.csv, tiledqr_bench --preset
// tile_choice_cpu). Tall matrices, m·n = 2²³ with 32 to 512 columns, with
// the tsqr tree among the candidates: on a 2-core Intel Xeon (family 6,
// model 207; OpenBLAS 0.3.21 does not recognise it and runs its SSE3
// kernels), least of 5 (report/data/tall_choice_cpu_2core.csv,
// tiledqr_bench --preset tall_choice_cpu). scripts/tile-table prints these
// rows from either CSV; each winner serves the shapes up to the geometric
// mean of its narrow side and the next. More than two workers take the
// two-worker rows: nothing larger measured.
const std::vector<TileRow>& cpu_tile_table() {
  static const std::vector<TileRow> rows = {
      {1, 45, 8.0, 32, 16, Tree::flat},  // 262144x32: 0.1502 s
      {1, 90, 8.0, 64, 16, Tree::flat},  // 131072x64: 0.1726 s
      {1, 181, 8.0, 128, 32, Tree::tsqr},  // 65536x128: 0.2589 s
      {1, 362, 8.0, 256, 32, Tree::flat},  // 32768x256: 0.4718 s
      {1, kAnyNarrow, 8.0, 512, 32, Tree::flat},  // 16384x512: 0.7007 s
      {1, 90, 0.0, 64, 16, Tree::flat},  // 64x64: 3.032e-05 s
      {1, 181, 0.0, 64, 16, Tree::flat},  // 128x128: 0.0001529 s
      {1, 362, 0.0, 256, 32, Tree::flat},  // 256x256: 0.0008599 s
      {1, 724, 0.0, 256, 32, Tree::flat},  // 512x512: 0.006013 s
      {1, 1448, 0.0, 128, 32, Tree::flat},  // 1024x1024: 0.04365 s
      {1, 2896, 0.0, 256, 64, Tree::flat},  // 2048x2048: 0.4201 s
      {1, kAnyNarrow, 0.0, 256, 32, Tree::flat},  // 4096x4096: 2.698 s
      {kAnyWorkers, 45, 8.0, 32, 16, Tree::tsqr},  // 262144x32: 0.08792 s
      {kAnyWorkers, 90, 8.0, 64, 16, Tree::tsqr},  // 131072x64: 0.1043 s
      {kAnyWorkers, 181, 8.0, 128, 16, Tree::hierarchical},  // 65536x128: 0.173 s
      {kAnyWorkers, 362, 8.0, 256, 32, Tree::tsqr},  // 32768x256: 0.2349 s
      {kAnyWorkers, kAnyNarrow, 8.0, 256, 16, Tree::hierarchical},  // 16384x512: 0.3809 s
      {kAnyWorkers, 90, 0.0, 64, 16, Tree::flat},  // 64x64: 9.657e-05 s
      {kAnyWorkers, 181, 0.0, 32, 16, Tree::flat},  // 128x128: 0.0003031 s
      {kAnyWorkers, 362, 0.0, 64, 16, Tree::flat},  // 256x256: 0.000836 s
      {kAnyWorkers, 724, 0.0, 128, 32, Tree::flat},  // 512x512: 0.003743 s
      {kAnyWorkers, 1448, 0.0, 128, 32, Tree::flat},  // 1024x1024: 0.02483 s
      {kAnyWorkers, 2896, 0.0, 256, 32, Tree::flat},  // 2048x2048: 0.2043 s
      {kAnyWorkers, kAnyNarrow, 0.0, 256, 64, Tree::flat},  // 4096x4096: 1.594 s
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
// Tall matrices (m ≥ 4n) take the binary tree of tile 32 up to 128 columns
// (measured at 32 and 64), and from 256 columns on tile 256 with the
// hierarchical tree (flat domains of 8 tile rows, binary across; an H200,
// report/data/fr4_hierarchical_h200.csv: 262144 × 1024 55.8 ms, binary
// 80.6, cuSOLVER 69.3; 262144 × 256 11.6 ms against 16.1 binary at tile
// 256 and 15.7 at tile 32 before); in double, tile 64 up to 512 columns
// (report/data/fr4_tile_choice_h200.csv, an H200, two rounds: 262144 × 256
// 10.42 ms against 10.65 at tile 256 and 14.6 at 128; 262144 × 1024 51.9 at
// 256 against 61.1 at 64), with inner block 32 (run e: 262144 × 256 9.98
// and 10.04 ms against 10.41 and 10.43 at 16 and 17.0 at 64; run f:
// 262144 × 512 22.92 and 22.85 against 23.48 and 23.44 at 16, cuSOLVER
// 31.63). Single precision, whose
// block kernels run on the FP64 tensor cores with widened operands
// (report/data/fr4_float_h200.csv, an H200): tile 32 up to 4096² (11.15 ms
// against 11.20 at 64), 64 at 8192² (50.9 ms; 32: 64.7; 128: 55.1), 256 at
// 16384² (271 ms; 64: 359; 32: 492); tall matrices tile 32 up to 128
// columns and 256 beyond (262144 × 1024: 51.9 ms hierarchical, 79.1 binary
// at tile 256). Between 8192² and 16384² (fr4_tile_choice_h200.csv): double
// keeps tile 64 up to 9216² (62.1 ms against 65.3 at 256) and takes 256
// from 10240² (73.2–73.9 against 81.3–81.6); float keeps 64 at 8192² (45.5
// against 49.0) and takes 256 from 9216² (56.0–57.2 against 61.4).
// Double squares of tile 256 take inner block 16
// (an H200, report/data/fr4_inner_block_h200.csv, one run: 16384² 180 ms
// against 188 at 32, 32768² 1.30 s against 1.37), and so do those of tile
// 64 (report/data/fr4_tile64_h200.csv, run b: 8192² 46.5 ms against 48.2;
// run c: 6144² 24.4 against 24.6, 11264² 104.4 against 108.5); float
// squares and tall matrices of tile 256 keep 32 (16384² float 196 ms
// against 189; 8192² 47.9 against 48.1; 262144 × 1024 54.4 against 53.5).
// No row depends on the multiprocessor count yet: one class of GPU is
// measured.
const std::vector<TileRow>& gpu_tile_table(Precision precision) {
  static const std::vector<TileRow> double_rows = {
      {kAnyWorkers, 128, 4.0, 32, 32, Tree::binary},
      {kAnyWorkers, 512, 4.0, 64, 32, Tree::hierarchical},
      {kAnyWorkers, kAnyNarrow, 4.0, 256, 32, Tree::hierarchical},
      {kAnyWorkers, 4096, 0.0, 32, 32, Tree::flat},
      {kAnyWorkers, 9714, 0.0, 64, 16, Tree::flat},
      {kAnyWorkers, kAnyNarrow, 0.0, 256, 16, Tree::flat},
  };
  static const std::vector<TileRow> single_rows = {
      {kAnyWorkers, 128, 4.0, 32, 32, Tree::binary},
      {kAnyWorkers, kAnyNarrow, 4.0, 256, 32, Tree::hierarchical},
      {kAnyWorkers, 5793, 0.0, 32, 32, Tree::flat},
      {kAnyWorkers, 8689, 0.0, 64, 32, Tree::flat},
      {kAnyWorkers, kAnyNarrow, 0.0, 256, 32, Tree::flat},
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
  // A GPU matrix that fits one tile of 64 or 128 is factored by one kernel
  // holding that tile in registers (FR4's one-tile path), faster than every
  // tile graph in both precisions on an H200 (report/data/fr4_one_tile_h200.csv:
  // 32², 64² at tile 64; 96², 128², 100 × 70, 128 × 32 and 32 × 128 at
  // 128), with inner block 16, whose T is quicker to form than 32's (the
  // kernel alone: 128² in double 117 µs against 129, 64² 47 against 52,
  // fr4_one_tile_kernel_h200.txt).
  if (!cpu && wide <= 128) return TileChoice{wide <= 64 ? 64 : 128, 16, Tree::flat, 1};
  const double aspect = double(wide) / double(narrow);
  const TileRow& row = matching_row(cpu ? cpu_tile_table() : gpu_tile_table(query.precision), workers, narrow, aspect);
  const int domains = row.tree == Tree::hierarchical || row.tree == Tree::tsqr ? workers : 1;
  if (!cpu) return TileChoice{row.tile, row.inner_block, row.tree, domains};
  const int64_t tiles = (narrow + row.tile - 1) / row.tile;
  const int64_t even = (narrow + tiles - 1) / tiles;
  const int tile = int(std::min(narrow, (even + 7) / 8 * 8));
  return TileChoice{tile, std::min(row.inner_block, tile), row.tree, domains};
}

}  // namespace tiledqr
