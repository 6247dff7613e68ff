// Register-resident warp tsmqr for 32 × 32 tiles: one warp applies a tsqrt
// factor's Q or Qᵀ with both tile columns of every lane held in registers
// and the reflector loop unrolled at compile time.
#pragma once

#include <cuda_runtime.h>

#include "kernels/warp/tile.cuh"

namespace tiledqr::kernels::warp_registers {

constexpr int tile = gpu::warp_tile;           // rows and columns of a tile (32)
constexpr int staged_ld = gpu::staged_ld;      // a tile passing through shared memory (no bank conflicts)
constexpr int shared_elements = tile * staged_ld + tile * tile;  // per warp: staging + V2

// The reflector loop for one direction; every index into top and bottom is a
// compile-time constant, so both columns stay in registers.
template <typename T, bool transpose>
__device__ __forceinline__ void apply_stacked(const T* v2, T my_tau, T (&top)[tile], T (&bottom)[tile]) {
#pragma unroll
  for (int s = 0; s < tile; ++s) {
    const int l = transpose ? s : tile - 1 - s;
    const T tau_l = __shfl_sync(0xffffffffu, my_tau, l);
    if (tau_l == 0) continue;  // H_l = I, as the host kernel skips it
    const T* vl = v2 + l * tile;  // the same address in every lane: a broadcast
    T vr[tile];
#pragma unroll
    for (int r = 0; r < tile; ++r) vr[r] = vl[r];
    T w = top[l];
#pragma unroll
    for (int r = 0; r < tile; ++r) w += vr[r] * bottom[r];
    w *= tau_l;
    top[l] -= w;
#pragma unroll
    for (int r = 0; r < tile; ++r) bottom[r] -= w * vr[r];
  }
}

// [A1; A2] ← Qᵀ [A1; A2] (transpose) or Q [A1; A2], Q = H_0 ⋯ H_31,
// v_l = [e_l; V2(:, l)] (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs": DSSRFB, Algorithm 3 one reflector at a
// time, in the order and with the operations of kernels::tsmqr):
//   v      (32, 32) col-major, ld = 32, global: V2 from tsqrt;
//   tau    (32), global;
//   a1, a2 (32, 32) col-major, ld = 32, global: in and out;
//   shared shared_elements of T, this warp's alone;
//   lane   threadIdx.x % 32.
// Lane c holds column c of A1 and of A2 in registers; V2 is staged in
// shared memory and read by broadcast, τ_l comes by shuffle from lane l.
template <typename T>
__device__ void tsmqr(bool transpose, const T* v, const T* tau, T* a1, T* a2, T* shared, int lane) {
  T* stage = shared;                    // (32, 33)
  T* v2 = shared + tile * staged_ld;    // (32, 32), ld = 32
  T top[tile], bottom[tile];
  gpu::load_tile_columns(a1, stage, lane, top);
  gpu::load_tile_columns(a2, stage, lane, bottom);
#pragma unroll
  for (int c = 0; c < tile; ++c) v2[lane + c * tile] = v[lane + c * tile];
  const T my_tau = tau[lane];
  __syncwarp();
  if (transpose) apply_stacked<T, true>(v2, my_tau, top, bottom);
  else apply_stacked<T, false>(v2, my_tau, top, bottom);
  gpu::store_tile_columns(a1, stage, lane, top, gpu::TilePart::full);
  gpu::store_tile_columns(a2, stage, lane, bottom, gpu::TilePart::full);
}

}  // namespace tiledqr::kernels::warp_registers
