// A plain column-major matrix: what users pass in and get back. The tile
// layout (tile_matrix.hpp) is used only inside the factorisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tiledqr {

template <typename T>
struct DenseMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<T> data;  // (rows, cols) col-major, ld = rows

  DenseMatrix() = default;
  DenseMatrix(int64_t r, int64_t c) : rows(r), cols(c), data(static_cast<size_t>(r * c), T(0)) {}

  T& operator()(int64_t i, int64_t j) { return data[static_cast<size_t>(i + j * rows)]; }
  const T& operator()(int64_t i, int64_t j) const { return data[static_cast<size_t>(i + j * rows)]; }
  int64_t ld() const { return rows; }
};

}  // namespace tiledqr
