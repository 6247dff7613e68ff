#pragma once

#include "warp_reflector.cuh"
#include "warp_tile.cuh"

namespace tiledqr::gpu {

// warp_tsqrt (seed 000: DTSQT2) — one warp factors a triangle on top of a
// square tile, [R; A2] = Q [R̂; 0], Q = H_0 ⋯ H_31 with v_j = [e_j; V2(:, j)]
// (the top part is the implicit identity block, so only V2 is stored). The
// warp twin of kernels::tsqrt(32, 32, ...).
//   a1     (32, 32) col-major, ld = 32, global: upper triangle R in, R̂ out;
//          the strict lower triangle (geqrt's reflectors, which ormqr tasks
//          may be reading) is neither changed nor written;
//   a2     (32, 32) col-major, ld = 32, global: A2 in, V2 out;
//   tau    (32), global: τ_j out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
// Step j: lane j publishes R(j, j) and A2(:, j); lanes c > j update R(j, c)
// and A2(:, c) (seed 000 §II.B: the upper-triangular top is used, so a
// reflector touches one row of R).
template <typename T>
__device__ void warp_tsqrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  T top[warp_tile];     // column `lane` of a1
  T bottom[warp_tile];  // column `lane` of a2
  load_tile_columns(a1, shared, lane, top);
  load_tile_columns(a2, shared, lane, bottom);
  T* x = shared;  // (35): A2(:, j), x[32] = R(j, j), x[33] = τ on the careful path
  T my_tau = 0;
#pragma unroll
  for (int j = 0; j < warp_tile; ++j) {
    if (lane == j) {
#pragma unroll
      for (int r = 0; r < warp_tile; ++r) x[r] = bottom[r];
      x[warp_tile] = top[j];
    }
    __syncwarp();
    const T alpha = x[warp_tile];
    T squares, dot;
    tail_sums(0, warp_tile, x, bottom, squares, dot);
    bool direct;
    WarpReflector<T> h = direct_reflector(alpha, squares, direct);
    if (!direct) {  // the same decision in every lane
      __syncwarp();
      if (lane == j) reference_reflector(warp_tile, &x[warp_tile], x, &x[warp_tile + 1]);
      __syncwarp();
      h.beta = x[warp_tile];
      h.tau = x[warp_tile + 1];
      h.scale = 1;
      T unused;
      tail_sums(0, warp_tile, x, bottom, unused, dot);
    }
    if (lane == j) {
      my_tau = h.tau;
      top[j] = h.beta;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r) bottom[r] = x[r] * h.scale;
    } else if (lane > j && h.tau != 0) {  // τ = 0: H_j = I
      const T w = (top[j] + h.scale * dot) * h.tau;
      const T w_scaled = w * h.scale;
      top[j] -= w;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r) bottom[r] -= w_scaled * x[r];
    }
    __syncwarp();  // x is overwritten by the next step
  }
  store_tile_columns(a1, shared, lane, top, TilePart::upper);
  store_tile_columns(a2, shared, lane, bottom, TilePart::full);
  tau[lane] = my_tau;
}

}  // namespace tiledqr::gpu
