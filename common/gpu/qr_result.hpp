// The one GPU QR result type: what a factorisation leaves on the device and
// the calls on it — r, apply_qt, apply_q, thin_q, solve, download — written
// once. FR3 and FR4 derive from it and differ only in their executor: how
// they factor (DeviceFactorization::factor) and how they apply Q to tiles (apply_tiles).
// All pointers are device pointers; no CUDA headers needed here.
#pragma once

#include <cstdint>

#include "factorization.hpp"
#include "options.hpp"

namespace tiledqr::gpu {

// The factors in device memory, owned by the executor.
template <typename T>
struct QrFactors {
  int64_t m = 0, n = 0;
  int32_t p = 0, q = 0;          // tile rows and columns (tiles of 32)
  const T* tiles = nullptr;      // p·q tiles (32, 32), ld = 32, (i, j) at (i + j·p)·1024: R on and above the diagonal, V below
  const T* tau_local = nullptr;  // (p·q·32): τ of geqrt on tile (i, k) at (i + k·p)·32
  const T* tau_merge = nullptr;  // (p·q·32): τ of tsqrt/ttqrt merging tile (i, k), same place
  Tree tree = Tree::flat;        // the elimination tree that produced them
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
  // A host Factorization with the same tiles and τ (backend reference, tile
  // 32, τ in the first 32 entries of each T block), for common/checks.hpp
  // and the stage programs.
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

extern template class DeviceFactorization<float>;
extern template class DeviceFactorization<double>;

}  // namespace tiledqr::gpu
