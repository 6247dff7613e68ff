// warp_tsqrt: a triangle on top of a full tile, factored by one warp (LAPACK tsqrt).
#pragma once

#include "stacked_factor.cuh"

namespace tiledqr::gpu {

// warp_tsqrt (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs": DTSQT2) — one warp factors a triangle on top of a
// square tile, [R; A2] = Q [R̂; 0], Q = H_0 ⋯ H_31 with v_j = [e_j; V2(:, j)]
// (the top part is the implicit identity block, so only V2 is stored). The
// warp twin of kernels::tsqrt(32, 32, ...).
//   a1     (32, 32) col-major, ld = 32, global: upper triangle R in, R̂ out;
//          the strict lower triangle (geqrt's reflectors, which ormqr tasks
//          may be reading) is neither changed nor written;
//   a2     (32, 32) col-major, ld = 32, global: A2 in, V2 out;
//   tau    (32), global: τ_j out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
template <typename T>
__device__ void warp_tsqrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  warp_stacked_factor(TilePart::full, a1, a2, tau, shared, lane);
}

}  // namespace tiledqr::gpu
