// The tiled QR factorisation on the task-graph library (FR4; docs/design.md §8):
// the DAG of common/task_graph/qr_dag.hpp (the closed form) for any elimination tree, run by the generic
// scheduler with the warp kernels of common/kernels/warp (tile 32, a warp a
// task) or the block kernels of common/kernels/block (tiles of 64, 128 or
// 256, a thread block a task, the FP64 tensor cores for double), and
// DeviceFactorization's calls on device pointers. An Fr4Factorization plans
// once for a shape (builds and uploads the task graph) and factors any
// number of matrices of that shape.
//
//   tiledqr::Options options;
//   options.tile = 128;                      // 0: chosen for the shape (fr4_tiles)
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

// The tiles the task-graph QR runs: tile 32 (the warp kernels) or 64, 128,
// 256 with an inner block of 16, 32 or 64 (at most 32 for tile 256).
struct Fr4Tiles {
  int tile = 32;
  int inner_block = 0;  // 0 for tile 32 (the warp kernels keep τ, not T)
  // Priority classes of the factorisation's graph (docs/design.md §9): ready
  // tasks on the longest chains of time go ahead of those queued before them.
  int priority_classes = 1;
  int32_t domains = 1;  // the hierarchical tree's (fr4_domains)
};

// The tiles `options` ask for, checked: options.tile 0 takes the choice
// for the shape and precision (the GPU rows of common/factorization/tile_choice.cpp);
// inner_block 0 takes 32; priority_classes 0 takes fr4_priority_classes'
// choice.
// Throws InputError for a tile, inner block or class count the kernels or
// the executor do not run.
Fr4Tiles fr4_tiles(int64_t m, int64_t n, bool single_precision, const Options& options);
// The priority classes of an (m, n) factorisation with `tile` and
// options.tree: options.priority_classes, or for 0 the measured choice:
// four at tile 256 with the flat tree up to 23170 rows and columns, one
// elsewhere.
int fr4_priority_classes(int64_t m, int64_t n, int tile, const Options& options);
// The domains of the hierarchical tree (1 for the others): tile row i in
// domain i mod D, each reduced flat (geqrt, then tsqrt: the fast full
// kinds), the domains' top rows by a binary tree of ttqrt. D is
// options.tree_domains, or for 0 one domain per 8 tile rows of the (m, n)
// matrix in tiles of `tile` (chains of at most 8 panel tasks). Throws
// InputError for an inner tree other than flat or domains < 0.
int32_t fr4_domains(int64_t m, int tile, const Options& options);
// Whether an (m, n) factorisation with `tiles` is one tile factored by one
// kernel that holds it in registers (fr4_one_tile.hpp) instead of the task
// graph: a tile of 64 or 128 with m, n ≤ tile and an inner block of 16 or
// 32, and no trace asked for (a trace records the task graph's run).
bool fr4_one_tile(int64_t m, int64_t n, const Fr4Tiles& tiles, const Options& options);
// The elimination tree when the caller leaves it open, from the same table:
// a tree of pairs (binary) for tall matrices (m ≥ 4n), whose tile columns
// would otherwise be long chains, flat otherwise.
Tree fr4_tree_choice(int64_t m, int64_t n, bool single_precision);

// The task-graph executor's result: DeviceFactorization's calls
// (common/gpu/qr_result.hpp) with this executor — the task graph of the
// chosen tree factors, and applying Q or Qᵀ is itself a task graph of
// ormqr/tsmqr/ttmqr tasks on B's tiles.
template <typename T>
class Fr4Factorization : public DeviceFactorization<T> {
 public:
  // Plans the factorisation of (m, n) matrices, m, n ≥ 1: builds the tile
  // DAG for options.tree and uploads it with device memory for the tiles.
  // Reads options.tile and inner_block (fr4_tiles), tree, trace,
  // watchdog_seconds, and for tile 32 warps_per_block and max_blocks.
  Fr4Factorization(int64_t m, int64_t n, const Options& options = Options{});
  ~Fr4Factorization() override;
  Fr4Factorization(Fr4Factorization&&) noexcept;
  Fr4Factorization& operator=(Fr4Factorization&&) noexcept;
  // Device memory that constructor allocates on the current GPU, in bytes:
  // the tiles and T factors, and the task graph for options.tree sized by
  // the executor's launch on this GPU — exactly, for tile 32; for the block
  // tiles the ready slots are counted for as many workers as warps (a
  // worker is a block there), a few kB over. Throws GpuError without a
  // GPU, InputError for tiles fr4_tiles refuses.
  static double device_bytes(int64_t m, int64_t n, const Options& options = Options{});

  // Factors A (m, n), col-major in device memory, lda ≥ m (A is not changed).
  void factor(const T* d_a, int64_t lda) override;
  // The same in two halves, so callers can put CUDA events around the
  // device work: launch_factor enqueues it on `stream`; finish_factor waits
  // under the watchdog and throws on failure.
  void launch_factor(const T* d_a, int64_t lda, cudaStream_t stream);
  void finish_factor();

  int32_t task_count() const;
  // The tiles it runs (after fr4_tiles' choice).
  Fr4Tiles tiles() const;
  // CUDA-event time of the last factor() on the device: layout conversion
  // and the scheduler's run (s).
  double device_seconds() const override;
  // One record per task of the last factor() with Options::trace (ns from
  // the first task's start; worker = the warp, or the block for tiles of 64
  // and more).
  std::vector<TaskRecord> trace() const;
  std::vector<TaskRecord> task_trace() const override { return trace(); }

 protected:
  QrFactors<T> factors() const override;
  void apply_tiles(bool transpose, T* b_tiles, int32_t column_tiles) const override;
  // Tile 32: backend reference; larger tiles: backend lapack with their
  // inner block (T as LAPACK's ?geqrt/?tpqrt leave it); this tree.
  Options download_options() const override;

 private:
  std::unique_ptr<Fr4FactorizationState<T>> state_;
};

extern template class Fr4Factorization<float>;
extern template class Fr4Factorization<double>;

}  // namespace tiledqr::gpu
