// The explicit DAG of the tiled QR (docs/design.md §4): every task of the
// chosen elimination tree with its predecessors. Edges are inferred from each
// task's tile accesses in program order (read-after-write, write-after-read,
// write-after-write), as PLASMA's dynamic scheduler does, so the edge that the
// task-grid paper's list misses — successive tsmqr of one step share A_kj
// read-write — is there by construction. Each tile in column k is two data
// objects, its strict lower part (geqrt's V, read by ormqr) and its upper part
// (R, or the V of ttqrt), so ormqr and tsqrt/ttqrt of one panel do not wait on
// each other, exactly as in that paper's dependency list ("Task-Based
// Scheduling Implementing Tiled Linear Algebra on GPUs", §II.C).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "options.hpp"
#include "task.hpp"

namespace tiledqr {

struct Dag {
  std::vector<Task> tasks;  // in program order, which is a topological order
  std::vector<int64_t> pred_offsets;  // predecessors of task t: preds[pred_offsets[t] .. pred_offsets[t+1])
  std::vector<int32_t> preds;
  std::vector<int64_t> succ_offsets;  // successors, same layout
  std::vector<int32_t> succs;
  std::vector<int32_t> priority;  // tasks on the longest path from t to a sink, t included

  int32_t num_tasks() const { return static_cast<int32_t>(tasks.size()); }
  int64_t num_edges() const { return static_cast<int64_t>(preds.size()); }
};

// Runs every task of `dag` once, each after all its predecessors, through
// `run`: what an executor does. The stages supply theirs (FR1 one thread,
// FR2 a pool); run_in_program_order is the plain loop (program order is a
// topological order).
using DagExecutor = std::function<void(const Dag& dag, const std::function<void(const Task&)>& run)>;
void run_in_program_order(const Dag& dag, const std::function<void(const Task&)>& run);

// The DAG of a p×q tile grid for `tree` (`domains`, `inner` and `fan_in`:
// see panel_eliminations). The tsqr tree's grid is p row blocks, q = 1.
Dag build_qr_dag(int32_t p, int32_t q, Tree tree, int32_t domains = 1, Tree inner = Tree::flat,
                 int32_t fan_in = 4);

// The update tasks that apply Q (transpose false) or Qᵀ of a p×q tile
// factorisation with `tree` to a right-hand side of `cols` tile columns,
// tasks (kind, k, i, piv) of the factorisation with j naming a tile column
// of the right-hand side. Qᵀ = H_last ⋯ H_first takes the panels in order,
// Q the panels in reverse with each panel's eliminations reversed — the
// order of LAPACK's ?ormqr and ?orgqr. Edges: each task after the previous
// writer of each right-hand-side tile it changes (V and T are read only).
// `form_q` (Q applied to the identity, as ?orgqr): panel k leaves tile
// columns j < k alone, since the identity's columns there are not changed
// by reflectors of later columns — the tasks are left out.
Dag build_apply_dag(int32_t p, int32_t q, int32_t cols, Tree tree, int32_t domains, Tree inner, bool transpose,
                    bool form_q, int32_t fan_in = 4);

// What a task touches: part of tile (i, j), read or read-write. Tiles of the
// panel column are split into their strict lower part (geqrt's V) and the
// rest (R, or ttqrt's V); other tiles are touched whole.
enum class TilePart : uint8_t { lower, upper, whole };
struct TileAccess {
  int32_t i, j;
  TilePart part;
  bool write;
};

// The accesses of task t, reads first: the rule the DAG's edges come from,
// and the access modes a runtime that infers dependencies is given.
std::vector<TileAccess> tile_accesses(const Task& t);

}  // namespace tiledqr
