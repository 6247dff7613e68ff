// The one GPU QR result type: what a factorisation leaves on the device and
// the calls on it — r, apply_qt, apply_q, thin_q, solve, download — written
// once. FR3 and FR4 derive from it and differ only in their executor: how
// they factor (DeviceFactorization::factor) and how they apply Q to tiles (apply_tiles).
// All pointers are device pointers; no CUDA headers needed here.
#pragma once

#include <cstdint>
#include <vector>

#include "factorization.hpp"
#include "options.hpp"

namespace tiledqr::gpu {

// The factors in device memory, owned by the executor. The warp kernels
// (tiles of 32) keep τ per tile; the block kernels (tiles of 64 … 256) keep
// LAPACK's T, (ib, b) per tile, as ?geqrt and ?tpqrt leave it.
template <typename T>
struct QrFactors {
  int64_t m = 0, n = 0;
  int32_t p = 0, q = 0;        // tile rows and columns
  int32_t b = 32;              // tile size
  int32_t ib = 0;              // inner block of T; 0: τ (b per tile) instead
  const T* tiles = nullptr;    // p·q tiles (b, b), ld = b, (i, j) at (i + j·p)·b²: R on and above the diagonal, V below
  const T* t_local = nullptr;  // p·q blocks: geqrt's τ or T on tile (i, k) at block i + k·p
  const T* t_merge = nullptr;  // p·q blocks: the tsqrt/ttqrt's merging tile (i, k), same place
  Tree tree = Tree::flat;      // the elimination tree that produced them
  int32_t domains = 1;         // … its domains (hierarchical, flat inside each)

  int64_t factor_elements() const { return ib > 0 ? int64_t(ib) * b : int64_t(b); }
};

template <typename T>
class DeviceFactorization {
 public:
  virtual ~DeviceFactorization() = default;

  // Factors A (m, n), col-major in device memory, lda ≥ m (A is not changed).
  virtual void factor(const T* d_a, int64_t lda) = 0;
  // CUDA-event time of the last factor() on the device (s).
  virtual double device_seconds() const = 0;
  // One record per task of the last factor() when tracing was asked for.
  virtual std::vector<TaskRecord> task_trace() const = 0;

  int64_t rows() const { return factors().m; }
  int64_t cols() const { return factors().n; }
  int32_t tile_rows() const { return factors().p; }  // p
  int32_t tile_size() const { return factors().b; }  // b
  int32_t tile_cols() const { return factors().q; }  // q
  const T* device_tiles() const { return factors().tiles; }

  // R (min(m, n), n) into d_r, ldr ≥ min(m, n); zeros below the diagonal.
  void r(T* d_r, int64_t ldr) const;
  // B (m, nrhs), col-major on the device, ldb ≥ m ← Qᵀ B.
  void apply_qt(T* d_b, int64_t ldb, int64_t nrhs) const;
  // B ← Q B.
  void apply_q(T* d_b, int64_t ldb, int64_t nrhs) const;
  // The first min(m, n) columns of Q into d_q (m, min(m, n)), ldq ≥ m.
  void thin_q(T* d_q, int64_t ldq) const;
  // X (n, nrhs) into d_x, ldx ≥ n: argmin ‖A X − B‖_F for B (m, nrhs), ldb ≥ m;
  // needs m ≥ n and no zero on R's diagonal (else InputError).
  void solve(const T* d_b, int64_t ldb, int64_t nrhs, T* d_x, int64_t ldx) const;
  // A host Factorization with the same tiles and factors, for
  // common/factorization/checks.hpp and the stage programs: tile 32 with backend reference
  // (τ in the first 32 entries of each T block), or the block tiles with
  // backend lapack and their ib (T as LAPACK's ?geqrt/?tpqrt leave it).
  Factorization<T> download() const;

 protected:
  // The executor's part. factors() throws InputError before a factor().
  virtual QrFactors<T> factors() const = 0;
  // B's tiles (p·column_tiles tiles, the layout of the factors) ← Qᵀ B
  // (transpose) or Q B, on the default stream.
  virtual void apply_tiles(bool transpose, T* b_tiles, int32_t column_tiles) const = 0;
  // The options download() gives its host Factorization.
  virtual Options download_options() const = 0;

 private:
  void apply(bool transpose, T* d_b, int64_t ldb, int64_t nrhs, const char* what) const;
};

// f's T blocks (f.options: its tree and domains set) from a GPU layout's
// p·q blocks of per_tile entries (block (i, k) at i + k·p, as QrFactors),
// copied to the host: each elimination's τ or T where f keeps it.
template <typename T>
void place_factor_blocks(Factorization<T>& f, int32_t p, int32_t q, int64_t per_tile, const std::vector<T>& t_local,
                         const std::vector<T>& t_merge);

extern template class DeviceFactorization<float>;
extern template class DeviceFactorization<double>;

}  // namespace tiledqr::gpu
