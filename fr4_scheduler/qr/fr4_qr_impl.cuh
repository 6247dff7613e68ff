// Fr4Factorization<T>'s definitions (fr4_qr.hpp), included by one .cu per scalar
// type so the two persistent kernels compile in parallel. What every GPU
// result shares (layout moves, R, solve, download) is DeviceFactorization's
// (common/gpu/qr_result.cu); applying Q for any tree is a task graph of
// this stage's kinds.
#pragma once

#include "fr4_qr.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "dag.hpp"
#include "elimination_tree.hpp"
#include "errors.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/layout_kernels.cuh"
#include "gpu/qr_storage.hpp"
#include "qr_kinds.cuh"
#include "taskgraph/graph_exec.cuh"

namespace tiledqr::gpu {

namespace qr_detail {

inline void define_qr_kinds(Graph& g) {
  for (const TaskKind k : {TaskKind::geqrt, TaskKind::ormqr, TaskKind::tsqrt, TaskKind::tsmqr,
                           TaskKind::ttqrt, TaskKind::ttmqr})
    g.define_kind(int32_t(k), task_kind_name(k));
}

inline void throw_on_failure(const Status& s, const char* what) {
  if (s.ok()) return;
  const std::string text = std::string(what) + ": " + s.message;
  if (s.code == Status::Code::stalled) throw StallError(text);
  throw GpuError(text);
}

}  // namespace qr_detail
using namespace qr_detail;

template <typename T>
struct Fr4FactorizationState {
  int64_t m = 0, n = 0;
  int32_t p = 0, q = 0;
  Options options;
  ExecOptions exec_options;
  std::vector<Task> tasks;  // the factorisation's tasks, in DAG order
  std::unique_ptr<GraphExec<QrKinds<T>>> factor_exec;
  std::map<std::pair<bool, int32_t>, std::unique_ptr<GraphExec<QrKinds<T>>>> apply_execs;
  QrStorage<T> storage;  // tiles and τ
  gpu::EventTimer timer;  // around the layout conversion and the graph run
  bool pending = false;   // launch_factor without finish_factor
  bool factored = false;
  double seconds = 0;

  QrRunParams<T> params(T* c) const {
    return QrRunParams<T>{storage.tiles.get(), storage.tau_local.get(), storage.tau_merge.get(), c, p};
  }

  // The graph applying Qᵀ (transpose) or Q to `column_tiles` tile columns of
  // a matrix with p tile rows: per panel, the factorisation's eliminations
  // in order (reversed for Q), each as an update task per tile column;
  // edges come from the tiles each task writes.
  GraphExec<QrKinds<T>>& apply_exec(bool transpose, int32_t column_tiles) {
    auto& slot = apply_execs[{transpose, column_tiles}];
    if (slot) return *slot;
    Graph g;
    define_qr_kinds(g);
    const int32_t steps = std::min(p, q);
    for (int32_t s = 0; s < steps; ++s) {
      const int32_t k = transpose ? s : steps - 1 - s;
      std::vector<Elimination> plan = panel_eliminations(p, k, options.tree);
      if (!transpose) std::reverse(plan.begin(), plan.end());
      for (const Elimination& e : plan)
        for (int32_t j = 0; j < column_tiles; ++j) {
          const Task t = update_task(e, k, j);
          TaskHandle h = g.add(int32_t(t.kind), QrTaskArgs{t, transpose ? 1 : 0});
          h.writes(int64_t(t.i) + int64_t(j) * p);
          if (t.kind != TaskKind::ormqr) h.writes(int64_t(t.piv) + int64_t(j) * p);
        }
    }
    slot = std::make_unique<GraphExec<QrKinds<T>>>(g, exec_options);
    return *slot;
  }
};

template <typename T>
Fr4Factorization<T>::Fr4Factorization(int64_t m, int64_t n, const Options& options) {
  if (m < 1 || n < 1) throw InputError("the task-graph GPU factorisation: the matrix must be at least 1x1");
  if (options.tile != gpu::warp_tile)
    throw InputError("the task-graph GPU factorisation runs tile " + std::to_string(gpu::warp_tile) + " only, got " +
                     std::to_string(options.tile));
  if (!gpu::device_available()) throw GpuError("no CUDA-capable GPU is available (the task-graph QR runs on the GPU)");
  state_ = std::make_unique<Fr4FactorizationState<T>>();  // its event timer needs the device
  Fr4FactorizationState<T>& s = *state_;
  s.m = m;
  s.n = n;
  s.p = tile_count(m, gpu::warp_tile);
  s.q = tile_count(n, gpu::warp_tile);
  s.options = options;
  s.exec_options.warps_per_block = options.warps_per_block;
  s.exec_options.max_blocks = options.max_blocks;
  s.exec_options.scratch_bytes_per_warp = qr_scratch_bytes_per_warp<T>();
  s.exec_options.trace = options.trace;
  s.exec_options.stall_timeout_seconds = options.watchdog_seconds;
  // Before the graph is built (its host side alone can be large): fail
  // up front when the GPU cannot hold it all.
  gpu::ensure_device_memory(qr_device_bytes(m, n, sizeof(T)),
                            "the task-graph GPU factorisation of a " + std::to_string(m) + " x " + std::to_string(n) + " matrix");

  {
    const Dag dag = build_qr_dag(s.p, s.q, options.tree);
    Graph g;
    define_qr_kinds(g);
    for (const Task& t : dag.tasks) g.add(int32_t(t.kind), QrTaskArgs{t, 1});
    for (int32_t t = 0; t < dag.num_tasks(); ++t)
      for (int64_t e = dag.pred_offsets[size_t(t)]; e < dag.pred_offsets[size_t(t) + 1]; ++e)
        g.add_edge(dag.preds[size_t(e)], t);
    s.tasks = dag.tasks;
    s.factor_exec = std::make_unique<GraphExec<QrKinds<T>>>(g, s.exec_options);
  }
  s.storage = QrStorage<T>(s.p, s.q);
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
  T* tiles = s.storage.tiles.get();
  colmajor_to_tiles_kernel<T><<<grid_for(int64_t(s.storage.tiles.size()), 8192), 256, 0, stream>>>(
      d_a, lda, s.m, s.n, tiles, s.p, s.q);
  gpu::check_launch("colmajor_to_tiles_kernel");
  throw_on_failure(s.factor_exec->launch(s.params(tiles), stream), "the task-graph QR");
  s.timer.stop(stream);
  s.pending = true;
}

template <typename T>
void Fr4Factorization<T>::finish_factor() {
  Fr4FactorizationState<T>& s = *state_;
  if (!s.pending) throw InputError("finish_factor without launch_factor");
  s.pending = false;
  throw_on_failure(s.factor_exec->wait(), "the task-graph QR");
  s.seconds = s.timer.seconds();
  s.factored = true;
}

template <typename T>
void Fr4Factorization<T>::factor(const T* d_a, int64_t lda) {
  launch_factor(d_a, lda, 0);
  finish_factor();
}

template <typename T>
int32_t Fr4Factorization<T>::task_count() const { return int32_t(state_->tasks.size()); }
template <typename T>
double Fr4Factorization<T>::device_seconds() const { return state_->seconds; }

template <typename T>
QrFactors<T> Fr4Factorization<T>::factors() const {
  const Fr4FactorizationState<T>& s = *state_;
  if (!s.factored) throw InputError("the GPU factorisation: factor() a matrix first");
  return s.storage.factors(s.m, s.n, s.p, s.q, s.options.tree);
}

template <typename T>
std::vector<TaskRecord> Fr4Factorization<T>::trace() const {
  const Fr4FactorizationState<T>& s = *state_;
  std::vector<TaskRecord> out;
  const std::vector<TraceEvent> events = s.factor_exec->trace();
  if (events.empty()) return out;
  int64_t origin = events.front().start_ns;
  for (const TraceEvent& e : events) origin = std::min(origin, e.start_ns);
  out.reserve(events.size());
  for (size_t t = 0; t < events.size(); ++t)
    out.push_back(TaskRecord{s.tasks[t], events[t].worker, events[t].start_ns - origin, events[t].end_ns - origin});
  return out;
}

template <typename T>
void Fr4Factorization<T>::apply_tiles(bool transpose, T* b_tiles, int32_t column_tiles) const {
  Fr4FactorizationState<T>& s = *state_;
  GraphExec<QrKinds<T>>& exec = s.apply_exec(transpose, column_tiles);
  throw_on_failure(exec.run(s.params(b_tiles)), transpose ? "applying Q^T on the GPU" : "applying Q on the GPU");
}

template <typename T>
Options Fr4Factorization<T>::download_options() const {
  Options o;
  o.tile = gpu::warp_tile;
  o.inner_block = 0;
  o.backend = Backend::reference;
  o.tree = state_->options.tree;
  o.threads = 1;
  return o;
}

}  // namespace tiledqr::gpu
