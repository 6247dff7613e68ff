// warp_ttmqr: Q or Qᵀ of a ttqrt applied to a stacked pair of tiles by one warp (LAPACK ttmqr).
#pragma once

#include "stacked_apply.cuh"

namespace tiledqr::gpu {

// warp_ttmqr — one warp applies a ttqrt's Q to a pair of tiles:
// [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], Q = H_0 ⋯ H_31,
// v_l = [e_l; V2(0..l, l)] (docs/design.md §8). The warp twin of
// kernels::ttmqr(transpose, 32, 32, 32, ...).
//   v      (32, 32) col-major, ld = 32, global: V2 in its upper triangle, as
//          warp_ttqrt leaves it (the strict lower triangle is not read);
//   tau    (32), global: its τ;
//   a1     (32, 32) col-major, ld = 32, global: the pivot row's tile, in and out;
//   a2     (32, 32) col-major, ld = 32, global: the merged row's tile, in and out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
template <typename T>
__device__ void warp_ttmqr(bool transpose, const T* v, const T* tau, T* a1, T* a2, T* shared,
                           int lane) {
  warp_stacked_apply(transpose, v, TilePart::upper, tau, a1, a2, shared, lane);
}

}  // namespace tiledqr::gpu
