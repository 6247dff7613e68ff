// warp_tsqrt and warp_ttqrt: one warp factors a triangle stacked on a (32, 32) tile, square or triangular, one template ("Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs" §II.B).
#pragma once

#include "kernels/householder.hpp"
#include "reflector.cuh"
#include "tile.cuh"

namespace tiledqr::gpu {

namespace tsqrt_detail {

// Steps j in [first, last) on the lane's column of A2 held in registers,
// bottom[r] = A2(r, lane), of which rows 0 … N − 1 can be nonzero in these
// steps (N = 16 for the first half of a triangle's steps).
//   top        the R tile, (32, 33) in shared memory;
//   published  32 elements, shared, 16-byte aligned: the column of the step.
// The owner of step j keeps x unscaled and scales it at the end (v = x·scale,
// the reference's product).
template <int N, bool full, typename T>
__device__ __forceinline__ void stacked_steps(int first, int last, T (&bottom)[warp_tile], T* top, T* published,
                                              T* careful_tau, int lane, T& my_tau, T& my_scale) {
  T* my_top = top + lane * staged_ld;
#pragma unroll 1
  for (int j = first; j < last; ++j) {
    T own[N];
#pragma unroll
    for (int r = 0; r < N; ++r) own[r] = bottom[r];
    if (lane == j) publish_column(published, own, 0);
    __syncwarp();
    const T own_top = my_top[j];  // R(j, lane)
    T x[N], dot;
    const int rows = full ? warp_tile : j + 1;
    const WarpReflector<T> h =
        published_reflector(lane, j, top + j * staged_ld + j, published, 0, rows, own, careful_tau, x, dot);
    T head = own_top;
    apply_step(h, lane > j, head, own, x, 0, dot);
    if (lane == j) {
      my_tau = h.tau;
      my_scale = h.scale;
    }
    my_top[j] = lane == j ? h.beta : head;
    if (h.careful && lane == j) {  // v's tail is x itself
#pragma unroll
      for (int r = 0; r < N; ++r) own[r] = x[r];
    }
#pragma unroll
    for (int r = 0; r < N; ++r) bottom[r] = own[r];
    __syncwarp();  // the published column is read by all
  }
}

}  // namespace tsqrt_detail

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
// R is staged in shared memory (a reflector touches one row of it), lane c
// holds column c of A2 in registers (zeros below the diagonal of a
// triangle). Step j: lane j publishes A2(:, j) (reflector.cuh), every lane
// forms the reflector from R(j, j) and it, lanes c > j update R(j, c) and
// A2(:, c). Under a triangle the first sixteen steps touch rows 0 … 15 only.
template <kernels::LowerTile lower, typename T>
__device__ __forceinline__ void warp_stacked_qrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  constexpr bool full = lower == kernels::LowerTile::square;
  constexpr TilePart a2_part = full ? TilePart::full : TilePart::upper;
  T* top = shared;                                // (32, 33)
  T* stage = shared + staged_elements;            // (32, 33): A2 in and out; then the published column
  T* careful_tau = shared + 2 * staged_elements;  // τ from the careful path
  stage_tile(a1, top, staged_ld, lane, TilePart::full);
  stage_tile(a2, stage, staged_ld, lane, a2_part);
  __syncwarp();
  T bottom[warp_tile];  // bottom[r] = A2(r, lane)
#pragma unroll
  for (int r = 0; r < warp_tile; ++r) bottom[r] = stage[r + lane * staged_ld];
  __syncwarp();
  T my_tau = 0, my_scale = 1;
  if constexpr (full) {
    tsqrt_detail::stacked_steps<warp_tile, true>(0, warp_tile, bottom, top, stage, careful_tau, lane, my_tau,
                                                 my_scale);
  } else {
    tsqrt_detail::stacked_steps<warp_tile / 2, false>(0, warp_tile / 2, bottom, top, stage, careful_tau, lane,
                                                      my_tau, my_scale);
    tsqrt_detail::stacked_steps<warp_tile, false>(warp_tile / 2, warp_tile, bottom, top, stage, careful_tau, lane,
                                                  my_tau, my_scale);
  }
#pragma unroll
  for (int r = 0; r < warp_tile; ++r) bottom[r] *= my_scale;
  unstage_tile(a1, top, staged_ld, lane, TilePart::upper);
  store_tile_columns(a2, stage, lane, bottom, a2_part);
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
