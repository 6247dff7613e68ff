// Fr4Factorization<T>'s definitions (fr4_qr.hpp), included by one .cu per
// scalar type. What every GPU result shares (layout moves, R, solve,
// download) is DeviceFactorization's (common/gpu/qr_result.cu); applying Q
// for any tree is a task graph of this stage's kinds (fr4_runner.cuh).
#pragma once

#include "fr4_qr.hpp"

#include <algorithm>
#include <string>

#include "errors.hpp"
#include "fr4_one_tile.hpp"
#include "fr4_runner.cuh"
#include "gpu/cuda_check.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/layout_kernels.cuh"
#include "gpu/qr_storage.hpp"
#include "kernels/block/staged_layout.hpp"

namespace tiledqr::gpu {

using namespace qr_detail;

// The runner of these tiles: the warp kinds, or the block kinds of one
// (tile, inner block) pair that fr4_tiles admits.
template <typename T>
std::unique_ptr<Fr4Runner<T>> make_runner(const Fr4Tiles& t, int32_t p, int32_t q, const Options& options) {
  if (t.tile == 32) return make_warp_runner<T>(p, q, options);
  switch (t.tile * 1000 + t.inner_block) {
    case 64016: return make_block_runner<T, 64, 16>(p, q, options);
    case 64032: return make_block_runner<T, 64, 32>(p, q, options);
    case 64064: return make_block_runner<T, 64, 64>(p, q, options);
    case 128016: return make_block_runner<T, 128, 16>(p, q, options);
    case 128032: return make_block_runner<T, 128, 32>(p, q, options);
    case 128064: return make_block_runner<T, 128, 64>(p, q, options);
    case 256016: return make_block_runner<T, 256, 16>(p, q, options);
    case 256032: return make_block_runner<T, 256, 32>(p, q, options);
  }
  throw InputError("no kernels for tile " + std::to_string(t.tile) + " with inner block " +
                   std::to_string(t.inner_block));
}

template <typename T>
struct Fr4FactorizationState {
  int64_t m = 0, n = 0;
  int32_t p = 0, q = 0;
  Fr4Tiles tiles;
  Options options;
  std::unique_ptr<Fr4Runner<T>> runner;  // the graphs of these tiles' kinds
  QrStorage<T> storage;  // tiles and T factors
  gpu::EventTimer timer;  // around the layout conversion and the graph run
  bool one_tile = false;  // factored by the one-tile kernel (fr4_one_tile.hpp), not the task graph
  bool pending = false;   // launch_factor without finish_factor
  bool factored = false;
  double seconds = 0;
};

template <typename T>
Fr4Factorization<T>::Fr4Factorization(int64_t m, int64_t n, const Options& options) {
  if (m < 1 || n < 1) throw InputError("the task-graph GPU factorisation: the matrix must be at least 1x1");
  const Fr4Tiles tiles = fr4_tiles(m, n, sizeof(T) == sizeof(float), options);
  if (!gpu::device_available()) throw GpuError("no CUDA-capable GPU is available (the task-graph QR runs on the GPU)");
  state_ = std::make_unique<Fr4FactorizationState<T>>();  // its event timer needs the device
  Fr4FactorizationState<T>& s = *state_;
  s.m = m;
  s.n = n;
  s.tiles = tiles;
  s.p = tile_count(m, tiles.tile);
  s.q = tile_count(n, tiles.tile);
  s.options = options;
  s.options.tile = tiles.tile;
  s.options.inner_block = tiles.inner_block;
  s.options.priority_classes = tiles.priority_classes;
  s.options.tree_domains = tiles.domains;
  // Before anything is allocated: fail up front when the GPU cannot hold it all.
  gpu::ensure_device_memory(device_bytes(m, n, s.options),
                            "the task-graph GPU factorisation of a " + std::to_string(m) + " x " + std::to_string(n) + " matrix");
  s.one_tile = fr4_one_tile(m, n, tiles, s.options);
  s.runner = make_runner<T>(tiles, s.p, s.q, s.options);  // the one tile's Q is still applied by its graphs
  s.storage = QrStorage<T>(s.p, s.q, tiles.tile, tiles.inner_block);
}

template <typename T>
double Fr4Factorization<T>::device_bytes(int64_t m, int64_t n, const Options& options) {
  const Fr4Tiles tiles = fr4_tiles(m, n, sizeof(T) == sizeof(float), options);
  const int64_t p = tile_count(m, tiles.tile), q = tile_count(n, tiles.tile);
  // The warp executor's workers; the block executor has fewer (one a block).
  const int64_t workers = GraphExec<QrKinds<T>>::launch_shape(warp_exec_options<T>(options)).workers;
  // The block kinds' runner keeps staged copies of the tsqrt factors.
  const double staged =
      tiles.tile == 32 ? 0.0
                       : double(p) * double(q) * double(sizeof(T)) *
                             double(kernels::block::staged_tile_elements(tiles.tile, tiles.inner_block, sizeof(T)));
  return QrStorage<T>::device_bytes(p, q, tiles.tile, tiles.inner_block) + staged +
         double(qr_graph_device_bytes(p, q, options.tree, tiles.domains, workers, options.trace,
                                      tiles.priority_classes));
}

template <typename T>
Fr4Factorization<T>::~Fr4Factorization() = default;
template <typename T>
Fr4Factorization<T>::Fr4Factorization(Fr4Factorization&&) noexcept = default;
template <typename T>
Fr4Factorization<T>& Fr4Factorization<T>::operator=(Fr4Factorization&&) noexcept = default;

template <typename T>
void Fr4Factorization<T>::launch_factor(const T* d_a, int64_t lda, cudaStream_t stream) {
  Fr4FactorizationState<T>& s = *state_;
  if (lda < s.m) throw InputError("factor: lda must be >= m");
  if (s.pending) throw InputError("launch_factor: the previous launch was not finished");
  s.timer.start(stream);
  if (s.one_tile) {
    launch_one_tile_geqrt<T>(s.tiles, int(s.m), int(s.n), d_a, lda, s.storage.tiles.get(), s.storage.t_local.get(),
                             stream);
  } else {
    colmajor_to_tiles_kernel<T><<<grid_for(int64_t(s.storage.tiles.size()), 8192), 256, 0, stream>>>(
        d_a, lda, s.m, s.n, s.storage.tiles.get(), s.p, s.q, s.tiles.tile);
    gpu::check_launch("colmajor_to_tiles_kernel");
    throw_on_failure(s.runner->launch(s.storage, stream), "the task-graph QR");
  }
  s.timer.stop(stream);
  s.pending = true;
}

template <typename T>
void Fr4Factorization<T>::finish_factor() {
  Fr4FactorizationState<T>& s = *state_;
  if (!s.pending) throw InputError("finish_factor without launch_factor");
  s.pending = false;
  if (!s.one_tile) throw_on_failure(s.runner->wait(), "the task-graph QR");
  s.seconds = s.timer.seconds();  // waits for the one-tile kernel and reports its failure
  s.factored = true;
}

template <typename T>
void Fr4Factorization<T>::factor(const T* d_a, int64_t lda) {
  launch_factor(d_a, lda, 0);
  finish_factor();
}

template <typename T>
int32_t Fr4Factorization<T>::task_count() const { return int32_t(state_->runner->graph_shape().num_tasks); }
template <typename T>
Fr4Tiles Fr4Factorization<T>::tiles() const { return state_->tiles; }
template <typename T>
double Fr4Factorization<T>::device_seconds() const { return state_->seconds; }

template <typename T>
QrFactors<T> Fr4Factorization<T>::factors() const {
  const Fr4FactorizationState<T>& s = *state_;
  if (!s.factored) throw InputError("the GPU factorisation: factor() a matrix first");
  return s.storage.factors(s.m, s.n, s.p, s.q, s.tiles.inner_block, s.options.tree, s.options.tree_domains);
}

template <typename T>
std::vector<TaskRecord> Fr4Factorization<T>::trace() const {
  const Fr4FactorizationState<T>& s = *state_;
  std::vector<TaskRecord> out;
  const std::vector<TraceEvent> events = s.runner->trace();
  const qr_dag::Shape& shape = s.runner->graph_shape();
  if (events.empty()) return out;
  int64_t origin = events.front().start_ns;
  for (const TraceEvent& e : events) origin = std::min(origin, e.start_ns);
  out.reserve(events.size());
  for (size_t t = 0; t < events.size(); ++t)
    out.push_back(TaskRecord{qr_dag::task_of(shape, int64_t(t)), events[t].worker, events[t].start_ns - origin,
                             events[t].end_ns - origin});
  return out;
}

template <typename T>
void Fr4Factorization<T>::apply_tiles(bool transpose, T* b_tiles, int32_t column_tiles) const {
  Fr4FactorizationState<T>& s = *state_;
  throw_on_failure(s.runner->apply(s.storage, transpose, b_tiles, column_tiles),
                   transpose ? "applying Q^T on the GPU" : "applying Q on the GPU");
}

template <typename T>
Options Fr4Factorization<T>::download_options() const {
  const Fr4Tiles& t = state_->tiles;
  Options o;
  o.tile = t.tile;
  o.inner_block = t.inner_block;
  o.backend = t.tile == 32 ? Backend::reference : Backend::lapack;
  o.tree = state_->options.tree;
  o.tree_domains = state_->options.tree_domains;
  o.inner_tree = Tree::flat;
  o.threads = 1;
  return o;
}

}  // namespace tiledqr::gpu
