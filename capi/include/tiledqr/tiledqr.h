/* tiledqr.h — the C interface of tiledqr: tiled QR factorisation, applying Q,
 * forming Q and least squares on column-major host arrays, in double (d)
 * and single (s) precision, with LAPACK-like names and argument order.
 *
 * Every function returns a tiledqr_status (0 on success) and never throws or
 * aborts; tiledqr_strerror() names a code and tiledqr_last_error() gives the
 * message of this thread's last failed call. Sizes are 64-bit, flags are int,
 * so the header maps one-to-one onto Fortran's bind(C) (integer(c_int64_t),
 * integer(c_int), type(c_ptr)).
 *
 *   tiledqr_factors* f = NULL;
 *   int rc = tiledqr_dgeqrf(m, n, A, lda, &f, NULL);      // R now in A's upper triangle
 *   if (rc == TILEDQR_SUCCESS) rc = tiledqr_dormqr('T', m, nrhs, f, B, ldb);  // B ← Qᵀ B
 *   tiledqr_factors_free(f);
 *
 * The algorithm is the tile QR of Buttari, Langou, Kurzak and Dongarra
 * ("A class of parallel tiled linear algebra algorithms for multicore
 * architectures"), scheduled as tasks on a pool of CPU threads.
 */
#ifndef TILEDQR_TILEDQR_H
#define TILEDQR_TILEDQR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. Negative: the call failed and changed nothing the caller
 * owns except as documented; positive: a numerical outcome the caller must
 * look at (the outputs say which). */
typedef enum tiledqr_status {
  TILEDQR_SUCCESS = 0,
  TILEDQR_RANK_DEFICIENT = 1,        /* *gels: some |r_ii| <= max(m,n)·eps·max_j |r_jj|; X not computed */
  TILEDQR_ERR_INVALID_ARGUMENT = -1, /* a size, leading dimension, option or input value is wrong */
  TILEDQR_ERR_OUT_OF_MEMORY = -2,    /* host or device memory could not be allocated */
  TILEDQR_ERR_NO_GPU = -3,           /* no usable CUDA device, or the GPU part was not built */
  TILEDQR_ERR_GPU = -4,              /* a CUDA call failed (tiledqr_last_error has CUDA's text) */
  TILEDQR_ERR_GPU_ARCH = -5,         /* the library has no kernel image for this GPU's architecture */
  TILEDQR_ERR_STALLED = -6,          /* the GPU task graph stopped making progress and was ended */
  TILEDQR_ERR_INTERNAL = -7          /* anything else: a bug, please report it with the message */
} tiledqr_status;

/* Elimination tree of each panel (tiledqr_options.tree). AUTO: with tile 0,
 * the tree of the measured table (TSQR for a tall matrix, m >= 8n, on
 * several threads); with a tile given, flat, or binary for a tall-skinny
 * matrix that would leave the threads idle. TSQR (CPU only) uses no tiles:
 * one row block per thread, each factored whole by LAPACK's blocked QR,
 * their R factors merged by a tree of fan-in 4; the same bits from run to
 * run for a given thread count (other than the tile trees' bits). */
enum {
  TILEDQR_TREE_AUTO = 0,
  TILEDQR_TREE_FLAT = 1,
  TILEDQR_TREE_BINARY = 2,
  TILEDQR_TREE_GREEDY = 3,
  TILEDQR_TREE_TSQR = 4
};

/* Tile kernels (tiledqr_options.backend): LAPACK's own tile routines
 * (dgeqrt, dgemqrt, dtpqrt, dtpmqrt), or the project's reference loops. */
enum { TILEDQR_BACKEND_LAPACK = 0, TILEDQR_BACKEND_REFERENCE = 1 };

/* Options; all zeros (or a NULL pointer) means the defaults. */
typedef struct tiledqr_options {
  int tile;        /* b, the tile size; 0: chosen with the inner block and (tree AUTO) the tree from m, n and
                      the threads (CPU) or the precision and GPU (GPU functions), by tables measured on
                      each; on the CPU a larger tile than min(m, n) is cut to it; the GPU functions run
                      32, 64, 128 or 256 */
  int inner_block; /* ib of the T factors (LAPACK backend; GPU tiles of 64 and more: 16, 32 or 64), at most
                      the tile; 0: chosen with the tile (tile 0), else min(tile, 32) */
  int tree;        /* TILEDQR_TREE_* */
  int threads;     /* CPU worker threads, cut to the CPUs this process may run on; 0: every such CPU, fewer
                      for a small problem (one per 2^20 multiply-adds, m·n·min(m, n) a matrix) */
  int backend;     /* TILEDQR_BACKEND_* (CPU only) */
} tiledqr_options;

/* The reflectors and T factors of one factorisation (opaque). */
typedef struct tiledqr_factors tiledqr_factors;

/* A (m, n), column-major, lda >= max(1, m), m, n >= 0, finite entries. On
 * success A holds R (min(m, n), n) on and above its diagonal and zeros below
 * it, and *factors a new handle (free it with tiledqr_factors_free); on
 * failure A is unchanged and *factors is NULL. factors may be NULL when only
 * R is wanted. m = 0 or n = 0 returns at once, as LAPACK's: A (which may
 * then be NULL) is not touched and the handle's Q is the identity. */
int tiledqr_dgeqrf(int64_t m, int64_t n, double* A, int64_t lda, tiledqr_factors** factors,
                   const tiledqr_options* opts);
int tiledqr_sgeqrf(int64_t m, int64_t n, float* A, int64_t lda, tiledqr_factors** factors,
                   const tiledqr_options* opts);

/* A batch of matrices A_i (m, n), i = 0 … batch-1, each column-major with
 * leading dimension lda at A + i*stride_a (stride_a >= lda*n), factored as
 * by *geqrf, in parallel: with at least as many matrices as threads each
 * matrix runs on one thread (the tile chosen for one thread), otherwise
 * the matrices run one after the other on all threads. factors: NULL, or
 * an array of batch handles to fill. Every matrix is checked before any is
 * factored; on failure no handle is returned (all NULL) and, if the
 * failure came after the checks (memory), some matrices may hold R. */
int tiledqr_dgeqrf_batch(int64_t batch, int64_t m, int64_t n, double* A, int64_t lda, int64_t stride_a,
                         tiledqr_factors** factors, const tiledqr_options* opts);
int tiledqr_sgeqrf_batch(int64_t batch, int64_t m, int64_t n, float* A, int64_t lda, int64_t stride_a,
                         tiledqr_factors** factors, const tiledqr_options* opts);

/* B (m, nrhs), column-major, ldb >= max(1, m), with m the factored matrix's rows:
 * B <- Q^T B (trans 'T' or 'C') or B <- Q B (trans 'N'). Left side only. */
int tiledqr_dormqr(char trans, int64_t m, int64_t nrhs, const tiledqr_factors* factors, double* B, int64_t ldb);
int tiledqr_sormqr(char trans, int64_t m, int64_t nrhs, const tiledqr_factors* factors, float* B, int64_t ldb);

/* Q (m, k): the first k columns of the (m, m) orthogonal factor, 0 <= k <= m,
 * ldq >= max(1, m). k = min(m, n) is the thin Q, k = m the complete one.
 * Applying Q and forming it run as task graphs on the threads the
 * factorisation ran on. */
int tiledqr_dorgqr(int64_t m, int64_t k, const tiledqr_factors* factors, double* Q, int64_t ldq);
int tiledqr_sorgqr(int64_t m, int64_t k, const tiledqr_factors* factors, float* Q, int64_t ldq);

/* Q_i (m, k) at Q + i*stride_q (stride_q >= ldq*k) from factors[i], i = 0 …
 * batch-1, as by *orgqr, in parallel on `threads` threads (as
 * tiledqr_options.threads), each handle on one thread when there are at
 * least as many handles as threads. */
int tiledqr_dorgqr_batch(int64_t batch, int64_t m, int64_t k, tiledqr_factors* const* factors, double* Q,
                         int64_t ldq, int64_t stride_q, int threads);
int tiledqr_sorgqr_batch(int64_t batch, int64_t m, int64_t k, tiledqr_factors* const* factors, float* Q,
                         int64_t ldq, int64_t stride_q, int threads);

/* *geqrf_batch and *orgqr_batch in one call, without handles: A_i (m, n) <-
 * R_i and Q_i (m, k) at Q + i*stride_q (ldq >= max(1, m), stride_q >=
 * ldq*k) <- the first k columns of A_i's Q, 0 <= k <= m; each matrix's Q
 * formed right after its factorisation. The same results, bit for bit, as
 * the two calls; a square matrix that is one tile (lda = ldq = m = n = k)
 * is factored in place, without copying it into a tile. Every matrix is
 * checked before any is factored. */
int tiledqr_dqr_batch(int64_t batch, int64_t m, int64_t n, double* A, int64_t lda, int64_t stride_a, int64_t k,
                      double* Q, int64_t ldq, int64_t stride_q, const tiledqr_options* opts);
int tiledqr_sqr_batch(int64_t batch, int64_t m, int64_t n, float* A, int64_t lda, int64_t stride_a, int64_t k,
                      float* Q, int64_t ldq, int64_t stride_q, const tiledqr_options* opts);

/* *qr_batch on matrices read where they lie, in any layout: entry (r, c)
 * of A_i (m, n) at A + i*stride_a + r*row_stride + c*col_stride (strides in
 * elements, of either sign; a C-ordered stack has row_stride = n,
 * col_stride = 1). A is only read. R_i, at R + i*stride_r (column-major,
 * ldr >= max(1, m), stride_r >= ldr*n), <- A_i's R with zeros below the
 * diagonal, and Q_i as *qr_batch's: the same bits as copying A_i into R_i
 * and calling *qr_batch on R. Each matrix is copied by the thread that then
 * factors it. */
int tiledqr_dqr_batch_strided(int64_t batch, int64_t m, int64_t n, const double* A, int64_t stride_a,
                              int64_t row_stride, int64_t col_stride, double* R, int64_t ldr, int64_t stride_r,
                              int64_t k, double* Q, int64_t ldq, int64_t stride_q, const tiledqr_options* opts);
int tiledqr_sqr_batch_strided(int64_t batch, int64_t m, int64_t n, const float* A, int64_t stride_a,
                              int64_t row_stride, int64_t col_stride, float* R, int64_t ldr, int64_t stride_r,
                              int64_t k, float* Q, int64_t ldq, int64_t stride_q, const tiledqr_options* opts);

/* Least squares X = argmin ||A X - B||_F for A (m, n), m >= n, and B (m, nrhs),
 * ldb >= max(1, m, n). On success A holds R as after *geqrf and B's first n
 * rows hold X. When some |r_ii| <= max(m, n)·eps·max_j |r_jj| the matrix is
 * treated as rank-deficient: TILEDQR_RANK_DEFICIENT is returned, A holds R
 * and B is unchanged. m = 0 or n = 0 returns at once with B's first
 * max(m, n) rows set to zero (X = 0), as LAPACK's ?gels. */
int tiledqr_dgels(int64_t m, int64_t n, int64_t nrhs, double* A, int64_t lda, double* B, int64_t ldb,
                  const tiledqr_options* opts);
int tiledqr_sgels(int64_t m, int64_t n, int64_t nrhs, float* A, int64_t lda, float* B, int64_t ldb,
                  const tiledqr_options* opts);

/* The factored matrix's shape; 0 for a NULL handle. */
int64_t tiledqr_factors_rows(const tiledqr_factors* factors);
int64_t tiledqr_factors_cols(const tiledqr_factors* factors);

/* Frees a handle; NULL is allowed. */
void tiledqr_factors_free(tiledqr_factors* factors);

/* "invalid argument", ... for a tiledqr_status; never NULL. */
const char* tiledqr_strerror(int status);
/* The message of this thread's last call that did not return
 * TILEDQR_SUCCESS ("" if none), valid until this thread's next call. */
const char* tiledqr_last_error(void);
/* The library's version, "major.minor.patch". */
const char* tiledqr_version(void);

#ifdef __cplusplus
}
#endif

#endif /* TILEDQR_TILEDQR_H */
