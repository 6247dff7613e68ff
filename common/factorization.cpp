#include "factorization.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "elimination_tree.hpp"
#include "errors.hpp"
#include "huge_pages.hpp"
#include "kernels/host_binding.hpp"

namespace tiledqr {
namespace {

// Scales the tiles by 2^−s when their largest entry exceeds
// huge / (64·√(p·b·b)) and returns s (0 otherwise, the tiles untouched).
// Orthogonal transformations keep each column's norm, at most √(p·b)·max|a|;
// the reflectors' application forms τ·vᵀc with ‖v‖ ≤ √2, τ ≤ 2, and the
// compact-WY products Vᵀ C over b rows, so 64·√(p·b·b)·max|a| bounds every
// intermediate. A power of two changes no digit of the normal entries.
template <typename T>
int scale_below_overflow(TileMatrix<T>& tiles) {
  T largest = 0;
  for (const T x : tiles.data) largest = std::max(largest, std::fabs(x));
  if (!std::isfinite(largest)) return 0;  // non-finite input (--allow-nonfinite): nothing to save
  const double headroom = 64.0 * std::sqrt(double(tiles.p) * tiles.b * tiles.b);
  const double limit = double(std::numeric_limits<T>::max()) / headroom;
  if (double(largest) <= limit) return 0;
  const int s = int(std::ceil(std::log2(double(largest) / limit)));
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
  tiles = TileMatrix<T>::from_colmajor(a, m, n, lda, opts.tile);
  scale_exponent = scale_below_overflow(tiles);
  const size_t local_elements = checked_elements({local_block_count(), ib(), tiles.b}, sizeof(T), "T factors");
  const size_t merge_elements = checked_elements({merge_block_count(), ib(), tiles.b}, sizeof(T), "T factors");
  reserve_with_huge_pages(t_local, local_elements);
  reserve_with_huge_pages(t_merge, merge_elements);
  t_local.assign(local_elements, T(0));
  t_merge.assign(merge_elements, T(0));
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
  const bool merge = !(t.kind == TaskKind::geqrt || t.kind == TaskKind::ormqr);
  const kernels::HostOperands<T> o{b, ib(), b, tiles.tile(t.i, t.k),
                                   merge ? t_merge_tile(t.i, t.k) : t_local_tile(t.i, t.k),
                                   tiles.tile(t.piv, is_factorization(t.kind) ? t.k : t.j), b,
                                   tiles.tile(t.i, t.j), b};
  kernels::run_host_kernel(t.kind, options.backend == Backend::reference, true, o);
}

template <typename T>
void Factorization<T>::apply_panel(int32_t k, bool transpose, T* c, int64_t nrhs) const {
  const int b = tiles.b;
  const int64_t block = int64_t(b) * nrhs;  // one row block of B, ld b
  std::vector<Elimination> plan = panel_eliminations(tiles.p, k, options.tree, options.tree_domains, options.inner_tree);
  if (!transpose) std::reverse(plan.begin(), plan.end());
  for (const Elimination& e : plan) {
    const Task update = update_task(e, k, 0);
    // The update kinds only read V and T: the const_casts write nothing.
    const T* t = e.kind == TaskKind::geqrt ? t_local_tile(e.i, k) : t_merge_tile(e.i, k);
    const kernels::HostOperands<T> o{b, ib(), int(nrhs), const_cast<T*>(tiles.tile(e.i, k)), const_cast<T*>(t),
                                     c + e.piv * block, b, c + e.i * block, b};
    kernels::run_host_kernel(update.kind, options.backend == Backend::reference, transpose, o);
  }
}

namespace {

// Copies B (m, nrhs), ldb, into p row blocks of (b, nrhs), ld b, block i
// at i·b·nrhs, zero-padded below row m.
template <typename T>
std::vector<T> blocked_copy(const T* b, int64_t ldb, int64_t m, int32_t p, int tile, int64_t nrhs) {
  std::vector<T> c(checked_elements({p, tile, nrhs}, sizeof(T), "right-hand side"), T(0));
  for (int64_t i = 0; i < p; ++i) {
    const int64_t rows = std::min<int64_t>(tile, m - i * tile);
    T* block = c.data() + i * tile * nrhs;
    for (int64_t j = 0; j < nrhs; ++j) std::copy_n(b + i * tile + j * ldb, rows, block + j * tile);
  }
  return c;
}

template <typename T>
void copy_back(const std::vector<T>& c, int32_t p, int tile, T* b, int64_t ldb, int64_t m,
               int64_t nrhs) {
  for (int64_t i = 0; i < p; ++i) {
    const int64_t rows = std::min<int64_t>(tile, m - i * tile);
    const T* block = c.data() + i * tile * nrhs;
    for (int64_t j = 0; j < nrhs; ++j) std::copy_n(block + j * tile, rows, b + i * tile + j * ldb);
  }
}

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
void Factorization<T>::apply_panels(bool transpose, T* b, int64_t ldb, int64_t nrhs) const {
  check_rhs(rows(), ldb, nrhs);
  if (nrhs == 0) return;
  std::vector<T> c = blocked_copy(b, ldb, rows(), tiles.p, tiles.b, nrhs);
  const int32_t steps = std::min(tiles.p, tiles.q);
  for (int32_t s = 0; s < steps; ++s) apply_panel(transpose ? s : steps - 1 - s, transpose, c.data(), nrhs);
  copy_back(c, tiles.p, tiles.b, b, ldb, rows(), nrhs);
}

template <typename T>
void Factorization<T>::apply_qt(T* b, int64_t ldb, int64_t nrhs) const {
  apply_panels(true, b, ldb, nrhs);
}

template <typename T>
void Factorization<T>::apply_q(T* b, int64_t ldb, int64_t nrhs) const {
  apply_panels(false, b, ldb, nrhs);
}

template <typename T>
DenseMatrix<T> Factorization<T>::stored_r() const {
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

template struct Factorization<float>;
template struct Factorization<double>;

}  // namespace tiledqr
