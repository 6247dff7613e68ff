#include "factorization.hpp"

#include <algorithm>
#include <string>

#include "elimination_tree.hpp"
#include "errors.hpp"
#include "kernels/geqrt.hpp"
#include "kernels/ormqr.hpp"
#include "kernels/tsmqr.hpp"
#include "kernels/tsqrt.hpp"
#include "kernels/ttmqr.hpp"
#include "kernels/ttqrt.hpp"
#include "lapack_kernels.hpp"

namespace tiledqr {

template <typename T>
Factorization<T>::Factorization(const T* a, int64_t m, int64_t n, int64_t lda, const Options& opts)
    : options(opts) {
  if (m < 1 || n < 1) throw InputError("matrix must be at least 1x1");
  if (lda < m) throw InputError("lda must be >= m");
  if (opts.tile < 1) throw InputError("tile size must be >= 1");
  if (opts.inner_block < 0) throw InputError("inner block must be >= 0");
  tiles = TileMatrix<T>::from_colmajor(a, m, n, lda, opts.tile);
  t_local.assign(checked_elements({local_block_count(), ib(), tiles.b}, sizeof(T), "T factors"), T(0));
  t_merge.assign(checked_elements({merge_block_count(), ib(), tiles.b}, sizeof(T), "T factors"), T(0));
}

namespace {

// Tiles (i, k) with i ≥ k + offset in the panels before k, packed column
// by column: Σ_{c<k} (p − c − offset).
int64_t packed_panel_start(int64_t p, int64_t k, int64_t offset) {
  return k * (p - offset) - k * (k - 1) / 2;
}

}  // namespace

template <typename T>
int64_t Factorization<T>::local_block(int64_t i, int64_t k) const {
  if (options.tree == Tree::flat) return k;
  return packed_panel_start(tiles.p, k, 0) + (i - k);
}

template <typename T>
int64_t Factorization<T>::merge_block(int64_t i, int64_t k) const {
  return packed_panel_start(tiles.p, k, 1) + (i - k - 1);
}

template <typename T>
int64_t Factorization<T>::local_block_count() const {
  const int64_t panels = std::min(tiles.p, tiles.q);
  return options.tree == Tree::flat ? panels : packed_panel_start(tiles.p, panels, 0);
}

template <typename T>
int64_t Factorization<T>::merge_block_count() const {
  return packed_panel_start(tiles.p, std::min(tiles.p, tiles.q), 1);
}

template <typename T>
void Factorization<T>::run_task(const Task& t) {
  const int b = tiles.b;
  const int nb = ib();
  const bool reference = options.backend == Backend::reference;
  T* v = tiles.tile(t.i, t.k);
  switch (t.kind) {
    case TaskKind::geqrt:
      if (reference) kernels::geqrt(b, b, v, b, t_local_tile(t.i, t.k));
      else lapack_kernels::geqrt(b, b, nb, v, b, t_local_tile(t.i, t.k), nb);
      break;
    case TaskKind::ormqr:
      if (reference)
        kernels::ormqr(true, b, b, b, v, b, t_local_tile(t.i, t.k), tiles.tile(t.i, t.j), b);
      else
        lapack_kernels::gemqrt(true, b, b, b, nb, v, b, t_local_tile(t.i, t.k), nb,
                               tiles.tile(t.i, t.j), b);
      break;
    case TaskKind::tsqrt:
    case TaskKind::ttqrt: {
      const bool triangle = t.kind == TaskKind::ttqrt;
      T* top = tiles.tile(t.piv, t.k);
      if (reference && triangle) kernels::ttqrt(b, b, top, b, v, b, t_merge_tile(t.i, t.k));
      else if (reference) kernels::tsqrt(b, b, top, b, v, b, t_merge_tile(t.i, t.k));
      else lapack_kernels::tpqrt(b, b, triangle ? b : 0, nb, top, b, v, b, t_merge_tile(t.i, t.k), nb);
      break;
    }
    case TaskKind::tsmqr:
    case TaskKind::ttmqr: {
      const bool triangle = t.kind == TaskKind::ttmqr;
      T* top = tiles.tile(t.piv, t.j);
      T* bottom = tiles.tile(t.i, t.j);
      const T* tm = t_merge_tile(t.i, t.k);
      if (reference && triangle) kernels::ttmqr(true, b, b, b, v, b, tm, top, b, bottom, b);
      else if (reference) kernels::tsmqr(true, b, b, b, v, b, tm, top, b, bottom, b);
      else lapack_kernels::tpmqrt(true, b, b, b, triangle ? b : 0, nb, v, b, tm, nb, top, b, bottom, b);
      break;
    }
  }
}

template <typename T>
void Factorization<T>::apply_panel(int32_t k, bool transpose, T* c, int64_t ldc,
                                   int64_t nrhs) const {
  const int b = tiles.b;
  const int nb = ib();
  const int n = static_cast<int>(nrhs);
  const int ld = static_cast<int>(ldc);
  const bool reference = options.backend == Backend::reference;
  std::vector<Elimination> plan = panel_eliminations(tiles.p, k, options.tree, options.tree_domains, options.inner_tree);
  if (!transpose) std::reverse(plan.begin(), plan.end());
  for (const Elimination& e : plan) {
    const T* v = tiles.tile(e.i, k);
    T* row = c + int64_t(e.i) * b;
    if (e.kind == TaskKind::geqrt) {
      if (reference) kernels::ormqr(transpose, b, n, b, v, b, t_local_tile(e.i, k), row, ld);
      else lapack_kernels::gemqrt(transpose, b, n, b, nb, v, b, t_local_tile(e.i, k), nb, row, ld);
      continue;
    }
    const bool triangle = e.kind == TaskKind::ttqrt;
    T* top = c + int64_t(e.piv) * b;
    const T* tm = t_merge_tile(e.i, k);
    if (reference && triangle) kernels::ttmqr(transpose, b, n, b, v, b, tm, top, ld, row, ld);
    else if (reference) kernels::tsmqr(transpose, b, n, b, v, b, tm, top, ld, row, ld);
    else lapack_kernels::tpmqrt(transpose, b, n, b, triangle ? b : 0, nb, v, b, tm, nb, top, ld, row, ld);
  }
}

namespace {

// Copies B (m, nrhs) into a zero-padded (p·b, nrhs) buffer, ld = p·b.
template <typename T>
std::vector<T> padded_copy(const T* b, int64_t ldb, int64_t m, int64_t padded_rows, int64_t nrhs) {
  std::vector<T> c(checked_elements({padded_rows, nrhs}, sizeof(T), "right-hand side"), T(0));
  for (int64_t j = 0; j < nrhs; ++j) std::copy_n(b + j * ldb, m, c.data() + j * padded_rows);
  return c;
}

template <typename T>
void copy_back(const std::vector<T>& c, int64_t padded_rows, T* b, int64_t ldb, int64_t m,
               int64_t nrhs) {
  for (int64_t j = 0; j < nrhs; ++j) std::copy_n(c.data() + j * padded_rows, m, b + j * ldb);
}

void check_rhs(int64_t m, int64_t ldb, int64_t nrhs) {
  if (nrhs < 0) throw InputError("number of right-hand sides must be >= 0");
  if (ldb < m) throw InputError("ldb must be >= m");
}

}  // namespace

template <typename T>
void Factorization<T>::apply_qt(T* b, int64_t ldb, int64_t nrhs) const {
  check_rhs(rows(), ldb, nrhs);
  if (nrhs == 0) return;
  const int64_t padded_rows = int64_t(tiles.p) * tiles.b;
  std::vector<T> c = padded_copy(b, ldb, rows(), padded_rows, nrhs);
  const int32_t steps = std::min(tiles.p, tiles.q);
  for (int32_t k = 0; k < steps; ++k) apply_panel(k, true, c.data(), padded_rows, nrhs);
  copy_back(c, padded_rows, b, ldb, rows(), nrhs);
}

template <typename T>
void Factorization<T>::apply_q(T* b, int64_t ldb, int64_t nrhs) const {
  check_rhs(rows(), ldb, nrhs);
  if (nrhs == 0) return;
  const int64_t padded_rows = int64_t(tiles.p) * tiles.b;
  std::vector<T> c = padded_copy(b, ldb, rows(), padded_rows, nrhs);
  const int32_t steps = std::min(tiles.p, tiles.q);
  for (int32_t k = steps - 1; k >= 0; --k) apply_panel(k, false, c.data(), padded_rows, nrhs);
  copy_back(c, padded_rows, b, ldb, rows(), nrhs);
}

template <typename T>
DenseMatrix<T> Factorization<T>::r() const {
  const int64_t k = std::min(rows(), cols());
  DenseMatrix<T> r(k, cols());
  const int b = tiles.b;
  for (int64_t j = 0; j < cols(); ++j) {
    const int64_t last = std::min(j, k - 1);
    for (int64_t i = 0; i <= last; ++i)
      r(i, j) = tiles.tile(i / b, j / b)[(i % b) + (j % b) * b];
  }
  return r;
}

template <typename T>
DenseMatrix<T> Factorization<T>::thin_q() const {
  const int64_t k = std::min(rows(), cols());
  DenseMatrix<T> q(rows(), k);
  for (int64_t j = 0; j < k; ++j) q(j, j) = T(1);
  apply_q(q.data.data(), q.ld(), k);
  return q;
}

template <typename T>
DenseMatrix<T> Factorization<T>::solve(const T* b, int64_t ldb, int64_t nrhs) const {
  const int64_t m = rows(), n = cols();
  if (m < n)
    throw InputError("solve needs m >= n (least squares); got " + std::to_string(m) + "x" +
                     std::to_string(n));
  check_rhs(m, ldb, nrhs);
  DenseMatrix<T> y(m, nrhs);
  for (int64_t j = 0; j < nrhs; ++j) std::copy_n(b + j * ldb, m, y.data.data() + j * m);
  apply_qt(y.data.data(), y.ld(), nrhs);
  const DenseMatrix<T> r_factor = r();
  for (int64_t i = 0; i < n; ++i)
    if (r_factor(i, i) == T(0))
      throw InputError("solve: matrix is rank-deficient (R(" + std::to_string(i + 1) + "," +
                       std::to_string(i + 1) + ") = 0)");
  DenseMatrix<T> x(n, nrhs);
  for (int64_t c = 0; c < nrhs; ++c) {
    for (int64_t i = n - 1; i >= 0; --i) {
      T sum = y(i, c);
      for (int64_t l = i + 1; l < n; ++l) sum -= r_factor(i, l) * x(l, c);
      x(i, c) = sum / r_factor(i, i);
    }
  }
  return x;
}

template struct Factorization<float>;
template struct Factorization<double>;

}  // namespace tiledqr
