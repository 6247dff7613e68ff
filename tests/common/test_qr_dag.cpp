// The closed-form QR DAG (qr_dag.hpp) and its arrays (qr_dag_arrays.hpp)
// against the explicit builder (dag.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dag.hpp"
#include "errors.hpp"
#include "qr_dag.hpp"
#include "qr_dag_arrays.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

using qr_dag::Shape;

const Tree all_trees[] = {Tree::flat, Tree::binary, Tree::greedy};

std::string where(const Shape& s, int64_t id) {
  return std::string(tree_name(s.tree)) + " (" + std::to_string(s.domains) + " domains) " + std::to_string(s.p) +
         "x" + std::to_string(s.q) + " id " + std::to_string(id);
}

// Every per-id function and every array of the closed form equals the
// builder's DAG of the same shape.
void expect_same_as_builder(int32_t p, int32_t q, Tree tree, int32_t domains = 1) {
  const Dag dag = build_qr_dag(p, q, tree, domains, Tree::flat);
  const Shape s = qr_dag::make_shape(p, q, tree, domains);
  ASSERT_EQ(s.num_tasks, dag.num_tasks()) << tree_name(tree) << " " << p << "x" << q;
  ASSERT_EQ(count_edges(s), dag.num_edges()) << tree_name(tree) << " " << p << "x" << q;
  for (int64_t id = 0; id < s.num_tasks; ++id) {
    const Task& t = dag.tasks[size_t(id)];
    ASSERT_EQ(qr_dag::task_of(s, id), t) << where(s, id);
    ASSERT_TRUE(qr_dag::contains(s, t)) << where(s, id);
    ASSERT_EQ(qr_dag::id_of(s, t), id) << where(s, id);

    const std::vector<int64_t> want_preds(dag.preds.begin() + dag.pred_offsets[size_t(id)],
                                          dag.preds.begin() + dag.pred_offsets[size_t(id) + 1]);
    int64_t preds[3];
    const int n = qr_dag::predecessors(s, id, preds);
    ASSERT_EQ(std::vector<int64_t>(preds, preds + n), want_preds) << where(s, id);
    ASSERT_EQ(qr_dag::predecessor_count(s, id), n) << where(s, id);

    const std::vector<int64_t> want_succs(dag.succs.begin() + dag.succ_offsets[size_t(id)],
                                          dag.succs.begin() + dag.succ_offsets[size_t(id) + 1]);
    const qr_dag::Successors succ = qr_dag::successors(s, id);
    std::vector<int64_t> got_succs;
    for (int64_t e = 0; e < succ.count(); ++e) got_succs.push_back(succ.at(e));
    ASSERT_EQ(got_succs, want_succs) << where(s, id);
  }

  const QrDagArrays arrays = build_qr_dag_arrays(s);
  ASSERT_EQ(std::vector<int32_t>(arrays.priority.begin(), arrays.priority.end()), dag.priority)
      << tree_name(tree) << " " << p << "x" << q;
  std::vector<int64_t> roots;
  for (int32_t t = 0; t < dag.num_tasks(); ++t) {
    ASSERT_EQ(arrays.pred_count[size_t(t)], dag.pred_offsets[size_t(t) + 1] - dag.pred_offsets[size_t(t)])
        << where(s, t);
    if (arrays.pred_count[size_t(t)] == 0) roots.push_back(t);
  }
  std::stable_sort(roots.begin(), roots.end(),
                   [&](int64_t a, int64_t b) { return dag.priority[size_t(a)] > dag.priority[size_t(b)]; });
  EXPECT_EQ(arrays.roots, roots) << tree_name(tree) << " " << p << "x" << q;

  const SuccessorCsr<int32_t> narrow = build_successor_csr<int32_t>(s);
  const SuccessorCsr<int64_t> wide = build_successor_csr<int64_t>(s);
  EXPECT_EQ(std::vector<int64_t>(narrow.offsets.begin(), narrow.offsets.end()), dag.succ_offsets);
  EXPECT_EQ(std::vector<int32_t>(narrow.succs.begin(), narrow.succs.end()), dag.succs);
  EXPECT_EQ(std::vector<int64_t>(wide.offsets.begin(), wide.offsets.end()), dag.succ_offsets);
  EXPECT_EQ(std::vector<int64_t>(wide.succs.begin(), wide.succs.end()),
            std::vector<int64_t>(dag.succs.begin(), dag.succs.end()));
}

// Pass rule: for every tree and every grid up to 12×12 tiles, ids, tasks,
// predecessors, successors, edge count, predecessor counts, priorities,
// roots and both CSR widths equal build_qr_dag's, element by element.
TEST(QrDagClosedForm, EqualsBuilderOnEverySmallGrid) {
  for (const Tree tree : all_trees)
    for (int32_t p = 1; p <= 12; ++p)
      for (int32_t q = 1; q <= 12; ++q) {
        expect_same_as_builder(p, q, tree);
        if (::testing::Test::HasFatalFailure()) return;
      }
}

// Pass rule: the same equality for the hierarchical tree (flat domains,
// binary across them) with 1 … 6 domains on every grid up to 12×12 tiles,
// and with domains of 2 … 9 rows on random grids up to 90 tiles a side
// (seed printed).
TEST(QrDagClosedForm, HierarchicalEqualsBuilder) {
  for (int32_t domains = 1; domains <= 6; ++domains)
    for (int32_t p = 1; p <= 12; ++p)
      for (int32_t q = 1; q <= 12; ++q) {
        SCOPED_TRACE("domains " + std::to_string(domains));
        expect_same_as_builder(p, q, Tree::hierarchical, domains);
        if (::testing::Test::HasFatalFailure()) return;
      }
  std::mt19937_64 engine = testing::make_engine(16);
  std::uniform_int_distribution<int32_t> side(13, 90), rows(2, 9);
  for (int round = 0; round < 8; ++round) {
    const int32_t p = side(engine), q = side(engine);
    const int32_t domains = std::max(1, p / rows(engine));
    SCOPED_TRACE("domains " + std::to_string(domains));
    expect_same_as_builder(p, q, Tree::hierarchical, domains);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Pass rule: the same equality on random larger grids (up to 90 tiles a
// side, seed printed).
TEST(QrDagClosedForm, EqualsBuilderOnRandomLargerGrids) {
  std::mt19937_64 engine = testing::make_engine(15);
  std::uniform_int_distribution<int32_t> side(13, 90);
  for (int round = 0; round < 12; ++round) {
    const int32_t p = side(engine), q = side(engine);
    expect_same_as_builder(p, q, all_trees[round % 3]);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Pass rule: contains() accepts exactly the builder's tasks among every
// (kind, k, i, j, piv) in a box one tile wider than the grid on each side.
TEST(QrDagClosedForm, ContainsExactlyTheBuildersTasks) {
  const TaskKind kinds[] = {TaskKind::geqrt, TaskKind::ormqr, TaskKind::tsqrt,
                            TaskKind::tsmqr, TaskKind::ttqrt, TaskKind::ttmqr};
  const std::pair<Tree, int32_t> trees[] = {{Tree::flat, 1},         {Tree::binary, 1},
                                             {Tree::greedy, 1},       {Tree::hierarchical, 2},
                                             {Tree::hierarchical, 3}, {Tree::hierarchical, 7}};
  for (const auto& [tree, domains] : trees)
    for (int32_t p = 1; p <= 6; ++p)
      for (int32_t q = 1; q <= 6; ++q) {
        const Dag dag = build_qr_dag(p, q, tree, domains, Tree::flat);
        const Shape s = qr_dag::make_shape(p, q, tree, domains);
        std::set<std::tuple<int, int, int, int, int>> present;
        for (const Task& t : dag.tasks) present.insert({int(t.kind), t.k, t.i, t.j, t.piv});
        for (const TaskKind kind : kinds)
          for (int32_t k = -1; k <= std::max(p, q); ++k)
            for (int32_t i = -1; i <= p; ++i)
              for (int32_t j = -1; j <= q; ++j)
                for (int32_t piv = -1; piv <= p; ++piv) {
                  const Task t{kind, k, i, j, piv};
                  ASSERT_EQ(qr_dag::contains(s, t), present.count({int(kind), k, i, j, piv}) == 1)
                      << tree_name(tree) << " " << domains << " " << p << "x" << q << " " << task_kind_name(kind)
                      << " k=" << k
                      << " i=" << i << " j=" << j << " piv=" << piv;
                }
      }
}

__extension__ typedef unsigned __int128 Wide;  // a GCC/Clang extension, hence the marker

// The task count of a p×q grid summed step by step in 128 bits.
Wide summed_tasks(int64_t p, int64_t q, Tree tree) {
  Wide total = 0;
  for (int64_t k = 0; k < std::min(p, q); ++k) total += Wide(tree == Tree::flat ? p - k : 2 * (p - k) - 1) * Wide(q - k);
  return total;
}

// Pass rule: at 65536² with tile 32 (2048² tiles, up to 5.7·10⁹ tasks, ids
// beyond int32) the count equals the step-by-step sum, the first and last
// tasks and every step boundary map to the right tasks, ids of random tasks
// round-trip, each predecessor has a smaller id and lists the task among
// its successors, and each successor lists it among its predecessors.
TEST(QrDagLargeIds, Grid2048TilesRoundTripsWithoutOverflow) {
  std::mt19937_64 engine = testing::make_engine(65536);
  for (const Tree tree : all_trees) {
    const Shape s = qr_dag::make_shape(2048, 2048, tree);
    ASSERT_EQ(Wide(s.num_tasks), summed_tasks(2048, 2048, tree)) << tree_name(tree);
    ASSERT_GT(s.num_tasks, int64_t(std::numeric_limits<int32_t>::max())) << tree_name(tree);
    EXPECT_EQ(qr_dag::task_of(s, 0), (Task{TaskKind::geqrt, 0, 0, 0, 0}));
    EXPECT_EQ(qr_dag::task_of(s, s.num_tasks - 1), (Task{TaskKind::geqrt, 2047, 2047, 2047, 2047}));
    for (int32_t k = 1; k < s.steps; ++k) {
      const int64_t begin = qr_dag::step_begin(s, k);
      ASSERT_EQ(qr_dag::task_of(s, begin), (Task{TaskKind::geqrt, k, k, k, k})) << tree_name(tree) << " k " << k;
      ASSERT_EQ(qr_dag::task_of(s, begin - 1).k, k - 1) << tree_name(tree) << " k " << k;
    }
    std::uniform_int_distribution<int64_t> any_id(0, s.num_tasks - 1);
    for (int round = 0; round < 20000; ++round) {
      const int64_t id = any_id(engine);
      const Task t = qr_dag::task_of(s, id);
      ASSERT_TRUE(qr_dag::contains(s, t)) << where(s, id);
      ASSERT_EQ(qr_dag::id_of(s, t), id) << where(s, id);
      int64_t preds[3];
      const int n = qr_dag::predecessors(s, id, preds);
      for (int a = 0; a < n; ++a) {
        ASSERT_LT(preds[a], id) << where(s, id);
        const qr_dag::Successors back = qr_dag::successors(s, preds[a]);
        bool found = false;
        for (int64_t e = 0; e < back.count(); ++e) found = found || back.at(e) == id;
        ASSERT_TRUE(found) << where(s, id) << " missing from the successors of " << preds[a];
      }
      const qr_dag::Successors succ = qr_dag::successors(s, id);
      for (int64_t e = 0; e < succ.count(); ++e) {
        int64_t back[3];
        const int m = qr_dag::predecessors(s, succ.at(e), back);
        ASSERT_TRUE(std::find(back, back + m, id) != back + m)
            << where(s, id) << " missing from the predecessors of " << succ.at(e);
      }
    }
  }
}

// Runs `call` and expects an InputError whose message contains `words`.
template <class Call>
void expect_input_error(Call call, const std::string& words) {
  try {
    call();
    ADD_FAILURE() << "no InputError; expected one mentioning '" << words << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

// Pass rule: bad grids, more than 2^60 tasks, ids and tasks outside the DAG,
// too little memory and too narrow CSR indices are InputErrors that say so,
// and the 32-bit builder refuses a grid beyond its ids instead of
// overflowing — all before allocating.
TEST(QrDagGuards, RefusesWhatItCannotRepresent) {
  expect_input_error([] { qr_dag::make_shape(0, 4, Tree::flat); }, "outside 1 ..");
  expect_input_error([] { qr_dag::make_shape(4, -3, Tree::greedy); }, "outside 1 ..");
  expect_input_error([] { qr_dag::make_shape(qr_dag::max_tiles + 1, 1, Tree::binary); }, "outside 1 ..");
  expect_input_error([] { qr_dag::make_shape(int64_t(1) << 21, int64_t(1) << 21, Tree::flat); }, "2^60");
  EXPECT_EQ(qr_dag::make_shape(qr_dag::max_tiles, 1, Tree::greedy).num_tasks, 2 * qr_dag::max_tiles - 1);
  expect_input_error([] { qr_dag::make_shape(4, 4, Tree::hierarchical, 0); }, "domains >= 1");
  expect_input_error([] { qr_dag::make_shape(4, 1, Tree::tsqr); }, "not the tsqr one");
  // A tall grid of 2^30 rows in 2^27 domains: r + min(D, r) − 1 tasks a column step.
  EXPECT_EQ(qr_dag::make_shape(qr_dag::max_tiles, 1, Tree::hierarchical, 1 << 27).num_tasks,
            qr_dag::max_tiles + (1 << 27) - 1);
  {  // the count against the step-by-step sum on a wide grid whose domain count the panels outgrow
    const Shape h = qr_dag::make_shape(3000, 2000, Tree::hierarchical, 700);
    int64_t sum = 0;
    for (int64_t k = 0; k < 2000; ++k) sum += (3000 - k + std::min<int64_t>(700, 3000 - k) - 1) * (2000 - k);
    EXPECT_EQ(h.num_tasks, sum);
  }

  const Shape s = qr_dag::make_shape(5, 4, Tree::binary);
  expect_input_error([&] { qr_dag::checked_task_of(s, -1); }, "outside 0 ..");
  expect_input_error([&] { qr_dag::checked_task_of(s, s.num_tasks); }, "outside 0 ..");
  expect_input_error([&] { qr_dag::checked_id_of(s, Task{TaskKind::tsmqr, 0, 1, 1, 0}); }, "not in the DAG");
  expect_input_error([&] { qr_dag::checked_id_of(s, Task{TaskKind::ttqrt, 0, 3, 0, 1}); }, "not in the DAG");
  expect_input_error([&] { qr_dag::checked_id_of(s, Task{TaskKind::ttmqr, 0, 1, 4, 0}); }, "not in the DAG");
  EXPECT_EQ(qr_dag::checked_id_of(s, qr_dag::checked_task_of(s, 17)), 17);

  const Shape big = qr_dag::make_shape(512, 512, Tree::greedy);
  expect_input_error([&] { build_qr_dag_arrays(big, uint64_t(1) << 20); }, "needs");
  expect_input_error([&] { build_successor_csr<int64_t>(big, uint64_t(1) << 20); }, "needs");
  const Shape huge = qr_dag::make_shape(2048, 2048, Tree::flat);
  expect_input_error([&] { build_successor_csr<int32_t>(huge); }, "32-bit successor lists");
  expect_input_error([] { build_qr_dag(2048, 2048, Tree::greedy); }, "32-bit task ids");
}

// Pass rule: the arrays' memory estimate is what they allocate, and the
// whole critical path (the first root's priority) of a tall-skinny grid is
// the tree's depth: 64 for the flat chain, 1 + log₂64 for binary and greedy.
TEST(QrDagArrays, SizesAndCriticalPaths) {
  for (const Tree tree : all_trees) {
    const Shape s = qr_dag::make_shape(64, 1, tree);
    const QrDagArrays a = build_qr_dag_arrays(s);
    EXPECT_EQ(qr_dag_arrays_bytes(s), a.pred_count.size() + 4 * a.priority.size() + 8 * a.roots.size());
    EXPECT_EQ(a.priority[size_t(a.roots.front())], tree == Tree::flat ? 64 : 7) << tree_name(tree);
    const SuccessorCsr<int64_t> csr = build_successor_csr<int64_t>(s);
    EXPECT_EQ(successor_csr_bytes<int64_t>(s), 8 * (csr.offsets.size() + csr.succs.size()));
  }
}

}  // namespace
}  // namespace tiledqr
