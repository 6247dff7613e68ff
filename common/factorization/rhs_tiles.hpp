// A right-hand side B (m, cols) cut into the tiles that Q or Qᵀ of a
// factorisation is applied to (docs/design.md §6): tile rows of the
// factorisation's b rows, tile columns of b columns, the last one only as
// wide as what is left, so one right-hand side costs b rows, not a b×b tile.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "huge_pages.hpp"
#include "size_check.hpp"
#include "tile_matrix.hpp"

namespace tiledqr {

// m rows, n = the right-hand sides' columns, b the factorisation's tile.
template <typename T>
struct RhsTiles : TileGrid {
  // Tile column j holds p tiles of (b, width(j)), ld = b, one after the
  // other; column j starts at j·p·b·b, since every column before the last
  // is b wide. Rows past m are zero.
  std::vector<T> data;

  RhsTiles() = default;
  // Zeros.
  RhsTiles(int64_t rows, int64_t columns, int tile) : TileGrid(rows, columns, tile) {
    const size_t count = checked_elements({p, b, columns}, sizeof(T), "right-hand side tiles");
    reserve_with_huge_pages(data, count);
    data.assign(count, T(0));
  }

  int width(int64_t j) const { return int(std::min<int64_t>(b, n - j * b)); }
  T* tile(int64_t i, int64_t j) { return data.data() + j * p * b * b + i * int64_t(b) * width(j); }
  const T* tile(int64_t i, int64_t j) const { return data.data() + j * p * b * b + i * int64_t(b) * width(j); }

  // B (m, cols), col-major, ldb ≥ m, into tiles.
  static RhsTiles from_colmajor(const T* a, int64_t rows, int64_t columns, int64_t lda, int tile) {
    RhsTiles t(rows, columns, tile);
    for (int64_t j = 0; j < t.q; ++j)
      for (int64_t i = 0; i < t.p; ++i) {
        const int64_t row0 = i * tile, count = std::min<int64_t>(tile, rows - row0);
        T* dst = t.tile(i, j);
        for (int c = 0; c < t.width(j); ++c) std::copy_n(a + row0 + (j * tile + c) * lda, count, dst + c * tile);
      }
    return t;
  }

  // The first `columns` columns of the (rows, rows) identity.
  static RhsTiles identity(int64_t rows, int64_t columns, int tile) {
    RhsTiles t(rows, columns, tile);
    for (int64_t c = 0; c < std::min(rows, columns); ++c) t.tile(c / tile, c / tile)[c % tile + (c % tile) * tile] = T(1);
    return t;
  }

  // The logical (m, cols) part into a col-major array, lda ≥ m.
  void to_colmajor(T* a, int64_t lda) const {
    for (int64_t j = 0; j < q; ++j)
      for (int64_t i = 0; i < p; ++i) {
        const int64_t row0 = i * b, count = std::min<int64_t>(b, m - row0);
        const T* src = tile(i, j);
        for (int c = 0; c < width(j); ++c) std::copy_n(src + c * b, count, a + row0 + (j * b + c) * lda);
      }
  }
};

}  // namespace tiledqr
