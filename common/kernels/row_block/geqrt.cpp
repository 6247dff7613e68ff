// ?geqrt on a whole row block: LAPACK's blocked QR with compact-WY T factors.
#include <lapacke.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/row_block/row_block_kernels.hpp"

namespace tiledqr::row_block_kernels {
namespace {

lapack_int call_geqrt(int m, int n, int ib, double* a, int lda, double* t, int ldt, double* work) {
  return LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt, work);
}
lapack_int call_geqrt(int m, int n, int ib, float* a, int lda, float* t, int ldt, float* work) {
  return LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt, work);
}

}  // namespace

template <typename T>
void geqrt(int m, int n, int ib, T* a, int lda, T* t, int ldt) {
  thread_local std::vector<T> work;  // (ib, n), kept for this thread's next call
  const size_t need = size_t(std::max(ib, 1)) * size_t(std::max(n, 1));
  if (work.size() < need) work.resize(need);
  const lapack_int info = call_geqrt(m, n, ib, a, lda, t, ldt, work.data());
  if (info != 0) throw std::logic_error("?geqrt: argument " + std::to_string(-info) + " is invalid");
}

template void geqrt<double>(int, int, int, double*, int, double*, int);
template void geqrt<float>(int, int, int, float*, int, float*, int);

}  // namespace tiledqr::row_block_kernels
