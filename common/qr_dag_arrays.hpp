// Per-task arrays of the closed-form QR DAG (qr_dag.hpp) for an executor
// that keeps state per task: predecessor counts, critical-path priorities,
// the roots, and optionally the successors in CSR with 32- or 64-bit
// indices. Each is filled by sweeps over the eliminations of each panel,
// with no per-task allocation and no edge sort; the memory they need is
// checked before anything is allocated.
#pragma once

#include <cstdint>
#include <vector>

#include "qr_dag.hpp"

namespace tiledqr {

struct QrDagArrays {
  qr_dag::Shape shape;
  std::vector<uint8_t> pred_count;  // (num_tasks): predecessors of each task, 0 … 3
  std::vector<int32_t> priority;    // (num_tasks): tasks on the longest path from t to a sink, t included
  std::vector<int64_t> roots;       // tasks without predecessors, highest priority first, ties by lower id
};

// Successors of every task: succs[offsets[t] .. offsets[t+1]), each list in
// increasing id order (build_qr_dag's order). Index is int32_t or int64_t.
template <class Index>
struct SuccessorCsr {
  std::vector<Index> offsets;  // (num_tasks + 1)
  std::vector<Index> succs;    // (num_edges)
};

// Number of edges (the sum of the predecessor counts), in O(steps).
int64_t count_edges(const qr_dag::Shape& shape);

// Host bytes build_qr_dag_arrays and build_successor_csr<Index> allocate.
uint64_t qr_dag_arrays_bytes(const qr_dag::Shape& shape);
template <class Index>
uint64_t successor_csr_bytes(const qr_dag::Shape& shape);

// Predecessor counts, priorities (FR4's rule: the longest path to a sink,
// counted in tasks) and roots. Throws InputError, before allocating, when
// the arrays need more than memory_limit_bytes (0: the machine's physical
// memory) or a priority would not fit in int32.
//   QrDagArrays a = build_qr_dag_arrays(qr_dag::make_shape(512, 512, Tree::greedy));
QrDagArrays build_qr_dag_arrays(const qr_dag::Shape& shape, uint64_t memory_limit_bytes = 0);

// The successor lists in CSR. Throws InputError, before allocating, when
// the tasks or edges do not fit in Index or the lists need more than
// memory_limit_bytes (0: physical memory).
template <class Index>
SuccessorCsr<Index> build_successor_csr(const qr_dag::Shape& shape, uint64_t memory_limit_bytes = 0);

}  // namespace tiledqr
