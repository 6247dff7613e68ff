// warp_tsmqr and warp_ttmqr: one warp applies the Q of a warp_tsqrt or warp_ttqrt to a stacked pair of (32, 32) tiles, one template ("Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs" §II.B, DSSRFB).
#pragma once

#include "kernels/householder.hpp"
#include "tile.cuh"

namespace tiledqr::gpu {

// [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], Q = H_0 ⋯ H_31,
// v_l = [e_l; V2(:, l)] (the top part of each v is e_l, so only V2 is
// read): V2 is the whole of `v` under a square, its upper triangle under a
// triangle (the other entries count as zero). The warp twin of
// kernels::stacked_mqr.
//   v      (32, 32) col-major, ld = 32, global: V2 from warp_stacked_qrt;
//   tau    (32), global: its τ;
//   a1     (32, 32) col-major, ld = 32, global: the row block the triangle
//          came from (A_kj), in and out;
//   a2     (32, 32) col-major, ld = 32, global: A_ij, in and out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
// Lane c owns column c: w = τ_l (A1(l, c) + V2(:, l)ᵀ A2(:, c));
// A1(l, c) −= w; A2(:, c) −= w V2(:, l). A1 stays in shared memory (its
// row l changes with l), A2 in registers, V2(:, l) read into registers once
// a reflector; τ of the next reflector is fetched a step ahead.
template <kernels::LowerTile lower, typename T>
__device__ __forceinline__ void warp_stacked_mqr(bool transpose, const T* v, const T* tau, T* a1, T* a2, T* shared,
                                                 int lane) {
  constexpr TilePart v_part = lower == kernels::LowerTile::square ? TilePart::full : TilePart::upper;
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
  T tau_next = broadcast_from_lane(my_tau, transpose ? 0 : warp_tile - 1);
#pragma unroll 1
  for (int s = 0; s < warp_tile; ++s) {
    const int l = transpose ? s : warp_tile - 1 - s;
    const T tau_l = tau_next;
    tau_next = broadcast_from_lane(my_tau, transpose ? (l + 1) % warp_tile : (l + warp_tile - 1) % warp_tile);
    if (tau_l == 0) continue;  // H_l = I (as apply_reflector skips it)
    T vl[warp_tile];  // V2(:, l), by 16-byte broadcast loads
    read_published(staged_v + l * warp_tile, 0, vl);
    const T w = (my_a1[l] + column_dot(vl, bottom, 0)) * tau_l;
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

// warp_tsmqr (the same paper's DSSRFB): the Q of a warp_tsqrt; the warp twin
// of kernels::tsmqr(transpose, 32, 32, 32, ...).
template <typename T>
__device__ void warp_tsmqr(bool transpose, const T* v, const T* tau, T* a1, T* a2, T* shared, int lane) {
  warp_stacked_mqr<kernels::LowerTile::square>(transpose, v, tau, a1, a2, shared, lane);
}

// warp_ttmqr: the Q of a warp_ttqrt (docs/design.md §8); the warp twin of
// kernels::ttmqr(transpose, 32, 32, 32, ...).
template <typename T>
__device__ void warp_ttmqr(bool transpose, const T* v, const T* tau, T* a1, T* a2, T* shared, int lane) {
  warp_stacked_mqr<kernels::LowerTile::triangle>(transpose, v, tau, a1, a2, shared, lane);
}

}  // namespace tiledqr::gpu
