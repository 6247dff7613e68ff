// The task grid of "Task-Based Scheduling Implementing Tiled Linear Algebra on
// GPUs", §II.C: one cell per tile, at most one ready task per cell, successors
// generated when a task completes. Plain data plus host/device functions, so
// FR1, FR2 and FR3's GPU scheduler warp all run this same code (docs/design.md
// §4). Flat tree only; the trees go through dag.hpp.
//
// Each cell (i, j) runs the tasks of steps k = 0 … min(i, j) in order:
// tsmqr(i, j, k) for k < min(i, j), then geqrt (i = j), ormqr (i < j) or
// tsqrt (i > j) at k = min(i, j). A cell's steps_done is therefore the step
// of its next task. Dependencies of the cell's next task at step k:
//   geqrt(k, k):    none beyond the cell's own previous step;
//   ormqr(k, j):    geqrt(k, k) done;
//   tsqrt(i, k):    geqrt(k, k) and tsqrt(i − 1, k) done (both write R_kk);
//   tsmqr(i, j, k): tsqrt(i, k) done, and the previous writer of A_kj at
//                   step k done: ormqr(k, j) for i = k + 1, else
//                   tsmqr(i − 1, j, k). The paper's list misses this last
//                   edge (docs/design.md §4); seed_rules_only drops it, for the
//                   test that shows the checker catches its absence.
#pragma once

#include <cstdint>

#include "host_device.hpp"
#include "task.hpp"

namespace tiledqr {

struct GridCell {
  int32_t steps_done = 0;  // tasks completed on this cell = step of its next task
  int32_t chain_row = -1;  // last row i whose tsqrt/tsmqr updated this (k, ·) cell at step k
  int32_t queued = 0;      // 1 while the cell's next task is ready or running
};

struct TaskGrid {
  int32_t p = 0;  // tile rows
  int32_t q = 0;  // tile columns
  GridCell* cells = nullptr;  // (p, q) col-major, owned by the caller
  bool seed_rules_only = false;
  int64_t tasks_total = 0;
  int64_t tasks_completed = 0;

  TILEDQR_HOST_DEVICE GridCell& cell(int32_t i, int32_t j) { return cells[i + int64_t(j) * p]; }
  TILEDQR_HOST_DEVICE const GridCell& cell(int32_t i, int32_t j) const {
    return cells[i + int64_t(j) * p];
  }

  TILEDQR_HOST_DEVICE static int32_t tasks_of_cell(int32_t i, int32_t j) {
    return (i < j ? i : j) + 1;
  }

  TILEDQR_HOST_DEVICE bool cell_finished(int32_t i, int32_t j) const {
    return cell(i, j).steps_done == tasks_of_cell(i, j);
  }

  TILEDQR_HOST_DEVICE bool finished() const { return tasks_completed == tasks_total; }

  // The task a cell runs next (valid while !cell_finished(i, j)).
  TILEDQR_HOST_DEVICE Task next_task(int32_t i, int32_t j) const {
    const int32_t k = cell(i, j).steps_done;
    Task t;
    t.k = k;
    t.i = i;
    t.j = j;
    t.piv = i;
    if (i == k && j == k) {
      t.kind = TaskKind::geqrt;
    } else if (i == k) {
      t.kind = TaskKind::ormqr;
    } else if (j == k) {
      t.kind = TaskKind::tsqrt;
      t.piv = k;
    } else {
      t.kind = TaskKind::tsmqr;
      t.piv = k;
    }
    return t;
  }

  TILEDQR_HOST_DEVICE bool next_task_ready(int32_t i, int32_t j) const {
    const int32_t k = cell(i, j).steps_done;
    const GridCell& diagonal = cell(k, k);
    if (i == k && j == k) return true;
    if (i == k) return diagonal.steps_done == k + 1;
    if (j == k) return diagonal.steps_done == k + 1 && diagonal.chain_row == i - 1;
    const GridCell& pivot_row = cell(k, j);
    const bool kj_ready =
        pivot_row.steps_done == k + 1 && (seed_rules_only || pivot_row.chain_row == i - 1);
    return cell(i, k).steps_done == k + 1 && kj_ready;
  }

  // Puts the first task, geqrt(0, 0), in the grid.
  template <typename Emit>
  TILEDQR_HOST_DEVICE void start(Emit&& emit) {
    try_ready(0, 0, emit);
  }

  // Records that `t` finished and emits every task that became ready, as
  // the paper's §II.C generates them: a geqrt its row of ormqr and the first
  // tsqrt; an ormqr the first tsmqr below it; a tsqrt its row of tsmqr and
  // the next tsqrt; a tsmqr the next tsmqr on A_kj and its own next step.
  // Factorisations are emitted before applications.
  template <typename Emit>
  TILEDQR_HOST_DEVICE void complete(const Task& t, Emit&& emit) {
    ++tasks_completed;
    GridCell& own = cell(t.i, t.j);
    own.steps_done = t.k + 1;
    own.queued = 0;
    switch (t.kind) {
      case TaskKind::geqrt:
        own.chain_row = t.k;
        try_ready(t.k + 1, t.k, emit);
        for (int32_t j = t.k + 1; j < q; ++j) try_ready(t.k, j, emit);
        break;
      case TaskKind::ormqr:
        own.chain_row = t.k;
        if (seed_rules_only) {
          for (int32_t i = t.k + 1; i < p; ++i) try_ready(i, t.j, emit);
        } else {
          try_ready(t.k + 1, t.j, emit);
        }
        break;
      case TaskKind::tsqrt:
        cell(t.k, t.k).chain_row = t.i;
        try_ready(t.i + 1, t.k, emit);
        for (int32_t j = t.k + 1; j < q; ++j) try_ready(t.i, j, emit);
        break;
      default:  // tsmqr
        cell(t.k, t.j).chain_row = t.i;
        try_ready(t.i, t.j, emit);
        try_ready(t.i + 1, t.j, emit);
        break;
    }
  }

 private:
  template <typename Emit>
  TILEDQR_HOST_DEVICE void try_ready(int32_t i, int32_t j, Emit& emit) {
    if (i >= p || j >= q) return;
    GridCell& c = cell(i, j);
    if (c.queued || cell_finished(i, j) || !next_task_ready(i, j)) return;
    c.queued = 1;
    emit(next_task(i, j));
  }
};

// Total number of tasks of a p×q grid: Σ_{i,j} (min(i, j) + 1).
TILEDQR_HOST_DEVICE inline int64_t grid_task_count(int32_t p, int32_t q) {
  int64_t total = 0;
  for (int32_t j = 0; j < q; ++j)
    for (int32_t i = 0; i < p; ++i) total += (i < j ? i : j) + 1;
  return total;
}

}  // namespace tiledqr
