// ?orm2r for a small matrix in cache: Q or Qᵀ from ?geqr2's reflectors, without BLAS calls.
#include "kernels/small/reflector_loops.hpp"
#include "kernels/small/small_kernels.hpp"

namespace tiledqr::small_kernels {
namespace {

// Qᵀ = H_{k−1} ⋯ H_0 applies H_0 first; Q the reverse.
template <typename T>
[[gnu::always_inline]] inline void orm2r_body(bool transpose, int m, int n, int k, const T* v, int ldv, const T* tau,
                                              T* c, int ldc) {
  for (int s = 0; s < k; ++s) {
    const int j = transpose ? s : k - 1 - s;
    detail::apply_reflector(m - j, v + j + 1 + static_cast<long>(j) * ldv, tau[j], c + j, ldc, 0, n);
  }
}

[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]] void orm2r_double(
    bool transpose, int m, int n, int k, const double* v, int ldv, const double* tau, double* c, int ldc) {
  orm2r_body(transpose, m, n, k, v, ldv, tau, c, ldc);
}
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]] void orm2r_float(
    bool transpose, int m, int n, int k, const float* v, int ldv, const float* tau, float* c, int ldc) {
  orm2r_body(transpose, m, n, k, v, ldv, tau, c, ldc);
}

}  // namespace

template <>
void orm2r<double>(bool transpose, int m, int n, int k, const double* v, int ldv, const double* tau, double* c,
                   int ldc) {
  orm2r_double(transpose, m, n, k, v, ldv, tau, c, ldc);
}
template <>
void orm2r<float>(bool transpose, int m, int n, int k, const float* v, int ldv, const float* tau, float* c,
                  int ldc) {
  orm2r_float(transpose, m, n, k, v, ldv, tau, c, ldc);
}

}  // namespace tiledqr::small_kernels
