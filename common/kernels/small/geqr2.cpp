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

// One compiled variant per instruction set, chosen when the library loads.
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]] void geqr2_double(int m, int n, double* a,
                                                                                         int lda, double* tau) {
  geqr2_body(m, n, a, lda, tau);
}
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]] void geqr2_float(int m, int n, float* a,
                                                                                        int lda, float* tau) {
  geqr2_body(m, n, a, lda, tau);
}

}  // namespace

template <>
void geqr2<double>(int m, int n, double* a, int lda, double* tau) {
  geqr2_double(m, n, a, lda, tau);
}
template <>
void geqr2<float>(int m, int n, float* a, int lda, float* tau) {
  geqr2_float(m, n, a, lda, tau);
}

}  // namespace tiledqr::small_kernels
