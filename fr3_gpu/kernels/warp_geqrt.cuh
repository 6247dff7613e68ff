#pragma once

#include "warp_reflector.cuh"
#include "warp_tile.cuh"

namespace tiledqr::gpu {

// warp_geqrt (seed 000: DGEQT2) — one warp factors one tile, A = Q R with
// Q = H_0 ⋯ H_31, H_j = I − τ_j v_j v_jᵀ (seed 000 Algorithm 3, §II.D: a
// lane per column). The warp twin of kernels::geqrt(32, 32, ...).
//   a      (32, 32) col-major, ld = 32, global: A in; R on and above the
//          diagonal and v_j(j+1..31) below it out (unit diagonal implicit);
//   tau    (32), global: τ_j out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
// Step j: lane j publishes column j, every lane forms the reflector's
// scalars (warp_reflector.cuh), lane j keeps beta and v_j, lanes c > j apply
// H_j to their column. All 32 steps are unrolled, so columns stay in registers.
template <typename T>
__device__ void warp_geqrt(T* a, T* tau, T* shared, int lane) {
  T col[warp_tile];  // column `lane` of the tile
  load_tile_columns(a, shared, lane, col);
  T* x = shared;  // (34): column j, x[32] = τ on the careful path
  T my_tau = 0;
#pragma unroll
  for (int j = 0; j < warp_tile; ++j) {
    if (lane == j) {
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r >= j) x[r] = col[r];
    }
    __syncwarp();
    const T alpha = x[j];
    T squares, dot;
    tail_sums(j + 1, warp_tile, x, col, squares, dot);
    bool direct;
    WarpReflector<T> h = direct_reflector(alpha, squares, direct);
    if (!direct) {  // the same decision in every lane
      __syncwarp();
      if (lane == j) reference_reflector(warp_tile - 1 - j, &x[j], &x[j + 1], &x[warp_tile]);
      __syncwarp();
      h.beta = x[j];
      h.tau = x[warp_tile];
      h.scale = 1;
      T unused;
      tail_sums(j + 1, warp_tile, x, col, unused, dot);
    }
    if (lane == j) {
      my_tau = h.tau;
      col[j] = h.beta;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r > j) col[r] = x[r] * h.scale;
    } else if (lane > j && h.tau != 0) {  // τ = 0: H_j = I, as apply_reflector skips it
      const T w = (col[j] + h.scale * dot) * h.tau;
      const T w_scaled = w * h.scale;
      col[j] -= w;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r > j) col[r] -= w_scaled * x[r];
    }
    __syncwarp();  // x is overwritten by the next step
  }
  store_tile_columns(a, shared, lane, col, TilePart::full);
  tau[lane] = my_tau;
}

}  // namespace tiledqr::gpu
