// What the LAPACK-backed kernels share (one kernel per file beside it):
// the BLAS/LAPACK entry points by precision, per-thread workspace, argument
// checks and the gemm-based application of one compact-WY block.
#pragma once

#include "kernels/lapack/lapack_kernels.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tiledqr::lapack_kernels::detail {

// ------------------------------------------------------------ BLAS/LAPACK

// The few BLAS/LAPACK entry points used, by precision. None of them takes
// OpenBLAS's buffer lock (see the header): ?gemm only no-transpose and
// within the small-matrix volume, ?gemv/?ger/?larfg/?geqr2 never.
template <typename T>
struct Blas {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "double or float");
  static constexpr bool dp = std::is_same_v<T, double>;

  // C (m, n) = alpha A (m, k) B (k, n) + beta C.
  static void gemm(int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
                   int ldc) {
    if constexpr (dp)
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  // y (n) = A (m, n)ᵀ x (m).
  static void gemv_t(int m, int n, const T* a, int lda, const T* x, T* y) {
    if constexpr (dp) cblas_dgemv(CblasColMajor, CblasTrans, m, n, 1.0, a, lda, x, 1, 0.0, y, 1);
    else cblas_sgemv(CblasColMajor, CblasTrans, m, n, 1.0f, a, lda, x, 1, 0.0f, y, 1);
  }
  // A (m, n) += alpha x yᵀ.
  static void ger(int m, int n, T alpha, const T* x, const T* y, T* a, int lda) {
    if constexpr (dp) cblas_dger(CblasColMajor, m, n, alpha, x, 1, y, 1, a, lda);
    else cblas_sger(CblasColMajor, m, n, alpha, x, 1, y, 1, a, lda);
  }
  // The reflector H = I − tau [1; v][1; v]ᵀ with H [alpha; x] = [beta; 0].
  static void larfg(int n, T* alpha, T* x, T* tau) {
    if constexpr (dp) LAPACKE_dlarfg_work(n, alpha, x, 1, tau);
    else LAPACKE_slarfg_work(n, alpha, x, 1, tau);
  }
  // Unblocked QR of A (m, n); work (n).
  static lapack_int geqr2(int m, int n, T* a, int lda, T* tau, T* work) {
    if constexpr (dp) return LAPACKE_dgeqr2_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work);
    else return LAPACKE_sgeqr2_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work);
  }
};

// OpenBLAS (0.3.21 to 0.3.26 on AVX-512 cores) runs a no-transpose gemm with
// m·n·k ≤ 100³ through its small-matrix kernel, without the buffer lock;
// larger products are split by columns to stay below it.
inline constexpr double kSmallGemmVolume = 100.0 * 100.0 * 100.0;

// ------------------------------------------------------------ workspace

// Each thread's buffers, grown on demand and kept for its next call.
template <typename T>
struct Scratch {
  std::vector<T> v;      // the rows of the block's V that cross its triangle
  std::vector<T> vt;     // Vᵀ of the block, (kb, rows)
  std::vector<T> t;      // op(T) of the block, (kb, kb)
  std::vector<T> w;      // Vᵀ C, (kb, chunk)
  std::vector<T> w2;     // op(T) Vᵀ C, (kb, chunk)
  std::vector<T> vec;    // tau / gemv results, (n)
  std::vector<T> work;   // ?geqr2's work, (kb)
};

template <typename T>
Scratch<T>& scratch() {
  thread_local Scratch<T> buffers;
  return buffers;
}

template <typename T>
T* sized(std::vector<T>& buffer, size_t elements) {
  if (buffer.size() < elements) buffer.resize(elements);
  return buffer.data();
}

[[noreturn]] inline void bad_argument(const char* routine, const char* name, int value) {
  throw std::logic_error(std::string(routine) + ": invalid argument " + name + " = " +
                         std::to_string(value));
}

inline void require(bool ok, const char* routine, const char* name, int value) {
  if (!ok) bad_argument(routine, name, value);
}

// ------------------------------------------------------------ block apply

// Rows [begin, begin + rows) of a block's V, stored at `data` (ld `ld`).
template <typename T>
struct VRows {
  const T* data = nullptr;
  int ld = 0, begin = 0, rows = 0;
};

// One block of kb reflectors, V (rows, kb), laid out for the gemm calls.
// V's rows split in two: a plain rectangle of the caller's matrix, used
// where it lies (`rect`), and the rows that cross the block's triangle,
// copied with their explicit zeros and ones (`tri`, ld tri.rows). All of Vᵀ
// is copied into `vt` (kb, rows; ld kb), op(T) into `t_op` (kb, kb; ld kb).
template <typename T>
struct Block {
  int rows = 0, kb = 0;
  VRows<T> rect, tri;
  const T* vt = nullptr;
  const T* t_op = nullptr;
};

// op(T) of one block into `out` (kb, kb; ld kb): the upper triangle of t
// (ld ldt), transposed when `transpose`, with zeros elsewhere (LAPACK leaves
// the lower part of T unspecified).
template <typename T>
void load_t(int kb, const T* t, int ldt, bool transpose, T* out) {
  std::fill_n(out, size_t(kb) * kb, T(0));
  for (int c = 0; c < kb; ++c)
    for (int r = 0; r <= c; ++r) {
      if (transpose) out[c + size_t(r) * kb] = t[r + size_t(c) * ldt];
      else out[r + size_t(c) * kb] = t[r + size_t(c) * ldt];
    }
}

// Block i0 of a geqrt V (m, k): rows i0.. of columns i0..i0+kb, unit lower
// trapezoidal; `v` points at (i0, i0). Its triangle is the first kb rows.
template <typename T>
Block<T> load_geqrt_block(int rows, int kb, const T* v, int ldv, const T* t, int ldt,
                          bool transpose) {
  Scratch<T>& s = scratch<T>();
  T* tri = sized(s.v, size_t(kb) * kb);
  T* vt = sized(s.vt, size_t(rows) * kb);
  T* t_op = sized(s.t, size_t(kb) * kb);
  for (int c = 0; c < kb; ++c) {
    const T* col = v + size_t(c) * ldv;
    T* tri_col = tri + size_t(c) * kb;
    for (int r = 0; r < c; ++r) {
      tri_col[r] = T(0);
      vt[c + size_t(r) * kb] = T(0);
    }
    tri_col[c] = T(1);
    vt[c + size_t(c) * kb] = T(1);
    for (int r = c + 1; r < kb; ++r) tri_col[r] = col[r];
    for (int r = c + 1; r < rows; ++r) vt[c + size_t(r) * kb] = col[r];
  }
  load_t(kb, t, ldt, transpose, t_op);
  const VRows<T> rect{v + kb, ldv, kb, rows - kb}, triangle{tri, kb, 0, kb};
  return Block<T>{rows, kb, rect, triangle, vt, t_op};
}

// Block i0 of a tpqrt V (m, k) whose last l rows are upper trapezoidal:
// column i0 + c is nonzero in rows r ≤ m − l + i0 + c only, so the block
// reaches rows [0, rows), rows = min(m − l + i0 + kb, m) (?tpmqrt's MB);
// the rows up to `last` = m − l + i0 are a full rectangle. `v` points at
// (0, i0).
template <typename T>
Block<T> load_tp_block(int m, int l, int i0, int kb, const T* v, int ldv, const T* t, int ldt,
                       bool transpose) {
  Scratch<T>& s = scratch<T>();
  const int rows = std::min(m - l + i0 + kb, m);
  const int last = m - l + i0;
  const int rect_rows = std::min(rows, last + 1);
  const int tri_rows = rows - rect_rows;
  T* tri = sized(s.v, size_t(std::max(tri_rows, 1)) * kb);
  T* vt = sized(s.vt, size_t(rows) * kb);
  T* t_op = sized(s.t, size_t(kb) * kb);
  for (int c = 0; c < kb; ++c) {
    const T* col = v + size_t(c) * ldv;
    const int kept = std::min(rows, last + c + 1);  // rows of this column
    for (int r = 0; r < rows; ++r) vt[c + size_t(r) * kb] = r < kept ? col[r] : T(0);
    T* tri_col = tri + size_t(c) * tri_rows;
    for (int r = rect_rows; r < rows; ++r) tri_col[r - rect_rows] = r < kept ? col[r] : T(0);
  }
  load_t(kb, t, ldt, transpose, t_op);
  const VRows<T> rect{v, ldv, 0, rect_rows}, triangle{tri, tri_rows, rect_rows, tri_rows};
  return Block<T>{rows, kb, rect, triangle, vt, t_op};
}

// Columns per gemm call: as many as keep kb·rows·columns within the
// small-matrix volume, spread evenly over the pieces n needs.
inline int column_chunk(int n, int kb, int rows) {
  const double per_column = double(kb) * double(std::max(rows, kb));
  const int most = std::max(1, int(kSmallGemmVolume / per_column));
  const int pieces = (n + most - 1) / most;
  return (n + pieces - 1) / pieces;
}

// Applies I − V op(T) Vᵀ (the block `v`) to [top (kb, n); c (rows, n)].
// `top` is null where V holds its identity rows itself (gemqrt); for tpmqrt
// it is the kb rows of A the block's reflectors reach.
//   W = top + Vᵀ C;  W = op(T) W;  top −= W;  C −= V W.
template <typename T>
void apply_block(const Block<T>& v, int n, T* top, int ldtop, T* c, int ldc) {
  if (n == 0) return;
  Scratch<T>& s = scratch<T>();
  const int kb = v.kb;
  const int chunk = column_chunk(n, kb, v.rows);
  T* w = sized(s.w, size_t(kb) * chunk);
  T* w2 = sized(s.w2, size_t(kb) * chunk);
  for (int j0 = 0; j0 < n; j0 += chunk) {
    const int nc = std::min(chunk, n - j0);
    T* cj = c + size_t(j0) * ldc;
    T beta = T(0);
    if (top != nullptr) {
      for (int j = 0; j < nc; ++j)
        std::copy_n(top + size_t(j0 + j) * ldtop, kb, w + size_t(j) * kb);
      beta = T(1);
    }
    Blas<T>::gemm(kb, nc, v.rows, T(1), v.vt, kb, cj, ldc, beta, w, kb);
    Blas<T>::gemm(kb, nc, kb, T(1), v.t_op, kb, w, kb, T(0), w2, kb);
    if (top != nullptr)
      for (int j = 0; j < nc; ++j) {
        T* row = top + size_t(j0 + j) * ldtop;
        const T* sub = w2 + size_t(j) * kb;
        for (int i = 0; i < kb; ++i) row[i] -= sub[i];
      }
    for (const VRows<T>& part : {v.rect, v.tri})
      if (part.rows > 0)
        Blas<T>::gemm(part.rows, nc, kb, T(-1), part.data, part.ld, w2, kb, T(1), cj + part.begin, ldc);
  }
}

// Block i0 (kb reflectors) of a geqrt V (m, k) applied to C (m, n).
template <typename T>
void apply_geqrt_block(bool transpose, int m, int n, int i0, int kb, const T* v, int ldv,
                       const T* t, int ldt, T* c, int ldc) {
  const Block<T> block = load_geqrt_block(m - i0, kb, v + i0 + size_t(i0) * ldv, ldv,
                                          t + size_t(i0) * ldt, ldt, transpose);
  apply_block(block, n, static_cast<T*>(nullptr), 0, c + i0, ldc);
}

// Block i0 of a tpqrt V applied to [A (rows i0..i0+kb of a, n); B (m, n)].
template <typename T>
void apply_tp_block(bool transpose, int m, int n, int l, int i0, int kb, const T* v, int ldv,
                    const T* t, int ldt, T* a, int lda, T* b, int ldb) {
  const Block<T> block = load_tp_block(m, l, i0, kb, v + size_t(i0) * ldv, ldv,
                                       t + size_t(i0) * ldt, ldt, transpose);
  apply_block(block, n, a + i0, lda, b, ldb);
}

// Column j of T for reflectors 0..j of a block, given τ_j and
// z = (Vᵀ v_j)[0, j): T(0:j, j) = −τ_j T(0:j, 0:j) z, T(j, j) = τ_j.
// τ_j = 0 (an identity reflector) gives a zero column, never 0·Inf.
template <typename T>
void t_column(int j, T tau, const T* z, T* t, int ldt) {
  T* col = t + size_t(j) * ldt;
  for (int i = 0; i < j; ++i) {
    if (tau == T(0)) {
      col[i] = T(0);
      continue;
    }
    T sum = T(0);
    for (int p = i; p < j; ++p) sum += t[i + size_t(p) * ldt] * z[p];
    col[i] = -tau * sum;
  }
  col[j] = tau;
}

}  // namespace tiledqr::lapack_kernels::detail
