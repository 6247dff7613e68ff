#include "lapack_kernels.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tiledqr::lapack_kernels {
namespace {

// Workspace of each thread, grown on demand; the _work entry points take it
// directly and skip LAPACKE's NaN scans and allocations.
template <typename T>
T* workspace(size_t elements) {
  thread_local std::vector<T> buffer;
  if (buffer.size() < elements) buffer.resize(elements);
  return buffer.data();
}

void check_info(lapack_int info, const char* routine) {
  if (info != 0)
    throw std::logic_error(std::string(routine) + " rejected argument " + std::to_string(-info));
}

char trans_char(bool transpose) { return transpose ? 'T' : 'N'; }

}  // namespace

template <>
void geqrt<double>(int m, int n, int ib, double* a, int lda, double* t, int ldt) {
  check_info(LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt,
                                 workspace<double>(size_t(ib) * n)),
             "dgeqrt");
}
template <>
void geqrt<float>(int m, int n, int ib, float* a, int lda, float* t, int ldt) {
  check_info(LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt,
                                 workspace<float>(size_t(ib) * n)),
             "sgeqrt");
}

template <>
void gemqrt<double>(bool transpose, int m, int n, int k, int ib, const double* v, int ldv,
                    const double* t, int ldt, double* c, int ldc) {
  check_info(LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, 'L', trans_char(transpose), m, n, k, ib, v, ldv,
                                  t, ldt, c, ldc, workspace<double>(size_t(ib) * n)),
             "dgemqrt");
}
template <>
void gemqrt<float>(bool transpose, int m, int n, int k, int ib, const float* v, int ldv,
                   const float* t, int ldt, float* c, int ldc) {
  check_info(LAPACKE_sgemqrt_work(LAPACK_COL_MAJOR, 'L', trans_char(transpose), m, n, k, ib, v, ldv,
                                  t, ldt, c, ldc, workspace<float>(size_t(ib) * n)),
             "sgemqrt");
}

template <>
void tpqrt<double>(int m, int n, int l, int ib, double* a, int lda, double* b, int ldb, double* t,
                   int ldt) {
  check_info(LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, a, lda, b, ldb, t, ldt,
                                 workspace<double>(size_t(ib) * n)),
             "dtpqrt");
}
template <>
void tpqrt<float>(int m, int n, int l, int ib, float* a, int lda, float* b, int ldb, float* t,
                  int ldt) {
  check_info(LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, a, lda, b, ldb, t, ldt,
                                 workspace<float>(size_t(ib) * n)),
             "stpqrt");
}

template <>
void tpmqrt<double>(bool transpose, int m, int n, int k, int l, int ib, const double* v, int ldv,
                    const double* t, int ldt, double* a, int lda, double* b, int ldb) {
  check_info(LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', trans_char(transpose), m, n, k, l, ib, v,
                                  ldv, t, ldt, a, lda, b, ldb, workspace<double>(size_t(ib) * n)),
             "dtpmqrt");
}
template <>
void tpmqrt<float>(bool transpose, int m, int n, int k, int l, int ib, const float* v, int ldv,
                   const float* t, int ldt, float* a, int lda, float* b, int ldb) {
  check_info(LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, 'L', trans_char(transpose), m, n, k, l, ib, v,
                                  ldv, t, ldt, a, lda, b, ldb, workspace<float>(size_t(ib) * n)),
             "stpmqrt");
}

void use_single_threaded_blas() { openblas_set_num_threads(1); }

}  // namespace tiledqr::lapack_kernels
