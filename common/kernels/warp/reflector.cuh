// The Householder reflector of one column, computed by a whole warp: the
// math of common/kernels/householder.hpp (LAPACK's dlarfg), arranged so the
// 32 lanes can work while it is formed.
//
// H = I − τ v vᵀ with v = [1; x·scale] maps [alpha; x] to [beta; 0]:
//   beta = −sign(alpha)·sqrt(alpha² + xᵀx), τ = (beta − alpha)/beta,
//   scale = 1/(alpha − beta).
// Lane c keeps column c of the tile in registers. At step j the owner lane
// j publishes its column in a shared-memory buffer (16-byte stores); every
// lane reads it back (broadcast loads) and forms xᵀx itself (the same
// operations in the same order, so every lane gets the same bits and
// branches alike) and, while the reflector's scalars are formed, the dot
// product xᵀa with its own column a, which the update
// a ← H a = a − τ (a_j + scale·xᵀa)·[1; scale·x]
// needs (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra
// on GPUs" Algorithm 3 with y_i = −τ v_i, z = vᵀa). No reduction between
// lanes. Register arrays are indexed only by constants once the callers'
// loops are unrolled, so they stay in registers.
//
// alpha² + xᵀx is formed directly when it can neither overflow nor lose
// accuracy to underflow. Otherwise (a zero x, tiny or huge entries, NaN)
// the owner lane runs the reference kernels::make_reflector on the
// published column in place, with its scaled norm and rescaling, and τ = 0
// for a zero x, so the edge cases are LAPACK's to the bit.
#pragma once

#include "kernels/householder.hpp"
#include "tile.cuh"

namespace tiledqr::gpu {

template <typename T>
struct WarpReflector {
  T beta = 0;   // the new diagonal entry
  T tau = 0;    // τ
  T scale = 1;  // v = [1; x·scale]
  bool careful = false;  // formed by the careful path (then scale = 1)
};

// Smallest xᵀx for which the direct formula is used: below it, squares of
// `rows` entries may have underflowed by more than ε·xᵀx in total.
template <typename T>
__device__ __forceinline__ T direct_norm_floor(int rows = warp_tile) {
  return T(2 * rows) * kernels::RealLimits<T>::safe_min / kernels::RealLimits<T>::eps;
}

// The direct formula with the library's division and square root (the
// block kernels' panel); `ok` is false when the careful path must be taken.
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

// 1/x and √x for normal x far from overflow and underflow (the direct
// formula's arguments): the hardware's approximations refined by Newton
// steps in double, within a few units in the last place of the rounded
// results. Unlike the library's division and square root they have no
// branch for special operands, so the compiler can overlap them with the
// independent work around them.
__device__ __forceinline__ double newton_reciprocal(double x) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  double e = fma(-x, y, 1.0);
  y = fma(y, fma(e, e, e), y);  // the error cubed
  e = fma(-x, y, 1.0);
  return fma(y, e, y);
}

__device__ __forceinline__ double newton_square_root(double x) {
  double r;
  asm("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(x));
  double s = x * r;   // → √x
  double h = 0.5 * r;  // → 1/(2√x)
#pragma unroll
  for (int step = 0; step < 2; ++step) {
    const double e = fma(-s, h, 0.5);
    s = fma(s, e, s);
    h = fma(h, e, h);
  }
  return fma(fma(-s, s, x), h, s);
}

// The direct formula for a warp's step, as direct_reflector but with the
// scalars from newton_square_root and newton_reciprocal (in double, float
// results rounded once): the same decision `ok`, results that differ from
// the reference's by rounding only.
template <typename T>
__device__ __forceinline__ WarpReflector<T> fast_direct_reflector(T alpha, T squares, bool& ok,
                                                                  int rows = warp_tile) {
  const T total = alpha * alpha + squares;
  ok = squares >= direct_norm_floor<T>(rows) && total <= kernels::RealLimits<T>::huge;
  const double a = alpha;
  const double norm = newton_square_root(double(total));
  const double beta = a >= 0 ? -norm : norm;  // as make_reflector: alpha = −0 counts as ≥ 0
  WarpReflector<T> h;
  h.beta = T(beta);
  const double to_beta = newton_reciprocal(beta);
  const double quotient = (beta - a) * to_beta;  // τ, then its residual's correction
  h.tau = T(fma(fma(-beta, quotient, beta - a), to_beta, quotient));
  h.scale = T(newton_reciprocal(a - beta));
  return h;
}

// scale·xᵀy over s in [first, N), the projection of the lane's column on
// v's tail. Formed from the dot product of the unscaled x when that is
// finite, else (entries so large that x·y overflows while v = x·scale does
// not) from v itself.
template <typename T, int N>
__device__ __forceinline__ T tail_projection(const T (&x)[N], const T (&y)[N], int first, T dot, T scale) {
  const T projection = scale * dot;
  if (kernels::magnitude(projection) <= kernels::RealLimits<T>::huge) return projection;
  T sum = 0;
#pragma unroll
  for (int s = 0; s < N; ++s)
    if (s >= first) sum += (x[s] * scale) * y[s];
  return sum;
}

// Applies a step's reflector H to the lane's column, a = [head; own] (own's
// entries in [first, N) count): a ← H a = a − w·[1; scale·x] with
// w = τ (head + scale·xᵀown), on the lanes that `update`; the others keep
// theirs. After the direct formula x is finite, so those lanes run the same
// instructions with w = 0 (own − 0·x = own; no select a row); after the
// careful path x may hold non-finite input, so there it takes a branch, and
// τ = 0 (H = I) changes nothing, as apply_reflector skips it.
template <typename T, int N>
__device__ __forceinline__ void apply_step_body(const WarpReflector<T>& h, T w, T& head, T (&own)[N],
                                                const T (&x)[N], int first) {
  const T w_scaled = w * h.scale;
  head -= w;
#pragma unroll
  for (int s = 0; s < N; ++s)
    if (s >= first) own[s] -= w_scaled * x[s];
}

template <typename T, int N>
__device__ __forceinline__ void apply_step(const WarpReflector<T>& h, bool update, T& head, T (&own)[N],
                                           const T (&x)[N], int first, T dot) {
  const T w = (head + tail_projection(x, own, first, dot, h.scale)) * h.tau;
  if (!h.careful) apply_step_body(h, update ? w : T(0), head, own, x, first);
  else if (update && h.tau != 0) apply_step_body(h, w, head, own, x, first);
}

// The careful path, run by one lane on the column in shared memory:
// *alpha ← beta, x[0..n) ← v (below its unit head), *tau_out ← τ. Kept out
// of line: it is rare.
template <typename T>
__device__ __noinline__ void reference_reflector(int n, T* alpha, T* x, T* tau_out) {
  *tau_out = kernels::make_reflector(n, *alpha, x, 1);
}

// One step's reflector, formed by every lane alike from the published
// column: alpha = column[head], x = column[first..N) (first = head + 1 under
// a square tile's diagonal; 0 under a triangle on top, whose alpha lives
// elsewhere), `rows` of them real (the rest are zeros past the tile's end).
// Leaves x (zeros outside [first, N)) and dot = xᵀ own over [first, N).
// The direct formula, or the careful path when that declines: lane `owner`
// runs reference_reflector on the published column in place and every
// lane reads β, τ and the new x back (scale 1: x is then v's tail itself).
//   alpha       shared memory (in the published column or the top tile);
//   column      the published column, shared memory;
//   careful_tau one shared scalar, τ from the owner to the others.
template <typename T, int N>
__device__ __forceinline__ WarpReflector<T> published_reflector(int lane, int owner, T* alpha, T* column, int first,
                                                                int rows, const T (&own)[N], T* careful_tau,
                                                                T (&x)[N], T& dot) {
  read_published(column, first, x);
  const T squares = column_dot(x, x, first);
  bool direct;
  WarpReflector<T> h = fast_direct_reflector(*alpha, squares, direct);
  dot = column_dot(x, own, first);  // independent of the scalars: overlaps them
  if (!direct) {  // the same decision in every lane
    __syncwarp();  // the column is read by all before the owner rewrites it
    if (lane == owner) reference_reflector(rows, alpha, column + first, careful_tau);
    __syncwarp();
    h.beta = *alpha;
    h.tau = *careful_tau;
    h.scale = 1;
    h.careful = true;
    read_published(column, first, x);
    dot = column_dot(x, own, first);
    __syncwarp();
  }
  return h;
}

}  // namespace tiledqr::gpu
