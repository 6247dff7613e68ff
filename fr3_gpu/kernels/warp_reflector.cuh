// The Householder reflector of one column, computed by a whole warp: the
// math of common/kernels/householder.hpp (LAPACK's dlarfg), arranged so the
// 32 lanes can work while it is formed.
//
// H = I − τ v vᵀ with v = [1; x·scale] maps [alpha; x] to [beta; 0]:
//   beta = −sign(alpha)·sqrt(alpha² + xᵀx), τ = (beta − alpha)/beta,
//   scale = 1/(alpha − beta).
// The column owner publishes [alpha; x] in shared memory; every lane then
// forms xᵀx itself (the same operations in the same order, so every lane
// gets the same bits and branches alike) and, in the same loop, the dot
// product xᵀa of x with its own column a, which the update
// a ← H a = a − τ (a_j + scale·xᵀa)·[1; scale·x] needs (seed 000 Algorithm 3
// with y_i = −τ v_i, z = vᵀa). No reduction between lanes is needed.
//
// alpha² + xᵀx is formed directly when it can neither overflow nor lose
// accuracy to underflow. Otherwise (a zero x, tiny or huge entries, NaN)
// the owner lane runs the reference kernels::make_reflector on the published
// column, with its scaled norm and rescaling, and τ = 0 for a zero x, so the
// edge cases are LAPACK's to the bit.
#pragma once

#include "kernels/householder.hpp"
#include "warp_tile.cuh"

namespace tiledqr::gpu {

template <typename T>
struct WarpReflector {
  T beta = 0;   // the new diagonal entry
  T tau = 0;    // τ
  T scale = 1;  // v = [1; x·scale]
};

// Smallest xᵀx for which the direct formula is used: below it, squares of
// entries may have underflowed by more than ε·xᵀx in total (32 entries).
template <typename T>
__device__ __forceinline__ T direct_norm_floor() {
  return T(64) * kernels::RealLimits<T>::safe_min / kernels::RealLimits<T>::eps;
}

// x[r]² and x[r]·y[r] summed over r in [first, last) (each in four
// interleaved partial sums, fixed order). x is the published column in
// shared memory, y the lane's own column.
template <typename T>
__device__ __forceinline__ void tail_sums(int first, int last, const T* x, const T (&y)[warp_tile],
                                          T& squares, T& dot) {
  T sq[4] = {0, 0, 0, 0};
  T dt[4] = {0, 0, 0, 0};
#pragma unroll
  for (int r = 0; r < warp_tile; ++r) {
    if (r >= first && r < last) {
      const T xr = x[r];
      sq[(r - first) & 3] += xr * xr;
      dt[(r - first) & 3] += xr * y[r];
    }
  }
  squares = (sq[0] + sq[1]) + (sq[2] + sq[3]);
  dot = (dt[0] + dt[1]) + (dt[2] + dt[3]);
}

// The direct formula; `ok` is false when the careful path must be taken.
// Every lane calls it with the same alpha and squares and gets the same result.
template <typename T>
__device__ __forceinline__ WarpReflector<T> direct_reflector(T alpha, T squares, bool& ok) {
  WarpReflector<T> h;
  const T total = alpha * alpha + squares;
  ok = squares >= direct_norm_floor<T>() && total <= kernels::RealLimits<T>::huge;
  if (!ok) return h;
  const T norm = kernels::square_root(total);
  h.beta = alpha >= 0 ? -norm : norm;  // as make_reflector: alpha = −0 counts as ≥ 0
  h.tau = (h.beta - alpha) / h.beta;
  h.scale = T(1) / (alpha - h.beta);
  return h;
}

// The careful path, run by one lane on the published column: *alpha ← beta,
// x[0..n) ← v (below its unit head), *tau_out ← τ. Kept out of line: it is
// rare, and the unrolled callers would otherwise copy it per column.
template <typename T>
__device__ __noinline__ void reference_reflector(int n, T* alpha, T* x, T* tau_out) {
  *tau_out = kernels::make_reflector(n, *alpha, x, 1);
}

}  // namespace tiledqr::gpu
