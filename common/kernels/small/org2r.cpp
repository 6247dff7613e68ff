// ?org2r for a small matrix in cache: the first columns of Q from ?geqr2's reflectors, without BLAS calls.
#include <algorithm>

#include "kernels/small/reflector_loops.hpp"
#include "kernels/small/small_kernels.hpp"

namespace tiledqr::small_kernels {
namespace {

// Q (m, k) = H_0 ⋯ H_{k−1} [I_k; 0], reflectors applied last to first:
// H_j changes only columns j… of the identity (the earlier ones are still
// e_c, zero from row j on), rows j…
template <typename T>
[[gnu::always_inline]] inline void org2r_body(int m, int k, const T* v, int ldv, const T* tau, T* q, int ldq) {
  for (int c = 0; c < k; ++c) {
    T* column = q + static_cast<long>(c) * ldq;
    std::fill(column, column + m, T(0));
    column[c] = T(1);
  }
  for (int j = k - 1; j >= 0; --j)
    detail::apply_reflector(m - j, v + j + 1 + static_cast<long>(j) * ldv, tau[j], q + j, ldq, j, k);
}

// The body compiled for each instruction set (detail::vector_isa).
template <typename T>
[[gnu::target("arch=x86-64-v4")]] void org2r_v4(int m, int k, const T* v, int ldv, const T* tau, T* q, int ldq) {
  org2r_body(m, k, v, ldv, tau, q, ldq);
}
template <typename T>
[[gnu::target("arch=x86-64-v3")]] void org2r_v3(int m, int k, const T* v, int ldv, const T* tau, T* q, int ldq) {
  org2r_body(m, k, v, ldv, tau, q, ldq);
}
template <typename T>
void org2r_x86_64(int m, int k, const T* v, int ldv, const T* tau, T* q, int ldq) {
  org2r_body(m, k, v, ldv, tau, q, ldq);
}

}  // namespace

template <typename T>
void org2r(int m, int k, const T* v, int ldv, const T* tau, T* q, int ldq) {
  switch (detail::vector_isa()) {
    case detail::VectorIsa::x86_64_v4: return org2r_v4(m, k, v, ldv, tau, q, ldq);
    case detail::VectorIsa::x86_64_v3: return org2r_v3(m, k, v, ldv, tau, q, ldq);
    case detail::VectorIsa::x86_64: return org2r_x86_64(m, k, v, ldv, tau, q, ldq);
  }
}

template void org2r<double>(int, int, const double*, int, const double*, double*, int);
template void org2r<float>(int, int, const float*, int, const float*, float*, int);

}  // namespace tiledqr::small_kernels
