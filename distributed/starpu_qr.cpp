// StarPU-MPI executor of the tiled QR (starpu_qr.hpp).
#include "starpu_qr.hpp"

#include <cblas.h>
#include <starpu_mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <mutex>

#include "dag.hpp"
#include "huge_pages.hpp"
#include "kernels/host_binding.hpp"
#include "kernels/lapack/lapack_kernels.hpp"
#include "mpi_transfer.hpp"

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

// Tile (b, b) or T factor (ib, b) number n of a codelet's buffers. The host
// binding takes both with ld = their rows, as they are registered and as
// StarPU allocates its copies.
template <typename T>
T* operand(void* buffers[], int n, int rows) {
  STARPU_ASSERT_MSG(ld_of(buffers, n) == rows, "buffer %d has ld %d, expected %d", n, ld_of(buffers, n), rows);
  return buffer<T>(buffers, n);
}

// Runs `kind` on a codelet's buffers through the host binding (LAPACK
// backend), applying Qᵀ (`transpose`) or Q for the update kinds. Buffers in
// the order plan_tasks gives them: geqrt tile, T; ormqr V, T, C; tsqrt/ttqrt
// top, bottom, T; tsmqr/ttmqr V, T, top, bottom; all tiles (b, b), T (ib, b).
template <typename T>
void run_task_kernel(TaskKind kind, bool transpose, void* buffers[], int b, int ib) {
  const bool merge = kind == TaskKind::tsqrt || kind == TaskKind::ttqrt;
  const bool update = kind == TaskKind::ormqr || kind == TaskKind::tsmqr || kind == TaskKind::ttmqr;
  kernels::HostOperands<T> o{b, ib, b, nullptr, nullptr, nullptr, b, nullptr, b};
  int next = 0;
  if (merge) o.top = operand<T>(buffers, next++, b);
  o.v = operand<T>(buffers, next++, b);
  o.t = operand<T>(buffers, next++, ib);
  if (update && kind != TaskKind::ormqr) o.top = operand<T>(buffers, next++, b);
  if (update) o.row = operand<T>(buffers, next++, b);
  kernels::run_host_kernel(kind, false, transpose, o);
}

// The codelet of every task of the factorisation.
template <typename T>
void run_codelet(void* buffers[], void* cl_arg) {
  KernelArgs args;
  starpu_codelet_unpack_args(cl_arg, &args);
  const int b = args.b;
  if (args.is_copy) {  // tile (i, k) → its reflectors' own datum, both (b, b)
    for (int c = 0; c < b; ++c)
      std::copy_n(buffer<T>(buffers, 0) + int64_t(c) * ld_of(buffers, 0), b,
                  buffer<T>(buffers, 1) + int64_t(c) * ld_of(buffers, 1));
    return;
  }
  run_task_kernel<T>(args.task.kind, true, buffers, b, args.ib);
}

// A CPU codelet of any number of buffers running `run`.
starpu_codelet cpu_codelet(starpu_cpu_func_t run, const char* name) {
  starpu_codelet c;
  starpu_codelet_init(&c);
  c.where = STARPU_CPU;
  c.cpu_funcs[0] = run;
  c.nbuffers = STARPU_VARIABLE_NBUFFERS;
  c.name = name;
  return c;
}

template <typename T>
starpu_codelet* codelet() {
  static starpu_codelet cl = cpu_codelet(run_codelet<T>, "tiledqr_tile_task");
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

// --- The distributed check ---------------------------------------------

// What a check task does to its tiles, all (b, b).
enum class CheckOp : int32_t {
  apply_local,  // V; T (ib, b); C ← Q C (geqrt's reflectors)
  apply_merge,  // V; T (ib, b); [top; bottom] ← Q [top; bottom] (tsqrt l = 0, ttqrt l = b)
  gram,         // G; Y; Z: G −= Yᵀ Z
};

struct CheckArgs {
  CheckOp op = CheckOp::apply_local;
  int32_t b = 0, ib = 0, l = 0;
};

// C (b, b) −= Aᵀ B, A and B (b, b).
void minus_transposed_product(int b, const double* a, int lda, const double* x, int ldx, double* c, int ldc) {
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, b, b, b, -1.0, a, lda, x, ldx, 1.0, c, ldc);
}
void minus_transposed_product(int b, const float* a, int lda, const float* x, int ldx, float* c, int ldc) {
  cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, b, b, b, -1.0f, a, lda, x, ldx, 1.0f, c, ldc);
}

template <typename T>
void run_check_codelet(void* buffers[], void* cl_arg) {
  CheckArgs args;
  starpu_codelet_unpack_args(cl_arg, &args);
  const int b = args.b;
  switch (args.op) {
    case CheckOp::apply_local:  // V (b, b) unit lower; T (ib, b); C ← Q C
      run_task_kernel<T>(TaskKind::ormqr, false, buffers, b, args.ib);
      break;
    case CheckOp::apply_merge:  // V (b, b); T (ib, b); [top; bottom] ← Q [top; bottom]
      run_task_kernel<T>(args.l == 0 ? TaskKind::tsmqr : TaskKind::ttmqr, false, buffers, b, args.ib);
      break;
    case CheckOp::gram:  // G (b, b); Y (b, b); Z (b, b)
      minus_transposed_product(b, buffer<T>(buffers, 1), ld_of(buffers, 1), buffer<T>(buffers, 2),
                               ld_of(buffers, 2), buffer<T>(buffers, 0), ld_of(buffers, 0));
      break;
  }
}

template <typename T>
starpu_codelet* check_codelet() {
  static starpu_codelet cl = cpu_codelet(run_check_codelet<T>, "tiledqr_check_task");
  return &cl;
}

// A work matrix of the check: rows × cols tiles (b, b) on their block-cyclic
// owners, this rank's own tiles stored here and set by `fill(i, j, tile)`.
// Tags from `first_tag` on, apart from every other matrix's.
template <typename T>
class WorkTiles {
 public:
  WorkTiles(int32_t rows, int32_t cols, int b, const ProcessGrid& grid, int rank, int64_t first_tag,
            const std::function<void(int32_t, int32_t, T*)>& fill)
      : rows_(rows), grid_(grid), rank_(rank), handles_(size_t(rows) * size_t(cols), nullptr) {
    int64_t owned = 0;
    for (int32_t j = 0; j < cols; ++j)
      for (int32_t i = 0; i < rows; ++i) owned += grid.owner(i, j) == rank ? 1 : 0;
    const size_t elements = checked_elements({owned, b, b}, sizeof(T), "check tiles");
    reserve_with_huge_pages(data_, elements);
    data_.assign(elements, T(0));
    T* next = data_.data();
    for (int32_t j = 0; j < cols; ++j)
      for (int32_t i = 0; i < rows; ++i) {
        starpu_data_handle_t& h = handles_[size_t(i) + size_t(j) * rows];
        if (grid.owner(i, j) == rank) {
          fill(i, j, next);
          starpu_matrix_data_register(&h, STARPU_MAIN_RAM, uintptr_t(next), b, b, b, sizeof(T));
          next += int64_t(b) * b;
        } else {
          starpu_matrix_data_register(&h, -1, 0, b, b, b, sizeof(T));
        }
        starpu_mpi_data_register(h, first_tag + i + int64_t(j) * rows, grid.owner(i, j));
      }
  }
  ~WorkTiles() {
    for (starpu_data_handle_t& h : handles_) starpu_data_unregister(h);
  }
  WorkTiles(const WorkTiles&) = delete;
  WorkTiles& operator=(const WorkTiles&) = delete;

  starpu_data_handle_t operator()(int32_t i, int32_t j) const { return handles_[size_t(i) + size_t(j) * rows_]; }

  // Appends the handles of the tiles this rank owns.
  void append_owned(std::vector<starpu_data_handle_t>& owned) const {
    for (size_t h = 0; h < handles_.size(); ++h)
      if (grid_.owner(int32_t(h % size_t(rows_)), int32_t(h / size_t(rows_))) == rank_) owned.push_back(handles_[h]);
  }

  // Calls visit(i, j, tile) on each tile this rank owns, once every task
  // has written it.
  void for_each_owned(const std::function<void(int32_t, int32_t, const T*)>& visit) const {
    const int32_t cols = int32_t(handles_.size() / size_t(rows_));
    for (int32_t j = 0; j < cols; ++j)
      for (int32_t i = 0; i < rows_; ++i) {
        if (grid_.owner(i, j) != rank_) continue;
        starpu_data_handle_t h = (*this)(i, j);
        starpu_data_acquire(h, STARPU_R);
        visit(i, j, reinterpret_cast<const T*>(starpu_matrix_get_local_ptr(h)));
        starpu_data_release(h);
      }
  }

 private:
  int32_t rows_;
  ProcessGrid grid_;
  int rank_;
  std::vector<starpu_data_handle_t> handles_;
  std::vector<T> data_;
};

// Every rank's sum combined on every rank.
ScaledSumOfSquares combine_over_ranks(const ScaledSumOfSquares& mine) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const double part[2] = {mine.scale, mine.sum_of_squares};
  std::vector<double> all(size_t(2) * size_t(ranks));
  MPI_Allgather(part, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, MPI_COMM_WORLD);
  ScaledSumOfSquares total;
  for (int r = 0; r < ranks; ++r) total.merge({all[size_t(2 * r)], all[size_t(2 * r + 1)]});
  return total;
}

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
  const size_t local_elements = checked_elements({owned, options.tile, options.tile}, sizeof(T), "local tiles");
  reserve_with_huge_pages(local_, local_elements);
  local_.assign(local_elements, T(0));
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
    g_trace.records = &trace_;
    g_trace.plan = &plan_;
    g_trace.worker_base = rank_ * int(starpu_worker_get_count());
  }
  const int min_priority = starpu_sched_get_min_priority();
  const int max_priority = starpu_sched_get_max_priority();
  const int32_t top = *std::max_element(priority_.begin(), priority_.end());
  std::vector<starpu_data_handle_t> owned;
  for (size_t h = 0; h < handles_.size(); ++h) {
    const size_t tile = h % (size_t(p_) * q_);
    if (handles_[h] && grid_.owner(int32_t(tile % p_), int32_t(tile / p_)) == rank_) owned.push_back(handles_[h]);
  }
  return timed_insertion(trace, g_trace.origin_us, owned, [&] {
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
  });
}

void wait_for_every_rank(const std::vector<starpu_data_handle_t>& owned) {
  for (starpu_data_handle_t h : owned) {
    starpu_data_acquire(h, STARPU_R);
    starpu_data_release(h);
  }
  starpu_mpi_wait_for_all(MPI_COMM_WORLD);
  starpu_mpi_barrier(MPI_COMM_WORLD);
}

double timed_insertion(bool trace, double& origin_us, const std::vector<starpu_data_handle_t>& owned,
                       const std::function<void()>& insert_tasks) {
  if (trace) starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  starpu_mpi_barrier(MPI_COMM_WORLD);
  origin_us = starpu_timing_now();
  const auto start = std::chrono::steady_clock::now();
  insert_tasks();
  wait_for_every_rank(owned);
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
  // Point-to-point with plain MPI on a communicator of its own, in one
  // order on every rank: each owner reads its datum where StarPU holds it
  // and sends it, rank 0 receives it into its place. (StarPU-MPI 1.3's
  // blocking send and receive race with its progress thread, which may
  // read a request the waiting thread has already freed.) Every datum ends
  // on its owner: wait_for_every_rank saw to that.
  starpu_task_wait_for_all();
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::vector<T> staging;
  for (const auto& [d, target] : wanted) {
    const int owner = grid_.owner(d.i, d.j);
    if (rank_ != owner && rank_ != 0) continue;
    const bool t_factor = d.kind == DataKind::t_local || d.kind == DataKind::t_merge;
    const int64_t rows = t_factor ? options_.effective_inner_block() : b;
    const size_t elements = size_t(rows) * size_t(b);
    if (rank_ != owner) {
      receive_all(target, elements, owner, 0, comm);
      continue;
    }
    register_handle(d);
    starpu_data_handle_t h = handle(d);
    starpu_data_acquire(h, STARPU_R);
    const T* source = reinterpret_cast<const T*>(starpu_matrix_get_local_ptr(h));
    const int64_t ld = int64_t(starpu_matrix_get_local_ld(h));
    T* packed = target;  // rank 0 copies its own data straight into place
    if (rank_ != 0) {
      staging.resize(elements);
      packed = staging.data();
    }
    for (int64_t c = 0; c < b; ++c) std::copy_n(source + c * ld, rows, packed + c * rows);
    starpu_data_release(h);
    if (rank_ != 0) send_all(packed, elements, 0, 0, comm);
  }
  MPI_Comm_free(&comm);
  return f;
}

template <typename T>
Residuals DistributedQr<T>::check(const std::vector<T>& input) {
  const int b = options_.tile;
  const int64_t k = std::min(m_, n_);
  const int32_t kq = tile_count(k, b);  // tile columns of the thin Q
  starpu_task_wait_for_all();
  // The factored tiles as their owners hold them now.
  for (int32_t j = 0; j < q_; ++j)
    for (int32_t i = 0; i < p_; ++i)
      if (owns(i, j)) {
        starpu_data_handle_t h = handle({DataKind::tile, i, j});
        starpu_data_acquire(h, STARPU_R);
        starpu_data_release(h);
      }
  const int64_t first_tag = int64_t(kinds) * p_ * q_;
  // W = [R; 0], the R part of each tile (upper triangle of the diagonal ones).
  WorkTiles<T> w(p_, q_, b, grid_, rank_, first_tag, [&](int32_t i, int32_t j, T* tile) {
    if (i > j) return;
    const T* factored = local_tile(i, j);
    for (int c = 0; c < b; ++c)
      for (int r = 0; r <= (i == j ? c : b - 1); ++r) tile[r + c * b] = factored[r + c * b];
  });
  // Z = [I; 0] (m, k).
  WorkTiles<T> z(p_, kq, b, grid_, rank_, first_tag + int64_t(p_) * q_, [&](int32_t i, int32_t j, T* tile) {
    if (i != j) return;
    for (int c = 0; c < b && int64_t(j) * b + c < k; ++c) tile[c + c * b] = T(1);
  });

  // Q applied to W and Z: the factorisation tasks' reflectors, last first,
  // to every column at or right of the task's step (columns left of it are
  // zero in the rows the reflectors touch).
  const int ib = options_.effective_inner_block();
  auto insert = [&](const CheckArgs& args, std::vector<starpu_data_descr>& descrs, int rank) {
    const int status = starpu_mpi_task_insert(
        MPI_COMM_WORLD, check_codelet<T>(), STARPU_DATA_MODE_ARRAY, descrs.data(), int(descrs.size()),
        STARPU_VALUE, &args, sizeof(args), STARPU_EXECUTE_ON_NODE, rank, 0);
    if (status != 0) throw std::runtime_error("starpu_mpi_task_insert failed (check)");
  };
  std::vector<starpu_data_descr> descrs;
  for (auto t = plan_.rbegin(); t != plan_.rend(); ++t) {
    if (t->is_copy || !is_factorization(t->task.kind)) continue;
    const Task& f = t->task;
    const bool local = f.kind == TaskKind::geqrt;
    CheckArgs args;
    args.op = local ? CheckOp::apply_local : CheckOp::apply_merge;
    args.b = b;
    args.ib = ib;
    args.l = f.kind == TaskKind::ttqrt ? b : 0;
    const starpu_data_handle_t v = handle({DataKind::tile, f.i, f.k});
    const starpu_data_handle_t tf = handle({local ? DataKind::t_local : DataKind::t_merge, f.i, f.k});
    for (const WorkTiles<T>* work : {&w, &z})
      for (int32_t j = f.k; j < (work == &w ? q_ : kq); ++j) {
        descrs = {{v, STARPU_R}, {tf, STARPU_R}};
        if (!local) descrs.push_back({(*work)(f.piv, j), STARPU_RW});
        descrs.push_back({(*work)(f.i, j), STARPU_RW});
        insert(args, descrs, grid_.owner(f.i, j));
      }
  }
  // G = I − ZᵀZ, the tiles on and above the diagonal.
  WorkTiles<T> g(kq, kq, b, grid_, rank_, first_tag + int64_t(p_) * (q_ + kq), [&](int32_t i, int32_t j, T* tile) {
    if (i != j) return;
    for (int c = 0; c < b && int64_t(j) * b + c < k; ++c) tile[c + c * b] = T(1);
  });
  CheckArgs gram_args;
  gram_args.op = CheckOp::gram;
  gram_args.b = b;
  for (int32_t c = 0; c < kq; ++c)
    for (int32_t a = 0; a <= c; ++a)
      for (int32_t i = 0; i < p_; ++i) {
        descrs = {{g(a, c), STARPU_RW}, {z(i, a), STARPU_R}, {z(i, c), STARPU_R}};
        insert(gram_args, descrs, grid_.owner(a, c));
      }
  std::vector<starpu_data_handle_t> owned;
  for (const WorkTiles<T>* work : {&w, &z, &g}) work->append_owned(owned);
  wait_for_every_rank(owned);

  // Sums of squares of this rank's tiles, logical entries only.
  ScaledSumOfSquares a_sum, difference;
  w.for_each_owned([&](int32_t i, int32_t j, const T* qr) {
    const T* a = input.data() + local_index_[size_t(i) + size_t(j) * p_] * int64_t(b) * b;
    for (int c = 0; c < b && int64_t(j) * b + c < n_; ++c)
      for (int r = 0; r < b && int64_t(i) * b + r < m_; ++r) {
        a_sum.add(double(a[r + c * b]));
        difference.add(double(a[r + c * b]) - double(qr[r + c * b]));
      }
  });
  ScaledSumOfSquares diagonal_part, off_diagonal_part;  // G's tiles off the diagonal count twice
  g.for_each_owned([&](int32_t i, int32_t j, const T* tile) {
    if (i > j) return;
    for (int c = 0; c < b && int64_t(j) * b + c < k; ++c)
      for (int r = 0; r < b && int64_t(i) * b + r < k; ++r)
        (i == j ? diagonal_part : off_diagonal_part).add(double(tile[r + c * b]));
  });
  a_sum = combine_over_ranks(a_sum);
  difference = combine_over_ranks(difference);
  diagonal_part = combine_over_ranks(diagonal_part);
  off_diagonal_part = combine_over_ranks(off_diagonal_part);
  off_diagonal_part.sum_of_squares *= 2;
  diagonal_part.merge(off_diagonal_part);
  const double eps = unit_roundoff<T>();
  Residuals out;
  out.residual = residual_ratio(difference, a_sum, n_, eps);
  out.orthogonality = diagonal_part.scale * std::sqrt(diagonal_part.sum_of_squares) / (double(n_) * eps);
  return out;
}

template class DistributedQr<float>;
template class DistributedQr<double>;

}  // namespace tiledqr::distributed
