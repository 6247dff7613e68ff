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
#include <type_traits>
#include <vector>

#include "boundary.hpp"
#include "cpu_threads.hpp"
#include "errors.hpp"
#include "factorization.hpp"
#include "serial_executor.hpp"
#include "threaded_executor.hpp"
#include "tile_choice.hpp"
#include "tiledqr/tiledqr.h"

struct tiledqr_factors {
  // Exactly one is set: the handle remembers its precision.
  std::unique_ptr<tiledqr::Factorization<double>> d;
  std::unique_ptr<tiledqr::Factorization<float>> s;
};

namespace tiledqr::capi {

namespace {

thread_local std::string last_error;

// options.threads as the workers that run: 0 is every CPU this process may
// run on, and more than that is cut to it (threads beyond the CPUs only
// take turns, and thousands of them exhaust the process's limits).
int resolve_workers(const tiledqr_options& o) {
  if (o.threads < 0)
    throw InputError("options.threads must be >= 0 (0: every CPU), got " + std::to_string(o.threads));
  const int cpus = available_cpus();
  return o.threads == 0 ? cpus : std::min(o.threads, cpus);
}

// The workers of a call with options `o` on `work` multiply-adds
// (m·n·min(m, n) a matrix): an explicit thread count as resolve_workers
// gives it; threads = 0 at most one per 2^20 of them, since starting a
// thread costs about that much (tens of microseconds).
int useful_workers(const tiledqr_options& o, double work) {
  constexpr double kWorkPerThread = double(1 << 20);
  const int workers = resolve_workers(o);
  if (o.threads != 0) return workers;
  return int(std::max(1.0, std::min(double(workers), std::floor(work / kWorkPerThread))));
}

double qr_work(int64_t m, int64_t n) { return double(m) * double(n) * double(std::min(m, n)); }

// The options of one m×n factorisation of precision T on `workers` threads:
// tile 0 is chosen with the inner block and tree (tile_choice.hpp); a
// given tile is cut to min(m, n), since a larger one only adds padding.
template <typename T>
Options to_options(const tiledqr_options& o, int64_t m, int64_t n, int workers) {
  Options out;
  if (o.tile < 0) throw InputError("options.tile must be >= 0 (0: chosen), got " + std::to_string(o.tile));
  if (o.inner_block < 0)
    throw InputError("options.inner_block must be >= 0 (0: chosen), got " + std::to_string(o.inner_block));
  switch (o.backend) {
    case TILEDQR_BACKEND_LAPACK: out.backend = Backend::lapack; break;
    case TILEDQR_BACKEND_REFERENCE: out.backend = Backend::reference; break;
    default: throw InputError("options.backend must be TILEDQR_BACKEND_LAPACK or _REFERENCE, got " +
                              std::to_string(o.backend));
  }
  const Tree given = tree_option(o.tree, Tree::flat);
  out.threads = workers;
  if (m < 1 || n < 1) {  // nothing to factor
    out.tile = 1;
    out.tree = given;
    return out;
  }
  if (o.tile == 0) {
    const Precision precision = std::is_same_v<T, double> ? Precision::double_precision : Precision::single_precision;
    const TileChoice choice = choose_tile({TileTarget::cpu, m, n, precision, workers});
    out.tile = choice.tile;
    out.inner_block = o.inner_block > 0 ? o.inner_block : choice.inner_block;
    out.tree = o.tree == TILEDQR_TREE_AUTO ? choice.tree : given;
    if (out.tree == Tree::hierarchical) {
      out.tree_domains = choice.domains;
      out.inner_tree = Tree::flat;
    }
  } else {
    out.tile = int(std::min<int64_t>(o.tile, std::min(m, n)));
    out.inner_block = o.inner_block;
    out.tree = o.tree == TILEDQR_TREE_AUTO ? default_tree(m, n, out.tile, workers) : given;
  }
  if (out.tree == Tree::tsqr) out.tree_domains = workers;  // one row block a worker
  return out;
}

// The handle of an m×n matrix with m or n of 0: no panels, Q the identity
// (LAPACK's quick return).
template <typename T>
std::unique_ptr<Factorization<T>> empty_factorization(int64_t m, int64_t n, const Options& options) {
  auto f = std::make_unique<Factorization<T>>();
  f->options = options;
  f->tiles.m = m;
  f->tiles.n = n;
  return f;
}


// Factors A (m, n), already checked and finite, on `options.threads`
// workers: FR1 on one, FR2 on more.
template <typename T>
std::unique_ptr<Factorization<T>> factor_checked(int64_t m, int64_t n, const T* a, int64_t lda, const Options& options) {
  if (m == 0 || n == 0) return empty_factorization<T>(m, n, options);
  if (options.threads == 1) return std::make_unique<Factorization<T>>(tiledqr::factor(a, m, n, lda, options));
  return std::make_unique<Factorization<T>>(factor_threaded(a, m, n, lda, options));
}

template <typename T>
std::unique_ptr<Factorization<T>> factor(int64_t m, int64_t n, const T* a, int64_t lda, const tiledqr_options* opts) {
  check_matrix(m, n, a, lda, "A");
  const tiledqr_options o = opts ? *opts : tiledqr_options{};
  const Options options = to_options<T>(o, m, n, useful_workers(o, qr_work(m, n)));
  check_finite(a, m, n, lda, "A");
  return factor_checked(m, n, a, lda, options);
}

// The executor that applies a handle's Q: FR1 for a factorisation that ran
// on one thread, FR2 on as many as it ran on otherwise.
DagExecutor executor_of(const Options& options) {
  if (options.threads <= 1) return run_dag_serial;
  const int threads = options.threads;
  return [threads](const Dag& dag, const std::function<void(const Task&)>& run) { run_dag_threaded(dag, threads, run); };
}

// A (m, n) ← R (min(m, n), n) with zeros below the diagonal, straight from
// the tiles: a temporary R would be a fresh allocation of A's size, and on
// a virtual machine its page faults cost as much as a small factorisation.
template <typename T>
void store_r(const Factorization<T>& f, T* a, int64_t lda) {
  const int64_t m = f.rows(), n = f.cols(), b = f.tiles.b;
  if (m == 0) return;
  for (int64_t j = 0; j < n; ++j) {
    T* column = a + j * lda;
    const int64_t top = std::min(j + 1, m);  // rows of R in column j
    if (f.is_tsqr()) {
      // The tsqr tree: R in the first rows of row block 0.
      std::copy_n(f.tsqr.stored_r() + j * f.tsqr.stored_r_ld(), top, column);
    } else {
      // Column j of tile row r is b contiguous entries, b·b after row r − 1's.
      const T* tile_column = f.tiles.tile(0, j / b) + (j % b) * b;
      for (int64_t row0 = 0; row0 < top; row0 += b)
        std::copy_n(tile_column + row0 * b, std::min(b, top - row0), column + row0);
    }
    if (f.scale_exponent != 0)
      for (int64_t i = 0; i < top; ++i) column[i] = std::ldexp(column[i], f.scale_exponent);
    std::fill(column + top, column + m, T(0));
  }
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


// Runs one(i, options) for every matrix of the batch A, after checking the
// batch and every matrix's entries: with at least as many matrices as
// workers each matrix on one worker (FR1), the batch spread over them;
// otherwise the matrices one after the other, each on all of them (FR2).
// fill(i), when given, writes matrix i of A first, on the worker that then
// checks it.
template <typename T, typename One, typename Fill = std::nullptr_t>
void run_batch(int64_t batch, int64_t m, int64_t n, T* a, int64_t lda, int64_t stride, const tiledqr_options* opts,
               One&& one, Fill&& fill = nullptr) {
  check_batch(batch, m, n, a, lda, stride, "A");
  const tiledqr_options o = opts ? *opts : tiledqr_options{};
  const int workers = useful_workers(o, double(batch) * qr_work(m, n));
  const bool spread = batch >= workers;
  const Options options = to_options<T>(o, m, n, spread ? 1 : workers);
  // Every matrix is checked before any is factored, on the workers (a
  // serial pass over a stack of small matrices cost a tenth of the call);
  // the first one that is not finite is named.
  std::vector<char> finite(size_t(batch), 1);
  const auto scan = [&](int64_t i) {
    if constexpr (!std::is_same_v<std::decay_t<Fill>, std::nullptr_t>) fill(i);
    finite[size_t(i)] = all_finite(a + i * stride, m, n, lda);
  };
  if (spread && batch > 1) {
    run_independent(batch, workers, scan);
  } else {
    for (int64_t i = 0; i < batch; ++i) scan(i);
  }
  for (int64_t i = 0; i < batch; ++i)
    if (!finite[size_t(i)]) check_finite(a + i * stride, m, n, lda, ("A[" + std::to_string(i) + "]").c_str());
  if (spread && batch > 1) {
    run_independent(batch, workers, [&](int64_t i) { one(i, options); });
  } else {
    for (int64_t i = 0; i < batch; ++i) one(i, options);
  }
}

template <typename T>
int geqrf_batch(int64_t batch, int64_t m, int64_t n, T* a, int64_t lda, int64_t stride, tiledqr_factors** out,
                const tiledqr_options* opts) {
  if (out)
    for (int64_t i = 0; i < batch; ++i) out[i] = nullptr;
  return guarded([&] {
    // Kept until every matrix is done: a failed batch returns no handle.
    std::vector<std::unique_ptr<Factorization<T>>> made(out && batch > 0 ? size_t(batch) : 0);
    run_batch(batch, m, n, a, lda, stride, opts, [&](int64_t i, const Options& options) {
      T* ai = a + i * stride;
      std::unique_ptr<Factorization<T>> f = factor_checked(m, n, ai, lda, options);
      store_r(*f, ai, lda);
      if (out) made[size_t(i)] = std::move(f);
    });
    if (!out) return int(TILEDQR_SUCCESS);
    std::vector<std::unique_ptr<tiledqr_factors>> handles;  // all made before any is handed out
    for (int64_t i = 0; i < batch; ++i) handles.emplace_back(make_factors(std::move(made[size_t(i)])));
    for (int64_t i = 0; i < batch; ++i) out[i] = handles[size_t(i)].release();
    return int(TILEDQR_SUCCESS);
  });
}

// geqrf_batch then orgqr_batch, one matrix at a time: its Q is formed while
// its factors are fresh and then dropped, and a matrix that is one tile is
// factored where it lies (qr_one_tile_in_place). The same bits as the two
// calls.
// The batch of qr_batch: A_i (m, n), lda ← R_i and Q_i (m, k), ldq ← its
// first k columns, after fill(i) (see run_batch).
template <typename T, typename Fill = std::nullptr_t>
void run_qr_batch(int64_t batch, int64_t m, int64_t n, T* a, int64_t lda, int64_t stride_a, int64_t k, T* q,
                  int64_t ldq, int64_t stride_q, const tiledqr_options* opts, Fill&& fill = nullptr) {
  if (k < 0 || k > m) throw InputError("k must be in [0, m], got " + std::to_string(k));
  check_batch(batch, m, k, q, ldq, stride_q, "Q");
  const auto one = [&](int64_t i, const Options& options) {
    T* ai = a + i * stride_a;
    T* qi = q + i * stride_q;
    // One tile, factored where it lies: Q too (k = m, ldq = m), or R only (k = 0).
    if (m == n && lda == m && ((k == m && ldq == m) || k == 0) && qr_one_tile_in_place(m, ai, k == 0 ? nullptr : qi, options))
      return;
    const std::unique_ptr<Factorization<T>> f = factor_checked(m, n, ai, lda, options);
    f->form_q(k, qi, ldq, executor_of(f->options));
    store_r(*f, ai, lda);
  };
  run_batch(batch, m, n, a, lda, stride_a, opts, one, std::forward<Fill>(fill));
}

template <typename T>
int qr_batch(int64_t batch, int64_t m, int64_t n, T* a, int64_t lda, int64_t stride_a, int64_t k, T* q, int64_t ldq,
             int64_t stride_q, const tiledqr_options* opts) {
  return guarded([&] {
    run_qr_batch(batch, m, n, a, lda, stride_a, k, q, ldq, stride_q, opts);
    return int(TILEDQR_SUCCESS);
  });
}

// qr_batch on R after each A_i (entry (r, c) at a + i·stride_a +
// r·row_stride + c·col_stride) is copied into R_i by the worker that then
// factors it: a stack in any layout (a C-ordered NumPy stack, a transposed
// view) without a serial copy by the caller.
template <typename T>
int qr_batch_strided(int64_t batch, int64_t m, int64_t n, const T* a, int64_t stride_a, int64_t row_stride,
                     int64_t col_stride, T* r, int64_t ldr, int64_t stride_r, int64_t k, T* q, int64_t ldq,
                     int64_t stride_q, const tiledqr_options* opts) {
  return guarded([&] {
    check_batch(batch, m, n, r, ldr, stride_r, "R");
    if (batch > 0 && m > 0 && n > 0 && !a) throw InputError("A is NULL");
    const auto copy = [&](int64_t i) {
      const T* ai = a + i * stride_a;
      T* ri = r + i * stride_r;
      for (int64_t c = 0; c < n; ++c)
        for (int64_t row = 0; row < m; ++row) ri[row + c * ldr] = ai[row * row_stride + c * col_stride];
    };
    run_qr_batch(batch, m, n, r, ldr, stride_r, k, q, ldq, stride_q, opts, copy);
    return int(TILEDQR_SUCCESS);
  });
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
    if (nrhs == 0 || m == 0) return int(TILEDQR_SUCCESS);
    if (transpose) f.apply_qt(b, ldb, nrhs, executor_of(f.options));
    else f.apply_q(b, ldb, nrhs, executor_of(f.options));
    return int(TILEDQR_SUCCESS);
  });
}

// Checks orgqr's arguments for a handle.
template <typename T>
const Factorization<T>& orgqr_factors(int64_t m, int64_t k, const tiledqr_factors* h) {
  const Factorization<T>& f = unwrap<T>(h);
  if (m != f.rows())
    throw InputError("m (" + std::to_string(m) + ") must be the factored matrix's rows (" + std::to_string(f.rows()) +
                     ")");
  if (k < 0 || k > m) throw InputError("k must be in [0, m], got " + std::to_string(k));
  return f;
}

template <typename T>
int orgqr(int64_t m, int64_t k, const tiledqr_factors* h, T* q, int64_t ldq) {
  return guarded([&] {
    const Factorization<T>& f = orgqr_factors<T>(m, k, h);
    check_rhs(m, k, q, ldq, "Q");
    f.form_q(k, q, ldq, executor_of(f.options));
    return int(TILEDQR_SUCCESS);
  });
}

template <typename T>
int orgqr_batch(int64_t batch, int64_t m, int64_t k, tiledqr_factors* const* handles, T* q, int64_t ldq,
                int64_t stride, int threads) {
  return guarded([&] {
    check_batch(batch, m, k, q, ldq, stride, "Q");
    if (batch > 0 && !handles) throw InputError("factors is NULL");
    std::vector<const Factorization<T>*> factors;
    for (int64_t i = 0; i < batch; ++i) factors.push_back(&orgqr_factors<T>(m, k, handles[i]));
    tiledqr_options o{};
    o.threads = threads;
    const int workers = useful_workers(o, double(batch) * qr_work(m, k));
    if (batch >= workers && batch > 1) {
      run_independent(batch, workers, [&](int64_t i) { factors[size_t(i)]->form_q(k, q + i * stride, ldq, run_dag_serial); });
    } else {
      for (int64_t i = 0; i < batch; ++i) {
        Options on_all = factors[size_t(i)]->options;
        on_all.threads = workers;
        factors[size_t(i)]->form_q(k, q + i * stride, ldq, executor_of(on_all));
      }
    }
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
    check_matrix(m, n, a, lda, "A");
    check_least_squares(m, n, nrhs, b, ldb, "B");
    if (m == 0 || n == 0) {
      // LAPACK's quick return: X = 0, B's first max(m, n) rows cleared.
      for (int64_t j = 0; j < nrhs; ++j) std::fill_n(b + j * ldb, std::max(m, n), T(0));
      return int(TILEDQR_SUCCESS);
    }
    if (std::max({m, n, lda, ldb, nrhs}) > std::numeric_limits<int>::max())
      throw InputError("dimensions beyond 2^31 - 1 are not supported by the triangular solve");
    check_finite(b, m, nrhs, ldb, "B");
    const std::unique_ptr<Factorization<T>> f = factor(m, n, a, lda, opts);
    store_r(*f, a, lda);
    if (const int status = rank_status(a, lda + 1, m, n); status != TILEDQR_SUCCESS) return status;
    if (nrhs == 0) return int(TILEDQR_SUCCESS);
    f->apply_qt(b, ldb, nrhs, executor_of(f->options));
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
int tiledqr_dgeqrf_batch(int64_t batch, int64_t m, int64_t n, double* A, int64_t lda, int64_t stride_a,
                         tiledqr_factors** factors, const tiledqr_options* opts) {
  return geqrf_batch(batch, m, n, A, lda, stride_a, factors, opts);
}
int tiledqr_sgeqrf_batch(int64_t batch, int64_t m, int64_t n, float* A, int64_t lda, int64_t stride_a,
                         tiledqr_factors** factors, const tiledqr_options* opts) {
  return geqrf_batch(batch, m, n, A, lda, stride_a, factors, opts);
}
int tiledqr_dqr_batch(int64_t batch, int64_t m, int64_t n, double* A, int64_t lda, int64_t stride_a, int64_t k,
                      double* Q, int64_t ldq, int64_t stride_q, const tiledqr_options* opts) {
  return qr_batch(batch, m, n, A, lda, stride_a, k, Q, ldq, stride_q, opts);
}
int tiledqr_sqr_batch(int64_t batch, int64_t m, int64_t n, float* A, int64_t lda, int64_t stride_a, int64_t k,
                      float* Q, int64_t ldq, int64_t stride_q, const tiledqr_options* opts) {
  return qr_batch(batch, m, n, A, lda, stride_a, k, Q, ldq, stride_q, opts);
}
int tiledqr_dqr_batch_strided(int64_t batch, int64_t m, int64_t n, const double* A, int64_t stride_a,
                              int64_t row_stride, int64_t col_stride, double* R, int64_t ldr, int64_t stride_r,
                              int64_t k, double* Q, int64_t ldq, int64_t stride_q, const tiledqr_options* opts) {
  return qr_batch_strided(batch, m, n, A, stride_a, row_stride, col_stride, R, ldr, stride_r, k, Q, ldq, stride_q,
                          opts);
}
int tiledqr_sqr_batch_strided(int64_t batch, int64_t m, int64_t n, const float* A, int64_t stride_a,
                              int64_t row_stride, int64_t col_stride, float* R, int64_t ldr, int64_t stride_r,
                              int64_t k, float* Q, int64_t ldq, int64_t stride_q, const tiledqr_options* opts) {
  return qr_batch_strided(batch, m, n, A, stride_a, row_stride, col_stride, R, ldr, stride_r, k, Q, ldq, stride_q,
                          opts);
}
int tiledqr_dorgqr_batch(int64_t batch, int64_t m, int64_t k, tiledqr_factors* const* factors, double* Q,
                         int64_t ldq, int64_t stride_q, int threads) {
  return orgqr_batch(batch, m, k, factors, Q, ldq, stride_q, threads);
}
int tiledqr_sorgqr_batch(int64_t batch, int64_t m, int64_t k, tiledqr_factors* const* factors, float* Q,
                         int64_t ldq, int64_t stride_q, int threads) {
  return orgqr_batch(batch, m, k, factors, Q, ldq, stride_q, threads);
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
