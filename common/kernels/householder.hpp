// The Householder building blocks every tile kernel shares, written once for
// host and device (TILEDQR_HOST_DEVICE).
//
// A reflector is H = I − τ v vᵀ with v(0) = 1 implicit. The paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs" §II.B
// writes the update of A by H as a_ij += y_i z_j with y_i = −2 v_i / (vᵀv)
// and z_j = Σ_k a_kj v_k (its Algorithm 3, O(b²) per reflector, no explicit
// P). Since v(0) = 1, τ = 2 / (vᵀv), so the same update reads
// a_·j −= τ (vᵀ a_·j) v: that is apply_reflector below.
#pragma once

#include <float.h>
#include <math.h>

#include "host_device.hpp"

namespace tiledqr::kernels {

// Machine constants as LAPACK's dlamch names them: eps is the unit roundoff
// (dlamch('E') = 2⁻⁵³ for double), safe_min the smallest normal number.
template <typename T>
struct RealLimits;
template <>
struct RealLimits<double> {
  static constexpr double eps = DBL_EPSILON / 2;
  static constexpr double safe_min = DBL_MIN;
  static constexpr double huge = DBL_MAX;
};
template <>
struct RealLimits<float> {
  static constexpr float eps = FLT_EPSILON / 2;
  static constexpr float safe_min = FLT_MIN;
  static constexpr float huge = FLT_MAX;
};

// The lower tile of a stacked pair [triangle; lower tile] that the
// tsqrt/ttqrt and tsmqr/ttmqr kernels work on: a square (tsqrt, tsmqr) or an
// upper triangle (ttqrt, ttmqr, the tree merges of docs/design.md §8). Each
// sibling pair is one template with this as its parameter (LAPACK's tpqrt
// and tpmqrt with l = 0 or l = n).
enum class LowerTile { square, triangle };

// Rows of the lower tile's column j that reflector j reaches, of m: all of
// them under a square, rows 0..min(j, m − 1) under a triangle.
template <LowerTile lower>
TILEDQR_HOST_DEVICE constexpr int lower_rows(int j, int m) {
  return lower == LowerTile::square ? m : (j + 1 < m ? j + 1 : m);
}

TILEDQR_HOST_DEVICE inline double magnitude(double x) { return x < 0 ? -x : x; }
TILEDQR_HOST_DEVICE inline float magnitude(float x) { return x < 0 ? -x : x; }
TILEDQR_HOST_DEVICE inline double square_root(double x) { return sqrt(x); }
TILEDQR_HOST_DEVICE inline float square_root(float x) { return sqrtf(x); }

// ‖x‖₂ of n entries with stride incx, accumulated as LAPACK's dlassq does
// (a running scale and a scaled sum of squares), so entries near the
// overflow or underflow threshold neither overflow nor flush to zero.
template <typename T>
TILEDQR_HOST_DEVICE T scaled_norm2(int n, const T* x, int incx) {
  T scale = 0;
  T sum_of_squares = 1;
  for (int i = 0; i < n; ++i) {
    const T a = magnitude(x[i * incx]);
    if (a != 0) {
      if (scale < a) {
        const T ratio = scale / a;
        sum_of_squares = 1 + sum_of_squares * ratio * ratio;
        scale = a;
      } else {
        const T ratio = a / scale;
        sum_of_squares += ratio * ratio;
      }
    }
  }
  return scale * square_root(sum_of_squares);
}

// sqrt(a² + b²) without overflow (LAPACK's dlapy2).
template <typename T>
TILEDQR_HOST_DEVICE T hypotenuse(T a, T b) {
  const T x = magnitude(a), y = magnitude(b);
  const T w = x > y ? x : y;
  const T z = x > y ? y : x;
  if (z == 0 || w > RealLimits<T>::huge) return w;
  const T ratio = z / w;
  return w * square_root(1 + ratio * ratio);
}

template <typename T>
TILEDQR_HOST_DEVICE void scale_vector(int n, T factor, T* x, int incx) {
  for (int i = 0; i < n; ++i) x[i * incx] *= factor;
}

// Generates H with H [alpha; x] = [beta; 0] (LAPACK's dlarfg): on exit alpha
// holds beta, x holds v(1:n), and τ is returned. A zero x gives τ = 0, the
// identity, never a NaN. Tiny columns are rescaled by 1/safe_min first, as
// dlarfg does, so beta and v keep full accuracy.
template <typename T>
TILEDQR_HOST_DEVICE T make_reflector(int n, T& alpha, T* x, int incx) {
  if (n <= 0) return 0;
  T xnorm = scaled_norm2(n, x, incx);
  if (xnorm == 0) return 0;
  T beta = hypotenuse(alpha, xnorm);
  if (alpha >= 0) beta = -beta;
  const T safe_min = RealLimits<T>::safe_min / RealLimits<T>::eps;
  int rescalings = 0;
  if (magnitude(beta) < safe_min) {
    const T inverse = 1 / safe_min;
    do {
      ++rescalings;
      scale_vector(n, inverse, x, incx);
      beta *= inverse;
      alpha *= inverse;
    } while (magnitude(beta) < safe_min && rescalings < 20);
    xnorm = scaled_norm2(n, x, incx);
    beta = hypotenuse(alpha, xnorm);
    if (alpha >= 0) beta = -beta;
  }
  const T tau = (beta - alpha) / beta;
  scale_vector(n, T(1) / (alpha - beta), x, incx);
  for (int r = 0; r < rescalings; ++r) beta *= safe_min;
  alpha = beta;
  return tau;
}

// Applies H = I − τ v vᵀ, v = [1; v_rest], to the stacked block
// [top (1, n), stride ld_top; bottom (mv, n) col-major, ld_bottom]:
// w = top + v_restᵀ bottom; top −= τ w; bottom −= τ v_rest w (the same paper
// Algorithm 3, one column at a time).
template <typename T>
TILEDQR_HOST_DEVICE void apply_reflector(int mv, int n, const T* v_rest, T tau, T* top, int ld_top,
                                         T* bottom, int ld_bottom) {
  if (tau == 0) return;
  for (int c = 0; c < n; ++c) {
    T* column = bottom + c * ld_bottom;
    T w = top[c * ld_top];
    for (int r = 0; r < mv; ++r) w += v_rest[r] * column[r];
    w *= tau;
    top[c * ld_top] -= w;
    for (int r = 0; r < mv; ++r) column[r] -= w * v_rest[r];
  }
}

}  // namespace tiledqr::kernels
