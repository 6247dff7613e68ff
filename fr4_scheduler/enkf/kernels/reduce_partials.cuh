// Reduction task of the tiled method (one warp): for rows
// i ∈ [row_begin, row_begin + rows_per_task) and the rows m of m-block b,
//   P_HT[i, m] = Σ_chunks partial_chunk[i, m − 32·b] / (L − 1),
// adding the chunks in a fixed order, so every run gives the same bits.
// It runs after every accumulation task of its row block and m-block.
#pragma once

namespace tiledqr::enkf {

__device__ inline void reduce_partials(const TiledParams& p, const ReduceArgs& a, int lane) {
  const int first_m = a.m_block * h_rows_per_block;
  const int m_rows = min(h_rows_per_block, p.m - first_m);
  const int c_begin = p.block_chunks[a.m_block], c_end = p.block_chunks[a.m_block + 1];
  for (int mr = 0; mr < m_rows; ++mr)
#pragma unroll
    for (int r = 0; r < rows_per_lane; ++r) {
      const int64_t i = int64_t(a.row_begin) + lane + 32 * r;
      if (i >= p.n) continue;
      double sum = 0;
      for (int c = c_begin; c < c_end; ++c) sum += p.partial[p.chunks[c].partial_offset + i + int64_t(mr) * p.n];
      p.out[i + int64_t(first_m + mr) * p.n] = sum * p.scale;
    }
}

}  // namespace tiledqr::enkf
