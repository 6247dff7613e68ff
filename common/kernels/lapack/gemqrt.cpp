// The LAPACK-backed ?gemqrt: Q or Qᵀ of a geqrt applied to C, block by block.
#include "kernels/lapack/block_apply.hpp"

namespace tiledqr::lapack_kernels {

using namespace detail;

template <typename T>
void gemqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t, int ldt,
            T* c, int ldc) {
  require(m >= 0, "gemqrt", "m", m);
  require(n >= 0, "gemqrt", "n", n);
  require(k >= 0 && k <= m, "gemqrt", "k", k);
  require(ib >= 1 && (ib <= k || k == 0), "gemqrt", "ib", ib);
  require(ldv >= std::max(1, m), "gemqrt", "ldv", ldv);
  require(ldt >= ib, "gemqrt", "ldt", ldt);
  require(ldc >= std::max(1, m), "gemqrt", "ldc", ldc);
  if (m == 0 || n == 0 || k == 0) return;
  const int blocks = (k + ib - 1) / ib;
  for (int step = 0; step < blocks; ++step) {
    const int i0 = (transpose ? step : blocks - 1 - step) * ib;
    apply_geqrt_block(transpose, m, n, i0, std::min(ib, k - i0), v, ldv, t, ldt, c, ldc);
  }
}

template void gemqrt<double>(bool, int, int, int, int, const double*, int, const double*, int,
                             double*, int);
template void gemqrt<float>(bool, int, int, int, int, const float*, int, const float*, int, float*,
                            int);

}  // namespace tiledqr::lapack_kernels
