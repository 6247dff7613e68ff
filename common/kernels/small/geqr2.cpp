// ?geqr2 for a small matrix in cache: unblocked Householder QR without BLAS calls.
#include "kernels/small/reflector_loops.hpp"
#include "kernels/small/small_kernels.hpp"

namespace tiledqr::small_kernels {
namespace {

template <typename T>
[[gnu::always_inline]] inline void geqr2_body(int m, int n, T* a, int lda, T* tau) {
  const int k = m < n ? m : n;
  for (int j = 0; j < k; ++j) {
    T* column = a + j + static_cast<long>(j) * lda;
    tau[j] = detail::make_reflector(m - j - 1, column[0], column + 1);
    detail::apply_reflector(m - j, column + 1, tau[j], a + j, lda, j + 1, n);
  }
}

// The body compiled for each instruction set (detail::vector_isa).
template <typename T>
[[gnu::target("arch=x86-64-v4")]] void geqr2_v4(int m, int n, T* a, int lda, T* tau) {
  geqr2_body(m, n, a, lda, tau);
}
template <typename T>
[[gnu::target("arch=x86-64-v3")]] void geqr2_v3(int m, int n, T* a, int lda, T* tau) {
  geqr2_body(m, n, a, lda, tau);
}
template <typename T>
void geqr2_x86_64(int m, int n, T* a, int lda, T* tau) {
  geqr2_body(m, n, a, lda, tau);
}

}  // namespace

template <typename T>
void geqr2(int m, int n, T* a, int lda, T* tau) {
  switch (detail::vector_isa()) {
    case detail::VectorIsa::x86_64_v4: return geqr2_v4(m, n, a, lda, tau);
    case detail::VectorIsa::x86_64_v3: return geqr2_v3(m, n, a, lda, tau);
    case detail::VectorIsa::x86_64: return geqr2_x86_64(m, n, a, lda, tau);
  }
}

template void geqr2<double>(int, int, double*, int, double*);
template void geqr2<float>(int, int, float*, int, float*);

}  // namespace tiledqr::small_kernels
