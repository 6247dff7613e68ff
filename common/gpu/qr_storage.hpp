// The device memory of a GPU factorisation, allocated the same way by FR3
// and FR4: the tiles and the two arrays of factor data (cleared), and their
// QrFactors view.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "gpu/qr_result.hpp"
#include "size_check.hpp"

namespace tiledqr::gpu {

template <typename T>
struct QrStorage {
  int32_t b = 0;                  // tile size
  int64_t factor_elements = 0;    // per tile: b (τ, warp kernels) or ib·b (T, block kernels)
  DeviceBuffer<T> tiles;    // p·q tiles (b, b), ld = b, tile (i, j) at (i + j·p)·b²
  DeviceBuffer<T> t_local;  // p·q blocks of factor_elements: geqrt's on tile (i, k) at (i + k·p)·factor_elements
  DeviceBuffer<T> t_merge;  // the same for the tsqrt/ttqrt merging tile (i, k)

  // The bytes the constructor allocates for p×q tiles of `tile` (ib as there).
  static double device_bytes(int64_t p, int64_t q, int32_t tile, int32_t ib) {
    const double per_tile = double(tile) * tile + 2.0 * double(ib > 0 ? int64_t(ib) * tile : int64_t(tile));
    return double(p) * double(q) * per_tile * double(sizeof(T));
  }

  QrStorage() = default;
  // Tiles of b; ib = 0: τ per tile (the warp kernels), else T (ib, b) per tile.
  QrStorage(int32_t p, int32_t q, int32_t tile, int32_t ib)
      : b(tile),
        factor_elements(ib > 0 ? int64_t(ib) * tile : int64_t(tile)),
        tiles(checked_elements({p, q, int64_t(tile) * tile}, sizeof(T), "the tiles"), "the tiles"),
        t_local(checked_elements({p, q, factor_elements}, sizeof(T), "the T factors"), "the T factors"),
        t_merge(checked_elements({p, q, factor_elements}, sizeof(T), "the T factors"), "the T factors") {
    check(cudaMemset(t_local.get(), 0, t_local.size() * sizeof(T)), "clearing the T factors");
    check(cudaMemset(t_merge.get(), 0, t_merge.size() * sizeof(T)), "clearing the T factors");
    // The clearing runs on the legacy default stream, which does not order
    // work on non-blocking streams: finish it before a factorisation is
    // launched on one.
    check(cudaDeviceSynchronize(), "clearing the T factors");
  }

  QrFactors<T> factors(int64_t m, int64_t n, int32_t p, int32_t q, int32_t ib, Tree tree, int32_t domains) const {
    return QrFactors<T>{m, n, p, q, b, ib, tiles.get(), t_local.get(), t_merge.get(), tree, domains};
  }
};

}  // namespace tiledqr::gpu
