// The scheduler's queue and counters (docs/design.md §9), written once for the GPU
// and the CPU: on the device one warp is one worker (lane 0 takes tickets,
// all 32 lanes decrement successors); on the host one std::thread is one
// worker of width 1, which is how tests/fr4 hammers this code in CI.
//
// The ready queue is a ticket ring (a fetch-add ticket queue). Every task
// is pushed at most once, so the ring never wraps: slot s holds the task
// whose push drew position s. A worker draws a ticket (head.fetch_add) and
// waits on its own slot only; a finished task's newly ready successors are
// pushed with one warp-aggregated tail.fetch_add. Tickets below num_roots
// read the roots, uploaded once and sorted by priority; push number p fills
// slot num_roots + p, the ticket that follows them. Each slot carries
// the run's epoch in its upper 32 bits, so a re-run needs no clearing.
//
// Readiness: each task with two or more predecessors has a counter that its
// predecessors decrement (fetch_sub, acq_rel); the one that reaches zero
// makes it ready. A task with one predecessor needs no counter — its
// predecessor's completion is its readiness. Of the successors that become
// ready, the finishing worker runs the first (successor lists are sorted by
// critical-path priority) itself, and pushes the rest: a chain runs on one
// worker without a queue round trip.
//
// Priority classes (docs/design.md §9): a graph may rank its tasks into
// num_classes classes (0 most urgent, at most max_priority_classes), so
// that a ready task on a long chain (a QR panel task) goes ahead of the
// less urgent tasks queued before it. Class
// num_classes − 1 uses the ticket ring above, unchanged. Each class c below
// it has an express ring: one counter word (pops in its upper 32 bits,
// pushes in its lower 32) and its own slots, tagged with the epoch as the
// ticket ring's are. A push claims its positions with one fetch_add on the
// word and then fills the slots; a pop is a try-pop: while pops < pushes,
// a CAS adds one pop, and the winner waits for its slot to be filled. One
// word, not a head and a tail, because an idle worker then learns with a
// single load whether the ring holds a task, and a pop can never overshoot
// the pushes. A worker looks at the express rings, in class order, before
// it draws a ticket and in every round of its wait on one; a worker that
// takes an express task keeps its ticket and comes back to it. With one
// class there are no express rings and the code paths are today's.
//
// Termination: completions are counted per worker and added to one counter
// only when the worker idles (or every flush_interval tasks). The worker
// whose addition reaches num_tasks pushes one exit marker per worker; each
// worker holds exactly one unfilled ticket at the end, so each gets one.
// The express rings are empty by then: every task pushed to one has run.
//
// Stalls and the host: memory the host maps is reached over PCIe, and a
// few thousand warps reading it often clog every SM's memory pipeline, so
// host traffic is rationed globally. Progress: a flush writes the completed
// count to the host's progress word only when it wins a CAS on a device
// timestamp at least host_poll_ns old. Abort: one warp per block (its
// watcher) looks at the device's abort word every watcher_poll_ns while
// idle and tells its block through shared memory; the host's abort flag
// itself is read by whichever warp wins the same kind of CAS, at most once
// per host_poll_ns for the whole grid, and copied to the device word.
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include "host_device.hpp"

#if !defined(__CUDA_ARCH__)
#include <chrono>
#include <thread>
#endif

namespace tiledqr::taskgraph {

// Slot payloads and signals of acquire_task (task ids are ≥ 0).
constexpr int32_t exit_marker = 0x7fffffff;  // pushed once per worker at the end
constexpr int32_t no_task = -1;
constexpr int32_t signal_push_exits = -2;  // this worker completed the last task
constexpr int32_t signal_join_block = -3;  // a block task waits for this worker
constexpr int32_t signal_abort = -4;       // the host watchdog ended the run

// Set on a successor entry whose task has exactly one predecessor.
constexpr uint32_t single_predecessor_bit = 0x80000000u;

// Most priority classes a graph may have; class 0 is the most urgent.
constexpr int32_t max_priority_classes = 4;

// Completions a busy worker may hold back before adding them to the counter.
constexpr uint32_t flush_interval = 64;
// At most one read of the host's abort flag and one write of its progress
// word per this many ns, grid-wide.
constexpr long long host_poll_ns = 100000;
// How often (ns) an idle block watcher looks at the device's abort word.
constexpr long long watcher_poll_ns = 20000;

// BlockChannel::block_task values besides a task id.
constexpr int32_t channel_empty = -1;
constexpr int32_t channel_closed = -2;  // the block is leaving after an abort

// 24 bytes, loaded at once per task. The first successor entry is a copy of
// succs[succ_begin]: a chain then costs one dependent load per link (the
// next header), not two (its successor list, then the next header).
struct alignas(8) TaskHeader {
  uint16_t kind;
  uint8_t team;            // Team: 0 warp, 1 block
  uint8_t priority_class;  // 0 … num_classes − 1: the ring the task is pushed to
  int32_t pred_count;
  int32_t succ_begin;  // into SchedulerView::succs
  int32_t succ_count;
  uint32_t first_succ;  // succs[succ_begin] when succ_count > 0
  uint32_t unused2;
};

// One counter on its own 128-byte line, so no two share a line.
struct alignas(128) LineCounter {
  unsigned long long value;
};

struct RunCounters {  // zeroed before each run
  LineCounter head;            // tickets drawn
  LineCounter tail;            // pushes so far; push p fills slots[num_roots + p]
  LineCounter completed;       // tasks finished, added in batches
  LineCounter abort;           // nonzero: the host asked the run to stop
  LineCounter abort_stamp;     // clock_ns() of the last read of the host's flag
  LineCounter progress_stamp;  // clock_ns() of the last write of the host's progress
  // Per express ring c: pops << 32 | pushes; push p fills express_slots[c][p].
  LineCounter express[max_priority_classes - 1];
};

// In host-mapped memory: the watchdog's window into a run.
struct Watch {
  alignas(64) uint32_t abort;     // host → device: stop now
  alignas(64) uint32_t progress;  // device → host: completed count at a recent flush
};

// Per block (shared memory on the device): a pending block task, and the
// block's copy of the abort flag.
struct BlockChannel {
  int32_t block_task;
  int32_t abort;
};

struct SchedulerView {
  int32_t num_tasks = 0;
  int32_t num_roots = 0;
  int32_t num_workers = 0;
  uint32_t epoch = 0;                // ≥ 1; slots of other runs are ignored
  const TaskHeader* headers = nullptr;  // (num_tasks)
  const uint32_t* succs = nullptr;      // (edges): task id | single_predecessor_bit
  const int32_t* roots = nullptr;       // (num_roots), by priority
  int32_t* remaining = nullptr;         // (num_tasks): predecessors not yet finished
  unsigned long long* slots = nullptr;  // (slot_count): epoch << 32 | task id
  RunCounters* counters = nullptr;
  Watch* watch = nullptr;
  int64_t slot_count = 0;               // num_tasks + num_workers, then the express rings'
  int32_t num_classes = 1;              // 1 … max_priority_classes
  // Express ring c < num_classes − 1: (tasks of class c), epoch << 32 | task id.
  unsigned long long* express_slots[max_priority_classes - 1] = {};
};

// A worker's private state; on the device lane 0's copy is the one used.
struct WorkerState {
  int32_t worker = 0;
  bool watcher = false;  // looks at the abort word for its block
  bool holds_ticket = false;
  unsigned long long ticket = 0;
  uint32_t unflushed = 0;  // completions not yet added to counters->completed
  long long last_abort_look_ns = 0;
};

// ---------------------------------------------------------------------------
// Lane helpers: a warp on the device, a single lane on the host.

TILEDQR_HOST_DEVICE inline int lane_index() {
#if defined(__CUDA_ARCH__)
  return static_cast<int>(threadIdx.x & 31u);
#else
  return 0;
#endif
}

TILEDQR_HOST_DEVICE inline int lane_count() {
#if defined(__CUDA_ARCH__)
  return 32;
#else
  return 1;
#endif
}

TILEDQR_HOST_DEVICE inline uint32_t lanes_where(bool predicate) {
#if defined(__CUDA_ARCH__)
  return __ballot_sync(0xffffffffu, predicate);
#else
  return predicate ? 1u : 0u;
#endif
}

// For int32_t and unsigned long long values.
template <typename V>
TILEDQR_HOST_DEVICE inline V from_lane(V value, int source) {
#if defined(__CUDA_ARCH__)
  return __shfl_sync(0xffffffffu, value, source);
#else
  (void)source;
  return value;
#endif
}

TILEDQR_HOST_DEVICE inline int lowest_lane(uint32_t mask) {
#if defined(__CUDA_ARCH__)
  return __ffs(mask) - 1;
#else
  return __builtin_ffs(static_cast<int>(mask)) - 1;
#endif
}

TILEDQR_HOST_DEVICE inline int lanes_in(uint32_t mask) {
#if defined(__CUDA_ARCH__)
  return __popc(mask);
#else
  return __builtin_popcount(mask);
#endif
}

// Nanoseconds of a clock shared by all workers (%globaltimer on the GPU).
TILEDQR_HOST_DEVICE inline int64_t clock_ns() {
#if defined(__CUDA_ARCH__)
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return static_cast<int64_t>(t);
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

// Workers at most this many pushes from their slot keep polling it closely.
constexpr long long near_front = 32;

// Back-off of an idle worker: spin a little, then sleep up to ~1 µs, so
// thousands of idle warps do not saturate L2 while a busy one pushes. A
// worker far back in the queue (`queue_distance` pushes before its slot
// can fill) while nothing is pushed (`quiet_looks` tail reads in a row saw
// no change) sleeps longer, up to ~16 µs: in a chain one warp works and
// thousands poll, and their polls queue in L2 ahead of its loads. Workers
// near the front never sleep long, so a push still finds a warm taker.
TILEDQR_HOST_DEVICE inline void idle_pause(int round, long long queue_distance, int quiet_looks) {
#if defined(__CUDA_ARCH__)
  if (round < 4) return;
  unsigned ns = round < 32 ? 64u : (round < 128 ? 256u : 1000u);
  if (queue_distance > near_front && quiet_looks > 0) ns = 1000u << (quiet_looks < 4 ? quiet_looks : 4);
  __nanosleep(ns);
#else
  (void)round;
  (void)queue_distance;
  (void)quiet_looks;
  std::this_thread::yield();
#endif
}

template <class T>
using DeviceAtomic = cuda::atomic_ref<T, cuda::thread_scope_device>;
template <class T>
using BlockAtomic = cuda::atomic_ref<T, cuda::thread_scope_block>;
template <class T>
using SystemAtomic = cuda::atomic_ref<T, cuda::thread_scope_system>;

TILEDQR_HOST_DEVICE inline unsigned long long slot_value(uint32_t epoch, int32_t task) {
  return (static_cast<unsigned long long>(epoch) << 32) | static_cast<uint32_t>(task);
}

// ---------------------------------------------------------------------------
// Lane 0 of a worker.

// True when this caller won the right to touch host memory now: `stamp`
// was at least host_poll_ns old and now holds `now`.
TILEDQR_HOST_DEVICE inline bool claim_host_turn(unsigned long long& stamp_word, long long now) {
  DeviceAtomic<unsigned long long> stamp(stamp_word);
  unsigned long long last = stamp.load(cuda::std::memory_order_relaxed);
  if (now - static_cast<long long>(last) < host_poll_ns) return false;
  return stamp.compare_exchange_strong(last, static_cast<unsigned long long>(now),
                                       cuda::std::memory_order_relaxed);
}

// Adds this worker's unflushed completions to the shared count and, when
// its turn comes, reports progress to the host. Returns true when they
// were the last ones: the caller must then push the exit markers
// (push_exit_markers).
TILEDQR_HOST_DEVICE inline bool flush_completions(const SchedulerView& v, WorkerState& w) {
  if (w.unflushed == 0) return false;
  DeviceAtomic<unsigned long long> completed(v.counters->completed.value);
  const unsigned long long total =
      completed.fetch_add(w.unflushed, cuda::std::memory_order_acq_rel) + w.unflushed;
  w.unflushed = 0;
  if (claim_host_turn(v.counters->progress_stamp.value, clock_ns()))
    SystemAtomic<uint32_t>(v.watch->progress).store(static_cast<uint32_t>(total),
                                                    cuda::std::memory_order_relaxed);
  return total == static_cast<unsigned long long>(v.num_tasks);
}

// True once the run must stop: the device's abort word is set, or (when
// this caller wins the grid-wide turn) the host's flag is, which is then
// copied to the device word.
TILEDQR_HOST_DEVICE inline bool run_aborted(const SchedulerView& v) {
  DeviceAtomic<unsigned long long> abort(v.counters->abort.value);
  if (abort.load(cuda::std::memory_order_relaxed) != 0) return true;
  if (!claim_host_turn(v.counters->abort_stamp.value, clock_ns())) return false;
  if (SystemAtomic<uint32_t>(v.watch->abort).load(cuda::std::memory_order_relaxed) == 0) return false;
  abort.store(1, cuda::std::memory_order_relaxed);
  return true;
}

// True when the run must end: the block's channel says so, or (for the
// block's watcher, at most every watcher_poll_ns) run_aborted does.
TILEDQR_HOST_DEVICE inline bool abort_requested(const SchedulerView& v, WorkerState& w,
                                                BlockChannel* channel) {
  BlockAtomic<int32_t> block_abort(channel->abort);
  if (block_abort.load(cuda::std::memory_order_relaxed) != 0) return true;
  if (!w.watcher) return false;
  const long long now = clock_ns();
  if (now - w.last_abort_look_ns < watcher_poll_ns) return false;
  w.last_abort_look_ns = now;
  if (!run_aborted(v)) return false;
  block_abort.store(1, cuda::std::memory_order_relaxed);
  return true;
}

TILEDQR_HOST_DEVICE inline bool block_task_pending(const BlockChannel* channel) {
  BlockAtomic<int32_t> slot(const_cast<int32_t&>(channel->block_task));
  return slot.load(cuda::std::memory_order_acquire) >= 0;
}

// The oldest task of express ring `c`, or no_task when it holds none.
TILEDQR_HOST_DEVICE inline int32_t take_express(const SchedulerView& v, int c) {
  DeviceAtomic<unsigned long long> ring(v.counters->express[c].value);
  unsigned long long state = ring.load(cuda::std::memory_order_relaxed);
  for (;;) {
    if ((state >> 32) >= (state & 0xffffffffull)) return no_task;
    // On failure `state` is reloaded, and the loop looks again.
    if (ring.compare_exchange_weak(state, state + (1ull << 32), cuda::std::memory_order_relaxed)) break;
  }
  // The position is ours; its pusher has claimed it and stores it next.
  DeviceAtomic<unsigned long long> slot(v.express_slots[c][state >> 32]);
  for (int round = 0;; ++round) {
    const unsigned long long value = slot.load(cuda::std::memory_order_relaxed);
    if (static_cast<uint32_t>(value >> 32) == v.epoch) {
      cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
      return static_cast<int32_t>(static_cast<uint32_t>(value));
    }
    idle_pause(round, 0, 0);
  }
}

// The oldest task of the most urgent nonempty express ring, or no_task.
TILEDQR_HOST_DEVICE inline int32_t take_urgent_task(const SchedulerView& v) {
  for (int c = 0; c + 1 < v.num_classes; ++c) {
    const int32_t task = take_express(v, c);
    if (task != no_task) return task;
  }
  return no_task;
}

// The next task of this worker, or a signal. Keeps its ticket across
// signal_push_exits and signal_join_block, and while it runs a task taken
// from an express ring, so calling again resumes the wait.
TILEDQR_HOST_DEVICE inline int32_t acquire_task(const SchedulerView& v, WorkerState& w,
                                                BlockChannel* channel, bool has_block_tasks) {
  if (v.num_classes > 1) {
    // Express tasks return before the flush below: flush here too.
    if (w.unflushed >= flush_interval && flush_completions(v, w)) return signal_push_exits;
    const int32_t urgent = take_urgent_task(v);
    if (urgent != no_task) return urgent;
  }
  if (!w.holds_ticket) {
    DeviceAtomic<unsigned long long> head(v.counters->head.value);
    w.ticket = head.fetch_add(1, cuda::std::memory_order_relaxed);
    w.holds_ticket = true;
  }
  if (w.ticket < static_cast<unsigned long long>(v.num_roots)) {
    w.holds_ticket = false;
    return v.roots[w.ticket];
  }
  if (w.unflushed >= flush_interval && flush_completions(v, w)) return signal_push_exits;
  DeviceAtomic<unsigned long long> slot(v.slots[w.ticket]);
  DeviceAtomic<unsigned long long> tail(v.counters->tail.value);
  unsigned long long seen_tail = 0;
  long long queue_distance = 0;
  int quiet_looks = 0;
  for (int round = 0;; ++round) {
    if (v.num_classes > 1 && round > 0) {  // round 0 follows the look above
      const int32_t urgent = take_urgent_task(v);
      if (urgent != no_task) return urgent;
    }
    // A worker far back in a quiet queue skips its slot: a push claims its
    // position on tail before it fills the slot, so the slot stays empty
    // until tail passes it — and the tail read below notices that first.
    const bool far_back = quiet_looks > 0 && queue_distance > near_front;
    // Relaxed polls, one acquire fence once the slot is filled: an acquire
    // load per poll would also discard the SM's L1 each time.
    const unsigned long long value = far_back ? 0 : slot.load(cuda::std::memory_order_relaxed);
    if (!far_back && static_cast<uint32_t>(value >> 32) == v.epoch) {
      cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
      w.holds_ticket = false;
      return static_cast<int32_t>(static_cast<uint32_t>(value));
    }
    if (w.unflushed > 0 && flush_completions(v, w)) return signal_push_exits;
    if (has_block_tasks && block_task_pending(channel)) return signal_join_block;
    if (abort_requested(v, w, channel)) return signal_abort;
    if (round % 8 == 4 || quiet_looks > 0) {  // where the queue stands: a relaxed read now and then
      const unsigned long long pushed = tail.load(cuda::std::memory_order_relaxed);
      quiet_looks = round > 4 && pushed == seen_tail ? quiet_looks + 1 : 0;
      seen_tail = pushed;
      queue_distance = static_cast<long long>(w.ticket) - static_cast<long long>(pushed) - v.num_roots;
    }
    idle_pause(round, queue_distance, quiet_looks);
  }
}

// ---------------------------------------------------------------------------
// All lanes of a worker.

// Pushes one exit marker per worker (lanes share the stores).
TILEDQR_HOST_DEVICE inline void push_exit_markers(const SchedulerView& v) {
  unsigned long long first = 0;
  if (lane_index() == 0) {
    DeviceAtomic<unsigned long long> tail(v.counters->tail.value);
    first = tail.fetch_add(static_cast<unsigned long long>(v.num_workers),
                           cuda::std::memory_order_relaxed);
  }
  first = from_lane(first, 0);
  first += static_cast<unsigned long long>(v.num_roots);
  for (int32_t k = lane_index(); k < v.num_workers; k += lane_count()) {
    DeviceAtomic<unsigned long long> slot(v.slots[first + static_cast<unsigned long long>(k)]);
    slot.store(slot_value(v.epoch, exit_marker), cuda::std::memory_order_release);
  }
}

// Pushes the successor of every lane in `lanes` (this lane's is `task`
// when `mine`) onto one ring: its counter word `tail` (the lower 32 bits
// count the pushes when `packed`, as express rings do) and its slots,
// where push p fills slots[p].
TILEDQR_HOST_DEVICE inline void push_lanes(const SchedulerView& v, unsigned long long& tail_word,
                                           unsigned long long* slots, bool packed, uint32_t lanes,
                                           bool mine, int32_t task) {
  const int lane = lane_index();
  unsigned long long position = 0;
  if (lane == 0) {
    DeviceAtomic<unsigned long long> tail(tail_word);
    position = tail.fetch_add(static_cast<unsigned long long>(lanes_in(lanes)), cuda::std::memory_order_relaxed);
    if (packed) position &= 0xffffffffull;
  }
  position = from_lane(position, 0);
  if (mine) {
    const uint32_t below = lanes & ((1u << lane) - 1u);
    DeviceAtomic<unsigned long long> slot(slots[position + static_cast<unsigned long long>(lanes_in(below))]);
    slot.store(slot_value(v.epoch, task), cuda::std::memory_order_release);
  }
}

// Called by every lane after the task's work (and a lane barrier): releases
// its successors. Returns, on every lane, the successor this worker runs
// next (no_task if none became ready); the others are pushed, each onto
// the ring of its class (one fetch_add per class that has any).
TILEDQR_HOST_DEVICE inline int32_t finish_task(const SchedulerView& v, WorkerState& w,
                                               const TaskHeader& header) {
  int32_t continuation = no_task;
  const int lane = lane_index();
  for (int32_t base = 0; base < header.succ_count; base += lane_count()) {
    const int32_t e = base + lane;
    int32_t successor = no_task;
    bool ready = false;
    if (e < header.succ_count) {
      const uint32_t entry = e == 0 ? header.first_succ : v.succs[header.succ_begin + e];
      successor = static_cast<int32_t>(entry & ~single_predecessor_bit);
      ready = (entry & single_predecessor_bit) != 0 ||
              DeviceAtomic<int32_t>(v.remaining[successor])
                      .fetch_sub(1, cuda::std::memory_order_acq_rel) == 1;
    }
    uint32_t ready_lanes = lanes_where(ready);
    if (ready_lanes == 0) continue;
    if (continuation == no_task) {
      const int first = lowest_lane(ready_lanes);
      continuation = from_lane(successor, first);
      ready_lanes &= ready_lanes - 1;
      if (lane == first) ready = false;
      if (ready_lanes == 0) continue;
    }
    if (v.num_classes == 1) {
      push_lanes(v, v.counters->tail.value, v.slots + v.num_roots, false, ready_lanes, ready, successor);
      continue;
    }
    // A ready successor's class sits in its header: one more load per push.
    const int own_class = ready ? static_cast<int>(v.headers[successor].priority_class) : -1;
    const int last = v.num_classes - 1;
    for (int c = 0; c < last; ++c) {
      const uint32_t lanes = lanes_where(own_class == c);
      if (lanes != 0)
        push_lanes(v, v.counters->express[c].value, v.express_slots[c], true, lanes, own_class == c, successor);
    }
    const uint32_t lanes = lanes_where(own_class == last);
    if (lanes != 0)
      push_lanes(v, v.counters->tail.value, v.slots + v.num_roots, false, lanes, own_class == last, successor);
  }
  if (lane == 0) ++w.unflushed;
  return continuation;
}

// Called when a task starts: restores its counter for the next run (all its
// predecessors have finished, so nothing else touches it in this run).
TILEDQR_HOST_DEVICE inline void rearm_counter(const SchedulerView& v, int32_t task,
                                              const TaskHeader& header) {
  if (header.pred_count > 1 && lane_index() == 0)
    DeviceAtomic<int32_t>(v.remaining[task]).store(header.pred_count, cuda::std::memory_order_relaxed);
}

}  // namespace tiledqr::taskgraph
