// FR3: the tiled QR factorisation run entirely on the GPU by one
// persistent kernel ("Task-Based Scheduling Implementing Tiled Linear
// Algebra on GPUs", §II.D) — a scheduler warp that owns the task grid of
// §II.C, and executor blocks of one warp each that run the warp kernels of
// common/kernels/warp — with the apply side (Qᵀ B, Q B, thin Q, least
// squares) on device pointers, from gpu::DeviceFactorization.
//
//   const double* d_a = ...;  // (m, n) col-major on the device, lda ≥ m
//   tiledqr::gpu::Fr3Factorization<double> f = tiledqr::gpu::fr3_factor(d_a, m, n, lda, tiledqr::Options{});
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
#include "options.hpp"

namespace tiledqr::gpu {

// Device memory a factorisation of an m x n matrix needs, in bytes: the
// column-major input, its tiles (ragged edges padded) and the τ of both
// kernel families. The stage CLIs check it before making the matrix.
inline double factor_device_bytes(int64_t m, int64_t n, size_t element_bytes) {
  const double p = double(tile_shape.count(m)), q = double(tile_shape.count(n));
  const double tile = double(tile_shape.rows);
  return (double(m) * double(n) + p * q * tile * tile + 2 * p * q * tile) * double(element_bytes);
}

template <typename T>
struct Fr3FactorizationState;  // device memory and launch settings (gpu_qr.cu)

// Frees a Fr3FactorizationState where its type is complete (gpu_qr.cu), so
// that Fr3Factorization's destructor and moves need no declaring here.
template <typename T>
struct Fr3StateDeleter {
  void operator()(Fr3FactorizationState<T>* state) const;
};

// The scheduler-warp executor's result: DeviceFactorization's calls
// (common/gpu/qr_result.hpp) with this executor — the persistent kernel
// factors, apply_q_kernel applies Q.
template <typename T>
class Fr3Factorization : public DeviceFactorization<T> {
 public:
  // Factors another (m, n) matrix, lda ≥ m, reusing this object's device memory.
  void factor(const T* d_a, int64_t lda) override;
  void refactor(const T* d_a, int64_t lda) { factor(d_a, lda); }
  // CUDA-event time of the last factor/refactor call on the device (s).
  double device_seconds() const override;
  // The tasks of the last call when Options::trace was set (ns from the
  // first task's start; worker = executor id).
  const std::vector<TaskRecord>& trace() const;
  std::vector<TaskRecord> task_trace() const override { return trace(); }
  const Options& options() const;

 protected:
  QrFactors<T> factors() const override;
  void apply_tiles(bool transpose, T* b_tiles, int32_t column_tiles) const override;
  // Backend reference, tile 32, flat tree.
  Options download_options() const override;

 private:
  template <typename U>
  friend Fr3Factorization<U> fr3_factor(const U*, int64_t, int64_t, int64_t, const Options&);
  std::unique_ptr<Fr3FactorizationState<T>, Fr3StateDeleter<T>> state_;
};

// Factors A (m, n), col-major in device memory, lda ≥ m, any m, n ≥ 1, with
// the scheduler-warp executor. Reads options.tile (32 only), tree (flat
// only), trace, watchdog_seconds, executors_per_sm, double_task_weight and
// the test hooks; InputError for a value it cannot run.
template <typename T>
Fr3Factorization<T> fr3_factor(const T* d_a, int64_t m, int64_t n, int64_t lda, const Options& options);

}  // namespace tiledqr::gpu
