// The priority the threaded executor (fr2_threaded/) uses to pick among the
// ready tasks of the task grid (after "Task-Based Scheduling Implementing Tiled
// Linear Algebra on GPUs", §II.C: "the factorisation tasks unlock entire rows
// of applications, making their execution higher priority"): factorisations
// first, then the earliest step, then the lowest tile row and column. The
// serial executor runs two FIFO queues instead (factorisations first, each in
// the order it became ready) and uses this order only to sort the ready tasks
// for the schedule tests' picker.
#pragma once

#include "task.hpp"

namespace tiledqr {

// True when `a` should run after `b` (the comparison std::priority_queue wants).
inline bool runs_after(const Task& a, const Task& b) {
  const bool fa = is_factorization(a.kind), fb = is_factorization(b.kind);
  if (fa != fb) return fb;
  if (a.k != b.k) return a.k > b.k;
  if (a.i != b.i) return a.i > b.i;
  return a.j > b.j;
}

struct RunsAfter {
  bool operator()(const Task& a, const Task& b) const { return runs_after(a, b); }
};

}  // namespace tiledqr
