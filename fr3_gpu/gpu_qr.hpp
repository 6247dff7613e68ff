// FR3 (seed 000 §II.D): the tiled QR factorisation run entirely on the GPU
// by one persistent kernel — a scheduler warp that owns the task grid of
// seed 000 §II.C, and executor blocks of one warp each that run the warp
// kernels of common/kernels/warp — with the apply side (Qᵀ B, Q B, thin Q,
// least squares) on device pointers, from gpu::GpuQr.
//
//   const double* d_a = ...;  // (m, n) col-major on the device, lda ≥ m
//   auto f = tiledqr::gpu::factor(d_a, m, n, lda, tiledqr::gpu::GpuOptions{});  // a GpuQr
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
#include "gpu/device.hpp"
#include "gpu/qr_result.hpp"
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

template <typename T>
struct GpuFactorizationState;  // device memory and launch settings (gpu_qr.cu)

// FR3's result: GpuQr's calls (common/gpu/qr_result.hpp) with FR3's
// executor — the persistent kernel factors, apply_q_kernel applies Q.
template <typename T>
class GpuFactorization : public GpuQr<T> {
 public:
  GpuFactorization();
  ~GpuFactorization() override;
  GpuFactorization(GpuFactorization&&) noexcept;
  GpuFactorization& operator=(GpuFactorization&&) noexcept;

  // Factors another (m, n) matrix, lda ≥ m, reusing this object's device memory.
  void factor(const T* d_a, int64_t lda) override;
  void refactor(const T* d_a, int64_t lda) { factor(d_a, lda); }
  // CUDA-event time of the last factor/refactor call on the device (s).
  double device_seconds() const override;
  // The tasks of the last call when GpuOptions::trace was set (ns from the
  // first task's start; worker = executor id).
  const std::vector<TaskRecord>& trace() const;
  std::vector<TaskRecord> task_trace() const override { return trace(); }
  const GpuOptions& options() const;

 protected:
  QrFactors<T> factors() const override;
  void apply_tiles(bool transpose, T* b_tiles, int32_t column_tiles) const override;
  // Backend reference, tile 32, flat tree.
  Options download_options() const override;

 private:
  template <typename U>
  friend GpuFactorization<U> factor(const U*, int64_t, int64_t, int64_t, const GpuOptions&);
  std::unique_ptr<GpuFactorizationState<T>> state_;
};

// Factors A (m, n), col-major in device memory, lda ≥ m, any m, n ≥ 1.
template <typename T>
GpuFactorization<T> factor(const T* d_a, int64_t m, int64_t n, int64_t lda, const GpuOptions& options);

}  // namespace tiledqr::gpu
