// Which tile eliminates which in one panel (tile column k), in program
// order (docs/design.md §8). This is the one place the trees are defined: the DAG
// builder and the application of Q both read it.
//   flat:   geqrt(k), then tsqrt merges rows k+1, k+2, … into row k one by
//           one (Algorithm 2 of "Task-Based Scheduling Implementing Tiled
//           Linear Algebra on GPUs");
//   binary: geqrt on every tile of the panel, then ttqrt merges pairs of
//           neighbours at distance 1, 2, 4, … (log₂ levels);
//   greedy: geqrt on every tile, then at each level the upper half of the
//           live rows eliminates the lower half (row t with row t + ⌈r/2⌉),
//           so the live rows stay contiguous at the top of the panel;
//   hierarchical: rows i ≥ k fall into `domains` domains (i mod domains);
//           each domain is reduced onto its top row by `inner` (flat:
//           geqrt then tsqrt, binary: geqrt on each row then ttqrt pairs),
//           then the domains' top rows by a binary tree of ttqrt, so a
//           panel spread over P process rows needs ⌈log₂ P⌉ merge levels
//           across them.
//   tsqr:   every row is a whole row block (one tile column): geqrt on
//           each, then a tree of fan-in f merges the triangles: at each
//           level a node merges the triangles of its f − 1 later children
//           into its first child's, one ttqrt after another, so P blocks
//           need ⌈log_f P⌉ levels (docs/design.md §8).
#pragma once

#include <cstdint>
#include <vector>

#include "options.hpp"
#include "task.hpp"

namespace tiledqr {

struct Elimination {
  TaskKind kind;  // geqrt, tsqrt or ttqrt
  int32_t i;      // tile row factored (geqrt) or merged away (tsqrt/ttqrt)
  int32_t piv;    // tile row that keeps the triangle; == i for geqrt
};

// `domains` and `inner` matter only for the hierarchical tree, `fan_in`
// (≥ 2) only for tsqr.
std::vector<Elimination> panel_eliminations(int32_t p, int32_t k, Tree tree, int32_t domains = 1,
                                            Tree inner = Tree::flat, int32_t fan_in = 4);

// The update task that applies elimination `e` of panel k to tile column j.
Task update_task(const Elimination& e, int32_t k, int32_t j);

// The factorisation task of elimination `e` of panel k.
Task factor_task(const Elimination& e, int32_t k);

}  // namespace tiledqr
