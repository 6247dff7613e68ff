// The Householder reflector of one column, computed by a whole warp: the
// math of common/kernels/householder.hpp (LAPACK's dlarfg), arranged so the
// 32 lanes can work while it is formed.
//
// H = I − τ v vᵀ with v = [1; x·scale] maps [alpha; x] to [beta; 0]:
//   beta = −sign(alpha)·sqrt(alpha² + xᵀx), τ = (beta − alpha)/beta,
//   scale = 1/(alpha − beta).
// The tile sits in shared memory, lane c owning column c. Every lane reads
// the column being eliminated and forms xᵀx itself (the same operations in
// the same order, so every lane gets the same bits and branches alike)
// and, in the same loop, the dot product xᵀa with its own column a, which
// the update a ← H a = a − τ (a_j + scale·xᵀa)·[1; scale·x] needs (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs"
// Algorithm 3 with y_i = −τ v_i, z = vᵀa). No reduction between lanes.
//
// alpha² + xᵀx is formed directly when it can neither overflow nor lose
// accuracy to underflow. Otherwise (a zero x, tiny or huge entries, NaN)
// the owner lane runs the reference kernels::make_reflector on the column
// in place, with its scaled norm and rescaling, and τ = 0 for a zero x, so
// the edge cases are LAPACK's to the bit.
#pragma once

#include "kernels/householder.hpp"
#include "tile.cuh"

namespace tiledqr::gpu {

template <typename T>
struct WarpReflector {
  T beta = 0;   // the new diagonal entry
  T tau = 0;    // τ
  T scale = 1;  // v = [1; x·scale]
};

// Smallest xᵀx for which the direct formula is used: below it, squares of
// `rows` entries may have underflowed by more than ε·xᵀx in total.
template <typename T>
__device__ __forceinline__ T direct_norm_floor(int rows = warp_tile) {
  return T(2 * rows) * kernels::RealLimits<T>::safe_min / kernels::RealLimits<T>::eps;
}

// values[r] = column[r] for r in [first, last), 0 elsewhere (a shared-memory
// column read by every lane; the bounds may be run-time values).
template <typename T>
__device__ __forceinline__ void read_column(const T* column, int first, int last,
                                            T (&values)[warp_tile]) {
#pragma unroll
  for (int r = 0; r < warp_tile; ++r) {
    const T value = column[r];
    values[r] = r >= first && r < last ? value : T(0);
  }
}

// xᵀx and xᵀy, each in four interleaved partial sums (a fixed order).
template <typename T>
__device__ __forceinline__ void column_sums(const T (&x)[warp_tile], const T (&y)[warp_tile],
                                            T& squares, T& dot) {
  T sq[4] = {0, 0, 0, 0};
  T dt[4] = {0, 0, 0, 0};
#pragma unroll
  for (int r = 0; r < warp_tile; ++r) {
    sq[r & 3] += x[r] * x[r];
    dt[r & 3] += x[r] * y[r];
  }
  squares = (sq[0] + sq[1]) + (sq[2] + sq[3]);
  dot = (dt[0] + dt[1]) + (dt[2] + dt[3]);
}

// The direct formula; `ok` is false when the careful path must be taken.
// Every lane calls it with the same alpha and squares and gets the same result.
// `rows` bounds the entries summed into `squares`.
template <typename T>
__device__ __forceinline__ WarpReflector<T> direct_reflector(T alpha, T squares, bool& ok,
                                                             int rows = warp_tile) {
  WarpReflector<T> h;
  const T total = alpha * alpha + squares;
  ok = squares >= direct_norm_floor<T>(rows) && total <= kernels::RealLimits<T>::huge;
  if (!ok) return h;
  const T norm = kernels::square_root(total);
  h.beta = alpha >= 0 ? -norm : norm;  // as make_reflector: alpha = −0 counts as ≥ 0
  h.tau = (h.beta - alpha) / h.beta;
  h.scale = T(1) / (alpha - h.beta);
  return h;
}

// scale·xᵀy, the projection of the lane's column on v's tail. Formed from
// the dot product of the unscaled x when that is finite, else (entries so
// large that x·y overflows while v = x·scale does not) from v itself.
template <typename T>
__device__ __forceinline__ T tail_projection(const T (&x)[warp_tile], const T (&y)[warp_tile],
                                             T dot, T scale) {
  const T projection = scale * dot;
  if (kernels::magnitude(projection) <= kernels::RealLimits<T>::huge) return projection;
  T sum = 0;
#pragma unroll
  for (int r = 0; r < warp_tile; ++r) sum += (x[r] * scale) * y[r];
  return sum;
}

// The careful path, run by one lane on the column in shared memory:
// *alpha ← beta, x[0..n) ← v (below its unit head), *tau_out ← τ. Kept out
// of line: it is rare.
template <typename T>
__device__ __noinline__ void reference_reflector(int n, T* alpha, T* x, T* tau_out) {
  *tau_out = kernels::make_reflector(n, *alpha, x, 1);
}

// Step j of a warp's factorisation: the reflector that maps [*alpha;
// column[first..last)] to [β; 0], formed by every lane alike (the direct
// formula, or the careful path when that declines: lane `owner` runs
// reference_reflector on the column in place, and every lane reads β, τ and
// the new x back). Also leaves x (the column's entries in [first, last), 0
// elsewhere), own (the lane's own column, own_column[0..32)) and dot = xᵀ own
// for the update. Ends with the column read by all, so the owner may
// rewrite it.
//   alpha, column, own_column  shared memory;
//   careful_tau                one shared scalar, τ from the owner to the others.
template <typename T>
__device__ __forceinline__ WarpReflector<T> warp_reflector(int lane, int owner, T* alpha, T* column, int first,
                                                           int last, const T* own_column, T* careful_tau,
                                                           T (&x)[warp_tile], T (&own)[warp_tile], T& dot) {
  read_column(column, first, last, x);
  read_column(own_column, 0, warp_tile, own);
  T squares;
  column_sums(x, own, squares, dot);
  bool direct;
  WarpReflector<T> h = direct_reflector(*alpha, squares, direct);
  __syncwarp();  // the column is read by all before the owner rewrites it
  if (!direct) {  // the same decision in every lane
    if (lane == owner) reference_reflector(last - first, alpha, column + first, careful_tau);
    __syncwarp();
    h.beta = *alpha;
    h.tau = *careful_tau;
    h.scale = 1;
    read_column(column, first, last, x);
    T unused;
    column_sums(x, own, unused, dot);
    __syncwarp();
  }
  return h;
}

}  // namespace tiledqr::gpu
