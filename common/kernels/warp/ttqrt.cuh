// warp_ttqrt: a triangle on top of a triangle, factored by one warp (LAPACK ttqrt).
#pragma once

#include "reflector.cuh"
#include "tile.cuh"

namespace tiledqr::gpu {

// warp_ttqrt — one warp factors a triangle on top of a triangle,
// [R1; R2] = Q [R̂; 0], the merge step of the tall-skinny trees (docs/design.md §8;
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
  T* top = shared;                                // (32, 33)
  T* bottom = shared + staged_elements;           // (32, 33)
  T* careful_tau = shared + 2 * staged_elements;  // τ from the careful path
  stage_tile(a1, top, staged_ld, lane, TilePart::full);
  stage_tile(a2, bottom, staged_ld, lane, TilePart::full);
  __syncwarp();
  T* my_top = top + lane * staged_ld;
  T* my_bottom = bottom + lane * staged_ld;
  T my_tau = 0;
#pragma unroll 1
  for (int j = 0; j < warp_tile; ++j) {
    T* diagonal = top + j * staged_ld + j;  // alpha = R1(j, j)
    T* column = bottom + j * staged_ld;     // x = R2(0..j, j)
    T x[warp_tile], own[warp_tile];
    read_column(column, 0, j + 1, x);
    read_column(my_bottom, 0, warp_tile, own);
    const T alpha = *diagonal;
    const T own_top = my_top[j];
    T squares, dot;
    column_sums(x, own, squares, dot);
    bool direct;
    WarpReflector<T> h = direct_reflector(alpha, squares, direct);
    __syncwarp();  // column j is read by all before lane j rewrites it
    if (!direct) {  // the same decision in every lane
      if (lane == j) reference_reflector(j + 1, diagonal, column, careful_tau);
      __syncwarp();
      h.beta = *diagonal;
      h.tau = *careful_tau;
      h.scale = 1;
      read_column(column, 0, j + 1, x);
      T unused;
      column_sums(x, own, unused, dot);
      __syncwarp();
    }
    if (lane == j) {
      my_tau = h.tau;
      my_top[j] = h.beta;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r <= j) my_bottom[r] = x[r] * h.scale;
    } else if (lane > j && h.tau != 0) {  // τ = 0: H_j = I
      const T w = (own_top + tail_projection(x, own, dot, h.scale)) * h.tau;
      const T w_scaled = w * h.scale;
      my_top[j] = own_top - w;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r <= j) my_bottom[r] = own[r] - w_scaled * x[r];
    }
    __syncwarp();  // column j + 1 is complete
  }
  unstage_tile(a1, top, staged_ld, lane, TilePart::upper);
  unstage_tile(a2, bottom, staged_ld, lane, TilePart::upper);
  tau[lane] = my_tau;
}

}  // namespace tiledqr::gpu
