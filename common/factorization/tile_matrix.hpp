// Tile storage (docs/design.md §2): a p×q grid of b×b tiles, each tile contiguous
// and column-major (ld = b), tiles ordered tile-column by tile-column.
// Ragged edge tiles are zero-padded, so any m, n ≥ 1 and any b ≥ 1 work.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "huge_pages.hpp"
#include "size_check.hpp"

namespace tiledqr {

// The shape of an m×n matrix cut into tiles of b rows and b columns: p×q of
// them, the last row and column of tiles ragged. TileMatrix and RhsTiles
// store their tiles on it.
struct TileGrid {
  int64_t m = 0;  // logical rows
  int64_t n = 0;  // logical columns
  int b = 1;      // tile size
  int32_t p = 0;  // tile rows    = ceil(m / b)
  int32_t q = 0;  // tile columns = ceil(n / b)

  TileGrid() = default;
  TileGrid(int64_t rows, int64_t cols, int tile)
      : m(rows), n(cols), b(tile), p(tile_count(rows, tile)), q(tile_count(cols, tile)) {}
};

template <typename T>
struct TileMatrix : TileGrid {
  std::vector<T> data;  // p*q tiles of (b, b) col-major, ld = b

  TileMatrix() = default;
  TileMatrix(int64_t rows, int64_t cols, int tile) : TileGrid(rows, cols, tile) {
    data.assign(checked_elements({p, q, b, b}, sizeof(T), "tile matrix"), T(0));
  }

  int64_t tile_elements() const { return int64_t(b) * b; }
  T* tile(int64_t i, int64_t j) { return data.data() + (i + j * p) * tile_elements(); }
  const T* tile(int64_t i, int64_t j) const { return data.data() + (i + j * p) * tile_elements(); }

  // Copies A (m, n) col-major with leading dimension lda into tiles; the
  // padding is zero. Each element is written once, in storage order (no
  // zero fill first: for a tall matrix that pass cost as much as the copy).
  static TileMatrix from_colmajor(const T* a, int64_t rows, int64_t cols, int64_t lda, int tile) {
    TileMatrix t;
    static_cast<TileGrid&>(t) = TileGrid(rows, cols, tile);
    reserve_with_huge_pages(t.data, checked_elements({t.p, t.q, tile, tile}, sizeof(T), "tile matrix"));
    t.walk_colmajor(a, lda, [&t, tile](const T* column, int64_t count) {
      if (column != nullptr) t.data.insert(t.data.end(), column, column + count);
      t.data.insert(t.data.end(), size_t(tile - count), T(0));
    });
    return t;
  }

  // Copies A (m, n) as from_colmajor does into the tiles this matrix already
  // holds (the same m, n and b): no allocation, so the storage's pages are
  // not written for the first time again.
  void load_colmajor(const T* a, int64_t lda) {
    T* out = data.data();
    walk_colmajor(a, lda, [&out, this](const T* column, int64_t count) {
      if (column != nullptr) std::copy_n(column, count, out);
      std::fill(out + count, out + b, T(0));
      out += b;
    });
  }

  // The tiles' columns in storage order, each as the part of A's column it
  // holds: put(column, count) with `count` entries of A at `column`, the
  // rest of the tile's column padding (column null and count 0 past A's
  // last column).
  template <class Put>
  void walk_colmajor(const T* a, int64_t lda, Put put) const {
    for (int64_t tj = 0; tj < q; ++tj)
      for (int64_t ti = 0; ti < p; ++ti) {
        const int64_t row0 = ti * b;
        const int64_t count = std::min<int64_t>(b, m - row0);
        for (int64_t j = tj * b; j < (tj + 1) * b; ++j)
          if (j < n) put(a + row0 + j * lda, count);
          else put(static_cast<const T*>(nullptr), int64_t(0));
      }
  }

  // Writes the logical m×n part back to a col-major array with leading
  // dimension lda ≥ m.
  void to_colmajor(T* a, int64_t lda) const {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t tj = j / b, jj = j % b;
      for (int64_t ti = 0; ti < p; ++ti) {
        const int64_t row0 = ti * b;
        const int64_t count = std::min<int64_t>(b, m - row0);
        std::copy_n(tile(ti, tj) + jj * b, count, a + row0 + j * lda);
      }
    }
  }
};

}  // namespace tiledqr
