// The seed's task grid (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs" §II.C) against the flat-tree DAG.
#include <gtest/gtest.h>

#include "host_task_grid.hpp"
#include "schedule_checker.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

// The grid drawn as the same paper §II.C draws it: a task name in a cell whose
// task is ready, "done" where all of a cell's tasks completed, "-" else.
std::vector<std::string> draw(const TaskGrid& grid) {
  std::vector<std::string> rows;
  for (int32_t i = 0; i < grid.p; ++i) {
    std::string row;
    for (int32_t j = 0; j < grid.q; ++j) {
      std::string cell = "-";
      if (grid.cell_finished(i, j)) cell = "done";
      else if (grid.cell(i, j).queued) cell = task_kind_name(grid.next_task(i, j).kind);
      row += (j ? " " : "") + cell;
    }
    rows.push_back(row);
  }
  return rows;
}

// Pass rule: the 2×2 walk-through of the same paper §II.C, state by state:
// geqrt; then ormqr and tsqrt; tsqrt runs first and spawns nothing; ormqr
// spawns tsmqr; tsmqr spawns the final geqrt; then the finished state.
TEST(TaskGridWalkthrough, SeedTwoByTwo) {
  HostTaskGrid owner(2, 2);
  TaskGrid& grid = owner.grid();
  std::vector<Task> ready;
  auto emit = [&](const Task& t) { ready.push_back(t); };
  auto take = [&](TaskKind kind) {
    for (size_t r = 0; r < ready.size(); ++r)
      if (ready[r].kind == kind) {
        const Task t = ready[r];
        ready.erase(ready.begin() + long(r));
        return t;
      }
    ADD_FAILURE() << "no ready " << task_kind_name(kind);
    return Task{};
  };
  grid.start(emit);
  EXPECT_EQ(draw(grid), (std::vector<std::string>{"geqrt -", "- -"}));
  grid.complete(take(TaskKind::geqrt), emit);
  EXPECT_EQ(draw(grid), (std::vector<std::string>{"done ormqr", "tsqrt -"}));
  grid.complete(take(TaskKind::tsqrt), emit);
  EXPECT_EQ(draw(grid), (std::vector<std::string>{"done ormqr", "done -"}));
  EXPECT_EQ(ready.size(), 1u) << "tsqrt must not spawn tsmqr before ormqr completes";
  grid.complete(take(TaskKind::ormqr), emit);
  EXPECT_EQ(draw(grid), (std::vector<std::string>{"done done", "done tsmqr"}));
  grid.complete(take(TaskKind::tsmqr), emit);
  EXPECT_EQ(draw(grid), (std::vector<std::string>{"done done", "done geqrt"}));
  grid.complete(take(TaskKind::geqrt), emit);
  EXPECT_EQ(draw(grid), (std::vector<std::string>{"done done", "done done"}));
  EXPECT_TRUE(ready.empty());
  EXPECT_TRUE(grid.finished());
  EXPECT_EQ(grid.tasks_completed, 5);
}

// Pass rule: for every p, q ≤ 12 and 3 random schedules each, the grid
// issues every flat-tree DAG task exactly once, never before its
// predecessors complete, and ends finished.
TEST(TaskGridSchedules, MatchFlatDagForAllSmallGrids) {
  std::mt19937_64 engine = testing::make_engine(20);
  for (int32_t p = 1; p <= 12; ++p)
    for (int32_t q = 1; q <= 12; ++q)
      for (int trial = 0; trial < 3; ++trial) {
        const auto problem = testing::check_random_grid_schedule(p, q, false, engine);
        ASSERT_FALSE(problem.has_value()) << p << "x" << q << ": " << *problem;
      }
}

// Pass rule: with the seed's dependency list alone (no tsmqr → tsmqr edge
// on A_kj, docs/design.md §4) the checker finds a violated edge within 200
// random schedules of a 4×4 grid — so the checker can fail, and the extra
// edge is needed.
TEST(TaskGridMissingEdge, CheckerCatchesSeedOnlyRules) {
  std::mt19937_64 engine = testing::make_engine(21);
  std::optional<std::string> problem;
  for (int trial = 0; trial < 200 && !problem; ++trial)
    problem = testing::check_random_grid_schedule(4, 4, true, engine);
  ASSERT_TRUE(problem.has_value()) << "seed-only rules never violated the A_kj edge";
  EXPECT_NE(problem->find("edge violated: tsmqr"), std::string::npos) << *problem;
  EXPECT_NE(problem->find("-> tsmqr"), std::string::npos) << *problem;
}

// Pass rule: grid_task_count equals Σ(min(i, j) + 1) and the number of
// tasks a run completes.
TEST(TaskGridSchedules, TaskCountMatchesRun) {
  EXPECT_EQ(grid_task_count(1, 1), 1);
  EXPECT_EQ(grid_task_count(2, 2), 5);
  EXPECT_EQ(grid_task_count(3, 1), 3);
  EXPECT_EQ(grid_task_count(1, 3), 3);
  for (const auto& [p, q] : std::vector<std::pair<int, int>>{{5, 3}, {3, 5}, {7, 7}}) {
    const Dag dag = build_qr_dag(p, q, Tree::flat);
    EXPECT_EQ(grid_task_count(p, q), dag.num_tasks()) << p << "x" << q;
  }
}

}  // namespace
}  // namespace tiledqr
