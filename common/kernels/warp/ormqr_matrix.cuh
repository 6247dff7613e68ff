// apply_q_kernel: Q or Qᵀ of a whole flat-tree factorisation applied to B's tiles, a warp per tile column (the matrix-level LAPACK ormqr).
#pragma once

#include <cstdint>

#include "kernels/warp/ormqr.cuh"
#include "kernels/warp/tsmqr.cuh"
#include "gpu/layout_kernels.cuh"

namespace tiledqr::gpu {

// apply_q_kernel — B ← Qᵀ B (transpose) or Q B with the Q of a flat-tree
// factorisation, Q = Π_k (Q_kk Π_{i>k} Q_ik) (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs" §I.C: ormqr then the
// tsmqr chain of each panel, in panel order for Qᵀ, reversed for Q).
//   v_tiles   (p·q tiles): the factored tiles (V below R);
//   tau_local (32 per tile): τ of geqrt on (k, k); tau_merge: τ of tsqrt on (i, k);
//   steps     min(p, q), the panels;
//   b_tiles   (p·qb tiles) of B in the tile layout, in and out.
// One warp per column tile of B (block j of the grid); the tiles of one
// column see their updates in the factorisation's order, so no other sync.
// Launch: qb blocks of 32 threads, warp_shared_elements·sizeof(T) bytes of
// dynamic shared memory.
template <typename T>
__global__ void __launch_bounds__(32) apply_q_kernel(bool transpose, const T* v_tiles,
                                                     const T* tau_local, const T* tau_merge,
                                                     int32_t p, int32_t steps, T* b_tiles) {
  extern __shared__ __align__(16) unsigned char apply_shared[];
  T* shared = reinterpret_cast<T*>(apply_shared);
  const int lane = int(threadIdx.x % 32);
  const int64_t column = blockIdx.x;
  auto v = [&](int32_t i, int32_t k) { return v_tiles + (i + int64_t(k) * p) * tile_elements; };
  auto tau = [&](const T* base, int32_t i, int32_t k) { return base + (i + int64_t(k) * p) * warp_tile; };
  auto b = [&](int32_t i) { return b_tiles + (i + column * p) * tile_elements; };
  if (transpose) {
    for (int32_t k = 0; k < steps; ++k) {
      warp_ormqr(true, v(k, k), tau(tau_local, k, k), b(k), shared, lane);
      for (int32_t i = k + 1; i < p; ++i)
        warp_tsmqr(true, v(i, k), tau(tau_merge, i, k), b(k), b(i), shared, lane);
    }
  } else {
    for (int32_t k = steps - 1; k >= 0; --k) {
      for (int32_t i = p - 1; i > k; --i)
        warp_tsmqr(false, v(i, k), tau(tau_merge, i, k), b(k), b(i), shared, lane);
      warp_ormqr(false, v(k, k), tau(tau_local, k, k), b(k), shared, lane);
    }
  }
}

}  // namespace tiledqr::gpu
