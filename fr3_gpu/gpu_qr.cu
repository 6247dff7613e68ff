// FR3's host side: device memory, the co-residency check, the cooperative
// launch of persistent_qr_kernel, the watchdog, and the apply side.
#include "gpu_qr.hpp"

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "kernels/warp/ormqr_matrix.cuh"
#include "gpu/cuda_check.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/layout_kernels.cuh"
#include "gpu/qr_storage.hpp"
#include "persistent_qr.cuh"

namespace tiledqr::gpu {

namespace {

int ceil_log2(uint64_t value) {
  int log2 = 0;
  while ((uint64_t(1) << log2) < value) ++log2;
  return log2;
}

// The two words the watchdog shares with the kernel, in host-mapped memory.
struct WatchdogWords {
  uint64_t progress;  // written by the scheduler: 1 once it runs, then 1 + tasks completed
  int32_t abort;      // raised by the host
};

}  // namespace

template <typename T>
struct Fr3FactorizationState {
  int64_t m = 0, n = 0;
  int32_t p = 0, q = 0;
  int64_t tasks_total = 0;
  Options options;
  PersistentQrParams<T> params;  // device pointers below, filled once
  QrStorage<T> storage;  // tiles and τ
  DeviceBuffer<uint64_t> ready_slots, ready_control, finished_slots, finished_control;
  DeviceBuffer<GridCell> global_cells;
  DeviceBuffer<DeviceTraceRecord> trace_records;
  DeviceBuffer<unsigned long long> trace_count;
  WatchdogWords* watchdog_host = nullptr;  // cudaHostAlloc'ed, mapped
  WatchdogWords* watchdog_device = nullptr;
  size_t shared_bytes = 0;  // dynamic shared memory per block
  int blocks = 0;           // 1 scheduler + executors
  bool queues_clean = false;
  EventTimer timer;  // around the layout conversion and the persistent kernel
  double device_seconds = 0;
  std::vector<TaskRecord> trace;

  ~Fr3FactorizationState() {
    if (watchdog_host) cudaFreeHost(watchdog_host);
  }
};

namespace {

// Picks the shared memory per block (the grid's cells go to the
// scheduler's shared memory when they fit) and proves that 1 + E blocks can
// be resident at once, as the spinning roles need.
template <typename T>
void plan_launch(Fr3FactorizationState<T>& s) {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  int sms = 0, cooperative = 0, shared_optin = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
  check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device), "cooperative launch");
  check(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
        "shared memory limit");
  if (!cooperative) throw GpuError("the device does not support cooperative launches, which the scheduler-warp GPU factorisation needs");
  const int executors = sms * s.options.executors_per_sm;
  s.blocks = executors + 1;
  const size_t executor_bytes = warp_shared_elements * sizeof(T);
  const size_t cell_bytes = size_t(s.p) * size_t(s.q) * sizeof(GridCell);
  const size_t scheduler_bytes = scheduler_shared_bytes(executors);
  const size_t with_cells = std::max(executor_bytes, scheduler_bytes + cell_bytes);
  const size_t without_cells = std::max(executor_bytes, scheduler_bytes);
  int per_sm = 0;
  bool cells_in_shared = false;
  for (const bool try_cells : {true, false}) {
    const size_t bytes = try_cells ? with_cells : without_cells;
    if (bytes > size_t(shared_optin)) continue;
    check(cudaFuncSetAttribute(persistent_qr_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(bytes)),
          "setting the persistent kernel's shared memory");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_qr_kernel<T>, 32, bytes),
          "occupancy of the persistent kernel");
    s.shared_bytes = bytes;
    cells_in_shared = try_cells;
    if (int64_t(per_sm) * sms >= s.blocks) break;
  }
  if (int64_t(per_sm) * sms < s.blocks)
    throw GpuError("the scheduler-warp GPU factorisation needs " + std::to_string(s.blocks) + " co-resident blocks (1 scheduler + " +
                   std::to_string(executors) + " executors = " +
                   std::to_string(s.options.executors_per_sm) + " per SM x " + std::to_string(sms) +
                   " SMs) of 32 threads and " + std::to_string(s.shared_bytes) +
                   " bytes of shared memory, but the device holds only " + std::to_string(per_sm) +
                   " per SM x " + std::to_string(sms) + " SMs = " + std::to_string(per_sm * sms) +
                   "; use fewer executors per SM");
  s.params.executors = executors;
  if (!cells_in_shared)
    s.global_cells = DeviceBuffer<GridCell>(size_t(s.p) * s.q, "task grid cells");
  s.params.global_cells = s.global_cells.get();
}

template <typename T>
std::unique_ptr<Fr3FactorizationState<T>> make_state(int64_t m, int64_t n, const Options& options) {
  if (m < 1 || n < 1)
    throw InputError("matrix must be at least 1x1, got " + std::to_string(m) + "x" + std::to_string(n));
  if (options.tile != warp_tile)
    throw InputError("the scheduler-warp GPU factorisation runs tile " + std::to_string(warp_tile) + " only, got " +
                     std::to_string(options.tile));
  if (options.tree != Tree::flat)
    throw InputError(std::string("the scheduler-warp GPU factorisation runs the flat tree only, got ") +
                     tree_name(options.tree) + " (the task-graph GPU factorisation runs every tree)");
  if (options.executors_per_sm < 1) throw InputError("executors per SM must be >= 1");
  if (!(options.double_task_weight > 0)) throw InputError("double task weight must be > 0");
  if (!(options.watchdog_seconds > 0)) throw InputError("watchdog seconds must be > 0");
  const int64_t p = tile_shape.count(m), q = tile_shape.count(n);
  if (p >= max_tile_count || q >= max_tile_count)
    throw InputError("the scheduler-warp GPU factorisation handles at most " + std::to_string(max_tile_count - 1) +
                     " tiles per dimension; got " + std::to_string(p) + "x" + std::to_string(q));
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "looking for a CUDA device");
  if (devices == 0) throw GpuError("no CUDA device found");

  // Up front, with the amounts: the tiles and τ (the caller's matrix is
  // already on the device).
  ensure_device_memory(factor_device_bytes(m, n, sizeof(T)) - double(m) * double(n) * double(sizeof(T)),
                       "the GPU factorisation of a " + std::to_string(m) + " x " + std::to_string(n) + " matrix");

  auto s = std::make_unique<Fr3FactorizationState<T>>();
  s->m = m;
  s->n = n;
  s->p = int32_t(p);
  s->q = int32_t(q);
  s->options = options;
  s->tasks_total = grid_task_count(s->p, s->q);
  plan_launch(*s);

  const size_t cells = size_t(p) * size_t(q);
  s->storage = QrStorage<T>(s->p, s->q, gpu::warp_tile, 0);
  PersistentQrParams<T>& prm = s->params;
  // A ready queue holds what its executor has yet to run: a few tasks; if
  // one fills, the scheduler waits for that executor, which never waits
  // for the scheduler. The finished queue holds at most one task per cell.
  prm.ready_capacity_log2 = std::clamp(ceil_log2(cells + 1), 1, 8);
  prm.finished_capacity_log2 = ceil_log2(cells + 32);
  s->ready_slots = DeviceBuffer<uint64_t>(size_t(prm.executors) << prm.ready_capacity_log2, "ready queues");
  s->ready_control = DeviceBuffer<uint64_t>(size_t(prm.executors) * 2 * queue_control_stride, "ready queues");
  s->finished_slots = DeviceBuffer<uint64_t>(size_t(1) << prm.finished_capacity_log2, "finished queue");
  s->finished_control = DeviceBuffer<uint64_t>(2 * queue_control_stride, "finished queue");
  if (options.trace) {
    s->trace_records = DeviceBuffer<DeviceTraceRecord>(size_t(s->tasks_total), "trace");
    s->trace_count = DeviceBuffer<unsigned long long>(1, "trace");
  }
  check(cudaHostAlloc(reinterpret_cast<void**>(&s->watchdog_host), sizeof(WatchdogWords),
                      cudaHostAllocMapped),
        "allocating the watchdog's host-mapped words");
  std::memset(s->watchdog_host, 0, sizeof(WatchdogWords));
  check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&s->watchdog_device), s->watchdog_host, 0),
        "mapping the watchdog's words");

  prm.tiles = s->storage.tiles.get();
  prm.tau_local = s->storage.t_local.get();
  prm.tau_merge = s->storage.t_merge.get();
  prm.p = s->p;
  prm.q = s->q;
  prm.tasks_total = s->tasks_total;
  prm.double_task_weight = options.double_task_weight;
  prm.ready_slots = s->ready_slots.get();
  prm.ready_control = s->ready_control.get();
  prm.finished_slots = s->finished_slots.get();
  prm.finished_control = s->finished_control.get();
  prm.progress = &s->watchdog_device->progress;
  prm.abort_flag = &s->watchdog_device->abort;
  prm.trace = s->trace_records.get();
  prm.trace_count = s->trace_count.get();
  prm.drop_completion = options.test_drop_completion;
  prm.absent_executor = options.test_absent_executor;
  return s;
}

// Fresh queues: every slot waiting for lap 0, heads and tails at 0.
template <typename T>
void reset_queues(Fr3FactorizationState<T>& s) {
  const TaskQueue any;
  const uint64_t empty = any.empty_marker(0);
  fill_words_kernel<<<grid_for(s.ready_slots.size()), 256>>>(s.ready_slots.get(),
                                                             int64_t(s.ready_slots.size()), empty);
  check_launch("fill_words_kernel");
  fill_words_kernel<<<grid_for(s.finished_slots.size()), 256>>>(
      s.finished_slots.get(), int64_t(s.finished_slots.size()), empty);
  check_launch("fill_words_kernel");
  check(cudaMemset(s.ready_control.get(), 0, s.ready_control.size() * sizeof(uint64_t)), "queue reset");
  check(cudaMemset(s.finished_control.get(), 0, s.finished_control.size() * sizeof(uint64_t)),
        "queue reset");
  check(cudaDeviceSynchronize(), "queue reset");
  s.queues_clean = true;
}

// Waits for the run to end; raises the abort flag when the scheduler's
// progress counter has not moved for watchdog_seconds.
template <typename T>
void watch(Fr3FactorizationState<T>& s) {
  using clock = std::chrono::steady_clock;
  cuda::atomic_ref<uint64_t, cuda::thread_scope_system> progress(s.watchdog_host->progress);
  cuda::atomic_ref<int32_t, cuda::thread_scope_system> abort(s.watchdog_host->abort);
  uint64_t seen = 0;
  auto last_change = clock::now();
  for (;;) {
    const cudaError_t status = s.timer.query();
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) check(status, "the scheduler-warp persistent kernel");
    const uint64_t now_done = progress.load(cuda::memory_order_relaxed);
    const auto now = clock::now();
    if (now_done != seen) {
      seen = now_done;
      last_change = now;
    } else if (std::chrono::duration<double>(now - last_change).count() > s.options.watchdog_seconds) {
      abort.store(1, cuda::memory_order_relaxed);
      s.queues_clean = false;
      // Every wait loop of the kernel polls the flag; give it a bounded time.
      const auto raised = clock::now();
      while (s.timer.query() == cudaErrorNotReady &&
             std::chrono::duration<double>(clock::now() - raised).count() < 10)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      const cudaError_t after = s.timer.query();
      const uint64_t done = seen > 0 ? seen - 1 : 0;
      std::string what = "the GPU factorisation stalled: no task completed for " + std::to_string(s.options.watchdog_seconds) +
                         " s (" + std::to_string(done) + " of " + std::to_string(s.tasks_total) +
                         " tasks done" + (seen == 0 ? ", the kernel never started" : "") +
                         "); the watchdog ended the run";
      if (after == cudaErrorNotReady) what += ", but the kernel did not stop";
      else if (after != cudaSuccess) what += std::string(" (then: ") + cudaGetErrorString(after) + ")";
      throw StallError(what);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

template <typename T>
void run_factorization(Fr3FactorizationState<T>& s, const T* d_a, int64_t lda) {
  if (lda < s.m) throw InputError("lda must be >= m");
  if (!s.queues_clean) reset_queues(s);
  s.watchdog_host->progress = 0;
  s.watchdog_host->abort = 0;
  if (s.options.trace) check(cudaMemset(s.trace_count.get(), 0, sizeof(unsigned long long)), "trace reset");
  s.timer.start();
  const int64_t elements = int64_t(s.p) * s.q * tile_elements;
  colmajor_to_tiles_kernel<<<grid_for(elements), 256>>>(d_a, lda, s.m, s.n, s.storage.tiles.get(), s.p, s.q, gpu::warp_tile);
  check_launch("colmajor_to_tiles_kernel");
  void* args[] = {&s.params};
  check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(persistent_qr_kernel<T>), dim3(s.blocks),
                                    dim3(32), args, s.shared_bytes, nullptr),
        "launching the scheduler-warp persistent kernel");
  s.timer.stop();
  watch(s);
  s.device_seconds = s.timer.seconds();  // watch() returned: the kernel ended without an error

  s.trace.clear();
  if (s.options.trace) {
    unsigned long long count = 0;
    check(cudaMemcpy(&count, s.trace_count.get(), sizeof count, cudaMemcpyDeviceToHost), "trace");
    std::vector<DeviceTraceRecord> records(std::min<unsigned long long>(count, s.tasks_total));
    check(cudaMemcpy(records.data(), s.trace_records.get(), records.size() * sizeof(DeviceTraceRecord),
                     cudaMemcpyDeviceToHost),
          "trace");
    int64_t origin = INT64_MAX;
    for (const DeviceTraceRecord& r : records) origin = std::min(origin, r.start_ns);
    for (const DeviceTraceRecord& r : records) {
      TaskRecord t;
      t.task = unpack_task(r.task_word);
      t.worker = r.executor;
      t.start_ns = r.start_ns - origin;
      t.end_ns = r.end_ns - origin;
      s.trace.push_back(t);
    }
    std::sort(s.trace.begin(), s.trace.end(),
              [](const TaskRecord& a, const TaskRecord& b) { return a.start_ns < b.start_ns; });
  }
}

}  // namespace

template <typename T>
void Fr3StateDeleter<T>::operator()(Fr3FactorizationState<T>* state) const {
  delete state;
}

template <typename T>
double Fr3Factorization<T>::device_seconds() const { return state_->device_seconds; }
template <typename T>
const std::vector<TaskRecord>& Fr3Factorization<T>::trace() const { return state_->trace; }
template <typename T>
const Options& Fr3Factorization<T>::options() const { return state_->options; }

template <typename T>
void Fr3Factorization<T>::factor(const T* d_a, int64_t lda) {
  run_factorization(*state_, d_a, lda);
}

template <typename T>
QrFactors<T> Fr3Factorization<T>::factors() const {
  const Fr3FactorizationState<T>& s = *state_;
  return s.storage.factors(s.m, s.n, s.p, s.q, 0, Tree::flat, 1);
}

// One warp per column tile of B runs the flat tree's updates in order
// (common/kernels/warp/ormqr_matrix.cuh).
template <typename T>
void Fr3Factorization<T>::apply_tiles(bool transpose, T* b_tiles, int32_t column_tiles) const {
  const Fr3FactorizationState<T>& s = *state_;
  const int32_t steps = std::min(s.p, s.q);
  apply_q_kernel<<<column_tiles, 32, warp_shared_elements * sizeof(T)>>>(
      transpose, s.storage.tiles.get(), s.storage.t_local.get(), s.storage.t_merge.get(), s.p, steps, b_tiles);
  check_launch("apply_q_kernel");
}

template <typename T>
Options Fr3Factorization<T>::download_options() const {
  Options o;
  o.tile = warp_tile;
  o.inner_block = warp_tile;
  o.backend = Backend::reference;
  o.tree = Tree::flat;
  o.trace = state_->options.trace;
  return o;
}

template <typename T>
Fr3Factorization<T> fr3_factor(const T* d_a, int64_t m, int64_t n, int64_t lda, const Options& options) {
  Fr3Factorization<T> f;
  f.state_.reset(make_state<T>(m, n, options).release());
  f.factor(d_a, lda);
  return f;
}

template struct Fr3StateDeleter<float>;
template struct Fr3StateDeleter<double>;
template class Fr3Factorization<float>;
template class Fr3Factorization<double>;
template Fr3Factorization<float> fr3_factor<float>(const float*, int64_t, int64_t, int64_t, const Options&);
template Fr3Factorization<double> fr3_factor<double>(const double*, int64_t, int64_t, int64_t, const Options&);

}  // namespace tiledqr::gpu
