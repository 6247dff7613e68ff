// FR1's executor: one thread runs the ready tasks of the task grid (flat tree) or of the DAG.
#include "serial_executor.hpp"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <vector>

#include "cpu_threads.hpp"
#include "dag.hpp"
#include "host_task_grid.hpp"
#include "kernels/lapack/lapack_kernels.hpp"
#include "ready_order.hpp"
#include "trace_clock.hpp"

namespace tiledqr {
namespace {

// The ready tasks, and the one to run next. Factorisations run before
// updates ("Task-Based Scheduling Implementing Tiled Linear Algebra on
// GPUs", §II.C: they unlock whole rows of updates), and each of the two in
// the order it became ready: two FIFO queues, so adding and taking a task
// cost O(1) whatever the number of ready tasks (geqrt(0, 0) alone makes q
// ormqr ready). One worker's total time does not depend on the order, only
// the caches do, and the results never do: the dependencies fix every
// tile's history. With `pick` (schedule tests only) the ready tasks are
// sorted by `before` at every take and `pick` chooses.
template <typename Item, typename Before>
class ReadyQueue {
 public:
  ReadyQueue(const ReadyPicker& pick, Before before) : pick_(pick), before_(before) {}

  bool empty() const { return factorizations_.empty() && updates_.empty(); }

  void push(const Item& item, bool factorization) {
    (factorization ? factorizations_ : updates_).push_back(item);
  }

  Item take() {
    if (!pick_) {
      std::deque<Item>& from = factorizations_.empty() ? updates_ : factorizations_;
      const Item item = from.front();
      from.pop_front();
      return item;
    }
    std::deque<Item>& all = updates_;
    all.insert(all.end(), factorizations_.begin(), factorizations_.end());
    factorizations_.clear();
    std::sort(all.begin(), all.end(), before_);
    const size_t chosen = pick_(all.size());
    const Item item = all[chosen];
    all.erase(all.begin() + std::ptrdiff_t(chosen));
    return item;
  }

 private:
  const ReadyPicker& pick_;
  Before before_;
  std::deque<Item> factorizations_, updates_;
};

template <typename T>
void run_task_traced(Factorization<T>& f, const Task& task, const TraceClock& clock) {
  if (!f.options.trace) {
    f.run_task(task);
    return;
  }
  TaskRecord record;
  record.task = task;
  record.start_ns = clock.now_ns();
  f.run_task(task);
  record.end_ns = clock.now_ns();
  f.trace.push_back(record);
}

template <typename T>
void run_grid(Factorization<T>& f, const ReadyPicker& pick, const TraceClock& clock) {
  HostTaskGrid owner(f.tiles.p, f.tiles.q);
  TaskGrid& grid = owner.grid();
  auto before = [](const Task& a, const Task& b) { return runs_after(b, a); };
  ReadyQueue<Task, decltype(before)> ready(pick, before);
  auto emit = [&ready](const Task& t) { ready.push(t, is_factorization(t.kind)); };
  grid.start(emit);
  while (!ready.empty()) {
    const Task task = ready.take();
    run_task_traced(f, task, clock);
    grid.complete(task, emit);
  }
}

// Every task of `dag` through `run`, in the queue's order.
void run_dag_tasks(const Dag& dag, const ReadyPicker& pick, const std::function<void(const Task&)>& run) {
  std::vector<int64_t> remaining(dag.tasks.size());
  auto before = [&dag](int32_t a, int32_t b) {
    if (dag.priority[a] != dag.priority[b]) return dag.priority[a] > dag.priority[b];
    return a < b;
  };
  ReadyQueue<int32_t, decltype(before)> ready(pick, before);
  auto emit = [&](int32_t t) { ready.push(t, is_factorization(dag.tasks[t].kind)); };
  for (int32_t t = 0; t < dag.num_tasks(); ++t) {
    remaining[t] = dag.pred_offsets[t + 1] - dag.pred_offsets[t];
    if (remaining[t] == 0) emit(t);
  }
  while (!ready.empty()) {
    const int32_t t = ready.take();
    run(dag.tasks[t]);
    for (int64_t e = dag.succ_offsets[t]; e < dag.succ_offsets[t + 1]; ++e)
      if (--remaining[dag.succs[e]] == 0) emit(dag.succs[e]);
  }
}

template <typename T>
void run_dag(Factorization<T>& f, const ReadyPicker& pick, const TraceClock& clock) {
  const Dag dag = f.factor_dag();
  run_dag_tasks(dag, pick, [&](const Task& task) { run_task_traced(f, task, clock); });
}

}  // namespace

template <typename T>
void run_serial(Factorization<T>& f, const ReadyPicker& pick) {
  const SingleThreadedBlas single_threaded_blas;  // restored after the last scope
  const TraceClock clock;
  if (f.options.tree == Tree::flat) run_grid(f, pick, clock);
  else run_dag(f, pick, clock);
}

void run_dag_serial(const Dag& dag, const std::function<void(const Task&)>& run) {
  const SingleThreadedBlas single_threaded_blas;
  run_dag_tasks(dag, ReadyPicker(), run);
}

template <typename T>
Factorization<T> factor(const T* a, int64_t m, int64_t n, int64_t lda, const Options& options) {
  Factorization<T> f(a, m, n, lda, options);
  run_serial(f, ReadyPicker());
  return f;
}

template Factorization<float> factor<float>(const float*, int64_t, int64_t, int64_t, const Options&);
template Factorization<double> factor<double>(const double*, int64_t, int64_t, int64_t,
                                              const Options&);
template void run_serial<float>(Factorization<float>&, const ReadyPicker&);
template void run_serial<double>(Factorization<double>&, const ReadyPicker&);

}  // namespace tiledqr
