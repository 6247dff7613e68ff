// persistent_qr_kernel — the whole tiled QR in one kernel ("Task-Based
// Scheduling Implementing Tiled Linear Algebra on GPUs", §II.D). Block 0 is the
// scheduler (one warp; lane 0 owns the task grid of common/task_graph/task_grid.hpp),
// blocks 1..E are executors of one warp each. The scheduler writes ready tasks
// to one queue per executor, executors write what they finished to one shared
// queue (task_queue.hpp), and the scheduler ends every executor with a null
// task (Algorithms 4 and 5). All blocks must be co-resident: the host launches
// it with cudaLaunchCooperativeKernel after an occupancy check.
//
// Beyond the paper: the scheduler warp takes up to 32 completions per
// round (a lane per finished-queue slot) and hands out the tasks they make
// ready a lane per task; every wait loop also watches an abort flag that
// the host's watchdog raises (gpu_qr.cu), and the scheduler publishes its
// progress for that watchdog in host-mapped memory.
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include "kernels/warp_binding.cuh"
#include "task_grid.hpp"
#include "task_queue.hpp"
#include "task_word.hpp"

namespace tiledqr::gpu {

// One executed task for --trace, as the device writes it.
struct DeviceTraceRecord {
  uint64_t task_word = 0;
  int32_t executor = 0;
  int32_t unused = 0;
  int64_t start_ns = 0;  // %globaltimer
  int64_t end_ns = 0;
};

// Words between one queue's head and tail and the next queue's: 128 bytes,
// so consumers and producers of different queues share no cache line.
constexpr int queue_control_stride = 16;

template <typename T>
struct PersistentQrParams {
  T* tiles = nullptr;      // p·q tiles of (32, 32), ld = 32, tile (i, j) at (i + j·p)·1024
  T* tau_local = nullptr;  // (32) per tile: τ of geqrt on tile (k, k)
  T* tau_merge = nullptr;  // (32) per tile: τ of tsqrt on tile (i, k)
  int32_t p = 0;
  int32_t q = 0;
  int64_t tasks_total = 0;
  int32_t executors = 0;
  double double_task_weight = 1;
  uint64_t* ready_slots = nullptr;    // executors · 2^ready_capacity_log2
  uint64_t* ready_control = nullptr;  // per executor: head, then tail queue_control_stride words later
  int ready_capacity_log2 = 0;
  uint64_t* finished_slots = nullptr;    // 2^finished_capacity_log2 ≥ p·q: never full
  uint64_t* finished_control = nullptr;  // head, then tail
  int finished_capacity_log2 = 0;
  GridCell* global_cells = nullptr;  // (p, q); nullptr: in the scheduler's shared memory
  uint64_t* progress = nullptr;      // host-mapped: tasks completed so far, plus 1 once running
  int32_t* abort_flag = nullptr;     // host-mapped: nonzero once the watchdog fired
  DeviceTraceRecord* trace = nullptr;         // (tasks_total), or nullptr
  unsigned long long* trace_count = nullptr;  // records written
  int64_t drop_completion = -1;               // test hook (Options::test_drop_completion)
  int32_t absent_executor = -1;               // test hook (Options::test_absent_executor)
};

template <typename T>
__device__ __forceinline__ TaskQueue ready_queue(const PersistentQrParams<T>& prm, int executor) {
  TaskQueue queue;
  queue.slots = prm.ready_slots + (uint64_t(executor) << prm.ready_capacity_log2);
  queue.head = prm.ready_control + int64_t(executor) * 2 * queue_control_stride;
  queue.tail = queue.head + queue_control_stride;
  queue.capacity_log2 = prm.ready_capacity_log2;
  return queue;
}

template <typename T>
__device__ __forceinline__ TaskQueue finished_queue(const PersistentQrParams<T>& prm) {
  TaskQueue queue;
  queue.slots = prm.finished_slots;
  queue.head = prm.finished_control;
  queue.tail = prm.finished_control + queue_control_stride;
  queue.capacity_log2 = prm.finished_capacity_log2;
  return queue;
}

template <typename T>
__device__ __forceinline__ bool abort_raised(const PersistentQrParams<T>& prm) {
  return cuda::atomic_ref<int32_t, cuda::thread_scope_system>(*prm.abort_flag)
             .load(cuda::memory_order_relaxed) != 0;
}

__device__ __forceinline__ int64_t global_timer_ns() {
  uint64_t ns = 0;
#if defined(__CUDA_ARCH__)
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
#endif
  return int64_t(ns);
}

// How often a wait loop looks at the host's abort flag (a read over PCIe).
constexpr unsigned abort_poll_interval = 256;
// An idle executor polls its queue flat out this many times, then sleeps
// this long between polls (a task then waits at most about that long more).
constexpr unsigned idle_polls_before_backoff = 64;
constexpr unsigned idle_backoff_ns = 100;

// Pushes until it succeeds; false if the watchdog fired meanwhile.
template <typename T>
__device__ bool push_until_done(const PersistentQrParams<T>& prm, const TaskQueue& queue,
                                uint64_t word) {
  for (unsigned attempt = 1; !queue.try_push(word); ++attempt)
    if (attempt % abort_poll_interval == 0 && abort_raised(prm)) return false;
  return true;
}

// The same from a tail hint (TaskQueue::try_push), updated.
template <typename T>
__device__ bool push_until_done(const PersistentQrParams<T>& prm, const TaskQueue& queue,
                                uint64_t word, uint64_t& tail_hint) {
  for (unsigned attempt = 1; !queue.try_push(word, tail_hint); ++attempt)
    if (attempt % abort_poll_interval == 0 && abort_raised(prm)) return false;
  return true;
}

// The paper's §II.D item 4: round-robin over the executors where a double task
// (tsqrt, tsmqr) is worth `double_weight` single ones (geqrt, ormqr): each turn
// an executor receives one double task or `double_weight` single ones.
struct WeightedRoundRobin {
  int32_t executors = 1;
  double single_share = 1;  // 1 / double_weight
  double cursor = 0;        // in [0, executors)

  __device__ int32_t next(bool double_task) {
    const int32_t executor = int32_t(cursor);
    cursor += double_task ? 1.0 : single_share;
    if (cursor >= executors) cursor -= executors;
    return executor;
  }
};

// The scheduler's shared memory: this struct, then each ready queue's tail
// as the scheduler (their only producer) knows it, then the grid's cells
// when they fit.
constexpr int emit_capacity = 512;
struct SchedulerShared {
  uint64_t done[32];                   // completions taken this round
  uint64_t emitted[emit_capacity];     // tasks made ready, not yet handed out
  int32_t emitted_executor[emit_capacity];
  int32_t emitted_count;
  int32_t stop;  // 1: all tasks done, 2: the watchdog fired
};

TILEDQR_HOST_DEVICE inline size_t scheduler_shared_bytes(int32_t executors) {
  return (sizeof(SchedulerShared) + sizeof(uint64_t) * size_t(executors) + 15) / 16 * 16;
}

// How often (ns) the scheduler publishes its progress to the host: a
// write over PCIe, so not after every round.
constexpr int64_t progress_interval_ns = 100000;

// The paper's Algorithm 4, by the 32 lanes of block 0.
template <typename T>
__device__ void scheduler_warp(const PersistentQrParams<T>& prm, unsigned char* shared, int lane) {
  constexpr unsigned all_lanes = 0xffffffffu;
  SchedulerShared& sh = *reinterpret_cast<SchedulerShared*>(shared);
  uint64_t* ready_tail = reinterpret_cast<uint64_t*>(shared + sizeof(SchedulerShared));
  GridCell* cells = prm.global_cells
                        ? prm.global_cells
                        : reinterpret_cast<GridCell*>(shared + scheduler_shared_bytes(prm.executors));
  const int64_t cell_count = int64_t(prm.p) * prm.q;
  for (int64_t c = lane; c < cell_count; c += 32) cells[c] = GridCell{};
  for (int32_t e = lane; e < prm.executors; e += 32)
    ready_tail[e] = cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*ready_queue(prm, e).tail)
                        .load(cuda::memory_order_relaxed);
  int64_t progress_published_ns = 0;
  if (lane == 0) {
    sh.emitted_count = 0;
    sh.stop = 0;
    // The watchdog's clock starts now (a sanitizer may hold a launch back for long).
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*prm.progress).store(1, cuda::memory_order_relaxed);
  }
  __syncwarp();

  // Lane 0's bookkeeping (the other lanes' copies are unused).
  TaskGrid grid;
  grid.p = prm.p;
  grid.q = prm.q;
  grid.cells = cells;
  grid.tasks_total = prm.tasks_total;
  WeightedRoundRobin distribution;
  distribution.executors = prm.executors;
  distribution.single_share = 1.0 / prm.double_task_weight;
  int64_t completions_taken = 0;
  auto emit = [&](const Task& t) {
    if (sh.emitted_count == emit_capacity) {  // rare: lane 0 hands the buffer out alone
      for (int waiting = 0; waiting < emit_capacity; ++waiting) {
        const int32_t executor = sh.emitted_executor[waiting];
        if (!push_until_done(prm, ready_queue(prm, executor), sh.emitted[waiting], ready_tail[executor]))
          sh.stop = 2;
      }
      sh.emitted_count = 0;
    }
    sh.emitted[sh.emitted_count] = pack_task(t);
    sh.emitted_executor[sh.emitted_count] = distribution.next(is_double_task(t.kind));
    ++sh.emitted_count;
  };
  if (lane == 0) grid.start(emit);

  const TaskQueue finished = finished_queue(prm);
  uint64_t finished_head = finished.read_head();
  for (;;) {
    __syncwarp();
    // Distribute the ready tasks, a lane per task, 32 at a time. Tasks for
    // the same executor go one after another in buffer order (the lowest
    // lane of each group first), so a queue and its tail hint have one
    // writer at a time.
    const int32_t count = sh.emitted_count;
    bool failed = false;
    for (int32_t base = 0; base < count; base += 32) {
      const int32_t t = base + lane;
      bool pending = t < count;
      const int32_t executor = pending ? sh.emitted_executor[t] : 0;
      while (__any_sync(all_lanes, pending)) {
        const unsigned group = __match_any_sync(all_lanes, pending ? executor : -1 - lane);
        if (pending && __ffs(int(group)) - 1 == lane) {
          failed |= !push_until_done(prm, ready_queue(prm, executor), sh.emitted[t], ready_tail[executor]);
          pending = false;
        }
        __syncwarp();  // the tail hint is written before the next lane of the group reads it
      }
    }
    const bool any_failed = __any_sync(all_lanes, failed);
    __syncwarp();  // every lane has read the buffer before lane 0 empties it
    if (lane == 0) {
      sh.emitted_count = 0;
      if (any_failed) sh.stop = 2;
      else if (sh.stop == 0 && grid.finished()) sh.stop = 1;
    }
    __syncwarp();
    if (sh.stop != 0) break;

    // Wait for completions: lane l looks at position head + l; the leading
    // run of filled slots is taken.
    int run = 0;
    for (unsigned polls = 1;; ++polls) {
      uint64_t word = 0;
      const bool filled = finished.peek(finished_head + lane, word, cuda::memory_order_relaxed);
      const unsigned missing = ~__ballot_sync(all_lanes, filled);
      run = missing == 0 ? 32 : __ffs(int(missing)) - 1;
      if (run > 0) {
        // The relaxed peek and this fence make an acquire: what the
        // executors wrote before their pushes happens before what follows.
        cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
        if (lane < run) sh.done[lane] = word;
        break;
      }
      if (polls % abort_poll_interval == 0) {
        const int raised = __shfl_sync(all_lanes, lane == 0 ? int(abort_raised(prm)) : 0, 0);
        if (raised) break;
      }
    }
    __syncwarp();
    if (run == 0) {  // the watchdog fired
      if (lane == 0) sh.stop = 2;
      __syncwarp();
      break;
    }
    if (lane == 0) {
      for (int r = 0; r < run; ++r) {
        if (completions_taken++ == prm.drop_completion) continue;  // the test's lost completion
        grid.complete(unpack_task(sh.done[r]), emit);
      }
      // Retire the slots after the grid work, off the path from a completion to its successors.
      for (int r = 0; r < run; ++r) finished.clear_slot(finished_head + r);
      finished.set_head(finished_head + run);
      const int64_t now = global_timer_ns();
      if (now - progress_published_ns >= progress_interval_ns) {
        progress_published_ns = now;
        cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*prm.progress)
            .store(uint64_t(grid.tasks_completed) + 1, cuda::memory_order_relaxed);
      }
    }
    finished_head += run;
  }

  // The null task ends every executor (after an abort they stop on the flag).
  if (sh.stop == 1)
    for (int32_t e = lane; e < prm.executors; e += 32)
      push_until_done(prm, ready_queue(prm, e), null_task_word, ready_tail[e]);
}

// Runs one task of the flat tree with the warp kernels (the warp binding).
template <typename T>
__device__ void run_task(const PersistentQrParams<T>& prm, const Task& t, T* shared, int lane) {
  const WarpTaskData<T> data{prm.tiles, prm.tau_local, prm.tau_merge, prm.tiles, prm.p};
  run_warp_task<WarpCall::inlined, WarpKinds::flat_tree>(t, true, data, shared, lane);
}

// The paper's Algorithm 5, by the 32 lanes of one executor block.
template <typename T>
__device__ void executor_warp(const PersistentQrParams<T>& prm, int executor, T* shared, int lane) {
  constexpr unsigned all_lanes = 0xffffffffu;
  const TaskQueue ready = ready_queue(prm, executor);
  const TaskQueue finished = finished_queue(prm);
  uint64_t head = ready.read_head();  // lane 0's
  bool stopped = false;               // lane 0's: the watchdog fired
  for (;;) {
    uint64_t word = null_task_word;
    if (lane == 0 && !stopped) {
      // Spin with relaxed loads (no fence per poll), backing off a little
      // once the queue has stayed empty for a while.
      for (unsigned polls = 1; !ready.peek(head, word, cuda::memory_order_relaxed); ++polls) {
        if (polls % abort_poll_interval == 0 && abort_raised(prm)) {
          stopped = true;
          break;
        }
        if (polls > idle_polls_before_backoff) __nanosleep(idle_backoff_ns);
      }
      // With the relaxed peek, an acquire: the tiles the task reads are
      // seen as their last writers left them.
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
    }
    // The barrier orders the other lanes' reads of the tiles after lane 0's acquire.
    __syncwarp();
    word = __shfl_sync(all_lanes, stopped ? null_task_word : word, 0);
    if (word == null_task_word) {
      if (lane == 0 && !stopped) {  // leave the queue empty for the next run
        ready.clear_slot(head);
        ready.set_head(head + 1);
      }
      return;
    }
    const int64_t start_ns = prm.trace ? global_timer_ns() : 0;
    run_task(prm, unpack_task(word), shared, lane);
    // Every lane's tile stores happen before lane 0's release in the push.
    __syncwarp();
    if (lane == 0) {
      if (prm.trace) {
        DeviceTraceRecord record;
        record.task_word = word;
        record.executor = executor;
        record.start_ns = start_ns;
        record.end_ns = global_timer_ns();
        const unsigned long long slot = atomicAdd(prm.trace_count, 1ull);
        if (slot < static_cast<unsigned long long>(prm.tasks_total)) prm.trace[slot] = record;
      }
      if (!push_until_done(prm, finished, word)) stopped = true;
      // Retire the ready slot only now, off the path to the scheduler.
      ready.clear_slot(head);
      ready.set_head(++head);
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(32, 1) persistent_qr_kernel(PersistentQrParams<T> prm) {
  extern __shared__ __align__(16) unsigned char persistent_shared[];
  const int lane = int(threadIdx.x % 32);
  if (blockIdx.x == 0)
    scheduler_warp(prm, persistent_shared, lane);
  else if (int(blockIdx.x) - 1 != prm.absent_executor)  // the test's executor that never started
    executor_warp(prm, int(blockIdx.x) - 1, reinterpret_cast<T*>(persistent_shared), lane);
}

}  // namespace tiledqr::gpu
