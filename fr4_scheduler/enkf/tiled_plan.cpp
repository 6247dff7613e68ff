#include "tiled_plan.hpp"

#include <algorithm>

namespace tiledqr::enkf {

namespace {

// Builds block b's union columns (a counting sort of its nonzeros by
// column) and appends them to the plan. `count` is a zeroed (n + 1) buffer,
// left zeroed again.
void append_block_union(const CsrMatrix& h, int32_t b, std::vector<int32_t>& count, TiledPlan& plan) {
  const int64_t first_row = int64_t(b) * h_rows_per_block;
  const int64_t end_row = std::min<int64_t>(h.rows, first_row + h_rows_per_block);
  const int64_t nz_begin = h.row_ptr[size_t(first_row)], nz_end = h.row_ptr[size_t(end_row)];
  for (int64_t k = nz_begin; k < nz_end; ++k) ++count[size_t(h.col[size_t(k)])];
  // The union columns in order, and where each one's nonzeros start.
  const size_t nz_base = plan.nz_row.size();
  std::vector<int32_t> slot(size_t(h.cols), -1);  // next free nonzero of column j
  int32_t next = static_cast<int32_t>(nz_base);
  for (int64_t j = 0; j < h.cols; ++j) {
    if (count[size_t(j)] == 0) continue;
    plan.union_col.push_back(static_cast<int32_t>(j));
    plan.union_nz.push_back(next);
    slot[size_t(j)] = next;
    next += count[size_t(j)];
    count[size_t(j)] = 0;
  }
  plan.nz_row.resize(size_t(next));
  plan.nz_value.resize(size_t(next));
  for (int64_t r = first_row; r < end_row; ++r)
    for (int64_t k = h.row_ptr[size_t(r)]; k < h.row_ptr[size_t(r) + 1]; ++k) {
      const int32_t at = slot[size_t(h.col[size_t(k)])]++;
      plan.nz_row[size_t(at)] = static_cast<int32_t>(r - first_row);
      plan.nz_value[size_t(at)] = h.value[size_t(k)];
    }
}

}  // namespace

TiledPlan make_tiled_plan(const CsrMatrix& h, int64_t target_tasks, int64_t min_chunk_columns,
                          int64_t max_partial_doubles) {
  check_csr(h);
  TiledPlan plan;
  plan.n = h.cols;
  plan.m = h.rows;
  plan.m_blocks = static_cast<int32_t>((h.rows + h_rows_per_block - 1) / h_rows_per_block);
  plan.row_blocks = (h.cols + rows_per_task - 1) / rows_per_task;

  std::vector<int32_t> count(size_t(h.cols) + 1, 0);
  plan.block_union.push_back(0);
  for (int32_t b = 0; b < plan.m_blocks; ++b) {
    append_block_union(h, b, count, plan);
    plan.block_union.push_back(static_cast<int32_t>(plan.union_col.size()));
  }
  plan.union_nz.push_back(static_cast<int32_t>(plan.nz_row.size()));

  // Chunks per m-block: enough tasks to fill the GPU, not too small, and
  // a partial workspace within the cap (n · m doubles per chunk layer).
  const int64_t wanted = std::max<int64_t>(1, (target_tasks + plan.row_blocks * plan.m_blocks - 1) /
                                                  std::max<int64_t>(1, plan.row_blocks * plan.m_blocks));
  const int64_t affordable = std::max<int64_t>(1, max_partial_doubles / std::max<int64_t>(1, plan.n * plan.m));
  plan.block_chunks.push_back(0);
  for (int32_t b = 0; b < plan.m_blocks; ++b) {
    const int64_t u_begin = plan.block_union[size_t(b)], u_end = plan.block_union[size_t(b) + 1];
    const int64_t columns = u_end - u_begin;
    const int32_t m_rows = static_cast<int32_t>(
        std::min<int64_t>(h_rows_per_block, h.rows - int64_t(b) * h_rows_per_block));
    if (columns > 0) {
      const int64_t by_size = std::max<int64_t>(1, columns / std::max<int64_t>(1, min_chunk_columns));
      const int64_t pieces = std::min({wanted, by_size, affordable, columns});
      for (int64_t c = 0; c < pieces; ++c) {
        TiledChunk chunk;
        chunk.m_block = b;
        chunk.u_begin = static_cast<int32_t>(u_begin + columns * c / pieces);
        chunk.u_end = static_cast<int32_t>(u_begin + columns * (c + 1) / pieces);
        chunk.m_rows = m_rows;
        chunk.partial_offset = plan.partial_doubles;
        plan.partial_doubles += plan.n * m_rows;
        plan.chunks.push_back(chunk);
      }
    }
    plan.block_chunks.push_back(static_cast<int32_t>(plan.chunks.size()));
  }
  return plan;
}

int64_t union_column_count(const CsrMatrix& h) {
  std::vector<int64_t> last_block(size_t(h.cols), -1);
  int64_t total = 0;
  for (int64_t r = 0; r < h.rows; ++r) {
    const int64_t b = r / h_rows_per_block;
    for (int64_t k = h.row_ptr[size_t(r)]; k < h.row_ptr[size_t(r) + 1]; ++k) {
      int64_t& seen = last_block[size_t(h.col[size_t(k)])];
      if (seen != b) seen = b, ++total;
    }
  }
  return total;
}

}  // namespace tiledqr::enkf
