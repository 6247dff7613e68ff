// FR1: one CPU thread runs the tiled QR as tasks ("Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs",
// Table 1).
#pragma once

#include <cstdint>
#include <functional>

#include "factorization.hpp"

namespace tiledqr {

// How FR1 picks the next ready task: factorisations first, each class in
// the order it became ready (the paper's §II.C), or, for schedule tests,
// through `pick(count)` returning an index in [0, count) into the ready
// tasks sorted by priority.
using ReadyPicker = std::function<size_t(size_t count)>;

// Factors A (m, n), col-major, lda ≥ m. The flat tree runs the task grid
// (common/task_graph/task_grid.hpp); binary and greedy run the DAG builder's graph. Any m, n ≥ 1.
template <typename T>
Factorization<T> factor(const T* a, int64_t m, int64_t n, int64_t lda, const Options& options);

// Runs the tasks of `f` serially; `pick` may be empty (the order above).
template <typename T>
void run_serial(Factorization<T>& f, const ReadyPicker& pick);

// FR1's executor on any task graph (a DagExecutor): one thread runs each
// ready task of `dag` through `run`, in the order above. Applying Q
// (build_apply_dag) runs here for a one-thread library call.
void run_dag_serial(const Dag& dag, const std::function<void(const Task&)>& run);

}  // namespace tiledqr
