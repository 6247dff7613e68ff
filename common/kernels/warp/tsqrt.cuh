// warp_tsqrt and warp_ttqrt: one warp factors a triangle stacked on a (32, 32) tile, square or triangular, one template ("Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs" §II.B).
#pragma once

#include "kernels/householder.hpp"
#include "reflector.cuh"
#include "tile.cuh"

namespace tiledqr::gpu {

// [R; A2] = Q [R̂; 0], Q = H_0 ⋯ H_31, v_j = [e_j; V2(0..rows_j − 1, j)],
// rows_j = kernels::lower_rows<lower>(j, 32): 32 under a square, j + 1
// under a triangle (then V2 fills the upper triangle of a2 and its strict
// lower triangle is left alone). The warp twin of kernels::stacked_qrt.
//   a1     (32, 32) col-major, ld = 32, global: upper triangle R in, R̂ out;
//          its strict lower triangle (geqrt's reflectors, which ormqr tasks
//          may be reading) is neither changed nor written;
//   a2     (32, 32) col-major, ld = 32, global: A2 in, V2 out;
//   tau    (32), global: τ_j out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
// Both tiles are staged in shared memory, lane c owning column c. Step j:
// every lane reads R(j, j) and A2(:, j); lanes c > j update R(j, c) and
// A2(:, c) (the upper-triangular top is used, so a reflector touches one
// row of R).
template <kernels::LowerTile lower, typename T>
__device__ __forceinline__ void warp_stacked_qrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  constexpr bool full = lower == kernels::LowerTile::square;
  constexpr TilePart a2_part = full ? TilePart::full : TilePart::upper;
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
    T* diagonal = top + j * staged_ld + j;  // alpha = R(j, j)
    T* column = bottom + j * staged_ld;     // x = A2(:, j), rows 0..j when A2 is a triangle
    const int rows = full ? warp_tile : j + 1;
    const T own_top = my_top[j];
    T x[warp_tile], own[warp_tile], dot;
    const WarpReflector<T> h = warp_reflector(lane, j, diagonal, column, 0, rows, my_bottom, careful_tau, x, own, dot);
    if (lane == j) {
      my_tau = h.tau;
      my_top[j] = h.beta;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (full || r <= j) my_bottom[r] = x[r] * h.scale;
    } else if (lane > j && h.tau != 0) {  // τ = 0: H_j = I
      const T w = (own_top + tail_projection(x, own, dot, h.scale)) * h.tau;
      const T w_scaled = w * h.scale;
      my_top[j] = own_top - w;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (full || r <= j) my_bottom[r] = own[r] - w_scaled * x[r];
    }
    __syncwarp();  // column j + 1 is complete
  }
  unstage_tile(a1, top, staged_ld, lane, TilePart::upper);
  unstage_tile(a2, bottom, staged_ld, lane, a2_part);
  tau[lane] = my_tau;
}

// warp_tsqrt (the same paper's DTSQT2): a triangle on a square tile; the
// warp twin of kernels::tsqrt(32, 32, ...).
template <typename T>
__device__ void warp_tsqrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  warp_stacked_qrt<kernels::LowerTile::square>(a1, a2, tau, shared, lane);
}

// warp_ttqrt: a triangle on a triangle, the merge step of the tall-skinny
// trees (docs/design.md §8); the warp twin of kernels::ttqrt(32, 32, ...).
template <typename T>
__device__ void warp_ttqrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  warp_stacked_qrt<kernels::LowerTile::triangle>(a1, a2, tau, shared, lane);
}

}  // namespace tiledqr::gpu
