// FR2: a pool of CPU threads runs the tiled QR as tasks ("Task-Based
// Scheduling Implementing Tiled Linear Algebra on GPUs", Table 1). The flat
// tree runs the task grid (common/task_graph/task_grid.hpp), shared by the workers
// under one mutex; binary and greedy run the DAG builder's graph with atomic
// remaining-predecessor counters. Every tile sees its updates in the same
// order as in FR1, so the result is bit-identical to FR1's for any thread
// count (docs/design.md §5).
#pragma once

#include <cstdint>
#include <functional>

#include "factorization.hpp"

namespace tiledqr {

// Test-only hooks into the workers. before_task(worker) runs on worker
// `worker` just before each task, outside the scheduler's lock; tests use it
// to sleep and so shuffle the schedule. An exception it throws ends the run
// like one thrown by a task.
struct ThreadedHooks {
  std::function<void(int worker)> before_task;
};

// Factors A (m, n), col-major, lda ≥ m, on options.threads workers (0: every CPU
// of the affinity mask). Any m, n ≥ 1. The first exception thrown by a task (for
// example std::logic_error from a LAPACK routine) is rethrown here after all
// workers have stopped.
//   Factorization<double> f = factor_threaded(a.data(), m, n, m, options);
template <typename T>
Factorization<T> factor_threaded(const T* a, int64_t m, int64_t n, int64_t lda,
                                 const Options& options);

// Runs the tasks of `f` (tiled, nothing factored yet) on `threads` workers
// (0: every hardware thread), with f.options' tree; records one TaskRecord
// per task, with its worker id, when f.options.trace is set.
template <typename T>
void run_threaded(Factorization<T>& f, int threads, const ThreadedHooks& hooks = ThreadedHooks());

// FR2's executor on any task graph (a DagExecutor): `threads` workers (0:
// every CPU of the affinity mask; never more than the graph has tasks)
// run each task of `dag` through `run` once its predecessors have
// finished, highest critical-path priority first. The first exception a
// task throws is rethrown once every worker has stopped. Applying Q
// (build_apply_dag) runs here for a library call on several threads.
void run_dag_threaded(const Dag& dag, int threads, const std::function<void(const Task&)>& run);

// body(0), …, body(count − 1), independent of each other, on `threads`
// workers (0: every CPU) that each take the next index when done: the
// parallel loop of a batch of small factorisations, each run by one worker
// with FR1. OpenBLAS is single-threaded meanwhile. The first exception
// stops the loop (items already started finish) and is rethrown.
void run_independent(int64_t count, int threads, const std::function<void(int64_t)>& body);

// `threads`, or the number of CPUs in the affinity mask (available_cpus) when it is 0.
int resolve_threads(int threads);

// The elimination tree worth using for an m×n matrix of b×b tiles on
// `threads` workers. The flat tree's panel is a chain of p − k tsqrt, so a
// tall-skinny matrix (p ≥ 4q tile rows per tile column) has about
// tasks / (p + 2q) tasks ready at a time; when that average width is below
// two per worker the flat tree starves them and the binary tree, which
// factors a panel's tiles at once and merges them in log₂ p levels, is
// chosen. Otherwise flat. The stage CLI always passes a
// tree, so this is advice for library callers.
Tree default_tree(int64_t m, int64_t n, int tile, int threads);

}  // namespace tiledqr
