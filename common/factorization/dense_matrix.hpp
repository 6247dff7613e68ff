// A plain column-major matrix: what users pass in and get back. The tile
// layout (tile_matrix.hpp) is used only inside the factorisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "errors.hpp"

namespace tiledqr {

template <typename T>
struct DenseMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<T> data;  // (rows, cols) col-major, ld = rows

  DenseMatrix() = default;
  DenseMatrix(int64_t r, int64_t c) : rows(r), cols(c), data(element_count(r, c), T(0)) {}

  T& operator()(int64_t i, int64_t j) { return data[static_cast<size_t>(i + j * rows)]; }
  const T& operator()(int64_t i, int64_t j) const { return data[static_cast<size_t>(i + j * rows)]; }
  int64_t ld() const { return rows; }

  // r·c, refused (never wrapped) when negative or beyond 64 bits.
  static size_t element_count(int64_t r, int64_t c) {
    if (r < 0 || c < 0) throw InputError("DenseMatrix: negative size");
    if (c != 0 && r > std::numeric_limits<int64_t>::max() / c)
      throw InputError("DenseMatrix: " + std::to_string(r) + " x " + std::to_string(c) +
                              " elements overflow 64-bit indices");
    return static_cast<size_t>(r * c);
  }
};

}  // namespace tiledqr
