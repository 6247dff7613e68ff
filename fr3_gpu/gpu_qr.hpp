// FR3 (seed 000 §II.D): the tiled QR factorisation run entirely on the GPU
// by one persistent kernel — a scheduler warp that owns the task grid of
// seed 000 §II.C, and executor blocks of one warp each that run the tile
// kernels of fr3_gpu/kernels — with the apply side (Qᵀ B, Q B, thin Q,
// least squares) on device pointers.
//
//   const double* d_a = ...;  // (m, n) col-major on the device, lda ≥ m
//   auto f = tiledqr::gpu::factor(d_a, m, n, lda, tiledqr::gpu::GpuOptions{});
//   f.solve(d_b, ldb, nrhs, d_x, ldx);        // X = argmin ‖A X − B‖_F
//   tiledqr::Factorization<double> h = f.download();  // for the CPU checks
//
// Errors: every CUDA failure throws tiledqr::GpuError with CUDA's text (also
// when no GPU is present); a task graph that stops making progress is
// ended by a host watchdog and throws tiledqr::StallError; bad arguments
// throw tiledqr::InputError. This header needs no CUDA headers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "factorization.hpp"
#include "gpu/tile_shape.hpp"

namespace tiledqr::gpu {

struct GpuOptions {
  int executors_per_sm = 1;         // executor blocks per SM (seed 000: one)
  double double_task_weight = 1;    // round-robin weight of tsqrt/tsmqr against geqrt/ormqr (> 0):
                                    // 1 is plain round robin; the seed's > 1 awaits its sweep
  double watchdog_seconds = 5;      // no task completed for this long → StallError
  bool trace = false;               // record one TaskRecord per task (%globaltimer, executor id)
  int64_t test_drop_completion = -1;  // test hook: the scheduler ignores this completion (0-based)
  int test_absent_executor = -1;      // test hook: this executor returns at once, as if never started
};

// Device memory a factorisation of an m x n matrix needs, in bytes: the
// column-major input, its tiles (ragged edges padded) and the τ of both
// kernel families. The stage CLIs check it before making the matrix.
inline double factor_device_bytes(int64_t m, int64_t n, size_t element_bytes) {
  const double p = double(tile_shape.count(m)), q = double(tile_shape.count(n));
  const double tile = double(tile_shape.rows);
  return (double(m) * double(n) + p * q * tile * tile + 2 * p * q * tile) * double(element_bytes);
}

// Whether a CUDA device can be used (never throws).
bool device_available();
// "NVIDIA H100 80GB HBM3"; throws GpuError when there is no usable device.
std::string device_name();

template <typename T>
struct GpuFactorizationState;  // device memory and launch settings (gpu_qr.cu)

template <typename T>
class GpuFactorization {
 public:
  GpuFactorization();
  ~GpuFactorization();
  GpuFactorization(GpuFactorization&&) noexcept;
  GpuFactorization& operator=(GpuFactorization&&) noexcept;

  int64_t rows() const;
  int64_t cols() const;
  // Tiles in device memory: p·q tiles of (32, 32), col-major, ld = 32, tile
  // (i, j) at (i + j·p)·32·32 — R on and above the diagonal, V elsewhere.
  const T* device_tiles() const;
  int32_t tile_rows() const;  // p
  int32_t tile_cols() const;  // q
  // CUDA-event time of the last factor/refactor call on the device (s).
  double device_seconds() const;
  // The tasks of the last call when GpuOptions::trace was set (ns from the
  // first task's start; worker = executor id).
  const std::vector<TaskRecord>& trace() const;
  const GpuOptions& options() const;

  // Factors another (m, n) matrix, lda ≥ m, reusing this object's device memory.
  void refactor(const T* d_a, int64_t lda);

  // R, the upper-triangular (min(m, n), n) factor, into d_r, ldr ≥ min(m, n).
  void r(T* d_r, int64_t ldr) const;
  // B (m, nrhs) col-major on the device, ldb ≥ m ← Qᵀ B.
  void apply_qt(T* d_b, int64_t ldb, int64_t nrhs) const;
  // B (m, nrhs) ← Q B.
  void apply_q(T* d_b, int64_t ldb, int64_t nrhs) const;
  // The first min(m, n) columns of Q into d_q (m, min(m, n)), ldq ≥ m.
  void thin_q(T* d_q, int64_t ldq) const;
  // X (n, nrhs) into d_x, ldx ≥ n: argmin ‖A X − B‖_F for B (m, nrhs);
  // needs m ≥ n and no zero on R's diagonal, else throws InputError.
  void solve(const T* d_b, int64_t ldb, int64_t nrhs, T* d_x, int64_t ldx) const;

  // A host Factorization with the same tiles and τ (backend reference, tile
  // 32, flat tree), for common/checks.hpp and the stage program.
  Factorization<T> download() const;

 private:
  template <typename U>
  friend GpuFactorization<U> factor(const U*, int64_t, int64_t, int64_t, const GpuOptions&);
  std::unique_ptr<GpuFactorizationState<T>> state_;
};

// Factors A (m, n), col-major in device memory, lda ≥ m, any m, n ≥ 1.
template <typename T>
GpuFactorization<T> factor(const T* d_a, int64_t m, int64_t n, int64_t lda, const GpuOptions& options);

}  // namespace tiledqr::gpu
