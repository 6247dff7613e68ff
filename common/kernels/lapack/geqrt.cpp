// The LAPACK-backed ?geqrt: the QR of an (m, n) tile, compact-WY T factors of inner block ib.
#include "kernels/lapack/block_apply.hpp"

namespace tiledqr::lapack_kernels {

using namespace detail;

template <typename T>
void geqrt(int m, int n, int ib, T* a, int lda, T* t, int ldt) {
  const int k = std::min(m, n);
  require(m >= 0, "geqrt", "m", m);
  require(n >= 0, "geqrt", "n", n);
  require(ib >= 1 && (ib <= k || k == 0), "geqrt", "ib", ib);
  require(lda >= std::max(1, m), "geqrt", "lda", lda);
  require(ldt >= ib, "geqrt", "ldt", ldt);
  if (k == 0) return;
  Scratch<T>& s = scratch<T>();
  T* tau = sized(s.vec, size_t(std::max(ib, n)));
  T* work = sized(s.work, size_t(ib));
  for (int i0 = 0; i0 < k; i0 += ib) {
    const int kb = std::min(ib, k - i0);
    const int rows = m - i0;
    T* panel = a + i0 + size_t(i0) * lda;
    if (Blas<T>::geqr2(rows, kb, panel, lda, tau, work) != 0)
      throw std::logic_error("geqrt: ?geqr2 rejected its arguments");
    // T of the block: z = V(:, 0:j)ᵀ v_j, v_j = e_j below the diagonal.
    T* tb = t + size_t(i0) * ldt;
    std::vector<T>& zbuf = s.w2;  // free until the trailing update below
    T* z = sized(zbuf, size_t(kb));
    for (int j = 0; j < kb; ++j) {
      const T* vj = panel + size_t(j) * lda;
      if (j > 0) {
        if (rows - j - 1 > 0) Blas<T>::gemv_t(rows - j - 1, j, panel + j + 1, lda, vj + j + 1, z);
        else std::fill_n(z, j, T(0));
        for (int i = 0; i < j; ++i) z[i] += panel[j + size_t(i) * lda];
      }
      t_column(j, tau[j], z, tb, ldt);
    }
    if (i0 + kb < n)
      apply_geqrt_block(true, m, n - i0 - kb, i0, kb, a, lda, t, ldt,
                        a + size_t(i0 + kb) * lda, lda);
  }
}

template void geqrt<double>(int, int, int, double*, int, double*, int);
template void geqrt<float>(int, int, int, float*, int, float*, int);

void use_single_threaded_blas() { openblas_set_num_threads(1); }

}  // namespace tiledqr::lapack_kernels
