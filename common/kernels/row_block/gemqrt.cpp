// ?gemqrt on a whole row block: LAPACK's application of geqrt's Q or Qᵀ.
#include <lapacke.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/row_block/row_block_kernels.hpp"

namespace tiledqr::row_block_kernels {
namespace {

lapack_int call_gemqrt(char trans, int m, int n, int k, int ib, const double* v, int ldv, const double* t, int ldt,
                       double* c, int ldc, double* work) {
  return LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc, work);
}
lapack_int call_gemqrt(char trans, int m, int n, int k, int ib, const float* v, int ldv, const float* t, int ldt,
                       float* c, int ldc, float* work) {
  return LAPACKE_sgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc, work);
}

}  // namespace

template <typename T>
void gemqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t, int ldt, T* c,
            int ldc) {
  thread_local std::vector<T> work;  // (ib, n) for the left side, kept for this thread's next call
  const size_t need = size_t(std::max(ib, 1)) * size_t(std::max(n, 1));
  if (work.size() < need) work.resize(need);
  const lapack_int info = call_gemqrt(transpose ? 'T' : 'N', m, n, k, ib, v, ldv, t, ldt, c, ldc, work.data());
  if (info != 0) throw std::logic_error("?gemqrt: argument " + std::to_string(-info) + " is invalid");
}

template void gemqrt<double>(bool, int, int, int, int, const double*, int, const double*, int, double*, int);
template void gemqrt<float>(bool, int, int, int, int, const float*, int, const float*, int, float*, int);

}  // namespace tiledqr::row_block_kernels
