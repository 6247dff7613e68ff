// The tiled QR factorisation as an FR4 workload (docs/design.md §9, examples/qr):
// the DAG of common/dag.hpp for any elimination tree, run by the generic
// scheduler with FR3's warp tile kernels (tile 32), and the usual calls on
// device pointers. A DeviceQr plans once for a shape (builds and uploads
// the task graph) and factors any number of matrices of that shape.
//
//   tiledqr::fr4::DeviceQr<double> qr(m, n, {tiledqr::Tree::binary});
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
#include "gpu/tile_shape.hpp"
#include "options.hpp"

namespace tiledqr::fr4 {

struct QrOptions {
  Tree tree = Tree::flat;
  bool trace = false;                 // keep one TaskRecord per task of the last factor()
  double stall_timeout_seconds = 10;  // watchdog: no task finished for this long
  int warps_per_block = 2;            // executor shape (see ExecOptions)
  int max_blocks = 0;                 // 0: every block that fits
};

// Whether a CUDA device can be used, and its name (never throw).
bool gpu_available();
std::string gpu_name();

template <typename T>
struct DeviceQrState;

// Device memory a DeviceQr of an m x n matrix needs besides the caller's
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

template <typename T>
class DeviceQr {
 public:
  // Plans the factorisation of (m, n) matrices, m, n ≥ 1: builds the tile
  // DAG for options.tree and uploads it with device memory for the tiles.
  DeviceQr(int64_t m, int64_t n, const QrOptions& options = QrOptions{});
  ~DeviceQr();
  DeviceQr(DeviceQr&&) noexcept;
  DeviceQr& operator=(DeviceQr&&) noexcept;

  // Factors A (m, n), col-major in device memory, lda ≥ m (A is not changed).
  void factor(const T* d_a, int64_t lda);
  // The same in two halves, so callers can put CUDA events around the
  // device work: launch_factor enqueues it on `stream`; finish_factor waits
  // under the watchdog and throws on failure.
  void launch_factor(const T* d_a, int64_t lda, cudaStream_t stream);
  void finish_factor();

  int64_t rows() const;
  int64_t cols() const;
  int32_t tile_rows() const;  // p
  int32_t tile_cols() const;  // q
  int32_t task_count() const;
  // p·q tiles of (32, 32), ld = 32, tile (i, j) at (i + j·p)·1024: R on and
  // above the diagonal, V elsewhere, after factor().
  const T* device_tiles() const;
  // CUDA-event time of the last factor() on the device: layout conversion
  // and the scheduler's run (s).
  double device_seconds() const;
  // One record per task of the last factor() with QrOptions::trace (ns from
  // the first task's start; worker = the warp).
  std::vector<TaskRecord> trace() const;

  // B (m, nrhs), col-major on the device, ldb ≥ m ← Qᵀ B, as a task graph
  // of ormqr/tsmqr/ttmqr tasks on B's tiles (any tree).
  void apply_qt(T* d_b, int64_t ldb, int64_t nrhs);
  // B ← Q B.
  void apply_q(T* d_b, int64_t ldb, int64_t nrhs);
  // The first min(m, n) columns of Q into d_q (m, min(m, n)), ldq ≥ m.
  void thin_q(T* d_q, int64_t ldq);
  // R (min(m, n), n) into d_r, ldr ≥ min(m, n); zeros below the diagonal.
  void r(T* d_r, int64_t ldr) const;
  // X (n, nrhs) into d_x, ldx ≥ n: argmin ‖A X − B‖_F for B (m, nrhs), ldb ≥ m;
  // needs m ≥ n and no zero on R's diagonal (else InputError).
  void solve(const T* d_b, int64_t ldb, int64_t nrhs, T* d_x, int64_t ldx);

  // A host Factorization with the same tiles and τ (backend reference,
  // tile 32, this tree; τ in the first 32 entries of each T block), so
  // common/checks.hpp and the stage program work on it.
  Factorization<T> download() const;

 private:
  void apply(bool transpose, T* d_tiles_of_b, int32_t column_tiles);
  std::unique_ptr<DeviceQrState<T>> state_;
};

extern template class DeviceQr<float>;
extern template class DeviceQr<double>;

}  // namespace tiledqr::fr4
