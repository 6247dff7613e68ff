// The loop warp_tsmqr and warp_ttmqr share: apply the reflectors of a
// triangle-on-top factorisation to a stacked pair of tiles (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs"
// §II.B, DSSRFB: the top part of each v is e_l, so only V2 is read).
#pragma once

#include "tile.cuh"

namespace tiledqr::gpu {

// [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], Q = H_0 ⋯ H_31,
// v_l = [e_l; V2(:, l)] with V2 = the entries of `v` inside `v_part` (full
// for tsqrt, upper for ttqrt; the others count as zero).
//   v      (32, 32) col-major, ld = 32, global;
//   tau    (32), global;
//   a1, a2 (32, 32) col-major, ld = 32, global: in and out;
//   shared warp_shared_elements of T, shared memory, this warp's alone.
// Lane c owns column c: w = τ_l (A1(l, c) + V2(:, l)ᵀ A2(:, c));
// A1(l, c) −= w; A2(:, c) −= w V2(:, l). A1 stays in shared memory (its
// row l changes with l), A2 in registers.
template <typename T>
__device__ __forceinline__ void warp_stacked_apply(bool transpose, const T* v, TilePart v_part,
                                                   const T* tau, T* a1, T* a2, T* shared,
                                                   int lane) {
  T* staged_a1 = shared;                   // (32, 33)
  T* staged_v = shared + staged_elements;  // (32, 32), ld = 32
  T bottom[warp_tile];                     // column `lane` of a2
  load_tile_columns(a2, staged_a1, lane, bottom);
#pragma unroll
  for (int c = 0; c < warp_tile; ++c) staged_a1[lane + c * staged_ld] = a1[lane + c * warp_tile];
  stage_tile(v, staged_v, warp_tile, lane, v_part);
  const T my_tau = tau[lane];
  __syncwarp();
  T* my_a1 = staged_a1 + lane * staged_ld;  // column `lane` of A1, this lane's alone
#pragma unroll 1
  for (int s = 0; s < warp_tile; ++s) {
    const int l = transpose ? s : warp_tile - 1 - s;
    const T tau_l = broadcast_from_lane(my_tau, l);
    if (tau_l == 0) continue;  // H_l = I (as apply_reflector skips it)
    const T* vl = staged_v + l * warp_tile;
    const T w = (my_a1[l] + column_dot(0, warp_tile, vl, bottom)) * tau_l;
    my_a1[l] -= w;
#pragma unroll
    for (int r = 0; r < warp_tile; ++r) bottom[r] -= w * vl[r];
  }
  __syncwarp();
#pragma unroll
  for (int c = 0; c < warp_tile; ++c) a1[lane + c * warp_tile] = staged_a1[lane + c * staged_ld];
  __syncwarp();
  store_tile_columns(a2, staged_a1, lane, bottom, TilePart::full);
}

}  // namespace tiledqr::gpu
