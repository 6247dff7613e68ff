// The LAPACK-backed ?tpqrt: the QR of a triangle stacked on a (trapezoidal) tile.
#include "kernels/lapack/block_apply.hpp"

namespace tiledqr::lapack_kernels {

using namespace detail;

template <typename T>
void tpqrt(int m, int n, int l, int ib, T* a, int lda, T* b, int ldb, T* t, int ldt) {
  require(m >= 0, "tpqrt", "m", m);
  require(n >= 0, "tpqrt", "n", n);
  require(l >= 0 && l <= std::min(m, n), "tpqrt", "l", l);
  require(ib >= 1 && (ib <= n || n == 0), "tpqrt", "ib", ib);
  require(lda >= std::max(1, n), "tpqrt", "lda", lda);
  require(ldb >= std::max(1, m), "tpqrt", "ldb", ldb);
  require(ldt >= ib, "tpqrt", "ldt", ldt);
  if (m == 0 || n == 0) return;
  Scratch<T>& s = scratch<T>();
  T* w = sized(s.vec, size_t(n));
  for (int i0 = 0; i0 < n; i0 += ib) {
    const int kb = std::min(ib, n - i0);
    T* tb = t + size_t(i0) * ldt;
    for (int j = 0; j < kb; ++j) {
      const int g = i0 + j;                          // column of A and B
      const int p = std::min(m, m - l + g + 1);      // rows of B's column g
      T* bg = b + size_t(g) * ldb;
      T tau = T(0);
      Blas<T>::larfg(p + 1, a + g + size_t(g) * lda, bg, &tau);
      // H_g on the block's later columns: w = A(g, ·) + B(0:p, ·)ᵀ v.
      const int right = kb - j - 1;
      if (right > 0 && tau != T(0)) {
        T* b_right = bg + ldb;
        T* a_row = a + g + size_t(g + 1) * lda;
        Blas<T>::gemv_t(p, right, b_right, ldb, bg, w);
        for (int c = 0; c < right; ++c) {
          w[c] += a_row[size_t(c) * lda];
          a_row[size_t(c) * lda] -= tau * w[c];
        }
        Blas<T>::ger(p, right, -tau, bg, w, b_right, ldb);
      }
      // z_i = v_iᵀ v_g: only the B parts overlap (the A parts are e_i, e_g);
      // column i0 + i has rows r < min(m, m − l + i0 + i + 1) ≤ p.
      T* z = sized(s.work, size_t(kb));
      if (l == 0 && j > 0) {
        Blas<T>::gemv_t(p, j, b + size_t(i0) * ldb, ldb, bg, z);
      } else {
        for (int i = 0; i < j; ++i) {
          const T* bi = b + size_t(i0 + i) * ldb;
          const int rows_i = std::min(m, m - l + i0 + i + 1);
          T sum = T(0);
          for (int r = 0; r < rows_i; ++r) sum += bi[r] * bg[r];
          z[i] = sum;
        }
      }
      t_column(j, tau, z, tb, ldt);
    }
    if (i0 + kb < n)
      apply_tp_block(true, m, n - i0 - kb, l, i0, kb, b, ldb, t, ldt,
                     a + size_t(i0 + kb) * lda, lda, b + size_t(i0 + kb) * ldb, ldb);
  }
}

template void tpqrt<double>(int, int, int, int, double*, int, double*, int, double*, int);
template void tpqrt<float>(int, int, int, int, float*, int, float*, int, float*, int);

}  // namespace tiledqr::lapack_kernels
