// The tiled QR factorisation on the task-graph library (FR4; docs/design.md §9):
// the DAG of common/dag.hpp for any elimination tree, run by the generic
// scheduler with the warp kernels of common/kernels/warp (tile 32), and
// DeviceFactorization's calls on device pointers. An Fr4Factorization plans
// once for a shape (builds and uploads the task graph) and factors any
// number of matrices of that shape.
//
//   tiledqr::Options options;
//   options.tree = tiledqr::Tree::binary;
//   tiledqr::gpu::Fr4Factorization<double> qr(m, n, options);
//   qr.factor(d_a, lda);                     // (m, n) col-major on the device
//   qr.solve(d_b, ldb, nrhs, d_x, ldx);      // X = argmin ‖A X − B‖_F
//   tiledqr::Factorization<double> h = qr.download();  // for the CPU checks
//
// Errors: CUDA failures and a missing GPU throw tiledqr::GpuError with
// CUDA's text; a run the watchdog ends throws tiledqr::StallError; bad
// arguments throw tiledqr::InputError.
#pragma once

#include <cuda_runtime_api.h>

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

template <typename T>
struct Fr4FactorizationState;

// Device memory an Fr4Factorization of an m x n matrix needs besides the caller's
// matrix, in bytes: its tiles and τ, and the task graph at about 100 bytes
// per task (header, arguments, counter, ready slot, successors), counting
// 1.5× the flat tree's Σ_k (p − k)(q − k) tasks to cover the other trees.
inline double qr_device_bytes(int64_t m, int64_t n, size_t element_bytes) {
  const int64_t p = gpu::tile_shape.count(m), q = gpu::tile_shape.count(n);
  double tasks = 0;
  for (int64_t k = 0; k < p && k < q; ++k) tasks += double(p - k) * double(q - k);
  const double tile = double(gpu::tile_shape.rows);
  return double(p) * double(q) * (tile * tile + 2 * tile) * double(element_bytes) + 1.5 * 100.0 * tasks;
}

// The task-graph executor's result: DeviceFactorization's calls
// (common/gpu/qr_result.hpp) with this executor — the task graph of the
// chosen tree factors, and applying Q or Qᵀ is itself a task graph of
// ormqr/tsmqr/ttmqr tasks on B's tiles.
template <typename T>
class Fr4Factorization : public DeviceFactorization<T> {
 public:
  // Plans the factorisation of (m, n) matrices, m, n ≥ 1: builds the tile
  // DAG for options.tree and uploads it with device memory for the tiles.
  // Reads options.tile (32 only), tree, trace, watchdog_seconds,
  // warps_per_block and max_blocks.
  Fr4Factorization(int64_t m, int64_t n, const Options& options = Options{});
  ~Fr4Factorization() override;
  Fr4Factorization(Fr4Factorization&&) noexcept;
  Fr4Factorization& operator=(Fr4Factorization&&) noexcept;

  // Factors A (m, n), col-major in device memory, lda ≥ m (A is not changed).
  void factor(const T* d_a, int64_t lda) override;
  // The same in two halves, so callers can put CUDA events around the
  // device work: launch_factor enqueues it on `stream`; finish_factor waits
  // under the watchdog and throws on failure.
  void launch_factor(const T* d_a, int64_t lda, cudaStream_t stream);
  void finish_factor();

  int32_t task_count() const;
  // CUDA-event time of the last factor() on the device: layout conversion
  // and the scheduler's run (s).
  double device_seconds() const override;
  // One record per task of the last factor() with Options::trace (ns from
  // the first task's start; worker = the warp).
  std::vector<TaskRecord> trace() const;
  std::vector<TaskRecord> task_trace() const override { return trace(); }

 protected:
  QrFactors<T> factors() const override;
  void apply_tiles(bool transpose, T* b_tiles, int32_t column_tiles) const override;
  // Backend reference, tile 32, this tree.
  Options download_options() const override;

 private:
  std::unique_ptr<Fr4FactorizationState<T>> state_;
};

extern template class Fr4Factorization<float>;
extern template class Fr4Factorization<double>;

}  // namespace tiledqr::gpu
