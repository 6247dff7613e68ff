// The device memory of a GPU factorisation, allocated the same way by FR3
// and FR4: the tiles and the two τ arrays (cleared), and their QrFactors view.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "gpu/qr_result.hpp"
#include "gpu/tile_shape.hpp"
#include "size_check.hpp"

namespace tiledqr::gpu {

template <typename T>
struct QrStorage {
  DeviceBuffer<T> tiles;      // p·q tiles (32, 32), ld = 32, tile (i, j) at (i + j·p)·1024
  DeviceBuffer<T> tau_local;  // (p·q·32): τ of geqrt on tile (i, k) at (i + k·p)·32
  DeviceBuffer<T> tau_merge;  // (p·q·32): τ of tsqrt/ttqrt merging tile (i, k), same place

  // The bytes the constructor allocates for p×q tiles.
  static double device_bytes(int64_t p, int64_t q) {
    return double(p) * double(q) * double(tile_shape.elements() + 2 * tile_shape.rows) * double(sizeof(T));
  }

  QrStorage() = default;
  QrStorage(int32_t p, int32_t q)
      : tiles(checked_elements({p, q, tile_shape.elements()}, sizeof(T), "the tiles"), "the tiles"),
        tau_local(size_t(p) * size_t(q) * size_t(tile_shape.rows), "tau"),
        tau_merge(size_t(p) * size_t(q) * size_t(tile_shape.rows), "tau") {
    check(cudaMemset(tau_local.get(), 0, tau_local.size() * sizeof(T)), "clearing tau");
    check(cudaMemset(tau_merge.get(), 0, tau_merge.size() * sizeof(T)), "clearing tau");
  }

  QrFactors<T> factors(int64_t m, int64_t n, int32_t p, int32_t q, Tree tree) const {
    return QrFactors<T>{m, n, p, q, tiles.get(), tau_local.get(), tau_merge.get(), tree};
  }
};

}  // namespace tiledqr::gpu
