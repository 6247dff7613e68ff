// The C interface on the host (include/tiledqr/tiledqr.h): argument checks,
// the choice of FR1 (one thread) or FR2 (a pool of threads) for the
// factorisation, and the boundary that turns exceptions into return codes.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <string>

#include "boundary.hpp"
#include "errors.hpp"
#include "factorization.hpp"
#include "serial_executor.hpp"
#include "threaded_executor.hpp"
#include "tiledqr/tiledqr.h"

struct tiledqr_factors {
  // Exactly one is set: the handle remembers its precision.
  std::unique_ptr<tiledqr::Factorization<double>> d;
  std::unique_ptr<tiledqr::Factorization<float>> s;
};

namespace tiledqr::capi {

namespace {

thread_local std::string last_error;

// OpenBLAS's thread count as the caller left it: the executors run BLAS on
// one thread inside each task, and a library call must not change the
// caller's setting for the calls that follow it.
class BlasThreadsRestorer {
 public:
  BlasThreadsRestorer() : saved_(openblas_get_num_threads()) {}
  ~BlasThreadsRestorer() { openblas_set_num_threads(saved_); }
  BlasThreadsRestorer(const BlasThreadsRestorer&) = delete;
  BlasThreadsRestorer& operator=(const BlasThreadsRestorer&) = delete;

 private:
  int saved_;
};

Options to_options(const tiledqr_options* in, int64_t m, int64_t n) {
  const tiledqr_options o = in ? *in : tiledqr_options{};
  Options out;
  if (o.tile < 0) throw InputError("options.tile must be >= 0 (0: the default), got " + std::to_string(o.tile));
  if (o.inner_block < 0)
    throw InputError("options.inner_block must be >= 0 (0: the default), got " + std::to_string(o.inner_block));
  if (o.threads < 0)
    throw InputError("options.threads must be >= 0 (0: every CPU), got " + std::to_string(o.threads));
  if (o.tile > 0) out.tile = o.tile;
  out.inner_block = o.inner_block;
  out.threads = o.threads;
  switch (o.backend) {
    case TILEDQR_BACKEND_LAPACK: out.backend = Backend::lapack; break;
    case TILEDQR_BACKEND_REFERENCE: out.backend = Backend::reference; break;
    default: throw InputError("options.backend must be TILEDQR_BACKEND_LAPACK or _REFERENCE, got " +
                              std::to_string(o.backend));
  }
  out.tree = o.tree == TILEDQR_TREE_AUTO && m >= 1 && n >= 1 ? default_tree(m, n, out.tile, out.threads)
                                                               : tree_option(o.tree, Tree::flat);
  return out;
}

template <typename T>
std::unique_ptr<Factorization<T>> factor(int64_t m, int64_t n, const T* a, int64_t lda, const tiledqr_options* opts) {
  check_shape(m, n, a, lda, "A");
  const Options options = to_options(opts, m, n);
  check_finite(a, m, n, lda, "A");
  BlasThreadsRestorer blas_threads;
  if (options.threads == 1) return std::make_unique<Factorization<T>>(tiledqr::factor(a, m, n, lda, options));
  return std::make_unique<Factorization<T>>(factor_threaded(a, m, n, lda, options));
}

// A (m, n) ← R (min(m, n), n) with zeros below the diagonal.
template <typename T>
void store_r(const Factorization<T>& f, T* a, int64_t lda) {
  const DenseMatrix<T> r = f.r();
  for (int64_t j = 0; j < f.cols(); ++j)
    for (int64_t i = 0; i < f.rows(); ++i) a[i + j * lda] = i <= j && i < r.rows ? r(i, j) : T(0);
}

template <typename T>
Factorization<T>& unwrap(const tiledqr_factors* h);

template <>
Factorization<double>& unwrap<double>(const tiledqr_factors* h) {
  if (!h) throw InputError("factors is NULL");
  if (!h->d) throw InputError("factors holds a single-precision factorisation: use the s functions");
  return *h->d;
}

template <>
Factorization<float>& unwrap<float>(const tiledqr_factors* h) {
  if (!h) throw InputError("factors is NULL");
  if (!h->s) throw InputError("factors holds a double-precision factorisation: use the d functions");
  return *h->s;
}

template <typename T>
int geqrf(int64_t m, int64_t n, T* a, int64_t lda, tiledqr_factors** out, const tiledqr_options* opts) {
  if (out) *out = nullptr;
  return guarded([&] {
    std::unique_ptr<Factorization<T>> f = factor(m, n, a, lda, opts);
    store_r(*f, a, lda);
    if (out) *out = make_factors(std::move(f));
    return int(TILEDQR_SUCCESS);
  });
}

void check_rhs(int64_t m, int64_t nrhs, const void* b, int64_t ldb, const char* name) {
  if (nrhs < 0) throw InputError("nrhs must be >= 0, got " + std::to_string(nrhs));
  if (ldb < std::max<int64_t>(1, m))
    throw InputError("ld" + std::string(name) + " (" + std::to_string(ldb) + ") must be >= m (" +
                     std::to_string(m) + ")");
  if (nrhs > 0 && !b) throw InputError(std::string(name) + " is NULL");
}

template <typename T>
int ormqr(char trans, int64_t m, int64_t nrhs, const tiledqr_factors* h, T* b, int64_t ldb) {
  return guarded([&] {
    const Factorization<T>& f = unwrap<T>(h);
    const bool transpose = trans == 'T' || trans == 't' || trans == 'C' || trans == 'c';
    if (!transpose && trans != 'N' && trans != 'n')
      throw InputError(std::string("trans must be 'N', 'T' or 'C', got '") + trans + "'");
    if (m != f.rows())
      throw InputError("m (" + std::to_string(m) + ") must be the factored matrix's rows (" +
                       std::to_string(f.rows()) + ")");
    check_rhs(m, nrhs, b, ldb, "B");
    if (nrhs == 0) return int(TILEDQR_SUCCESS);
    BlasThreadsRestorer blas_threads;
    if (transpose) f.apply_qt(b, ldb, nrhs);
    else f.apply_q(b, ldb, nrhs);
    return int(TILEDQR_SUCCESS);
  });
}

template <typename T>
int orgqr(int64_t m, int64_t k, const tiledqr_factors* h, T* q, int64_t ldq) {
  return guarded([&] {
    const Factorization<T>& f = unwrap<T>(h);
    if (m != f.rows())
      throw InputError("m (" + std::to_string(m) + ") must be the factored matrix's rows (" +
                       std::to_string(f.rows()) + ")");
    if (k < 1 || k > m) throw InputError("k must be in [1, m], got " + std::to_string(k));
    check_rhs(m, k, q, ldq, "Q");
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < m; ++i) q[i + j * ldq] = i == j ? T(1) : T(0);
    BlasThreadsRestorer blas_threads;
    f.apply_q(q, ldq, k);
    return int(TILEDQR_SUCCESS);
  });
}

// X (n, nrhs) ← R⁻¹ X for the upper triangle of A.
void upper_solve(int64_t n, int64_t nrhs, const double* a, int64_t lda, double* x, int64_t ldx) {
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, int(n), int(nrhs), 1.0, a, int(lda),
              x, int(ldx));
}
void upper_solve(int64_t n, int64_t nrhs, const float* a, int64_t lda, float* x, int64_t ldx) {
  cblas_strsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, int(n), int(nrhs), 1.0f, a, int(lda),
              x, int(ldx));
}

template <typename T>
int gels(int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb, const tiledqr_options* opts) {
  return guarded([&] {
    if (m < n)
      throw InputError("least squares needs m >= n (an underdetermined system has no unique solution here), got " +
                       std::to_string(m) + "x" + std::to_string(n));
    check_shape(m, n, a, lda, "A");
    check_rhs(m, nrhs, b, ldb, "B");
    if (std::max({m, n, lda, ldb, nrhs}) > std::numeric_limits<int>::max())
      throw InputError("dimensions beyond 2^31 - 1 are not supported by the triangular solve");
    check_finite(b, m, nrhs, ldb, "B");
    const std::unique_ptr<Factorization<T>> f = factor(m, n, a, lda, opts);
    store_r(*f, a, lda);
    // Rank check: |r_ii| ≤ max(m, n)·ε·max_j |r_jj|, LAPACK's usual scale.
    T largest = 0;
    for (int64_t j = 0; j < n; ++j) largest = std::max(largest, std::abs(a[j + j * lda]));
    const T tolerance = T(std::max(m, n)) * std::numeric_limits<T>::epsilon() * largest;
    for (int64_t i = 0; i < n; ++i)
      if (std::abs(a[i + i * lda]) <= tolerance)
        return fail(TILEDQR_RANK_DEFICIENT, "A is rank-deficient: |R(" + std::to_string(i + 1) + "," +
                                                std::to_string(i + 1) + ")| <= max(m,n)*eps*max|R(j,j)|");
    if (nrhs == 0) return int(TILEDQR_SUCCESS);
    BlasThreadsRestorer blas_threads;
    f->apply_qt(b, ldb, nrhs);
    upper_solve(n, nrhs, a, lda, b, ldb);
    return int(TILEDQR_SUCCESS);
  });
}

}  // namespace

tiledqr_factors* make_factors(std::unique_ptr<Factorization<double>> f) {
  auto handle = std::make_unique<tiledqr_factors>();
  handle->d = std::move(f);
  return handle.release();
}

tiledqr_factors* make_factors(std::unique_ptr<Factorization<float>> f) {
  auto handle = std::make_unique<tiledqr_factors>();
  handle->s = std::move(f);
  return handle.release();
}

int fail(int status, const std::string& message) {
  try {
    last_error = message;
  } catch (const std::bad_alloc&) {  // no room for the message: the status alone
    last_error.clear();
  }
  return status;
}

void clear_error() { last_error.clear(); }

}  // namespace tiledqr::capi

using namespace tiledqr::capi;

extern "C" {

int tiledqr_dgeqrf(int64_t m, int64_t n, double* A, int64_t lda, tiledqr_factors** factors,
                   const tiledqr_options* opts) {
  return geqrf(m, n, A, lda, factors, opts);
}
int tiledqr_sgeqrf(int64_t m, int64_t n, float* A, int64_t lda, tiledqr_factors** factors,
                   const tiledqr_options* opts) {
  return geqrf(m, n, A, lda, factors, opts);
}
int tiledqr_dormqr(char trans, int64_t m, int64_t nrhs, const tiledqr_factors* factors, double* B, int64_t ldb) {
  return ormqr(trans, m, nrhs, factors, B, ldb);
}
int tiledqr_sormqr(char trans, int64_t m, int64_t nrhs, const tiledqr_factors* factors, float* B, int64_t ldb) {
  return ormqr(trans, m, nrhs, factors, B, ldb);
}
int tiledqr_dorgqr(int64_t m, int64_t k, const tiledqr_factors* factors, double* Q, int64_t ldq) {
  return orgqr(m, k, factors, Q, ldq);
}
int tiledqr_sorgqr(int64_t m, int64_t k, const tiledqr_factors* factors, float* Q, int64_t ldq) {
  return orgqr(m, k, factors, Q, ldq);
}
int tiledqr_dgels(int64_t m, int64_t n, int64_t nrhs, double* A, int64_t lda, double* B, int64_t ldb,
                  const tiledqr_options* opts) {
  return gels(m, n, nrhs, A, lda, B, ldb, opts);
}
int tiledqr_sgels(int64_t m, int64_t n, int64_t nrhs, float* A, int64_t lda, float* B, int64_t ldb,
                  const tiledqr_options* opts) {
  return gels(m, n, nrhs, A, lda, B, ldb, opts);
}

int64_t tiledqr_factors_rows(const tiledqr_factors* f) {
  if (!f) return 0;
  return f->d ? f->d->rows() : f->s ? f->s->rows() : 0;
}
int64_t tiledqr_factors_cols(const tiledqr_factors* f) {
  if (!f) return 0;
  return f->d ? f->d->cols() : f->s ? f->s->cols() : 0;
}

void tiledqr_factors_free(tiledqr_factors* factors) { delete factors; }

const char* tiledqr_strerror(int status) {
  switch (status) {
    case TILEDQR_SUCCESS: return "success";
    case TILEDQR_RANK_DEFICIENT: return "the matrix is rank-deficient";
    case TILEDQR_ERR_INVALID_ARGUMENT: return "invalid argument";
    case TILEDQR_ERR_OUT_OF_MEMORY: return "out of memory";
    case TILEDQR_ERR_NO_GPU: return "no usable GPU";
    case TILEDQR_ERR_GPU: return "a CUDA call failed";
    case TILEDQR_ERR_GPU_ARCH: return "no GPU code for this device's architecture";
    case TILEDQR_ERR_STALLED: return "the GPU task graph stalled";
    case TILEDQR_ERR_INTERNAL: return "internal error";
    default: return "unknown tiledqr status";
  }
}

const char* tiledqr_last_error(void) { return last_error.c_str(); }

const char* tiledqr_version(void) { return TILEDQR_VERSION; }

}  // extern "C"
