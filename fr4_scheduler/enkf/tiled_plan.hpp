// The task decomposition of the "tiled" method (the row-block × column-block
// tasks of the EnKF report ("ECE 408 final report") plus a reduction), laid out
// on the host so it can be tested without a GPU.
//
// With w[j, m] = H[m, j] and K = C ∘ (e eᵀ),
//   P_HT[i, m] = Σ_j K[i, j] w[j, m] / (L − 1),
// and only columns j where some H[m, j] ≠ 0 contribute. The rows of H are
// cut into m-blocks of h_rows_per_block rows; an m-block's "union columns"
// are the columns with a nonzero in any of its rows, each with its list of
// (row within the block, value). A task takes rows_per_task rows of P_HT and
// one chunk of one m-block's union columns: per (i, j) it forms K[i, j] once
// (L multiply-adds and one Toeplitz entry) and adds K[i, j]·H[m, j] for each
// nonzero of column j, so a column shared by several rows of H costs its
// L-term inner product once. Its sums go to a partial slice; the reduction
// task of (row block, m-block) adds the slices of the block's chunks and
// scales by 1/(L − 1).
#pragma once

#include <cstdint>
#include <vector>

#include "csr_matrix.hpp"

namespace tiledqr::enkf {

constexpr int h_rows_per_block = 32;  // rows of H (columns of P_HT) per m-block
constexpr int rows_per_lane = 2;      // rows of P_HT a lane accumulates
constexpr int rows_per_task = 32 * rows_per_lane;  // rows of P_HT per task (one warp)

// A chunk of one m-block's union columns: [u_begin, u_end) of union_col.
struct TiledChunk {
  int32_t m_block;
  int32_t u_begin;
  int32_t u_end;
  int32_t m_rows;          // rows of H in the m-block
  int64_t partial_offset;  // its partial slice: (n, m_rows) col-major at partial + partial_offset
};

struct TiledPlan {
  int64_t n = 0;
  int64_t m = 0;
  int32_t m_blocks = 0;
  int64_t row_blocks = 0;             // ceil(n / rows_per_task)
  std::vector<int32_t> union_col;     // (U) per m-block, increasing; blocks one after another
  std::vector<int32_t> union_nz;      // (U + 1) column u's nonzeros: [union_nz[u], union_nz[u+1])
  std::vector<int32_t> nz_row;        // (nnz) row of H minus the m-block's first row
  std::vector<double> nz_value;       // (nnz)
  std::vector<int32_t> block_union;   // (m_blocks + 1) union columns of block b: [block_union[b], block_union[b+1])
  std::vector<TiledChunk> chunks;     // every block's chunks, in block order
  std::vector<int32_t> block_chunks;  // (m_blocks + 1) chunks of block b: [block_chunks[b], block_chunks[b+1])
  int64_t partial_doubles = 0;        // size of the partial workspace

  int64_t union_columns() const { return static_cast<int64_t>(union_col.size()); }
  int64_t tasks() const { return row_blocks * (int64_t(chunks.size()) + m_blocks); }
};

// Plans the tasks for H. Chunks are cut so that there are about
// `target_tasks` accumulation tasks, none with fewer than min_chunk_columns
// union columns, and the partial workspace stays within max_partial_doubles
// where one chunk per m-block allows it.
TiledPlan make_tiled_plan(const CsrMatrix& h, int64_t target_tasks = 8192,
                          int64_t min_chunk_columns = 256,
                          int64_t max_partial_doubles = int64_t(1) << 27);

// Σ over m-blocks of the union column count, without building the plan.
int64_t union_column_count(const CsrMatrix& h);

}  // namespace tiledqr::enkf
