// warp_geqrt: the QR of one (32, 32) tile by one warp (LAPACK geqrt).
#pragma once

#include "reflector.cuh"
#include "tile.cuh"

namespace tiledqr::gpu {

namespace geqrt_detail {

constexpr int steps_per_block = 2;  // steps unrolled together; the column moves up this much after them

// Steps 2p and 2p + 1 for every p, on the lane's column held as own[s] =
// row 2p + s (rows past 31 are zeros); after each pair of steps its two
// finished rows go to the staged tile and the column moves up two places,
// so every register index is a constant and the loop body stays small.
//   published  32 elements, shared, 16-byte aligned: the column of the step;
//   stage      the tile, (32, 33) in shared memory: finished rows out.
// The owner of step j keeps x unscaled in its registers and scales it (v =
// x·scale, the same product as the reference's) when its rows are written.
template <typename T>
__device__ __forceinline__ void geqrt_steps(T (&own)[warp_tile], T* published, T* stage, T* careful_tau, int lane,
                                            T& my_tau, T& my_scale) {
  constexpr int u = steps_per_block;
#pragma unroll 1
  for (int p = 0; p < warp_tile / u; ++p) {
#pragma unroll
    for (int i = 0; i < u; ++i) {
      const int j = u * p + i;  // the step: column j, alpha = row j = own[i] of lane j
      if (lane == j) publish_column(published, own, i);
      __syncwarp();
      T x[warp_tile], dot;
      const WarpReflector<T> h =
          published_reflector(lane, j, &published[i], published, i + 1, warp_tile - 1 - j, own, careful_tau, x, dot);
      apply_step(h, lane > j, own[i], own, x, i + 1, dot);
      if (lane == j) {
        my_tau = h.tau;
        my_scale = h.scale;
      }
      own[i] = lane == j ? h.beta : own[i];
      if (h.careful && lane == j) {  // v's tail is x itself
#pragma unroll
        for (int s = i + 1; s < warp_tile; ++s) own[s] = x[s];
      }
      __syncwarp();  // the published column is read by all
    }
    // Rows u·p … u·p + u − 1 are final: R on and above the diagonal, v below.
#pragma unroll
    for (int s = 0; s < u; ++s) {
      const int row = u * p + s;
      stage[lane * staged_ld + row] = row > lane ? own[s] * my_scale : own[s];
    }
#pragma unroll
    for (int s = 0; s < warp_tile; ++s) own[s] = s + u < warp_tile ? own[s + u] : T(0);
  }
}

}  // namespace geqrt_detail

// warp_geqrt (the paper "Task-Based Scheduling Implementing Tiled Linear
// Algebra on GPUs": DGEQT2) — one warp factors one tile, A = Q R with
// Q = H_0 ⋯ H_31, H_j = I − τ_j v_j v_jᵀ (the same paper Algorithm 3, §II.D:
// a lane per column). The warp twin of kernels::geqrt(32, 32, ...).
//   a      (32, 32) col-major, ld = 32, global: A in; R on and above the
//          diagonal and v_j(j+1..31) below it out (unit diagonal implicit);
//   tau    (32), global: τ_j out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
// Lane c holds column c in registers. Step j: lane j publishes column j
// (reflector.cuh), every lane forms the reflector's scalars, lanes c > j
// apply H_j to their column. The steps run two at a time in a loop: the
// code stays small enough for the instruction cache, which the scheduler's
// other kernels share.
template <typename T>
__device__ void warp_geqrt(T* a, T* tau, T* shared, int lane) {
  T* stage = shared;                                  // (32, 33): the tile in and out
  T* published = shared + staged_elements;            // (32): the column of the step
  T* careful_tau = shared + 2 * staged_elements;      // τ from the careful path
  T own[warp_tile];                                   // own[s] = A(s, lane)
  load_tile_columns(a, stage, lane, own);
  T my_tau = 0, my_scale = 1;
  geqrt_detail::geqrt_steps(own, published, stage, careful_tau, lane, my_tau, my_scale);
  __syncwarp();
  unstage_tile(a, stage, staged_ld, lane, TilePart::full);
  tau[lane] = my_tau;
}

}  // namespace tiledqr::gpu
