// The LCS tile task on FR4 (a supernode of "Supernode transformation on
// GPGPUs", bit-parallel inside): one warp advances the bit-vector LCS
// recurrence (Hyyrö 2004) of a tile of h = 64·tile_words rows of a (lane r
// holds rows 64·r … 64·r + 63 of the tile as one word) across w = tile_cols
// columns of b, one column per step:
//
//   U = V & Match[b_j];   V ← (V + U) | (V & ~Match[b_j])
//
// where bit i of V is 0 exactly when L(i+1, j) − L(i, j) = 1. The addition
// runs over the whole tile height at once: each lane adds its word, and the
// carries between the 32 words come from a carry-lookahead on two ballots
// (generate: the word overflowed; propagate: it is all ones), the carry
// into the tile's lowest word from the tile below. The carry into row r at
// column j equals L(r, j+1) − L(r, j), so the two boundaries a tile passes
// on are exact DP differences:
//   left → right: V at the tile's last column (tile_words words, `column`);
//   below → above: the carry out of the tile's top, one bit per column
//   (`carries`), i.e. the DP row at the tile row boundary.
// Memory is O(M/64 + N/32) words whatever the tiling; nothing is O(M·N).
#pragma once

#include <cstdint>

#include "taskgraph/task_args.hpp"
#include "taskgraph/task_context.cuh"

namespace tiledqr::lcs {

constexpr int kind_lcs_tile = 0;

// The run's parameter block (every tile reads it).
struct LcsRunParams {
  const uint16_t* b_codes = nullptr;  // (n) symbol code of b_j; code `symbols` matches nothing
  const uint64_t* match = nullptr;    // (symbols + 1, words) row-major: bit i of word w set where a[64w+i] has the code
  uint64_t* column = nullptr;         // (words) V at a tile column boundary; column N after a run
  uint32_t* carries = nullptr;        // (⌈n/32⌉) carry bits at a tile row boundary; row M after a run
  int64_t n = 0;                      // |b|
  int32_t words = 0;                  // ⌈|a|/64⌉
  int32_t tile_words = 32;            // tile rows / 64, 1 … 32
  int32_t tile_cols = 256;            // tile columns, a multiple of 32
};

// A task's own arguments: which tile.
struct LcsTileArgs {
  int32_t tile_row;
  int32_t tile_col;
};

// Tile (tile_row, tile_col) on one warp; `lane` is the thread's index in it.
// Needs tile (tile_row − 1, tile_col) (its carries) and (tile_row, tile_col − 1)
// (its column) done.
__device__ inline void lcs_tile(const LcsRunParams& p, int32_t tile_row, int32_t tile_col, int lane) {
  constexpr unsigned full = 0xffffffffu;
  const int32_t word = tile_row * p.tile_words + lane;
  const bool owns_word = lane < p.tile_words && word < p.words;
  // Lanes past the tile (or past a) hold an all-ones word with an empty
  // match: it propagates every carry and changes nothing.
  uint64_t v = ~uint64_t(0);
  if (owns_word && tile_col > 0) v = p.column[word];
  const int64_t first = int64_t(tile_col) * p.tile_cols;
  const int64_t last = first + p.tile_cols < p.n ? first + p.tile_cols : p.n;

  for (int64_t chunk = first; chunk < last; chunk += 32) {  // 32 columns: one carry word
    const int count = last - chunk < 32 ? static_cast<int>(last - chunk) : 32;
    const int code = lane < count ? p.b_codes[chunk + lane] : 0;
    uint32_t carry_in = 0;
    if (lane == 0 && tile_row > 0) carry_in = p.carries[chunk / 32];
    carry_in = __shfl_sync(full, carry_in, 0);

    uint64_t match[32];  // this lane's match word for each of the 32 columns, loaded ahead of the steps
#pragma unroll
    for (int k = 0; k < 32; ++k) {
      const int code_k = __shfl_sync(full, code, k);
      match[k] = owns_word ? __ldg(p.match + int64_t(code_k) * p.words + word) : 0;
    }

    uint32_t carry_out = 0;
#pragma unroll
    for (int k = 0; k < 32; ++k) {
      if (k >= count) break;  // the same on every lane
      const uint64_t u = v & match[k];
      const uint64_t partial = v + u;
      const unsigned generate = __ballot_sync(full, partial < v);
      const unsigned propagate = __ballot_sync(full, partial == ~uint64_t(0));
      // Generate and propagate never meet in one word, so the carries are
      // those of the 32-bit sum (G | P) + G + carry_in: carry into lane r =
      // bit r of that sum XOR P; the sum's bit 32 leaves the tile's top.
      const uint64_t lookahead = uint64_t(generate | propagate) + generate + ((carry_in >> k) & 1u);
      const uint32_t carry_into = static_cast<uint32_t>(lookahead) ^ propagate;
      carry_out |= static_cast<uint32_t>(lookahead >> 32) << k;
      v = (partial + ((carry_into >> lane) & 1u)) | (v & ~match[k]);
    }
    if (lane == 0) p.carries[chunk / 32] = carry_out;  // the same word carry_in came from
  }
  if (owns_word) p.column[word] = v;
}

// FR4's compile-time kind table for this workload: one kind.
struct LcsKinds {
  template <class Ctx>
  __device__ static void run(int kind, const taskgraph::TaskArgs& args, Ctx& ctx) {
    if (kind == kind_lcs_tile) {
      const LcsTileArgs tile = args.as<LcsTileArgs>();
      lcs_tile(taskgraph::params_of<LcsRunParams>(ctx), tile.tile_row, tile.tile_col, ctx.rank());
    }
  }
};

}  // namespace tiledqr::lcs
