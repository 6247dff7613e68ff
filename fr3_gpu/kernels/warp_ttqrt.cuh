#pragma once

#include "warp_reflector.cuh"
#include "warp_tile.cuh"

namespace tiledqr::gpu {

// warp_ttqrt — one warp factors a triangle on top of a triangle,
// [R1; R2] = Q [R̂; 0], the merge step of the tall-skinny trees (DESIGN §5;
// Hadri, Ltaief, Agullo, Dongarra, LAWN 222). Like warp_tsqrt, but column j
// of R2 has rows 0..j only, so v_j = [e_j; V2(0..j, j)] and V2 fills the
// upper triangle of a2. The warp twin of kernels::ttqrt(32, 32, ...).
//   a1     (32, 32) col-major, ld = 32, global: upper triangle R1 in, R̂ out;
//          the strict lower triangle is neither changed nor written;
//   a2     (32, 32) col-major, ld = 32, global: upper triangle R2 in, V2 out;
//          the strict lower triangle is neither changed nor written;
//   tau    (32), global: τ_j out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
template <typename T>
__device__ void warp_ttqrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  T top[warp_tile];     // column `lane` of a1
  T bottom[warp_tile];  // column `lane` of a2; rows > lane are not used
  load_tile_columns(a1, shared, lane, top);
  load_tile_columns(a2, shared, lane, bottom);
  T* x = shared;  // (35): R2(0..j, j), x[32] = R1(j, j), x[33] = τ on the careful path
  T my_tau = 0;
#pragma unroll
  for (int j = 0; j < warp_tile; ++j) {
    if (lane == j) {
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r <= j) x[r] = bottom[r];
      x[warp_tile] = top[j];
    }
    __syncwarp();
    const T alpha = x[warp_tile];
    T squares, dot;
    tail_sums(0, j + 1, x, bottom, squares, dot);
    bool direct;
    WarpReflector<T> h = direct_reflector(alpha, squares, direct);
    if (!direct) {  // the same decision in every lane
      __syncwarp();
      if (lane == j) reference_reflector(j + 1, &x[warp_tile], x, &x[warp_tile + 1]);
      __syncwarp();
      h.beta = x[warp_tile];
      h.tau = x[warp_tile + 1];
      h.scale = 1;
      T unused;
      tail_sums(0, j + 1, x, bottom, unused, dot);
    }
    if (lane == j) {
      my_tau = h.tau;
      top[j] = h.beta;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r <= j) bottom[r] = x[r] * h.scale;
    } else if (lane > j && h.tau != 0) {  // τ = 0: H_j = I
      const T w = (top[j] + h.scale * dot) * h.tau;
      const T w_scaled = w * h.scale;
      top[j] -= w;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r <= j) bottom[r] -= w_scaled * x[r];
    }
    __syncwarp();  // x is overwritten by the next step
  }
  store_tile_columns(a1, shared, lane, top, TilePart::upper);
  store_tile_columns(a2, shared, lane, bottom, TilePart::upper);
  tau[lane] = my_tau;
}

}  // namespace tiledqr::gpu
