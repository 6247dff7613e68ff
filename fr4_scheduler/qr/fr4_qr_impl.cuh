// DeviceQr<T>'s definitions (fr4_qr.hpp), included by one .cu per scalar
// type so the two persistent kernels compile in parallel. The layout moves
// and the back substitution are FR3's kernels (fr3_gpu); applying Q for any
// tree is itself a task graph of this workload's kinds.
#pragma once

#include "fr4_qr.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "kernels/warp/trtrs.cuh"
#include "gpu/cuda_check.hpp"
#include "dag.hpp"
#include "elimination_tree.hpp"
#include "errors.hpp"
#include "taskgraph/graph_exec.cuh"
#include "gpu/layout_kernels.cuh"
#include "qr_kinds.cuh"

namespace tiledqr::fr4 {

namespace qr_detail {

using gpu::tile_elements;

// Grid of a grid-stride kernel over `count` elements.
inline unsigned blocks_for(int64_t count) {
  return unsigned(std::max<int64_t>(1, std::min<int64_t>((count + 255) / 256, 8192)));
}

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
struct DeviceQrState {
  int64_t m = 0, n = 0;
  int32_t p = 0, q = 0;
  QrOptions options;
  ExecOptions exec_options;
  std::vector<Task> tasks;  // the factorisation's tasks, in DAG order
  std::unique_ptr<GraphExec<QrKinds<T>>> factor_exec;
  std::map<std::pair<bool, int32_t>, std::unique_ptr<GraphExec<QrKinds<T>>>> apply_execs;
  gpu::DeviceBuffer<T> tiles, tau_local, tau_merge, b_tiles, workspace;
  cudaEvent_t start = nullptr, stop = nullptr;
  bool pending = false;   // launch_factor without finish_factor
  bool factored = false;
  double seconds = 0;

  ~DeviceQrState() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }

  QrRunParams<T> params(T* c) const {
    return QrRunParams<T>{tiles.get(), tau_local.get(), tau_merge.get(), c, p};
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
DeviceQr<T>::DeviceQr(int64_t m, int64_t n, const QrOptions& options) : state_(std::make_unique<DeviceQrState<T>>()) {
  if (m < 1 || n < 1) throw InputError("DeviceQr: the matrix must be at least 1x1");
  if (!gpu_available()) throw GpuError("no CUDA-capable GPU is available (the FR4 scheduler runs on the GPU)");
  DeviceQrState<T>& s = *state_;
  s.m = m;
  s.n = n;
  s.p = tile_count(m, gpu::warp_tile);
  s.q = tile_count(n, gpu::warp_tile);
  s.options = options;
  s.exec_options.warps_per_block = options.warps_per_block;
  s.exec_options.max_blocks = options.max_blocks;
  s.exec_options.scratch_bytes_per_warp = qr_scratch_bytes_per_warp<T>();
  s.exec_options.trace = options.trace;
  s.exec_options.stall_timeout_seconds = options.stall_timeout_seconds;
  // Before the graph is built (its host side alone can be large): fail
  // up front when the GPU cannot hold it all.
  gpu::ensure_device_memory(qr_device_bytes(m, n, sizeof(T)),
                            "DeviceQr of a " + std::to_string(m) + " x " + std::to_string(n) + " matrix");

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
  const size_t tiles = checked_elements({s.p, s.q, tile_elements}, sizeof(T), "the tiles");
  s.tiles = gpu::DeviceBuffer<T>(tiles, "the tiles");
  s.tau_local = gpu::DeviceBuffer<T>(size_t(s.p) * size_t(s.q) * gpu::warp_tile, "tau");
  s.tau_merge = gpu::DeviceBuffer<T>(size_t(s.p) * size_t(s.q) * gpu::warp_tile, "tau");
  gpu::check(cudaMemset(s.tau_local.get(), 0, s.tau_local.size() * sizeof(T)), "clearing tau");
  gpu::check(cudaMemset(s.tau_merge.get(), 0, s.tau_merge.size() * sizeof(T)), "clearing tau");
  gpu::check(cudaEventCreate(&s.start), "cudaEventCreate");
  gpu::check(cudaEventCreate(&s.stop), "cudaEventCreate");
}

template <typename T>
DeviceQr<T>::~DeviceQr() = default;
template <typename T>
DeviceQr<T>::DeviceQr(DeviceQr&&) noexcept = default;
template <typename T>
DeviceQr<T>& DeviceQr<T>::operator=(DeviceQr&&) noexcept = default;

template <typename T>
void DeviceQr<T>::launch_factor(const T* d_a, int64_t lda, cudaStream_t stream) {
  DeviceQrState<T>& s = *state_;
  if (lda < s.m) throw InputError("DeviceQr::factor: lda must be >= m");
  if (s.pending) throw InputError("DeviceQr::launch_factor: the previous launch was not finished");
  gpu::check(cudaEventRecord(s.start, stream), "cudaEventRecord");
  gpu::colmajor_to_tiles_kernel<T><<<blocks_for(int64_t(s.tiles.size())), 256, 0, stream>>>(
      d_a, lda, s.m, s.n, s.tiles.get(), s.p, s.q);
  gpu::check_launch("colmajor_to_tiles_kernel");
  throw_on_failure(s.factor_exec->launch(s.params(s.tiles.get()), stream), "FR4 QR");
  gpu::check(cudaEventRecord(s.stop, stream), "cudaEventRecord");
  s.pending = true;
}

template <typename T>
void DeviceQr<T>::finish_factor() {
  DeviceQrState<T>& s = *state_;
  if (!s.pending) throw InputError("DeviceQr::finish_factor without launch_factor");
  s.pending = false;
  throw_on_failure(s.factor_exec->wait(), "FR4 QR");
  gpu::check(cudaEventSynchronize(s.stop), "cudaEventSynchronize");
  float ms = 0;
  gpu::check(cudaEventElapsedTime(&ms, s.start, s.stop), "cudaEventElapsedTime");
  s.seconds = ms * 1e-3;
  s.factored = true;
}

template <typename T>
void DeviceQr<T>::factor(const T* d_a, int64_t lda) {
  launch_factor(d_a, lda, 0);
  finish_factor();
}

template <typename T>
int64_t DeviceQr<T>::rows() const { return state_->m; }
template <typename T>
int64_t DeviceQr<T>::cols() const { return state_->n; }
template <typename T>
int32_t DeviceQr<T>::tile_rows() const { return state_->p; }
template <typename T>
int32_t DeviceQr<T>::tile_cols() const { return state_->q; }
template <typename T>
int32_t DeviceQr<T>::task_count() const { return int32_t(state_->tasks.size()); }
template <typename T>
const T* DeviceQr<T>::device_tiles() const { return state_->tiles.get(); }
template <typename T>
double DeviceQr<T>::device_seconds() const { return state_->seconds; }

template <typename T>
std::vector<TaskRecord> DeviceQr<T>::trace() const {
  const DeviceQrState<T>& s = *state_;
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
void DeviceQr<T>::apply(bool transpose, T* d_tiles_of_b, int32_t column_tiles) {
  DeviceQrState<T>& s = *state_;
  if (!s.factored) throw InputError("DeviceQr: factor() a matrix first");
  GraphExec<QrKinds<T>>& exec = s.apply_exec(transpose, column_tiles);
  throw_on_failure(exec.run(s.params(d_tiles_of_b)), transpose ? "FR4 apply_qt" : "FR4 apply_q");
}

namespace qr_detail {

template <typename T>
T* tiles_for(gpu::DeviceBuffer<T>& buffer, int32_t p, int32_t column_tiles) {
  const size_t needed = size_t(p) * size_t(column_tiles) * size_t(tile_elements);
  if (buffer.size() < needed) buffer = gpu::DeviceBuffer<T>(needed, "tiles of B");
  return buffer.get();
}

inline void check_rhs(int64_t m, int64_t ldb, int64_t nrhs) {
  if (nrhs < 0) throw InputError("number of right-hand sides must be >= 0");
  if (ldb < m) throw InputError("ldb must be >= m");
}

}  // namespace qr_detail

template <typename T>
void DeviceQr<T>::apply_qt(T* d_b, int64_t ldb, int64_t nrhs) {
  DeviceQrState<T>& s = *state_;
  check_rhs(s.m, ldb, nrhs);
  if (nrhs == 0) return;
  const int32_t qb = tile_count(nrhs, gpu::warp_tile);
  T* b = tiles_for(s.b_tiles, s.p, qb);
  const int64_t count = int64_t(s.p) * qb * tile_elements;
  gpu::colmajor_to_tiles_kernel<T><<<blocks_for(count), 256>>>(d_b, ldb, s.m, nrhs, b, s.p, qb);
  gpu::check_launch("colmajor_to_tiles_kernel");
  apply(true, b, qb);
  gpu::tiles_to_colmajor_kernel<T><<<blocks_for(count), 256>>>(b, s.p, qb, s.m, nrhs, d_b, ldb);
  gpu::check_launch("tiles_to_colmajor_kernel");
  gpu::check(cudaDeviceSynchronize(), "apply_qt");
}

template <typename T>
void DeviceQr<T>::apply_q(T* d_b, int64_t ldb, int64_t nrhs) {
  DeviceQrState<T>& s = *state_;
  check_rhs(s.m, ldb, nrhs);
  if (nrhs == 0) return;
  const int32_t qb = tile_count(nrhs, gpu::warp_tile);
  T* b = tiles_for(s.b_tiles, s.p, qb);
  const int64_t count = int64_t(s.p) * qb * tile_elements;
  gpu::colmajor_to_tiles_kernel<T><<<blocks_for(count), 256>>>(d_b, ldb, s.m, nrhs, b, s.p, qb);
  gpu::check_launch("colmajor_to_tiles_kernel");
  apply(false, b, qb);
  gpu::tiles_to_colmajor_kernel<T><<<blocks_for(count), 256>>>(b, s.p, qb, s.m, nrhs, d_b, ldb);
  gpu::check_launch("tiles_to_colmajor_kernel");
  gpu::check(cudaDeviceSynchronize(), "apply_q");
}

template <typename T>
void DeviceQr<T>::thin_q(T* d_q, int64_t ldq) {
  DeviceQrState<T>& s = *state_;
  if (ldq < s.m) throw InputError("ldq must be >= m");
  const int64_t k = std::min(s.m, s.n);
  const int32_t qb = tile_count(k, gpu::warp_tile);
  T* b = tiles_for(s.b_tiles, s.p, qb);
  const int64_t count = int64_t(s.p) * qb * tile_elements;
  gpu::identity_tiles_kernel<T><<<blocks_for(count), 256>>>(b, s.p, qb, k);
  gpu::check_launch("identity_tiles_kernel");
  apply(false, b, qb);
  gpu::tiles_to_colmajor_kernel<T><<<blocks_for(count), 256>>>(b, s.p, qb, s.m, k, d_q, ldq);
  gpu::check_launch("tiles_to_colmajor_kernel");
  gpu::check(cudaDeviceSynchronize(), "thin_q");
}

template <typename T>
void DeviceQr<T>::r(T* d_r, int64_t ldr) const {
  const DeviceQrState<T>& s = *state_;
  const int64_t k = std::min(s.m, s.n);
  if (ldr < k) throw InputError("ldr must be >= min(m, n)");
  if (!s.factored) throw InputError("DeviceQr: factor() a matrix first");
  gpu::extract_r_kernel<T><<<blocks_for(k * s.n), 256>>>(s.tiles.get(), s.p, k, s.n, d_r, ldr);
  gpu::check_launch("extract_r_kernel");
  gpu::check(cudaDeviceSynchronize(), "r");
}

template <typename T>
void DeviceQr<T>::solve(const T* d_b, int64_t ldb, int64_t nrhs, T* d_x, int64_t ldx) {
  DeviceQrState<T>& s = *state_;
  if (s.m < s.n)
    throw InputError("solve needs m >= n (least squares); got " + std::to_string(s.m) + "x" + std::to_string(s.n));
  check_rhs(s.m, ldb, nrhs);
  if (ldx < s.n) throw InputError("ldx must be >= n");
  if (!s.factored) throw InputError("DeviceQr: factor() a matrix first");
  if (nrhs == 0) return;
  std::vector<T> diagonal(size_t(s.n));
  gpu::DeviceBuffer<T> d_diagonal(size_t(s.n), "R's diagonal");
  gpu::extract_diagonal_kernel<T><<<blocks_for(s.n), 256>>>(s.tiles.get(), s.p, s.n, d_diagonal.get());
  gpu::check_launch("extract_diagonal_kernel");
  gpu::check(cudaMemcpy(diagonal.data(), d_diagonal.get(), diagonal.size() * sizeof(T), cudaMemcpyDeviceToHost),
             "R's diagonal");
  for (int64_t i = 0; i < s.n; ++i)
    if (diagonal[size_t(i)] == T(0))
      throw InputError("solve: matrix is rank-deficient (R(" + std::to_string(i + 1) + "," + std::to_string(i + 1) +
                       ") = 0)");
  const int32_t qb = tile_count(nrhs, gpu::warp_tile);
  T* b = tiles_for(s.b_tiles, s.p, qb);
  const int64_t count = int64_t(s.p) * qb * tile_elements;
  gpu::colmajor_to_tiles_kernel<T><<<blocks_for(count), 256>>>(d_b, ldb, s.m, nrhs, b, s.p, qb);
  gpu::check_launch("colmajor_to_tiles_kernel");
  apply(true, b, qb);
  const size_t y_elements = size_t(s.m) * size_t(nrhs);
  if (s.workspace.size() < y_elements) s.workspace = gpu::DeviceBuffer<T>(y_elements, "Q^T B");
  gpu::tiles_to_colmajor_kernel<T><<<blocks_for(count), 256>>>(b, s.p, qb, s.m, nrhs, s.workspace.get(), s.m);
  gpu::check_launch("tiles_to_colmajor_kernel");
  gpu::back_substitution_kernel<T><<<unsigned(nrhs), 32>>>(s.tiles.get(), s.p, s.n, s.workspace.get(), s.m, d_x, ldx);
  gpu::check_launch("back_substitution_kernel");
  gpu::check(cudaDeviceSynchronize(), "solve");
}

template <typename T>
Factorization<T> DeviceQr<T>::download() const {
  const DeviceQrState<T>& s = *state_;
  if (!s.factored) throw InputError("DeviceQr: factor() a matrix first");
  Factorization<T> f;
  f.options.tile = gpu::warp_tile;
  f.options.inner_block = 0;
  f.options.backend = Backend::reference;
  f.options.tree = s.options.tree;
  f.options.threads = 1;
  f.tiles = TileMatrix<T>(s.m, s.n, gpu::warp_tile);
  gpu::check(cudaMemcpy(f.tiles.data.data(), s.tiles.get(), f.tiles.data.size() * sizeof(T), cudaMemcpyDeviceToHost),
             "downloading the tiles");
  std::vector<T> tau_local(s.tau_local.size()), tau_merge(s.tau_merge.size());
  gpu::check(cudaMemcpy(tau_local.data(), s.tau_local.get(), tau_local.size() * sizeof(T), cudaMemcpyDeviceToHost),
             "downloading tau");
  gpu::check(cudaMemcpy(tau_merge.data(), s.tau_merge.get(), tau_merge.size() * sizeof(T), cudaMemcpyDeviceToHost),
             "downloading tau");
  f.t_local.assign(size_t(f.local_block_count() * f.t_tile_elements()), T(0));
  f.t_merge.assign(size_t(f.merge_block_count() * f.t_tile_elements()), T(0));
  for (const Task& t : s.tasks) {
    const size_t at = (size_t(t.i) + size_t(t.k) * size_t(s.p)) * gpu::warp_tile;
    if (t.kind == TaskKind::geqrt)
      std::copy_n(tau_local.begin() + std::ptrdiff_t(at), gpu::warp_tile, f.t_local_tile(t.i, t.k));
    else if (t.kind == TaskKind::tsqrt || t.kind == TaskKind::ttqrt)
      std::copy_n(tau_merge.begin() + std::ptrdiff_t(at), gpu::warp_tile, f.t_merge_tile(t.i, t.k));
  }
  f.trace = trace();
  f.device_seconds = s.seconds;
  return f;
}

}  // namespace tiledqr::fr4
