#include "serial_executor.hpp"

#include <algorithm>
#include <vector>

#include "cpu_threads.hpp"
#include "dag.hpp"
#include "host_task_grid.hpp"
#include "kernels/lapack/lapack_kernels.hpp"
#include "ready_order.hpp"
#include "trace_clock.hpp"

namespace tiledqr {
namespace {

// The ready tasks, and the one to run next: the highest priority one
// (`before(a, b)`: a runs before b, a strict total order), or the one
// `pick` chooses. Priority order keeps a binary heap, so taking and adding
// a task cost O(log r) for r ready tasks; a linear scan of the ready set
// made a wide matrix quadratic (geqrt(0, 0) alone makes q ormqr ready).
// With `pick` (schedule tests only) the set is sorted at every take.
template <typename Item, typename Before>
class ReadySet {
 public:
  ReadySet(const ReadyPicker& pick, Before before) : pick_(pick), before_(before) {}

  bool empty() const { return items_.empty(); }

  void push(const Item& item) {
    items_.push_back(item);
    if (!pick_) std::push_heap(items_.begin(), items_.end(), after());
  }

  Item take() {
    if (!pick_) {
      std::pop_heap(items_.begin(), items_.end(), after());
      const Item item = items_.back();
      items_.pop_back();
      return item;
    }
    std::sort(items_.begin(), items_.end(), before_);
    const size_t chosen = pick_(items_.size());
    const Item item = items_[chosen];
    items_[chosen] = items_.back();
    items_.pop_back();
    return item;
  }

 private:
  // The heap's "less": the task that runs later is the smaller one.
  auto after() const {
    return [this](const Item& a, const Item& b) { return before_(b, a); };
  }

  const ReadyPicker& pick_;
  Before before_;
  std::vector<Item> items_;
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
  ReadySet<Task, decltype(before)> ready(pick, before);
  auto emit = [&ready](const Task& t) { ready.push(t); };
  grid.start(emit);
  while (!ready.empty()) {
    const Task task = ready.take();
    run_task_traced(f, task, clock);
    grid.complete(task, emit);
  }
}

template <typename T>
void run_dag(Factorization<T>& f, const ReadyPicker& pick, const TraceClock& clock) {
  const Dag dag = build_qr_dag(f.tiles.p, f.tiles.q, f.options.tree, f.options.tree_domains,
                               f.options.inner_tree);
  std::vector<int64_t> remaining(dag.tasks.size());
  auto before = [&dag](int32_t a, int32_t b) {
    if (dag.priority[a] != dag.priority[b]) return dag.priority[a] > dag.priority[b];
    return a < b;
  };
  ReadySet<int32_t, decltype(before)> ready(pick, before);
  for (int32_t t = 0; t < dag.num_tasks(); ++t) {
    remaining[t] = dag.pred_offsets[t + 1] - dag.pred_offsets[t];
    if (remaining[t] == 0) ready.push(t);
  }
  while (!ready.empty()) {
    const int32_t t = ready.take();
    run_task_traced(f, dag.tasks[t], clock);
    for (int64_t e = dag.succ_offsets[t]; e < dag.succ_offsets[t + 1]; ++e)
      if (--remaining[dag.succs[e]] == 0) ready.push(dag.succs[e]);
  }
}

}  // namespace

template <typename T>
void run_serial(Factorization<T>& f, const ReadyPicker& pick) {
  const ScopedBlasThreads single_threaded_blas(1);  // restored on return
  const TraceClock clock;
  if (f.options.tree == Tree::flat) run_grid(f, pick, clock);
  else run_dag(f, pick, clock);
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
