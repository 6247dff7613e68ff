// Per-task arrays of the closed-form QR DAG (qr_dag.hpp) for an executor
// that keeps state per task: predecessor counts, critical-path priorities,
// the roots, optionally priority classes by chain of time, and optionally the successors in CSR with 32- or 64-bit
// indices. Each is filled by sweeps over the eliminations of each panel,
// with no per-task allocation and no edge sort; the memory they need is
// checked before anything is allocated.
#pragma once

#include <cstdint>
#include <vector>

#include "qr_dag.hpp"

namespace tiledqr {
namespace detail {

void* allocate_array_bytes(size_t bytes);
void release_array_bytes(void* p, size_t bytes);

// Allocator of the per-task arrays. Every element is written by the sweeps,
// so resize() leaves them uninitialised instead of zeroing them first, and
// large blocks ask Linux for transparent huge pages: first-touch page faults,
// not the sweeps, are most of the cost of a 10^8-task DAG.
template <class T>
struct ArrayAllocator {
  using value_type = T;
  ArrayAllocator() = default;
  template <class U>
  ArrayAllocator(const ArrayAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(allocate_array_bytes(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { release_array_bytes(p, n * sizeof(T)); }
  template <class U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class V>
  void construct(U* p, V&& value) {
    ::new (static_cast<void*>(p)) U(static_cast<V&&>(value));
  }
  friend bool operator==(const ArrayAllocator&, const ArrayAllocator&) { return true; }
  friend bool operator!=(const ArrayAllocator&, const ArrayAllocator&) { return false; }
};

}  // namespace detail

template <class T>
using TaskArray = std::vector<T, detail::ArrayAllocator<T>>;

struct QrDagArrays {
  qr_dag::Shape shape;
  TaskArray<uint8_t> pred_count;  // (num_tasks): predecessors of each task, 0 … 3
  TaskArray<int32_t> priority;    // (num_tasks): tasks on the longest path from t to a sink, t included
  std::vector<int64_t> roots;     // tasks without predecessors, highest priority first, ties by lower id
  int32_t num_classes = 1;
  // (num_tasks) when num_classes > 1, else empty: 0 (most urgent) … num_classes − 1.
  TaskArray<uint8_t> priority_class;
};

// A factor task's (geqrt, tsqrt, ttqrt) weight in the chain of time that
// ranks tasks into priority classes, an update's being 1: at the tile
// sizes FR4 runs, a factor task takes about three times as long.
constexpr int32_t factor_time_weight = 3;

// Successors of every task: succs[offsets[t] .. offsets[t+1]), each list in
// increasing id order (build_qr_dag's order). Index is int32_t or int64_t.
template <class Index>
struct SuccessorCsr {
  TaskArray<Index> offsets;  // (num_tasks + 1)
  TaskArray<Index> succs;    // (num_edges)
};

// Elimination e of panel k as the sweeps over the eliminations see it:
// the id of its factor task (its update of tile column k + u is self + u,
// 1 ≤ u < q − k), the factor id of the next elimination on the row it
// keeps (−1 if none) and, when it merges a row away, `below`: its update u
// hands its tile on to task below + u of step k + 1 (−1 if none). The
// successors of the factor task are its updates and `next`; those of
// update u are next + u and below + u, where they exist.
//   step_base = qr_dag::step_begin(s, k), next_step_base = qr_dag::step_begin(s, k + 1)
struct ElimIds {
  qr_dag::detail::Elim elim;
  int64_t self;
  int64_t next;
  int64_t below;
};
ElimIds elim_ids(const qr_dag::Shape& s, int32_t k, int32_t e, int64_t step_base, int64_t next_step_base);

// Number of edges (the sum of the predecessor counts), in O(steps).
int64_t count_edges(const qr_dag::Shape& shape);

// Host bytes build_qr_dag_arrays and build_successor_csr<Index> allocate
// (with priority classes, at the peak: the chains of time are freed once
// they are ranked).
uint64_t qr_dag_arrays_bytes(const qr_dag::Shape& shape, int32_t priority_classes = 1);
template <class Index>
uint64_t successor_csr_bytes(const qr_dag::Shape& shape);

// Predecessor counts, priorities (FR4's rule: the longest path to a sink,
// counted in tasks) and roots; with priority_classes C > 1 (at most 4) also
// each task's class: of its chain of time h (the longest path to a sink,
// each task weighing its kind's time weight) and the longest, top,
// ⌊C·(top − h)/top⌋, capped at C − 1. Throws InputError, before
// allocating, when the arrays need more than memory_limit_bytes (0: the
// machine's physical memory), a priority would not fit in int32, or C is
// outside 1 … 4.
//   QrDagArrays a = build_qr_dag_arrays(qr_dag::make_shape(512, 512, Tree::greedy));
QrDagArrays build_qr_dag_arrays(const qr_dag::Shape& shape, uint64_t memory_limit_bytes = 0,
                                int32_t priority_classes = 1);

// The successor lists in CSR. Throws InputError, before allocating, when
// the tasks or edges do not fit in Index or the lists need more than
// memory_limit_bytes (0: physical memory).
template <class Index>
SuccessorCsr<Index> build_successor_csr(const qr_dag::Shape& shape, uint64_t memory_limit_bytes = 0);

}  // namespace tiledqr
