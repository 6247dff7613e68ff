// warp_geqrt: the QR of one (32, 32) tile by one warp (LAPACK geqrt).
#pragma once

#include "reflector.cuh"
#include "tile.cuh"

namespace tiledqr::gpu {

// warp_geqrt (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs": DGEQT2) — one warp factors one tile, A = Q R with
// Q = H_0 ⋯ H_31, H_j = I − τ_j v_j v_jᵀ (the same paper Algorithm 3, §II.D: a
// lane per column). The warp twin of kernels::geqrt(32, 32, ...).
//   a      (32, 32) col-major, ld = 32, global: A in; R on and above the
//          diagonal and v_j(j+1..31) below it out (unit diagonal implicit);
//   tau    (32), global: τ_j out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
// The tile is staged in shared memory, lane c owning column c. Step j:
// every lane reads column j and forms the reflector's scalars
// (warp_reflector.cuh); lane j writes beta and v_j, lanes c > j apply H_j
// to their column. The steps are a loop, not unrolled: the code stays small
// enough for the instruction cache.
template <typename T>
__device__ void warp_geqrt(T* a, T* tau, T* shared, int lane) {
  T* tile = shared;                                  // (32, 33)
  T* careful_tau = shared + 2 * staged_elements;     // τ from the careful path
  stage_tile(a, tile, staged_ld, lane, TilePart::full);
  __syncwarp();
  T* mine = tile + lane * staged_ld;  // column `lane`
  T my_tau = 0;
#pragma unroll 1
  for (int j = 0; j < warp_tile; ++j) {
    T* column = tile + j * staged_ld;  // alpha = column[j], x = column[j+1..31]
    const T own_j = mine[j];
    T x[warp_tile], own[warp_tile], dot;
    const WarpReflector<T> h = warp_reflector(lane, j, &column[j], column, j + 1, warp_tile, mine, careful_tau, x,
                                              own, dot);
    if (lane == j) {
      my_tau = h.tau;
      mine[j] = h.beta;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r > j) mine[r] = x[r] * h.scale;
    } else if (lane > j && h.tau != 0) {  // τ = 0: H_j = I, as apply_reflector skips it
      const T w = (own_j + tail_projection(x, own, dot, h.scale)) * h.tau;
      const T w_scaled = w * h.scale;
      mine[j] = own_j - w;
#pragma unroll
      for (int r = 0; r < warp_tile; ++r)
        if (r > j) mine[r] = own[r] - w_scaled * x[r];
    }
    __syncwarp();  // column j + 1 is complete
  }
  unstage_tile(a, tile, staged_ld, lane, TilePart::full);
  tau[lane] = my_tau;
}

}  // namespace tiledqr::gpu
