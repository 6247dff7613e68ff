// warp_ttqrt: a triangle on top of a triangle, factored by one warp (LAPACK ttqrt).
#pragma once

#include "stacked_factor.cuh"

namespace tiledqr::gpu {

// warp_ttqrt — one warp factors a triangle on top of a triangle,
// [R1; R2] = Q [R̂; 0], the merge step of the tall-skinny trees (docs/design.md §8;
// Hadri, Ltaief, Agullo, Dongarra, LAWN 222). Like warp_tsqrt, but column j
// of R2 has rows 0..j only, so v_j = [e_j; V2(0..j, j)] and V2 fills the
// upper triangle of a2. The warp twin of kernels::ttqrt(32, 32, ...).
//   a1     (32, 32) col-major, ld = 32, global: upper triangle R1 in, R̂ out;
//          the strict lower triangle is neither changed nor written;
//   a2     (32, 32) col-major, ld = 32, global: upper triangle R2 in, V2 out;
//          the strict lower triangle is neither changed nor written;
//   tau    (32), global: τ_j out;
//   shared warp_shared_elements of T, shared memory, this warp's alone;
//   lane   threadIdx.x % 32.
template <typename T>
__device__ void warp_ttqrt(T* a1, T* a2, T* tau, T* shared, int lane) {
  warp_stacked_factor(TilePart::upper, a1, a2, tau, shared, lane);
}

}  // namespace tiledqr::gpu
