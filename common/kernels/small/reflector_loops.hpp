// The loops the small-matrix kernels share (small_kernels.hpp): dot
// products and updates in eight lanes of fused multiply-adds, and the
// making and applying of one reflector. Inlined into each kernel, so that
// each of its compiled variants (AVX-512, AVX2, x86-64) vectorises them;
// vector_isa() says which variant this processor runs.
#pragma once

#include <lapacke.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace tiledqr::small_kernels::detail {

constexpr int kLanes = 8;

// The instruction sets the kernels are compiled for: x86-64-v4 (AVX-512),
// x86-64-v3 (AVX2 and FMA), and plain x86-64 (whose std::fma is libm's,
// exact but slow). Chosen once, at the first call, by asking the processor
// (an explicit choice rather than GCC's target_clones: the resolver of an
// indirect function runs before the sanitizers' runtime is ready, and
// ThreadSanitizer builds crashed at start-up).
enum class VectorIsa { x86_64_v4, x86_64_v3, x86_64 };

inline VectorIsa vector_isa() {
  static const VectorIsa isa = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) return VectorIsa::x86_64_v4;
    if (__builtin_cpu_supports("x86-64-v3")) return VectorIsa::x86_64_v3;
    return VectorIsa::x86_64;
  }();
  return isa;
}

// Lane l holds the sum over the entries i ≡ l (mod 8), in order; the lanes
// are added pairwise. The same bits whatever the vector width.
template <typename T>
[[gnu::always_inline]] inline T add_lanes(const T* lane) {
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// xᵀ y over n entries.
template <typename T>
[[gnu::always_inline]] inline T dot(int n, const T* x, const T* y) {
  T lane[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) lane[l] = std::fma(x[i + l], y[i + l], lane[l]);
  for (int l = 0; i + l < n; ++l) lane[l] = std::fma(x[i + l], y[i + l], lane[l]);
  return add_lanes(lane);
}

// out[c] = xᵀ y_c for the four columns y_c = y + c·ldy: x is read once.
template <typename T>
[[gnu::always_inline]] inline void dot4(int n, const T* x, const T* y, int ldy, T* out) {
  const T* y0 = y;
  const T* y1 = y + ldy;
  const T* y2 = y + 2 * ldy;
  const T* y3 = y + 3 * ldy;
  T s0[kLanes] = {}, s1[kLanes] = {}, s2[kLanes] = {}, s3[kLanes] = {};
  const auto step = [&](int i, int l) {
    const T xi = x[i + l];
    s0[l] = std::fma(xi, y0[i + l], s0[l]);
    s1[l] = std::fma(xi, y1[i + l], s1[l]);
    s2[l] = std::fma(xi, y2[i + l], s2[l]);
    s3[l] = std::fma(xi, y3[i + l], s3[l]);
  };
  int i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) step(i, l);
  for (int l = 0; i + l < n; ++l) step(i, l);
  out[0] = add_lanes(s0);
  out[1] = add_lanes(s1);
  out[2] = add_lanes(s2);
  out[3] = add_lanes(s3);
}

// y ← y − s·x over n entries.
template <typename T>
[[gnu::always_inline]] inline void subtract_scaled(int n, T s, const T* x, T* y) {
  for (int i = 0; i < n; ++i) y[i] = std::fma(-s, x[i], y[i]);
}

// y_c ← y_c − s_c·x for the four columns y_c = y + c·ldy: x is read once.
template <typename T>
[[gnu::always_inline]] inline void subtract_scaled4(int n, const T* s, const T* x, T* y, int ldy) {
  T* y0 = y;
  T* y1 = y + ldy;
  T* y2 = y + 2 * ldy;
  T* y3 = y + 3 * ldy;
  const T s0 = -s[0], s1 = -s[1], s2 = -s[2], s3 = -s[3];
  for (int i = 0; i < n; ++i) {
    const T xi = x[i];
    y0[i] = std::fma(s0, xi, y0[i]);
    y1[i] = std::fma(s1, xi, y1[i]);
    y2[i] = std::fma(s2, xi, y2[i]);
    y3[i] = std::fma(s3, xi, y3[i]);
  }
}

// Columns [c0, c1) of A, rows from the reflector's first (`a` points
// there), ← H A for H = I − τ [1; v][1; v]ᵀ, v of `len` − 1 entries: w =
// a_c(0) + vᵀ a_c(1:), a_c ← a_c − τ w [1; v]. Four columns at a time.
template <typename T>
[[gnu::always_inline]] inline void apply_reflector(int len, const T* v, T tau, T* a, int lda, int c0, int c1) {
  if (tau == T(0)) return;
  int c = c0;
  for (; c + 4 <= c1; c += 4) {
    T* first = a + static_cast<long>(c) * lda;
    T w[4];
    dot4(len - 1, v, first + 1, lda, w);
    for (int q = 0; q < 4; ++q) {
      T* top = first + static_cast<long>(q) * lda;
      w[q] = tau * (top[0] + w[q]);
      top[0] -= w[q];
    }
    subtract_scaled4(len - 1, w, v, first + 1, lda);
  }
  for (; c < c1; ++c) {
    T* column = a + static_cast<long>(c) * lda;
    const T s = tau * (column[0] + dot(len - 1, v, column + 1));
    column[0] -= s;
    subtract_scaled(len - 1, s, v, column + 1);
  }
}

inline void larfg(int n, double* alpha, double* x, double* tau) { LAPACKE_dlarfg_work(n, alpha, x, 1, tau); }
inline void larfg(int n, float* alpha, float* x, float* tau) { LAPACKE_slarfg_work(n, alpha, x, 1, tau); }

// The reflector with H [alpha; x] = [beta; 0] (LAPACK's ?larfg): x ← v,
// alpha ← beta; returns τ. ‖[alpha; x]‖² is summed directly where neither
// it nor its squares leave the normal range; elsewhere (entries beyond
// about 1e150 or below 1e−146 in double) LAPACK's ?larfg, which scales.
template <typename T>
[[gnu::always_inline]] inline T make_reflector(int n, T& alpha, T* x) {
  constexpr T kSmallest = std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  constexpr T kLargest = std::numeric_limits<T>::max() / 4;
  const T squares = dot(n, x, x);
  const T norm2 = std::fma(alpha, alpha, squares);
  if (!(squares >= kSmallest && norm2 <= kLargest)) {
    T tau = 0;
    larfg(n + 1, &alpha, x, &tau);
    return tau;
  }
  const T beta = -std::copysign(std::sqrt(norm2), alpha);
  const T tau = (beta - alpha) / beta;
  const T scale = T(1) / (alpha - beta);
  for (int i = 0; i < n; ++i) x[i] *= scale;
  alpha = beta;
  return tau;
}

}  // namespace tiledqr::small_kernels::detail
