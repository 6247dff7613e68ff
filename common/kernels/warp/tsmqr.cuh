// warp_tsmqr: Q or Qᵀ of a tsqrt applied to a stacked pair of tiles by one warp (LAPACK tsmqr).
#pragma once

#include "stacked_apply.cuh"

namespace tiledqr::gpu {

// warp_tsmqr (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs": DSSRFB) — one warp applies a tsqrt's Q to a pair of
// tiles: [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], Q = H_0 ⋯ H_31,
// v_l = [e_l; V2(:, l)]. The warp twin of kernels::tsmqr(transpose, 32, 32,
// 32, ...).
//   v      (32, 32) col-major, ld = 32, global: V2 from warp_tsqrt;
//   tau    (32), global: its τ;
//   a1     (32, 32) col-major, ld = 32, global: the row block the triangle
//          came from (A_kj), in and out;
//   a2     (32, 32) col-major, ld = 32, global: A_ij, in and out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
template <typename T>
__device__ void warp_tsmqr(bool transpose, const T* v, const T* tau, T* a1, T* a2, T* shared,
                           int lane) {
  warp_stacked_apply(transpose, v, TilePart::full, tau, a1, a2, shared, lane);
}

}  // namespace tiledqr::gpu
