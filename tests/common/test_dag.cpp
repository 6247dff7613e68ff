// The explicit DAG builder (docs/design.md §4).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dag.hpp"
#include "elimination_tree.hpp"
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

// Pass rule (the DAG that applies Q or Qᵀ): its tasks are update kinds,
// one per (elimination, tile column) — tile columns j ≥ k only with form_q —
// with the panels in order for Qᵀ and in reverse for Q; program order is
// topological; and every pair of tasks writing the same tile of the
// right-hand side is ordered by a path (each writer waits for the previous
// one), so any schedule applies each tile's updates in program order.
TEST(ApplyDag, EveryTileUpdatedInProgramOrder) {
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy})
    for (const auto& [p, q] : std::vector<std::pair<int, int>>{{1, 1}, {6, 2}, {2, 6}, {5, 5}})
      for (const int cols : {1, 3, 7})
        for (const bool transpose : {true, false})
          for (const bool form_q : {false, true}) {
            if (form_q && transpose) continue;
            const Dag dag = build_apply_dag(p, q, cols, tree, 1, Tree::flat, transpose, form_q);
            const std::string what = std::string(tree_name(tree)) + " " + std::to_string(p) + "x" +
                                     std::to_string(q) + " cols " + std::to_string(cols) +
                                     (transpose ? " Qt" : " Q") + (form_q ? " form_q" : "");
            int64_t expected = 0;
            for (int k = 0; k < std::min(p, q); ++k)
              expected += int64_t(panel_eliminations(p, k, tree).size()) * (form_q ? std::max(cols - k, 0) : cols);
            EXPECT_EQ(dag.num_tasks(), expected) << what;
            int32_t previous_k = transpose ? 0 : std::min(p, q) - 1;
            std::map<std::pair<int, int>, int32_t> last_writer;
            for (int32_t t = 0; t < dag.num_tasks(); ++t) {
              const Task& task = dag.tasks[t];
              EXPECT_FALSE(is_factorization(task.kind)) << what;
              EXPECT_TRUE(!form_q || task.j >= task.k) << what;
              EXPECT_TRUE(transpose ? task.k >= previous_k : task.k <= previous_k) << what;
              previous_k = task.k;
              for (int64_t e = dag.pred_offsets[t]; e < dag.pred_offsets[t + 1]; ++e) EXPECT_LT(dag.preds[e], t) << what;
              std::vector<int> rows = {task.i};
              if (task.kind != TaskKind::ormqr) rows.push_back(task.piv);
              for (const int row : rows) {
                const auto key = std::make_pair(row, int(task.j));
                const auto found = last_writer.find(key);
                if (found != last_writer.end()) {
                  const int32_t* begin = dag.preds.data() + dag.pred_offsets[t];
                  const int32_t* end = dag.preds.data() + dag.pred_offsets[t + 1];
                  EXPECT_NE(std::find(begin, end, found->second), end) << what << ": writer " << found->second
                                                                        << " of tile (" << row << ", " << task.j
                                                                        << ") not before " << t;
                }
                last_writer[key] = t;
              }
            }
          }
}

}  // namespace
}  // namespace tiledqr
