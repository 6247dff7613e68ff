// DeviceFactorization's calls on the factors (qr_result.hpp), the same for every executor:
// layout moves, R and its diagonal, the back substitution, the download.
#include "gpu/qr_result.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "elimination_tree.hpp"
#include "errors.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/layout_kernels.cuh"
#include "kernels/warp/trtrs.cuh"

namespace tiledqr::gpu {

namespace {

void check_rhs(int64_t m, int64_t ldb, int64_t nrhs) {
  if (nrhs < 0) throw InputError("number of right-hand sides must be >= 0");
  if (ldb < m) throw InputError("ldb must be >= m");
}

// Tile columns of b covering `cols` columns.
int32_t tile_columns(int64_t cols, int32_t b) { return int32_t((cols + b - 1) / b); }

// B (rows, cols) col-major → a fresh (p · ceil(cols/b)) tile buffer.
template <typename T>
DeviceBuffer<T> to_tiles(const T* d_b, int64_t ldb, int64_t rows, int64_t cols, int32_t p, int32_t b) {
  const int32_t qb = tile_columns(cols, b);
  DeviceBuffer<T> tiles(size_t(p) * qb * size_t(b) * b, "tiles of B");
  colmajor_to_tiles_kernel<<<grid_for(int64_t(tiles.size())), 256>>>(d_b, ldb, rows, cols, tiles.get(), p, qb, b);
  check_launch("colmajor_to_tiles_kernel");
  return tiles;
}

// The logical (rows, cols) part of `tiles` (p tile rows of b) → B, ldb ≥ rows.
template <typename T>
void from_tiles(const DeviceBuffer<T>& tiles, int32_t p, int32_t b, int64_t rows, int64_t cols, T* d_b, int64_t ldb) {
  const int32_t qb = tile_columns(cols, b);
  tiles_to_colmajor_kernel<<<grid_for(int64_t(tiles.size())), 256>>>(tiles.get(), p, qb, b, rows, cols, d_b, ldb);
  check_launch("tiles_to_colmajor_kernel");
}

}  // namespace

template <typename T>
void DeviceFactorization<T>::r(T* d_r, int64_t ldr) const {
  const QrFactors<T> f = factors();
  const int64_t k = std::min(f.m, f.n);
  if (ldr < k) throw InputError("ldr must be >= min(m, n)");
  extract_r_kernel<<<grid_for(k * f.n), 256>>>(f.tiles, f.p, f.b, k, f.n, d_r, ldr);
  check_launch("extract_r_kernel");
  check(cudaDeviceSynchronize(), "extracting R");
}

template <typename T>
void DeviceFactorization<T>::apply(bool transpose, T* d_b, int64_t ldb, int64_t nrhs, const char* what) const {
  const QrFactors<T> f = factors();
  check_rhs(f.m, ldb, nrhs);
  if (nrhs == 0) return;
  DeviceBuffer<T> b_tiles = to_tiles(d_b, ldb, f.m, nrhs, f.p, f.b);
  apply_tiles(transpose, b_tiles.get(), tile_columns(nrhs, f.b));
  from_tiles(b_tiles, f.p, f.b, f.m, nrhs, d_b, ldb);
  check(cudaDeviceSynchronize(), what);
}

template <typename T>
void DeviceFactorization<T>::apply_qt(T* d_b, int64_t ldb, int64_t nrhs) const {
  apply(true, d_b, ldb, nrhs, "applying Q^T");
}

template <typename T>
void DeviceFactorization<T>::apply_q(T* d_b, int64_t ldb, int64_t nrhs) const {
  apply(false, d_b, ldb, nrhs, "applying Q");
}

template <typename T>
void DeviceFactorization<T>::thin_q(T* d_q, int64_t ldq) const {
  const QrFactors<T> f = factors();
  if (ldq < f.m) throw InputError("ldq must be >= m");
  const int64_t k = std::min(f.m, f.n);
  const int32_t qb = tile_columns(k, f.b);
  DeviceBuffer<T> q_tiles(size_t(f.p) * qb * size_t(f.b) * f.b, "thin Q tiles");
  identity_tiles_kernel<<<grid_for(int64_t(q_tiles.size())), 256>>>(q_tiles.get(), f.p, qb, f.b, k);
  check_launch("identity_tiles_kernel");
  apply_tiles(false, q_tiles.get(), qb);
  from_tiles(q_tiles, f.p, f.b, f.m, k, d_q, ldq);
  check(cudaDeviceSynchronize(), "forming the thin Q");
}

template <typename T>
void DeviceFactorization<T>::solve(const T* d_b, int64_t ldb, int64_t nrhs, T* d_x, int64_t ldx) const {
  const QrFactors<T> f = factors();
  if (f.m < f.n)
    throw InputError("solve needs m >= n (least squares); got " + std::to_string(f.m) + "x" + std::to_string(f.n));
  check_rhs(f.m, ldb, nrhs);
  if (ldx < f.n) throw InputError("ldx must be >= n");
  if (nrhs == 0) return;
  // R's diagonal, to refuse a rank-deficient R as the CPU's solve does.
  DeviceBuffer<T> d_diagonal(size_t(f.n), "R's diagonal");
  extract_diagonal_kernel<<<grid_for(f.n), 256>>>(f.tiles, f.p, f.b, f.n, d_diagonal.get());
  check_launch("extract_diagonal_kernel");
  std::vector<T> diagonal(size_t(f.n));
  check(cudaMemcpy(diagonal.data(), d_diagonal.get(), diagonal.size() * sizeof(T), cudaMemcpyDeviceToHost),
        "reading R's diagonal");
  for (int64_t i = 0; i < f.n; ++i)
    if (diagonal[size_t(i)] == T(0))
      throw InputError("solve: matrix is rank-deficient (R(" + std::to_string(i + 1) + "," +
                       std::to_string(i + 1) + ") = 0)");
  DeviceBuffer<T> b_tiles = to_tiles(d_b, ldb, f.m, nrhs, f.p, f.b);
  apply_tiles(true, b_tiles.get(), tile_columns(nrhs, f.b));
  DeviceBuffer<T> y(size_t(f.n) * size_t(nrhs), "Q^T B");
  from_tiles(b_tiles, f.p, f.b, f.n, nrhs, y.get(), f.n);
  back_substitution_kernel<<<unsigned(nrhs), 32>>>(f.tiles, f.p, f.b, f.n, y.get(), f.n, d_x, ldx);
  check_launch("back_substitution_kernel");
  check(cudaDeviceSynchronize(), "solving");
}

template <typename T>
void place_factor_blocks(Factorization<T>& f, int32_t p, int32_t q, int64_t per_tile, const std::vector<T>& t_local,
                         const std::vector<T>& t_merge) {
  f.t_local.assign(size_t(f.local_block_count() * f.t_tile_elements()), T(0));
  f.t_merge.assign(size_t(f.merge_block_count() * f.t_tile_elements()), T(0));
  // Each elimination's τ (b, into the first entries of its T block) or T
  // (ib·b, the whole block).
  const int32_t steps = std::min(p, q);
  for (int32_t k = 0; k < steps; ++k)
    for (const Elimination& e : panel_eliminations(p, k, f.options.tree, f.options.tree_domains, Tree::flat)) {
      const auto at = std::ptrdiff_t((size_t(e.i) + size_t(k) * size_t(p)) * size_t(per_tile));
      if (e.kind == TaskKind::geqrt) std::copy_n(t_local.begin() + at, per_tile, f.t_local_tile(e.i, k));
      else std::copy_n(t_merge.begin() + at, per_tile, f.t_merge_tile(e.i, k));
    }
}
template void place_factor_blocks(Factorization<float>&, int32_t, int32_t, int64_t, const std::vector<float>&,
                                  const std::vector<float>&);
template void place_factor_blocks(Factorization<double>&, int32_t, int32_t, int64_t, const std::vector<double>&,
                                  const std::vector<double>&);

template <typename T>
Factorization<T> DeviceFactorization<T>::download() const {
  const QrFactors<T> g = factors();
  Factorization<T> f;
  f.options = download_options();
  f.tiles = TileMatrix<T>(g.m, g.n, g.b);
  check(cudaMemcpy(f.tiles.data.data(), g.tiles, f.tiles.data.size() * sizeof(T), cudaMemcpyDeviceToHost),
        "downloading the tiles");
  const int64_t per_tile = g.factor_elements();
  const size_t blocks = size_t(g.p) * size_t(g.q) * size_t(per_tile);
  std::vector<T> t_local(blocks), t_merge(blocks);
  check(cudaMemcpy(t_local.data(), g.t_local, blocks * sizeof(T), cudaMemcpyDeviceToHost), "downloading the T factors");
  check(cudaMemcpy(t_merge.data(), g.t_merge, blocks * sizeof(T), cudaMemcpyDeviceToHost), "downloading the T factors");
  place_factor_blocks(f, g.p, g.q, per_tile, t_local, t_merge);
  f.trace = task_trace();
  f.device_seconds = device_seconds();
  return f;
}

template class DeviceFactorization<float>;
template class DeviceFactorization<double>;

}  // namespace tiledqr::gpu
