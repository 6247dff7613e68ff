// StarPU-MPI executor of the tiled QR (starpu_qr.hpp).
#include "starpu_qr.hpp"

#include <starpu_mpi.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "dag.hpp"
#include "kernels/lapack/lapack_kernels.hpp"

namespace tiledqr::distributed {
namespace {

// What a codelet needs besides its buffers.
struct KernelArgs {
  Task task;
  int32_t b = 0;
  int32_t ib = 0;
  int32_t plan_index = 0;
  bool is_copy = false;
};

template <typename T>
T* buffer(void* buffers[], int n) {
  return reinterpret_cast<T*>(STARPU_MATRIX_GET_PTR(buffers[n]));
}

int ld_of(void* buffers[], int n) { return int(STARPU_MATRIX_GET_LD(buffers[n])); }

// The codelet of every task; buffers in the order plan_tasks gives them.
template <typename T>
void run_codelet(void* buffers[], void* cl_arg) {
  KernelArgs args;
  starpu_codelet_unpack_args(cl_arg, &args);
  const Task& t = args.task;
  const int b = args.b, ib = args.ib;
  if (args.is_copy) {  // tile (i, k) → its reflectors' own datum, both (b, b)
    for (int c = 0; c < b; ++c)
      std::copy_n(buffer<T>(buffers, 0) + int64_t(c) * ld_of(buffers, 0), b,
                  buffer<T>(buffers, 1) + int64_t(c) * ld_of(buffers, 1));
    return;
  }
  switch (t.kind) {
    case TaskKind::geqrt:  // tile (b, b); T (ib, b)
      lapack_kernels::geqrt(b, b, ib, buffer<T>(buffers, 0), ld_of(buffers, 0), buffer<T>(buffers, 1),
                            ld_of(buffers, 1));
      break;
    case TaskKind::ormqr:  // V (b, b); T (ib, b); C (b, b)
      lapack_kernels::gemqrt(true, b, b, b, ib, buffer<T>(buffers, 0), ld_of(buffers, 0),
                             buffer<T>(buffers, 1), ld_of(buffers, 1), buffer<T>(buffers, 2),
                             ld_of(buffers, 2));
      break;
    case TaskKind::tsqrt:
    case TaskKind::ttqrt:  // top (b, b) upper; bottom (b, b); T (ib, b)
      lapack_kernels::tpqrt(b, b, t.kind == TaskKind::ttqrt ? b : 0, ib, buffer<T>(buffers, 0),
                            ld_of(buffers, 0), buffer<T>(buffers, 1), ld_of(buffers, 1),
                            buffer<T>(buffers, 2), ld_of(buffers, 2));
      break;
    case TaskKind::tsmqr:
    case TaskKind::ttmqr:  // V (b, b); T (ib, b); top (b, b); bottom (b, b)
      lapack_kernels::tpmqrt(true, b, b, b, t.kind == TaskKind::ttmqr ? b : 0, ib,
                             buffer<T>(buffers, 0), ld_of(buffers, 0), buffer<T>(buffers, 1),
                             ld_of(buffers, 1), buffer<T>(buffers, 2), ld_of(buffers, 2),
                             buffer<T>(buffers, 3), ld_of(buffers, 3));
      break;
  }
}

template <typename T>
starpu_codelet* codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    c.where = STARPU_CPU;
    c.cpu_funcs[0] = run_codelet<T>;
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;
    c.name = "tiledqr_tile_task";
    return c;
  }();
  return &cl;
}

// Task records of this process, filled by the completion callbacks.
struct TraceSink {
  std::mutex mutex;
  std::vector<TaskRecord>* records = nullptr;
  const std::vector<PlannedTask>* plan = nullptr;
  double origin_us = 0;
  int worker_base = 0;
} g_trace;

void record_task(void* arg) {
  const starpu_task* task = starpu_task_get_current();
  const starpu_profiling_task_info* info = task ? task->profiling_info : nullptr;
  if (!info) return;
  const auto index = size_t(reinterpret_cast<intptr_t>(arg));
  if ((*g_trace.plan)[index].is_copy) return;  // not a QR task: no kind in the trace
  TaskRecord r;
  r.task = (*g_trace.plan)[index].task;
  r.worker = g_trace.worker_base + info->workerid;
  timespec start = info->start_time, end = info->end_time;
  r.start_ns = int64_t((starpu_timing_timespec_to_us(&start) - g_trace.origin_us) * 1e3);
  r.end_ns = int64_t((starpu_timing_timespec_to_us(&end) - g_trace.origin_us) * 1e3);
  const std::lock_guard<std::mutex> lock(g_trace.mutex);
  g_trace.records->push_back(r);
}

constexpr int kinds = 4;  // DataKind values

}  // namespace

template <typename T>
DistributedQr<T>::DistributedQr(int64_t m, int64_t n, const Options& options, const ProcessGrid& grid,
                                 int rank)
    : m_(m), n_(n), options_(options), grid_(grid), rank_(rank),
      p_(tile_count(m, options.tile)), q_(tile_count(n, options.tile)) {
  local_index_.assign(size_t(p_) * q_, -1);
  int64_t owned = 0;
  for (int32_t j = 0; j < q_; ++j)
    for (int32_t i = 0; i < p_; ++i)
      if (owns(i, j)) local_index_[size_t(i) + size_t(j) * p_] = owned++;
  local_.assign(checked_elements({owned, options.tile, options.tile}, sizeof(T), "local tiles"), T(0));
  const Dag dag = build_qr_dag(p_, q_, options.tree, options.tree_domains, options.inner_tree);
  priority_ = dag.priority;
  plan_ = plan_tasks(dag, q_, grid_);
  handles_.assign(size_t(kinds) * p_ * q_, nullptr);
}

template <typename T>
DistributedQr<T>::~DistributedQr() {
  for (starpu_data_handle_t& h : handles_)
    if (h) starpu_data_unregister(h);
}

template <typename T>
T* DistributedQr<T>::local_tile(int32_t i, int32_t j) {
  return local_.data() + local_index_[size_t(i) + size_t(j) * p_] * int64_t(options_.tile) * options_.tile;
}

template <typename T>
starpu_data_handle_t& DistributedQr<T>::handle(const DataRef& d) {
  return handles_[(size_t(d.kind) * q_ + size_t(d.j)) * p_ + size_t(d.i)];
}

template <typename T>
void DistributedQr<T>::register_handle(const DataRef& d) {
  starpu_data_handle_t& h = handle(d);
  if (h) return;
  const int b = options_.tile;
  const int ib = options_.effective_inner_block();
  const int owner = grid_.owner(d.i, d.j);
  const bool t_factor = d.kind == DataKind::t_local || d.kind == DataKind::t_merge;
  // Owned tiles start from this rank's values; every other datum is first
  // written by a task, so StarPU allocates it where it is needed.
  if (d.kind == DataKind::tile && owner == rank_)
    starpu_matrix_data_register(&h, STARPU_MAIN_RAM, uintptr_t(local_tile(d.i, d.j)), b, b, b, sizeof(T));
  else if (t_factor)
    starpu_matrix_data_register(&h, -1, 0, ib, ib, b, sizeof(T));
  else
    starpu_matrix_data_register(&h, -1, 0, b, b, b, sizeof(T));
  const int64_t tag = (int64_t(d.kind) * q_ + d.j) * p_ + d.i;
  starpu_mpi_data_register(h, tag, owner);
}

template <typename T>
double DistributedQr<T>::factor(bool trace) {
  lapack_kernels::use_single_threaded_blas();
  for (const PlannedTask& t : plan_)
    for (const DataUse& u : t.uses) register_handle(u.data);
  if (trace) {
    starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
    g_trace.records = &trace_;
    g_trace.plan = &plan_;
    g_trace.worker_base = rank_ * int(starpu_worker_get_count());
  }
  const int min_priority = starpu_sched_get_min_priority();
  const int max_priority = starpu_sched_get_max_priority();
  const int32_t top = *std::max_element(priority_.begin(), priority_.end());
  starpu_mpi_barrier(MPI_COMM_WORLD);
  g_trace.origin_us = starpu_timing_now();
  const auto start = std::chrono::steady_clock::now();
  std::vector<starpu_data_descr> descrs;
  for (size_t index = 0; index < plan_.size(); ++index) {
    const PlannedTask& t = plan_[index];
    descrs.clear();
    for (const DataUse& u : t.uses) {
      const starpu_data_access_mode mode =
          u.mode == Mode::read ? STARPU_R : u.mode == Mode::write ? STARPU_W : STARPU_RW;
      descrs.push_back({handle(u.data), mode});
    }
    KernelArgs args;
    args.task = t.task;
    args.b = options_.tile;
    args.ib = options_.effective_inner_block();
    args.plan_index = int32_t(index);
    args.is_copy = t.is_copy;
    // Critical-path priority scaled into the scheduler's range; a copy
    // takes its geqrt's, since the panel's updates wait on it.
    const int32_t dag_index = t.is_copy ? plan_[index - 1].dag_index : t.dag_index;
    const int priority = min_priority + int(int64_t(priority_[size_t(dag_index)]) *
                                            (max_priority - min_priority) / std::max(top, 1));
    void (*callback)(void*) = trace ? record_task : nullptr;
    const int status = starpu_mpi_task_insert(
        MPI_COMM_WORLD, codelet<T>(), STARPU_DATA_MODE_ARRAY, descrs.data(), int(descrs.size()),
        STARPU_VALUE, &args, sizeof(args), STARPU_PRIORITY, priority, STARPU_EXECUTE_ON_NODE, t.rank,
        STARPU_CALLBACK_WITH_ARG_NFREE, callback, reinterpret_cast<void*>(intptr_t(index)), 0);
    if (status != 0) throw std::runtime_error("starpu_mpi_task_insert failed");
  }
  starpu_mpi_wait_for_all(MPI_COMM_WORLD);
  starpu_mpi_barrier(MPI_COMM_WORLD);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (trace) starpu_profiling_status_set(STARPU_PROFILING_DISABLE);
  return seconds;
}

template <typename T>
MessageCount DistributedQr<T>::model_messages() const {
  const int64_t b = options_.tile;
  return count_messages(plan_, grid_, b * b * int64_t(sizeof(T)),
                        int64_t(options_.effective_inner_block()) * b * int64_t(sizeof(T)));
}

template <typename T>
Factorization<T> DistributedQr<T>::gather(bool all) {
  const int b = options_.tile;
  std::vector<std::pair<DataRef, T*>> wanted;
  Factorization<T> f;
  if (rank_ == 0) {
    f.options = options_;
    f.tiles = TileMatrix<T>(m_, n_, b);
    f.t_local.assign(size_t(f.local_block_count() * f.t_tile_elements()), T(0));
    f.t_merge.assign(size_t(f.merge_block_count() * f.t_tile_elements()), T(0));
  }
  for (int32_t j = 0; j < q_; ++j)
    for (int32_t i = 0; i < p_; ++i)
      if (all || i <= j) wanted.push_back({{DataKind::tile, i, j}, rank_ == 0 ? f.tiles.tile(i, j) : nullptr});
  if (all)
    for (const PlannedTask& t : plan_) {
      if (t.is_copy || !is_factorization(t.task.kind)) continue;
      const bool local = t.task.kind == TaskKind::geqrt;
      const DataRef d{local ? DataKind::t_local : DataKind::t_merge, t.task.i, t.task.k};
      T* target = nullptr;
      if (rank_ == 0) target = local ? f.t_local_tile(d.i, d.j) : f.t_merge_tile(d.i, d.j);
      wanted.push_back({d, target});
    }
  // Point-to-point, in one order on every rank: owners send, rank 0
  // receives (the detached get_data_on_node left rank 0 waiting in 1.3).
  starpu_task_wait_for_all();
  for (const auto& [d, target] : wanted) {
    register_handle(d);
    const int owner = grid_.owner(d.i, d.j);
    const int64_t tag = starpu_mpi_data_get_tag(handle(d));
    if (owner == 0 || (rank_ != 0 && rank_ != owner)) continue;
    if (rank_ == owner) {
      starpu_mpi_send(handle(d), 0, tag, MPI_COMM_WORLD);
    } else {
      MPI_Status status;
      starpu_mpi_recv(handle(d), owner, tag, MPI_COMM_WORLD, &status);
    }
  }
  if (rank_ != 0) return f;
  for (const auto& [d, target] : wanted) {
    starpu_data_handle_t h = handle(d);
    starpu_data_acquire(h, STARPU_R);
    const T* source = reinterpret_cast<const T*>(starpu_matrix_get_local_ptr(h));
    const int64_t ld = int64_t(starpu_matrix_get_local_ld(h));
    const int64_t rows = int64_t(starpu_matrix_get_nx(h));
    for (int64_t c = 0; c < b; ++c) std::copy_n(source + c * ld, rows, target + c * rows);
    starpu_data_release(h);
  }
  return f;
}

template class DistributedQr<float>;
template class DistributedQr<double>;

}  // namespace tiledqr::distributed
