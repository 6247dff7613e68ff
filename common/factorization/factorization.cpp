// Factorization's calls on the host: R, applying Q or Qᵀ as a task graph, forming Q, least squares; see factorization.hpp.
#include "factorization.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "elimination_tree.hpp"
#include "errors.hpp"
#include "huge_pages.hpp"
#include "kernels/host_binding.hpp"
#include "kernels/small/small_kernels.hpp"
#include "overflow_scaling.hpp"

namespace tiledqr {

namespace {

// The tiles' overflow limit: reflectors over the p·b rows of a tile column,
// products b wide.
template <typename T>
double tile_overflow_limit(int64_t p, int64_t b) {
  return overflow_limit<T>(double(p) * double(b), double(b));
}

// Scales the tiles by 2^−s when their largest entry exceeds the limit and
// returns s (0 otherwise, the tiles untouched).
template <typename T>
int scale_below_overflow(TileMatrix<T>& tiles) {
  const T largest = largest_magnitude(tiles.data.data(), tiles.data.size());
  const int s = exponent_below(double(largest), tile_overflow_limit<T>(tiles.p, tiles.b));
  if (s != 0)
    for (T& x : tiles.data) x = std::ldexp(x, -s);
  return s;
}

}  // namespace

template <typename T>
Factorization<T>::Factorization(const T* a, int64_t m, int64_t n, int64_t lda, const Options& opts)
    : options(opts) {
  if (m < 1 || n < 1) throw InputError("matrix must be at least 1x1");
  if (lda < m) throw InputError("lda must be >= m");
  if (opts.tile < 1) throw InputError("tile size must be >= 1");
  if (opts.inner_block < 0) throw InputError("inner block must be >= 0");
  if (int64_t(opts.tile) * opts.tile > std::numeric_limits<int32_t>::max())
    throw InputError("tile size " + std::to_string(opts.tile) + " is too large: a tile's " +
                     std::to_string(int64_t(opts.tile) * opts.tile) +
                     " elements exceed the kernels' 32-bit indices (at most 46340)");
  if (is_tsqr()) {
    tiles.m = m;
    tiles.n = n;
    tiles.b = opts.tile;
    tsqr = TsqrFactors<T>(a, m, n, lda, opts.tree_domains, ib(), opts.fan_in, opts.backend == Backend::reference);
    return;
  }
  tiles = TileMatrix<T>::from_colmajor(a, m, n, lda, opts.tile);
  scale_exponent = scale_below_overflow(tiles);
  one_tile_kernels = opts.backend == Backend::lapack && m == opts.tile && n == opts.tile;
  const size_t local_elements = checked_elements({local_block_count(), ib(), tiles.b}, sizeof(T), "T factors");
  const size_t merge_elements = checked_elements({merge_block_count(), ib(), tiles.b}, sizeof(T), "T factors");
  reserve_with_huge_pages(t_local, local_elements);
  reserve_with_huge_pages(t_merge, merge_elements);
  t_local.assign(local_elements, T(0));
  t_merge.assign(merge_elements, T(0));
}

template <typename T>
void Factorization<T>::load(const T* a, int64_t lda) {
  const int64_t m = tiles.m, n = tiles.n;
  if (m < 1 || n < 1) throw InputError("load: the factorisation holds no matrix");
  if (lda < m) throw InputError("lda must be >= m");
  trace.clear();
  device_seconds = 0;
  scale_exponent = 0;
  if (is_tsqr()) {
    tsqr = TsqrFactors<T>(a, m, n, lda, options.tree_domains, ib(), options.fan_in,
                          options.backend == Backend::reference);
    return;
  }
  tiles.load_colmajor(a, lda);
  scale_exponent = scale_below_overflow(tiles);
  std::fill(t_local.begin(), t_local.end(), T(0));
  std::fill(t_merge.begin(), t_merge.end(), T(0));
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
Dag Factorization<T>::factor_dag() const {
  if (is_tsqr()) return tsqr.factor_dag();
  return build_qr_dag(tiles.p, tiles.q, options.tree, options.tree_domains, options.inner_tree);
}

template <typename T>
void Factorization<T>::run_task(const Task& t) {
  if (is_tsqr()) {
    tsqr.run_task(t);
    // Only the tasks that write block 0's triangle change R's exponent;
    // the DAG orders them, so no other task reads or writes it meanwhile.
    if (t.i == 0 || t.piv == 0) scale_exponent = tsqr.scale[0];
    return;
  }
  const int b = tiles.b;
  if (one_tile_kernels) {  // the one task: geqrt(0, 0)
    small_kernels::geqr2(b, b, tiles.tile(0, 0), b, t_local_tile(0, 0));
    return;
  }
  const bool merge = !(t.kind == TaskKind::geqrt || t.kind == TaskKind::ormqr);
  const kernels::HostOperands<T> o{b, ib(), b, tiles.tile(t.i, t.k),
                                   merge ? t_merge_tile(t.i, t.k) : t_local_tile(t.i, t.k),
                                   tiles.tile(t.piv, is_factorization(t.kind) ? t.k : t.j), b,
                                   tiles.tile(t.i, t.j), b};
  kernels::run_host_kernel(t.kind, options.backend == Backend::reference, true, o);
}

namespace {

// Tile column k of the identity while panel k's Q is applied (?orgqr):
// column c of the tile is nonzero only in rows before the end of its own
// inner block, in every tile, and the reflectors of a block starting at
// i0 > c touch rows from i0 on (ormqr, ttmqr's triangle, tsmqr's top
// tile) or a bottom tile that is still zero (tsmqr: in every tree a tile
// row is merged away once per panel, and in Q's reverse order that merge
// is its first update). So block i0 changes columns i0… only: for the
// others W = Vᵀ C is exactly 0. Applied to those alone it does ?orgqr's
// flops (the columns it changes may round differently in the last bit
// from a call on the whole tile: BLAS blocks by the width). Here: the
// update `kind` of V (b, b) and T (ib = nb) of panel k on the tile `row`
// (b, width; ld b) of the identity's tile column k, with `top` the pivot
// row's tile (tsmqr, ttmqr).
template <typename T>
void apply_to_identity_column(TaskKind kind, bool transpose, int b, int width, int nb, const T* v, const T* tf, T* top,
                              T* row) {
  const int blocks = (b + nb - 1) / nb;
  for (int blk = blocks - 1; blk >= 0; --blk) {
    const int i0 = blk * nb, kb = std::min(nb, b - i0);
    if (i0 >= width) continue;
    const T* v0 = v + int64_t(i0) * b;
    const T* t0 = tf + int64_t(i0) * nb;
    T* row0 = row + int64_t(i0) * b;
    switch (kind) {
      case TaskKind::ormqr:
        lapack_kernels::gemqrt(transpose, b - i0, width - i0, kb, kb, v0 + i0, b, t0, nb, row0 + i0, b);
        break;
      case TaskKind::tsmqr:
        lapack_kernels::tpmqrt(transpose, b, width - i0, kb, 0, kb, v0, b, t0, nb, top + i0 + int64_t(i0) * b, b,
                               row0, b);
        break;
      case TaskKind::ttmqr:  // V's columns i0… are upper triangular within rows [0, i0 + kb)
        lapack_kernels::tpmqrt(transpose, i0 + kb, width - i0, kb, kb, kb, v0, b, t0, nb,
                               top + i0 + int64_t(i0) * b, b, row0, b);
        break;
      default: throw std::logic_error("apply_to_identity_column: not an update task");
    }
  }
}

}  // namespace

template <typename T>
void Factorization<T>::run_apply_task(const Task& t, bool transpose, bool form_q, RhsTiles<T>& c) const {
  if (is_tsqr()) throw std::logic_error("run_apply_task: the tsqr tree applies Q through TsqrFactors");
  const int b = tiles.b, nb = ib(), width = c.width(t.j);
  const bool local = t.kind == TaskKind::ormqr, reference = options.backend == Backend::reference;
  // The update kinds only read V and T: the const_casts write nothing.
  T* v = const_cast<T*>(tiles.tile(t.i, t.k));
  T* tf = const_cast<T*>(local ? t_local_tile(t.i, t.k) : t_merge_tile(t.i, t.k));
  T* top = local ? nullptr : c.tile(t.piv, t.j);
  T* row = c.tile(t.i, t.j);
  if (one_tile_kernels) {  // ormqr(0, 0, j): the one tile's reflectors on tile column j
    small_kernels::orm2r(transpose, b, width, b, v, b, tf, row, b);
    return;
  }
  if (!form_q || t.j != t.k || reference) {
    const kernels::HostOperands<T> o{b, nb, width, v, tf, top, b, row, b};
    kernels::run_host_kernel(t.kind, reference, transpose, o);
    return;
  }
  apply_to_identity_column(t.kind, transpose, b, width, nb, v, tf, top, row);
}

namespace {

// Diagonal entries of R (k, n) above max_dim·ε·max_j |r_jj|; NaN counts as
// not above.
template <typename T>
int64_t numerical_rank(const DenseMatrix<T>& r, int64_t max_dim) {
  const int64_t k = std::min(r.rows, r.cols);
  T largest = 0;
  for (int64_t i = 0; i < k; ++i) largest = std::max(largest, std::fabs(r(i, i)));
  const double threshold = double(max_dim) * double(std::numeric_limits<T>::epsilon() / 2) * double(largest);
  int64_t rank = 0;
  for (int64_t i = 0; i < k; ++i)
    if (double(std::fabs(r(i, i))) > threshold) ++rank;
  return rank;
}

void check_rhs(int64_t m, int64_t ldb, int64_t nrhs) {
  if (nrhs < 0) throw InputError("number of right-hand sides must be >= 0");
  if (nrhs > std::numeric_limits<int32_t>::max())
    throw InputError("at most " + std::to_string(std::numeric_limits<int32_t>::max()) +
                     " right-hand sides at once (the kernels' 32-bit column count), got " +
                     std::to_string(nrhs));
  if (ldb < m) throw InputError("ldb must be >= m");
}

}  // namespace

template <typename T>
void Factorization<T>::apply_tiles(bool transpose, bool form_q, RhsTiles<T>& c, const DagExecutor& executor) const {
  if (tiles.p == 0 || tiles.q == 0 || c.q == 0) return;
  const Dag dag = build_apply_dag(tiles.p, tiles.q, c.q, options.tree, options.tree_domains, options.inner_tree,
                                  transpose, form_q);
  executor(dag, [&](const Task& t) { run_apply_task(t, transpose, form_q, c); });
}

template <typename T>
void Factorization<T>::apply_colmajor(bool transpose, T* b, int64_t ldb, int64_t nrhs,
                                      const DagExecutor& executor) const {
  check_rhs(rows(), ldb, nrhs);
  if (nrhs == 0 || rows() == 0) return;
  if (is_tsqr() && tsqr.count() > 0) {  // (an empty matrix's handle has no blocks: Q = I below)
    tsqr.apply(transpose, b, ldb, nrhs, executor);
    return;
  }
  RhsTiles<T> c = RhsTiles<T>::from_colmajor(b, rows(), nrhs, ldb, tiles.b);
  apply_tiles(transpose, false, c, executor);
  c.to_colmajor(b, ldb);
}

template <typename T>
void Factorization<T>::apply_qt(T* b, int64_t ldb, int64_t nrhs, const DagExecutor& executor) const {
  apply_colmajor(true, b, ldb, nrhs, executor);
}

template <typename T>
void Factorization<T>::apply_q(T* b, int64_t ldb, int64_t nrhs, const DagExecutor& executor) const {
  apply_colmajor(false, b, ldb, nrhs, executor);
}

template <typename T>
void Factorization<T>::form_q(int64_t k, T* q, int64_t ldq, const DagExecutor& executor) const {
  if (k < 0 || k > rows()) throw InputError("form_q: k must be in [0, m], got " + std::to_string(k));
  check_rhs(rows(), ldq, k);
  if (k == 0 || rows() == 0) return;
  if (is_tsqr() && tsqr.count() > 0) {
    tsqr.form_q(k, q, ldq, executor);
    return;
  }
  if (one_tile_kernels) {
    small_kernels::org2r(int(rows()), int(k), tiles.tile(0, 0), tiles.b, t_local_tile(0, 0), q, int(ldq));
    return;
  }
  RhsTiles<T> c = RhsTiles<T>::identity(rows(), k, tiles.b);
  apply_tiles(false, true, c, executor);
  c.to_colmajor(q, ldq);
}

template <typename T>
DenseMatrix<T> Factorization<T>::stored_r() const {
  const int64_t k = std::min(rows(), cols());
  DenseMatrix<T> r(k, cols());
  if (is_tsqr() && k > 0) {
    const T* top = tsqr.stored_r();
    for (int64_t j = 0; j < cols(); ++j)
      std::copy_n(top + j * tsqr.stored_r_ld(), std::min(j + 1, k), r.data.data() + j * k);
    return r;
  }
  const int b = tiles.b;
  for (int64_t j = 0; j < cols(); ++j) {
    const int64_t last = std::min(j, k - 1);
    for (int64_t i = 0; i <= last; ++i)
      r(i, j) = tiles.tile(i / b, j / b)[(i % b) + (j % b) * b];
  }
  return r;
}

template <typename T>
DenseMatrix<T> Factorization<T>::r() const {
  DenseMatrix<T> r = stored_r();
  if (scale_exponent != 0)
    for (T& x : r.data) x = std::ldexp(x, scale_exponent);
  return r;
}

template <typename T>
DenseMatrix<T> Factorization<T>::thin_q() const {
  const int64_t k = std::min(rows(), cols());
  DenseMatrix<T> q(rows(), k);
  form_q(k, q.data.data(), q.ld());
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
  // The stored R: the ratio below and R⁻¹ are scale-free, and it is finite.
  const DenseMatrix<T> r_factor = stored_r();
  const int64_t rank = numerical_rank(r_factor, std::max(m, n));
  if (rank < n)
    throw RankDeficientError("matrix is rank deficient (numerical rank " + std::to_string(rank) +
                                 " < " + std::to_string(n) + ")",
                             rank, n);
  DenseMatrix<T> x(n, nrhs);
  for (int64_t c = 0; c < nrhs; ++c) {
    for (int64_t i = n - 1; i >= 0; --i) {
      T sum = y(i, c);
      for (int64_t l = i + 1; l < n; ++l) sum -= r_factor(i, l) * x(l, c);
      x(i, c) = sum / r_factor(i, i);
    }
  }
  if (scale_exponent != 0)
    for (T& v : x.data) v = std::ldexp(v, -scale_exponent);
  return x;
}

template <typename T>
bool qr_one_tile_in_place(int64_t n, T* a, T* q, const Options& options) {
  // b = n exactly: with a larger tile the tiled path pads A and its kernels
  // see other sizes (the C interface cuts the tile to min(m, n)).
  if (n < 1 || options.tile != n || options.backend != Backend::lapack) return false;
  // The tiles are 16-byte aligned (malloc); the BLAS that ?larfg calls for
  // a column near the overflow or underflow threshold may round differently
  // on a column that is not (OpenBLAS's SSE3 kernels, which it falls back
  // to on processors it does not know, do), so an A or Q that is not takes
  // the tiled path, for the same bits.
  if (reinterpret_cast<uintptr_t>(a) % 16 != 0 || reinterpret_cast<uintptr_t>(q) % 16 != 0) return false;  // (null: 0)
  if (!(double(largest_magnitude(a, size_t(n) * size_t(n))) <= tile_overflow_limit<T>(1, n))) return false;
  const int b = int(n);
  thread_local std::vector<T> tau;
  if (tau.size() < size_t(b)) tau.resize(size_t(b));
  small_kernels::geqr2(b, b, a, b, tau.data());  // run_task's geqrt
  if (q) small_kernels::org2r(b, b, a, b, tau.data(), q, b);  // form_q(n)
  for (int j = 0; j + 1 < b; ++j) std::fill(a + j * int64_t(b) + j + 1, a + (j + 1) * int64_t(b), T(0));  // R
  return true;
}

template struct Factorization<float>;
template struct Factorization<double>;
template bool qr_one_tile_in_place<float>(int64_t, float*, float*, const Options&);
template bool qr_one_tile_in_place<double>(int64_t, double*, double*, const Options&);

}  // namespace tiledqr
