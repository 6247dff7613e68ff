// The tile size, inner block and tree a factorisation uses when the caller
// leaves them to the library (tile 0 in the C options and Python calls):
// one function for the CPU and the GPU, each reading its own table of
// measured rows (docs/design.md §9).
//   TileChoice c = choose_tile({TileTarget::cpu, m, n, Precision::double_precision, threads});
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"

namespace tiledqr {

enum class TileTarget { cpu, gpu };
enum class Precision { double_precision, single_precision };

struct TileQuery {
  TileTarget target = TileTarget::cpu;
  int64_t m = 0;
  int64_t n = 0;
  Precision precision = Precision::double_precision;
  int threads = 1;        // CPU: the workers that will run it (≥ 1, already resolved)
  std::string gpu_model;  // GPU: the device's name, as cudaGetDeviceProperties gives it
  int sm_count = 0;       // GPU: its multiprocessors
};

struct TileChoice {
  int tile = 32;         // b
  int inner_block = 32;  // ib, ≤ b
  Tree tree = Tree::flat;
  int domains = 1;       // hierarchical tree: its domains, each reduced by a flat tree; tsqr: its row blocks
};

// One measured row: a query with at most `workers` (CPU: threads; GPU:
// multiprocessors), narrow side
// min(m, n) at most `narrow` and aspect max(m, n) / min(m, n) at least
// `aspect` takes `tile`, `inner_block` and `tree`. A table is read from its
// first row on; the first row that matches wins, so rows go by threads,
// then narrow side, then aspect from the largest down; the last row of a
// table matches every query. Tree::hierarchical in a row means one domain
// per worker, each reduced by a flat tree: a chain of tsqrt per worker,
// then log₂(workers) merges (Hadri, Ltaief, Agullo, Dongarra, "Tile QR
// factorization with parallel panel processing for multicore
// architectures", 2010, §3). Tree::tsqr means one row block per worker,
// each factored whole by LAPACK, merged by a tree (docs/design.md §8); its
// tile only bounds the inner block.
struct TileRow {
  int workers;
  int64_t narrow;
  double aspect;
  int tile;
  int inner_block;
  Tree tree;
};

// The rows of each target (tile_choice.cpp says where they were measured);
// the GPU has a table for each precision.
const std::vector<TileRow>& cpu_tile_table();
const std::vector<TileRow>& gpu_tile_table(Precision precision);

// The choice for `query`. CPU: the matching row's tile evened out over the
// narrow side (b = ⌈narrow / ⌈narrow / tile⌉⌉ rounded up to a multiple of 8,
// so the last tile is not mostly padding) and never larger than the narrow
// side; its inner block, at most b. GPU: the matching row as it stands.
// m or n of 0 (nothing to factor) gives tile 1. InputError for negative
// sizes, or workers < 1 (threads for the CPU, sm_count for the GPU).
TileChoice choose_tile(const TileQuery& query);

}  // namespace tiledqr
