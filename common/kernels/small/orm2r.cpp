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

// The body compiled for each instruction set (detail::vector_isa).
template <typename T>
[[gnu::target("arch=x86-64-v4")]] void orm2r_v4(bool transpose, int m, int n, int k, const T* v, int ldv,
                                               const T* tau, T* c, int ldc) {
  orm2r_body(transpose, m, n, k, v, ldv, tau, c, ldc);
}
template <typename T>
[[gnu::target("arch=x86-64-v3")]] void orm2r_v3(bool transpose, int m, int n, int k, const T* v, int ldv,
                                               const T* tau, T* c, int ldc) {
  orm2r_body(transpose, m, n, k, v, ldv, tau, c, ldc);
}
template <typename T>
void orm2r_x86_64(bool transpose, int m, int n, int k, const T* v, int ldv, const T* tau, T* c, int ldc) {
  orm2r_body(transpose, m, n, k, v, ldv, tau, c, ldc);
}

}  // namespace

template <typename T>
void orm2r(bool transpose, int m, int n, int k, const T* v, int ldv, const T* tau, T* c, int ldc) {
  switch (detail::vector_isa()) {
    case detail::VectorIsa::x86_64_v4: return orm2r_v4(transpose, m, n, k, v, ldv, tau, c, ldc);
    case detail::VectorIsa::x86_64_v3: return orm2r_v3(transpose, m, n, k, v, ldv, tau, c, ldc);
    case detail::VectorIsa::x86_64: return orm2r_x86_64(transpose, m, n, k, v, ldv, tau, c, ldc);
  }
}

template void orm2r<double>(bool, int, int, int, const double*, int, const double*, double*, int);
template void orm2r<float>(bool, int, int, int, const float*, int, const float*, float*, int);

}  // namespace tiledqr::small_kernels
