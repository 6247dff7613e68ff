// warp_ormqr: Q or Qᵀ of a geqrt applied to one (32, 32) tile by one warp (LAPACK ormqr).
#pragma once

#include "tile.cuh"

namespace tiledqr::gpu {

// warp_ormqr (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs": DLARFB) — one warp applies a geqrt's Q to one tile:
// C ← Qᵀ C (transpose) or C ← Q C, Q = H_0 ⋯ H_31. The warp twin of
// kernels::ormqr(transpose, 32, 32, 32, ...).
//   v      (32, 32) col-major, ld = 32, global: the reflectors below the
//          diagonal as warp_geqrt leaves them (the rest is not read);
//   tau    (32), global;
//   c      (32, 32) col-major, ld = 32, global: C in, the product out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
// Lane c owns column c of C (the same paper §II.D: "the update of each column can
// be done in parallel"); for each reflector it forms w = τ v_lᵀ c and
// c ← c − w v_l over all 32 rows, with V staged as the unit lower triangle
// (zeros above the diagonal leave those rows unchanged) and read into
// registers once a reflector; τ of the next reflector is fetched a step ahead.
template <typename T>
__device__ void warp_ormqr(bool transpose, const T* v, const T* tau, T* c, T* shared, int lane) {
  T* staged_v = shared + staged_elements;  // (32, 32), ld = 32: unit lower V
  stage_tile(v, staged_v, warp_tile, lane, TilePart::unit_lower);
  T col[warp_tile];  // column `lane` of C
  load_tile_columns(c, shared, lane, col);  // its __syncwarp also publishes staged_v
  const T my_tau = tau[lane];
  T tau_next = broadcast_from_lane(my_tau, transpose ? 0 : warp_tile - 1);
#pragma unroll 1
  for (int s = 0; s < warp_tile; ++s) {
    const int l = transpose ? s : warp_tile - 1 - s;
    const T tau_l = tau_next;
    tau_next = broadcast_from_lane(my_tau, transpose ? (l + 1) % warp_tile : (l + warp_tile - 1) % warp_tile);
    if (tau_l == 0) continue;  // H_l = I (as apply_reflector skips it)
    T vl[warp_tile];  // v_l, by 16-byte broadcast loads
    read_published(staged_v + l * warp_tile, 0, vl);
    const T w = column_dot(vl, col, 0) * tau_l;
#pragma unroll
    for (int r = 0; r < warp_tile; ++r) col[r] -= w * vl[r];
  }
  store_tile_columns(c, shared, lane, col, TilePart::full);
}

}  // namespace tiledqr::gpu
