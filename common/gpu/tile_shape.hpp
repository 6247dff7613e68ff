// The tile shape of every GPU kernel, stated and checked once: (32, 32), so a
// warp gives one lane to each tile column ("Task-Based Scheduling Implementing
// Tiled Linear Algebra on GPUs", §II.D item 2). Host code only; no CUDA
// headers.
#pragma once

#include <cstdint>
#include <string>

#include "errors.hpp"

namespace tiledqr::gpu {

struct TileShape {
  int rows;
  int cols;
  constexpr int64_t elements() const { return int64_t(rows) * cols; }
  // Tiles covering `extent` rows (the shape is square: columns alike).
  constexpr int64_t count(int64_t extent) const { return (extent + rows - 1) / rows; }
};

inline constexpr TileShape tile_shape{32, 32};
static_assert(tile_shape.rows == 32 && tile_shape.cols == 32,
              "the warp kernels give one of a warp's 32 lanes to each column of a square tile");

// A stage asked for another tile size: InputError naming the program.
inline void require_gpu_tile(int tile, const std::string& program) {
  if (tile != tile_shape.rows)
    throw InputError(program + " runs tile " + std::to_string(tile_shape.rows) +
                     " only (one warp lane per tile column); got --tile " + std::to_string(tile));
}

}  // namespace tiledqr::gpu
