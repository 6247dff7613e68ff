// A matrix that is one tile of 64 or 128, factored by one thread block that
// holds the tile in registers (common/kernels/block_registers/geqrt.cuh):
// no task graph and no layout pass, A read once and the tile and T written
// once, in LAPACK's layout as the block geqrt leaves them, so applying Q,
// R, solve and download stay those of the block tiles.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "fr4_qr.hpp"

namespace tiledqr::gpu {

// Enqueues the one-tile kernel on `stream`: A (m, n), col-major, lda ≥ m →
// the tile (tile, tile) and T (inner_block, tile). Throws GpuError when the
// launch fails.
template <typename T>
void launch_one_tile_geqrt(const Fr4Tiles& tiles, int m, int n, const T* a, int64_t lda, T* tile, T* t,
                           cudaStream_t stream);

extern template void launch_one_tile_geqrt<float>(const Fr4Tiles&, int, int, const float*, int64_t, float*,
                                                  float*, cudaStream_t);
extern template void launch_one_tile_geqrt<double>(const Fr4Tiles&, int, int, const double*, int64_t, double*,
                                                   double*, cudaStream_t);

}  // namespace tiledqr::gpu
