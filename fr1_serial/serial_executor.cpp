#include "serial_executor.hpp"

#include <algorithm>
#include <vector>

#include "dag.hpp"
#include "host_task_grid.hpp"
#include "lapack_kernels.hpp"
#include "ready_order.hpp"
#include "trace_clock.hpp"

namespace tiledqr {
namespace {

// Takes the ready task to run next: the highest priority one, or the one
// `pick` chooses. `ready` is kept unsorted; selection is a linear scan,
// which is small next to a tile kernel.
template <typename Item, typename Before>
Item take_ready(std::vector<Item>& ready, const ReadyPicker& pick, Before before) {
  size_t chosen = 0;
  if (pick) {
    std::sort(ready.begin(), ready.end(), before);
    chosen = pick(ready.size());
  } else {
    for (size_t r = 1; r < ready.size(); ++r)
      if (before(ready[r], ready[chosen])) chosen = r;
  }
  const Item item = ready[chosen];
  ready[chosen] = ready.back();
  ready.pop_back();
  return item;
}

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
  std::vector<Task> ready;
  auto emit = [&ready](const Task& t) { ready.push_back(t); };
  grid.start(emit);
  auto before = [](const Task& a, const Task& b) { return runs_after(b, a); };
  while (!ready.empty()) {
    const Task task = take_ready(ready, pick, before);
    run_task_traced(f, task, clock);
    grid.complete(task, emit);
  }
}

template <typename T>
void run_dag(Factorization<T>& f, const ReadyPicker& pick, const TraceClock& clock) {
  const Dag dag = build_qr_dag(f.tiles.p, f.tiles.q, f.options.tree, f.options.tree_domains,
                               f.options.inner_tree);
  std::vector<int64_t> remaining(dag.tasks.size());
  std::vector<int32_t> ready;
  for (int32_t t = 0; t < dag.num_tasks(); ++t) {
    remaining[t] = dag.pred_offsets[t + 1] - dag.pred_offsets[t];
    if (remaining[t] == 0) ready.push_back(t);
  }
  auto before = [&dag](int32_t a, int32_t b) {
    if (dag.priority[a] != dag.priority[b]) return dag.priority[a] > dag.priority[b];
    return a < b;
  };
  while (!ready.empty()) {
    const int32_t t = take_ready(ready, pick, before);
    run_task_traced(f, dag.tasks[t], clock);
    for (int64_t e = dag.succ_offsets[t]; e < dag.succ_offsets[t + 1]; ++e)
      if (--remaining[dag.succs[e]] == 0) ready.push_back(dag.succs[e]);
  }
}

}  // namespace

template <typename T>
void run_serial(Factorization<T>& f, const ReadyPicker& pick) {
  lapack_kernels::use_single_threaded_blas();
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
