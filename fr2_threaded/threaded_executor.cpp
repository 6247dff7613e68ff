#include "threaded_executor.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "cpu_threads.hpp"
#include "dag.hpp"
#include "errors.hpp"
#include "host_task_grid.hpp"
#include "kernels/lapack/lapack_kernels.hpp"
#include "ready_order.hpp"
#include "size_check.hpp"
#include "trace_clock.hpp"

namespace tiledqr {
namespace {

// A schedule is what the workers share: the ready set and the rule that
// makes successors ready. Every member except finish_unlocked is called
// with the workers' mutex held. The two schedules below differ only there.
//   has_ready(), take()            the highest-priority ready item;
//   task(item)                     the task it names;
//   finish_unlocked(item, out)     work that needs no lock (atomics);
//   finish_locked(item, out)       completes the item, returns how many
//                                  items became ready;
//   finished()                     every task has completed.

// Flat tree: the task grid (common/task_graph/task_grid.hpp), which is not
// thread-safe by itself; it is tiny work next to a tile kernel, so it simply
// runs under the lock.
class GridSchedule {
 public:
  using Item = Task;

  GridSchedule(int32_t p, int32_t q) : owner_(p, q) {
    owner_.grid().start([this](const Task& t) { ready_.push(t); });
  }

  bool has_ready() const { return !ready_.empty(); }
  Item take() {
    const Task t = ready_.top();
    ready_.pop();
    return t;
  }
  const Task& task(const Item& item) const { return item; }
  void finish_unlocked(const Item&, std::vector<Item>&) {}
  size_t finish_locked(const Item& item, std::vector<Item>&) {
    size_t count = 0;
    owner_.grid().complete(item, [this, &count](const Task& t) {
      ready_.push(t);
      ++count;
    });
    return count;
  }
  bool finished() const { return owner_.grid().finished(); }

 private:
  HostTaskGrid owner_;
  // Factorisations first, then the earliest step (ready_order.hpp).
  std::priority_queue<Task, std::vector<Task>, RunsAfter> ready_;
};

// Any task graph — the binary and greedy trees' QR, or the application of
// Q — from the DAG builder. A finished task decrements its successors'
// counters without the lock; only those that reach zero go through the
// locked ready set.
class DagSchedule {
 public:
  using Item = int32_t;

  explicit DagSchedule(const Dag& dag)
      : dag_(dag), remaining_(new std::atomic<int32_t>[size_t(dag_.num_tasks())]), ready_(RunsAfterByPriority{&dag_}) {
    for (int32_t t = 0; t < dag_.num_tasks(); ++t) {
      const auto count = static_cast<int32_t>(dag_.pred_offsets[t + 1] - dag_.pred_offsets[t]);
      remaining_[t].store(count, std::memory_order_relaxed);
      if (count == 0) ready_.push(t);
    }
  }

  bool has_ready() const { return !ready_.empty(); }
  Item take() {
    const int32_t t = ready_.top();
    ready_.pop();
    return t;
  }
  const Task& task(Item item) const { return dag_.tasks[size_t(item)]; }
  // acq_rel: the decrement that reaches zero must see every predecessor's
  // tile writes (each released them with its own decrement).
  void finish_unlocked(Item item, std::vector<Item>& unlocked) {
    for (int64_t e = dag_.succ_offsets[item]; e < dag_.succ_offsets[item + 1]; ++e) {
      const int32_t s = dag_.succs[size_t(e)];
      if (remaining_[s].fetch_sub(1, std::memory_order_acq_rel) == 1) unlocked.push_back(s);
    }
  }
  size_t finish_locked(Item, std::vector<Item>& unlocked) {
    ++completed_;
    for (const int32_t s : unlocked) ready_.push(s);
    return unlocked.size();
  }
  bool finished() const { return completed_ == dag_.num_tasks(); }

 private:
  // Highest critical-path priority first, then program order (the order in
  // which FR1's schedule tests sort the ready tasks; FR1 itself runs them
  // first in, first out).
  struct RunsAfterByPriority {
    const Dag* dag;
    bool operator()(int32_t a, int32_t b) const {
      if (dag->priority[a] != dag->priority[b]) return dag->priority[a] < dag->priority[b];
      return a > b;
    }
  };

  const Dag& dag_;
  std::unique_ptr<std::atomic<int32_t>[]> remaining_;
  std::priority_queue<int32_t, std::vector<int32_t>, RunsAfterByPriority> ready_;
  int32_t completed_ = 0;
};

// What the workers share besides the schedule; guarded by `mutex`.
struct WorkerPool {
  std::mutex mutex;
  std::condition_variable wakeup;  // a task became ready, or the run ends
  bool stop = false;               // finished, failed or stalled: workers leave
  int running = 0;                 // tasks taken and not yet finished
  std::exception_ptr error;        // the first failure

  // Records a failure (the first one wins) and stops every worker. Holds the lock.
  void fail(std::exception_ptr e) {
    if (!error) error = std::move(e);
    stop = true;
    wakeup.notify_all();
  }
};

// What the workers run: each task through `run`, and, when `trace` is set,
// one TaskRecord per task into traces[worker].
struct TaskRunner {
  std::function<void(const Task&)> run;
  bool trace = false;
};

// One worker: take the highest-priority ready task, run it outside the
// lock, report completion, repeat; sleep on the condition variable while
// nothing is ready. Never throws: failures go to pool.error.
template <typename Schedule>
void work(int worker, WorkerPool& pool, Schedule& schedule, const TaskRunner& runner, const ThreadedHooks& hooks,
          const TraceClock& clock, std::vector<TaskRecord>& trace) {
  using Item = typename Schedule::Item;
  std::vector<Item> unlocked;
  std::unique_lock<std::mutex> lock(pool.mutex);
  for (;;) {
    pool.wakeup.wait(lock, [&] { return pool.stop || schedule.has_ready(); });
    if (pool.stop) return;
    const Item item = schedule.take();
    const Task& task = schedule.task(item);
    ++pool.running;
    lock.unlock();

    std::exception_ptr error;
    try {
      if (hooks.before_task) hooks.before_task(worker);
      TaskRecord record;
      record.task = task;
      record.worker = worker;
      if (runner.trace) record.start_ns = clock.now_ns();
      runner.run(task);
      if (runner.trace) {
        record.end_ns = clock.now_ns();
        trace.push_back(record);
      }
      unlocked.clear();
      schedule.finish_unlocked(item, unlocked);
    } catch (...) {
      error = std::current_exception();
    }

    lock.lock();
    --pool.running;
    if (error) {
      pool.fail(error);
      return;
    }
    if (pool.stop) return;  // another worker failed meanwhile
    const size_t woken = schedule.finish_locked(item, unlocked);
    if (schedule.finished()) {
      pool.stop = true;
      pool.wakeup.notify_all();
      return;
    }
    if (pool.running == 0 && !schedule.has_ready()) {
      // Cannot happen with a correct graph; end with an error, never hang.
      pool.fail(std::make_exception_ptr(
          StallError("the threaded executor: no task ready or running before the graph finished")));
      return;
    }
    // This worker takes one of the new tasks itself; wake one sleeper per other.
    for (size_t w = 1; w < woken; ++w) pool.wakeup.notify_one();
  }
}

// Runs `schedule` on `threads` workers (the calling thread is worker 0);
// returns the workers' task records, by worker, when runner.trace is set.
template <typename Schedule>
std::vector<std::vector<TaskRecord>> run_workers(Schedule& schedule, int threads, const TaskRunner& runner,
                                                 const ThreadedHooks& hooks) {
  const TraceClock clock;
  WorkerPool pool;
  std::vector<std::vector<TaskRecord>> traces(static_cast<size_t>(threads));  // one per worker
  if (schedule.finished()) return traces;
  std::vector<std::thread> workers;
  workers.reserve(size_t(threads) - 1);
  try {
    for (int w = 1; w < threads; ++w)
      workers.emplace_back([&, w] { work(w, pool, schedule, runner, hooks, clock, traces[size_t(w)]); });
  } catch (...) {
    // Could not start a thread: stop the ones that did start, then report.
    {
      std::lock_guard<std::mutex> guard(pool.mutex);
      pool.fail(std::current_exception());
    }
    for (std::thread& t : workers) t.join();
    std::rethrow_exception(pool.error);
  }
  work<Schedule>(0, pool, schedule, runner, hooks, clock, traces[0]);
  for (std::thread& t : workers) t.join();
  if (pool.error) std::rethrow_exception(pool.error);
  return traces;
}

// Runs `schedule`'s factorisation tasks on f and appends the trace, sorted
// by start time, to f.trace when f.options.trace is set.
template <typename T, typename Schedule>
void run_factorization(Factorization<T>& f, Schedule& schedule, int threads, const ThreadedHooks& hooks) {
  const TaskRunner runner{[&f](const Task& t) { f.run_task(t); }, f.options.trace};
  const std::vector<std::vector<TaskRecord>> traces = run_workers(schedule, threads, runner, hooks);
  if (!f.options.trace) return;
  const size_t first = f.trace.size();
  for (const auto& worker_trace : traces) f.trace.insert(f.trace.end(), worker_trace.begin(), worker_trace.end());
  std::sort(f.trace.begin() + std::ptrdiff_t(first), f.trace.end(), [](const TaskRecord& a, const TaskRecord& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.worker < b.worker;
  });
}

}  // namespace

int resolve_threads(int threads) {
  if (threads < 0) throw InputError("threads must be >= 0, got " + std::to_string(threads));
  if (threads > 0) return threads;
  return available_cpus();
}

Tree default_tree(int64_t m, int64_t n, int tile, int threads) {
  if (m < 1 || n < 1 || tile < 1) throw InputError("default_tree: empty matrix or tile");
  const int workers = resolve_threads(threads);
  const int64_t p = tile_count(m, tile), q = tile_count(n, tile);
  if (workers < 2 || p < 4 * q) return Tree::flat;
  // Tasks of the flat tree, Σ_{i,j} (min(i, j) + 1), column by column (p ≥ q).
  double tasks = 0;
  for (int64_t j = 0; j < q; ++j)
    tasks += double(j + 1) * double(j + 2) / 2 + double(p - 1 - j) * double(j + 1);
  // Its critical path is about the panel chain plus the pipelined steps.
  const double width = tasks / double(p + 2 * q);
  return width < 2.0 * workers ? Tree::binary : Tree::flat;
}

template <typename T>
void run_threaded(Factorization<T>& f, int threads, const ThreadedHooks& hooks) {
  const int workers = resolve_threads(threads);
  // Tile kernels are small; the workers are the parallelism.
  const SingleThreadedBlas single_threaded_blas;  // restored after the last scope
  if (f.options.tree == Tree::flat) {
    GridSchedule schedule(f.tiles.p, f.tiles.q);
    run_factorization(f, schedule, workers, hooks);
  } else {
    const Dag dag = f.factor_dag();
    DagSchedule schedule(dag);
    run_factorization(f, schedule, workers, hooks);
  }
}

void run_dag_threaded(const Dag& dag, int threads, const std::function<void(const Task&)>& run) {
  const int workers = std::min(resolve_threads(threads), std::max(dag.num_tasks(), 1));
  const SingleThreadedBlas single_threaded_blas;
  DagSchedule schedule(dag);
  run_workers(schedule, workers, TaskRunner{run, false}, ThreadedHooks());
}

void run_independent(int64_t count, int threads, const std::function<void(int64_t)>& body) {
  const int workers = int(std::min<int64_t>(resolve_threads(threads), std::max<int64_t>(count, 1)));
  const SingleThreadedBlas single_threaded_blas;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto loop = [&] {
    for (int64_t i = next++; i < count && !failed.load(std::memory_order_relaxed); i = next++) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(size_t(workers) - 1);
  try {
    for (int w = 1; w < workers; ++w) helpers.emplace_back(loop);
  } catch (...) {
    failed = true;  // could not start a thread: the started ones stop after their current item
    for (std::thread& t : helpers) t.join();
    throw;
  }
  loop();
  for (std::thread& t : helpers) t.join();
  if (error) std::rethrow_exception(error);
}

template <typename T>
Factorization<T> factor_threaded(const T* a, int64_t m, int64_t n, int64_t lda,
                                 const Options& options) {
  Factorization<T> f(a, m, n, lda, options);
  f.options.threads = resolve_threads(options.threads);
  run_threaded(f, f.options.threads);
  return f;
}

template Factorization<float> factor_threaded<float>(const float*, int64_t, int64_t, int64_t,
                                                     const Options&);
template Factorization<double> factor_threaded<double>(const double*, int64_t, int64_t, int64_t,
                                                       const Options&);
template void run_threaded<float>(Factorization<float>&, int, const ThreadedHooks&);
template void run_threaded<double>(Factorization<double>&, int, const ThreadedHooks&);

}  // namespace tiledqr
