// The tiled QR factorisation's task graph for the FR4 executor, built from
// the closed form of the DAG (common/task_graph/qr_dag.hpp, common/task_graph/qr_dag_arrays.hpp)
// straight into the executor's device layout, chunk by chunk: nothing is
// allocated per task or per edge, so a 16384² matrix at tile 32 (45
// million tasks) takes a few hundred MB of host memory, not tens of GB.
// The graph is the one Graph::compile() makes of build_qr_dag's DAG: the
// same tasks and ids, successor lists and roots in critical-path priority
// order (highest first, ties by lower id). Host code only; no CUDA.
//
//   LayoutStream g = qr_factor_graph(p, q, Tree::greedy, 1, Team::warp);
//   GraphExec<QrKinds<double>> exec(g, options);   // uploads chunk by chunk
#pragma once

#include <cstdint>
#include <vector>

#include "options.hpp"
#include "qr_dag.hpp"
#include "task.hpp"
#include "taskgraph/device_layout.hpp"

namespace tiledqr::gpu {

// One task's arguments as the QR kinds read them (qr_kinds.cuh): the task
// of the DAG and, for the update kinds, whether they apply Qᵀ
// (factorisation, apply_qt: 1) or Q (apply_q: 0).
struct QrTaskArgs {
  Task task;
  int32_t transpose;
};

// The closed form's shape of the factorisation's DAG of p×q tiles;
// `domains` (≥ 1) matters only for the hierarchical tree (flat inside each
// domain, binary across them). Throws InputError for an empty grid or
// domains < 1.
qr_dag::Shape qr_graph_shape(int64_t p, int64_t q, Tree tree, int32_t domains);

// The factorisation's task graph in the executor's layout, streamed in
// chunks of at most `chunk_tasks` tasks: task t is the closed form's task t
// with arguments QrTaskArgs{task, 1} and kind id int(task.kind), run by
// `team` (every kind of one run has the same team). With priority_classes
// C > 1 (at most 4) each task also gets the class build_qr_dag_arrays
// ranks it into by its chain of time, so that ready factor tasks on the
// longest chains overtake queued updates (scheduler_core.hpp). The
// predecessor counts and priorities (5 bytes a task, 6 with classes) are
// built here and held by the stream. Throws InputError, before allocating,
// when the graph has more tasks or edges than the executor's 32-bit ids
// hold, or its arrays need more than host_memory_limit bytes (0: the
// machine's physical memory).
taskgraph::LayoutStream qr_factor_graph(int64_t p, int64_t q, Tree tree, int32_t domains, taskgraph::Team team,
                                        int32_t chunk_tasks = 1 << 16, uint64_t host_memory_limit = 0,
                                        int32_t priority_classes = 1);

// One matrix of a batch: its p × q tile grid and tree (domains ≥ 1 for the
// hierarchical tree, as qr_graph_shape).
struct QrBatchMember {
  int64_t p = 1, q = 1;
  Tree tree = Tree::flat;
  int32_t domains = 1;
};

// Where a batch's matrices lie in one tile grid, side by side: member b's
// tile (i, j) is the grid's tile (i, first_column[b] + j); the grid has the
// members' most tile rows and the sum of their tile columns. The tile
// kernels use a task's k and j as tile columns only (tile (i, k) holds the
// reflectors, tile (i, j) is updated), so a member's tasks with k and j
// shifted by first_column[b] work on its tiles of the grid, and its tiles,
// T factors and τ lie in one contiguous run of the grid's column-major
// tile order — the layout of that matrix alone when all have the same p.
struct QrBatchGrid {
  int64_t p = 0, q = 0;
  std::vector<int64_t> first_column;  // (members)
  // The member whose tile columns hold grid column `column`.
  int32_t member_of_column(int64_t column) const;
};
// Throws InputError for no members or an empty member grid.
QrBatchGrid qr_batch_grid(const std::vector<QrBatchMember>& members);

// The factorisations of several matrices as one task graph, one run of the
// executor for all, on the tiles of qr_batch_grid(members): member b's
// tasks are qr_factor_graph's for its grid with k and j shifted by
// first_column[b], after those of members 0 … b − 1 (ids shifted, no edges
// between members); the roots interleave, every member's first, then every
// member's second, … (concatenate_streams). Throws InputError, before
// building anything, for no members or an empty grid, when the members'
// arrays together need more than host_memory_limit bytes (0: the machine's
// physical memory) or when the batch has more tasks or edges, or its grid
// more tile columns, than the executor's 32-bit ids hold.
taskgraph::LayoutStream qr_batch_graph(const std::vector<QrBatchMember>& members, taskgraph::Team team,
                                       int32_t chunk_tasks = 1 << 16, uint64_t host_memory_limit = 0,
                                       int32_t priority_classes = 1);

// Host bytes the graph takes while a DeviceGraph uploads it: the stream's
// predecessor counts and priorities and the chunk buffers.
uint64_t qr_graph_host_bytes(int64_t p, int64_t q, Tree tree, int32_t domains, int32_t chunk_tasks = 1 << 16,
                             int32_t priority_classes = 1);

// Device bytes a DeviceGraph of qr_factor_graph(p, q, tree, domains, …) allocates
// with `workers` warps (taskgraph::device_graph_arrays), computed from the
// closed form without building anything; valid for any size. With
// priority_classes > 1 it is an upper bound: the express rings are sized
// by the tasks of each class, which only the sweep knows, and are counted
// here as one slot a task.
uint64_t qr_graph_device_bytes(int64_t p, int64_t q, Tree tree, int32_t domains, int64_t workers, bool trace,
                               int32_t priority_classes = 1);

}  // namespace tiledqr::gpu
