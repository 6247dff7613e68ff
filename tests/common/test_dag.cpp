// The explicit DAG builder (docs/design.md §4).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "dag.hpp"
#include "schedule_checker.hpp"

namespace tiledqr {
namespace {

bool has_edge(const Dag& dag, const Task& from, const Task& to) {
  int32_t a = -1, b = -1;
  for (int32_t t = 0; t < dag.num_tasks(); ++t) {
    if (dag.tasks[t] == from) a = t;
    if (dag.tasks[t] == to) b = t;
  }
  if (a < 0 || b < 0) return false;
  for (int64_t e = dag.pred_offsets[b]; e < dag.pred_offsets[b + 1]; ++e)
    if (dag.preds[e] == a) return true;
  return false;
}

Task make(TaskKind kind, int k, int i, int j, int piv) { return Task{kind, k, i, j, piv}; }

// Pass rule: the flat DAG holds exactly the seed's edges plus the A_kj
// chain: geqrt→ormqr, geqrt→tsqrt, tsqrt→tsqrt, ormqr→tsmqr, tsqrt→tsmqr,
// tsmqr(i−1,j,k)→tsmqr(i,j,k), tsmqr(k)→next step; and no ormqr→tsqrt edge.
TEST(QrDag, FlatTreeEdges) {
  const Dag dag = build_qr_dag(3, 3, Tree::flat);
  EXPECT_EQ(dag.num_tasks(), 14);  // Σ min(i,j)+1 over a 3×3 grid
  EXPECT_TRUE(has_edge(dag, make(TaskKind::geqrt, 0, 0, 0, 0), make(TaskKind::ormqr, 0, 0, 1, 0)));
  EXPECT_TRUE(has_edge(dag, make(TaskKind::geqrt, 0, 0, 0, 0), make(TaskKind::tsqrt, 0, 1, 0, 0)));
  EXPECT_TRUE(has_edge(dag, make(TaskKind::tsqrt, 0, 1, 0, 0), make(TaskKind::tsqrt, 0, 2, 0, 0)));
  EXPECT_TRUE(has_edge(dag, make(TaskKind::ormqr, 0, 0, 2, 0), make(TaskKind::tsmqr, 0, 1, 2, 0)));
  EXPECT_TRUE(has_edge(dag, make(TaskKind::tsqrt, 0, 2, 0, 0), make(TaskKind::tsmqr, 0, 2, 1, 0)));
  EXPECT_TRUE(has_edge(dag, make(TaskKind::tsmqr, 0, 1, 1, 0), make(TaskKind::tsmqr, 0, 2, 1, 0)))
      << "the A_kj edge the seed's list misses";
  EXPECT_TRUE(has_edge(dag, make(TaskKind::tsmqr, 0, 1, 1, 0), make(TaskKind::geqrt, 1, 1, 1, 1)));
  EXPECT_TRUE(has_edge(dag, make(TaskKind::tsmqr, 0, 2, 2, 0), make(TaskKind::tsmqr, 1, 2, 2, 1)));
  EXPECT_FALSE(has_edge(dag, make(TaskKind::ormqr, 0, 0, 1, 0), make(TaskKind::tsqrt, 0, 1, 0, 0)));
}

// Pass rule: program order is topological (every predecessor has a smaller
// id), successors mirror predecessors, and each task's priority is one more
// than its highest-priority successor (1 for sinks).
TEST(QrDag, ConsistentStructureForAllTrees) {
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy})
    for (const auto& [p, q] : std::vector<std::pair<int, int>>{{1, 1}, {6, 2}, {2, 6}, {9, 4}, {5, 5}}) {
      const Dag dag = build_qr_dag(p, q, tree);
      int64_t succ_total = 0;
      for (int32_t t = 0; t < dag.num_tasks(); ++t) {
        int32_t best = 0;
        for (int64_t e = dag.pred_offsets[t]; e < dag.pred_offsets[t + 1]; ++e)
          ASSERT_LT(dag.preds[e], t) << tree_name(tree);
        for (int64_t e = dag.succ_offsets[t]; e < dag.succ_offsets[t + 1]; ++e) {
          best = std::max(best, dag.priority[dag.succs[e]]);
          ++succ_total;
        }
        ASSERT_EQ(dag.priority[t], best + 1);
      }
      EXPECT_EQ(succ_total, dag.num_edges());
    }
}

// Pass rule: a binary tree over 8 tile rows has depth log₂8 = 3 merge
// levels, so its critical path is far shorter than the flat tree's chain.
TEST(QrDag, BinaryTreeShortensTallSkinnyCriticalPath) {
  const Dag flat = build_qr_dag(64, 1, Tree::flat);
  const Dag binary = build_qr_dag(64, 1, Tree::binary);
  const Dag greedy = build_qr_dag(64, 1, Tree::greedy);
  const int32_t flat_path = *std::max_element(flat.priority.begin(), flat.priority.end());
  const int32_t binary_path = *std::max_element(binary.priority.begin(), binary.priority.end());
  const int32_t greedy_path = *std::max_element(greedy.priority.begin(), greedy.priority.end());
  EXPECT_EQ(flat_path, 64);        // geqrt then 63 tsqrt in a chain
  EXPECT_EQ(binary_path, 1 + 6);   // geqrt then log₂64 ttqrt levels
  EXPECT_EQ(greedy_path, 1 + 6);
}

}  // namespace
}  // namespace tiledqr
