// The tiled QR factorisation on the task-graph library (FR4; docs/design.md §9):
// the DAG of common/qr_dag.hpp for any elimination tree, run by the generic
// scheduler with the warp kernels of common/kernels/warp (tile 32), and
// GpuQr's calls on device pointers. A DeviceQr plans once for a shape (builds and uploads
// the task graph) and factors any number of matrices of that shape.
//
//   tiledqr::gpu::DeviceQr<double> qr(m, n, {tiledqr::Tree::binary});
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

struct QrOptions {
  Tree tree = Tree::flat;
  bool trace = false;                 // keep one TaskRecord per task of the last factor()
  double stall_timeout_seconds = 10;  // watchdog: no task finished for this long
  int warps_per_block = 2;            // executor shape (see ExecOptions)
  int max_blocks = 0;                 // 0: every block that fits
};

template <typename T>
struct DeviceQrState;

// FR4's result: GpuQr's calls (common/gpu/qr_result.hpp) with FR4's
// executor — the task graph of the chosen tree factors, and applying Q or
// Qᵀ is itself a task graph of ormqr/tsmqr/ttmqr tasks on B's tiles.
template <typename T>
class DeviceQr : public GpuQr<T> {
 public:
  // Plans the factorisation of (m, n) matrices, m, n ≥ 1: builds the tile
  // DAG for options.tree and uploads it with device memory for the tiles.
  DeviceQr(int64_t m, int64_t n, const QrOptions& options = QrOptions{});
  // Device memory that constructor allocates on the current GPU, in bytes,
  // exactly: the tiles and τ, and the task graph for options.tree sized by
  // the executor's launch on this GPU. Throws GpuError without a GPU.
  static double device_bytes(int64_t m, int64_t n, const QrOptions& options = QrOptions{});
  ~DeviceQr() override;
  DeviceQr(DeviceQr&&) noexcept;
  DeviceQr& operator=(DeviceQr&&) noexcept;

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
  // One record per task of the last factor() with QrOptions::trace (ns from
  // the first task's start; worker = the warp).
  std::vector<TaskRecord> trace() const;
  std::vector<TaskRecord> task_trace() const override { return trace(); }

 protected:
  QrFactors<T> factors() const override;
  void apply_tiles(bool transpose, T* b_tiles, int32_t column_tiles) const override;
  // Backend reference, tile 32, this tree.
  Options download_options() const override;

 private:
  std::unique_ptr<DeviceQrState<T>> state_;
};

extern template class DeviceQr<float>;
extern template class DeviceQr<double>;

}  // namespace tiledqr::gpu
