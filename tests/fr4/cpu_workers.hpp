// Runs the scheduler core (fr4_scheduler/taskgraph/scheduler_core.hpp) on std::threads:
// the same queue, counters and termination as the persistent kernel, with
// each thread a worker of width 1 (its own "block"), and the express rings
// of the layout's priority classes after the ticket ring's slots, as
// DeviceGraph lays them out. The loop below is the kernel's loop
// (persistent_executor.cuh) without block tasks.
#pragma once

#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "taskgraph/device_layout.hpp"
#include "taskgraph/scheduler_core.hpp"

namespace tiledqr::taskgraph::testing {

class CpuScheduler {
 public:
  explicit CpuScheduler(const DeviceLayout& layout, int workers)
      : layout_(layout), workers_(workers), express_tasks_(express_counts(layout)),
        slots_(layout.headers.size() + size_t(workers) + express_slot_count(express_tasks_), 0ull),
        remaining_(layout.remaining) {}

  // Runs every task once on `workers_` threads; body(task, worker) is the
  // task's work. Returns false when the run was aborted.
  bool run(const std::function<void(int32_t task, int32_t worker)>& body) {
    counters_ = RunCounters{};
    // A host watchdog thread may be sampling these already.
    SystemAtomic<uint32_t>(watch_.abort).store(0, cuda::std::memory_order_relaxed);
    SystemAtomic<uint32_t>(watch_.progress).store(0, cuda::std::memory_order_relaxed);
    ++epoch_;
    SchedulerView v = view();
    if (v.num_tasks == 0) return true;
    std::vector<int> aborted(size_t(workers_), 0);
    std::vector<std::thread> threads;
    for (int32_t id = 0; id < workers_; ++id)
      threads.emplace_back([&, id] { aborted[size_t(id)] = worker_loop(v, id, body) ? 0 : 1; });
    for (std::thread& t : threads) t.join();
    for (const int a : aborted)
      if (a) return false;
    return true;
  }

  // The host's side of the watchdog: ask the workers to stop.
  void request_abort() { SystemAtomic<uint32_t>(watch_.abort).store(1, cuda::std::memory_order_relaxed); }
  uint32_t progress() const {
    return SystemAtomic<uint32_t>(const_cast<uint32_t&>(watch_.progress)).load(cuda::std::memory_order_relaxed);
  }
  unsigned long long completed() const { return counters_.completed.value; }
  std::vector<int32_t>& remaining() { return remaining_; }

 private:
  SchedulerView view() {
    SchedulerView v;
    v.num_tasks = static_cast<int32_t>(layout_.headers.size());
    v.num_roots = static_cast<int32_t>(layout_.roots.size());
    v.num_workers = workers_;
    v.epoch = epoch_;
    v.headers = layout_.headers.data();
    v.succs = layout_.succs.data();
    v.roots = layout_.roots.data();
    v.remaining = remaining_.data();
    v.slots = slots_.data();
    v.counters = &counters_;
    v.watch = &watch_;
    v.slot_count = static_cast<int64_t>(slots_.size());
    v.num_classes = layout_.num_classes;
    unsigned long long* express = slots_.data() + layout_.headers.size() + size_t(workers_);
    for (int32_t c = 0; c + 1 < layout_.num_classes; ++c) {
      v.express_slots[c] = express;
      express += express_tasks_[size_t(c)];
    }
    return v;
  }

  static size_t express_slot_count(const ExpressCounts& counts) {
    size_t total = 0;
    for (const int64_t c : counts) total += size_t(c);
    return total;
  }

  // True when the worker left through an exit marker, false on an abort.
  static bool worker_loop(const SchedulerView& v, int32_t id,
                          const std::function<void(int32_t, int32_t)>& body) {
    BlockChannel channel{channel_empty, 0};
    WorkerState w;
    w.worker = id;
    w.watcher = true;
    int32_t next = no_task;
    for (;;) {
      int32_t task = next;
      next = no_task;
      if (task == no_task) task = acquire_task(v, w, &channel, false);
      if (task == signal_push_exits) {
        push_exit_markers(v);
        continue;
      }
      if (task == signal_abort) return false;
      if (task == exit_marker) return true;
      const TaskHeader header = v.headers[task];
      rearm_counter(v, task, header);
      body(task, w.worker);
      next = finish_task(v, w, header);
      if (next != no_task && w.unflushed >= flush_interval) flush_completions(v, w);
    }
  }

  const DeviceLayout& layout_;
  int workers_;
  ExpressCounts express_tasks_;
  std::vector<unsigned long long> slots_;
  std::vector<int32_t> remaining_;
  RunCounters counters_{};
  Watch watch_{};
  uint32_t epoch_ = 0;
};

}  // namespace tiledqr::taskgraph::testing
