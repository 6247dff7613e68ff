// The LAPACK-backed ?tpmqrt: Q or Qᵀ of a tpqrt applied to a stacked pair of tiles.
#include "kernels/lapack/block_apply.hpp"

namespace tiledqr::lapack_kernels {

using namespace detail;

template <typename T>
void tpmqrt(bool transpose, int m, int n, int k, int l, int ib, const T* v, int ldv, const T* t,
            int ldt, T* a, int lda, T* b, int ldb) {
  require(m >= 0, "tpmqrt", "m", m);
  require(n >= 0, "tpmqrt", "n", n);
  require(k >= 0, "tpmqrt", "k", k);
  require(l >= 0 && l <= k && l <= m, "tpmqrt", "l", l);
  require(ib >= 1 && (ib <= k || k == 0), "tpmqrt", "ib", ib);
  require(ldv >= std::max(1, m), "tpmqrt", "ldv", ldv);
  require(ldt >= ib, "tpmqrt", "ldt", ldt);
  require(lda >= std::max(1, k), "tpmqrt", "lda", lda);
  require(ldb >= std::max(1, m), "tpmqrt", "ldb", ldb);
  if (m == 0 || n == 0 || k == 0) return;
  const int blocks = (k + ib - 1) / ib;
  for (int step = 0; step < blocks; ++step) {
    const int i0 = (transpose ? step : blocks - 1 - step) * ib;
    apply_tp_block(transpose, m, n, l, i0, std::min(ib, k - i0), v, ldv, t, ldt, a, lda, b, ldb);
  }
}

template void tpmqrt<double>(bool, int, int, int, int, int, const double*, int, const double*, int,
                             double*, int, double*, int);
template void tpmqrt<float>(bool, int, int, int, int, int, const float*, int, const float*, int,
                            float*, int, float*, int);

}  // namespace tiledqr::lapack_kernels
