// The QR stage's task graph from the closed form (fr4_scheduler/qr/qr_graph.hpp)
// against the generic path it replaces: build_qr_dag's DAG added to a Graph,
// compiled and laid out (make_device_layout); and its priority classes by
// chain of time, run on the scheduler core's CPU workers. Host only (suite
// fr4, runs in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "cpu_workers.hpp"

#include "dag.hpp"
#include "errors.hpp"
#include "fr4_qr.hpp"
#include "qr_dag_arrays.hpp"
#include "qr_graph.hpp"
#include "taskgraph/device_layout.hpp"
#include "taskgraph/graph.hpp"

namespace tiledqr::gpu {
namespace {

using taskgraph::CompiledGraph;
using taskgraph::DeviceLayout;
using taskgraph::Graph;
using taskgraph::Team;

// The graph as DeviceQr built it before: every task of build_qr_dag with
// QrTaskArgs{task, 1}, its stated predecessor edges, compiled.
CompiledGraph generic_graph(int32_t p, int32_t q, Tree tree, int32_t domains, Team team) {
  const Dag dag = build_qr_dag(p, q, tree, domains, Tree::flat);
  Graph g;
  for (const TaskKind k : {TaskKind::geqrt, TaskKind::ormqr, TaskKind::tsqrt, TaskKind::tsmqr, TaskKind::ttqrt,
                           TaskKind::ttmqr})
    g.define_kind(int32_t(k), task_kind_name(k), team);
  for (const Task& t : dag.tasks) g.add(int32_t(t.kind), QrTaskArgs{t, 1});
  for (int32_t t = 0; t < dag.num_tasks(); ++t)
    for (int64_t e = dag.pred_offsets[size_t(t)]; e < dag.pred_offsets[size_t(t) + 1]; ++e)
      g.add_edge(dag.preds[size_t(e)], t);
  return g.compile();
}

// "" when the two layouts are the same graph, else the first difference.
std::string difference(const DeviceLayout& want, const DeviceLayout& got) {
  if (want.headers.size() != got.headers.size())
    return std::to_string(got.headers.size()) + " tasks, want " + std::to_string(want.headers.size());
  for (size_t t = 0; t < want.headers.size(); ++t) {
    const taskgraph::TaskHeader &a = want.headers[t], &b = got.headers[t];
    if (a.kind != b.kind || a.team != b.team || a.pred_count != b.pred_count || a.succ_begin != b.succ_begin ||
        a.succ_count != b.succ_count || a.first_succ != b.first_succ || b.priority_class != 0 || b.unused2 != 0)
      return "header of task " + std::to_string(t) + ": kind " + std::to_string(b.kind) + ", team " +
             std::to_string(b.team) + ", " + std::to_string(b.pred_count) + " predecessors, successors " +
             std::to_string(b.succ_begin) + " + " + std::to_string(b.succ_count) + "; want kind " +
             std::to_string(a.kind) + ", team " + std::to_string(a.team) + ", " + std::to_string(a.pred_count) +
             " predecessors, successors " + std::to_string(a.succ_begin) + " + " + std::to_string(a.succ_count);
    const QrTaskArgs x = want.args[t].as<QrTaskArgs>(), y = got.args[t].as<QrTaskArgs>();
    if (!(x.task == y.task) || x.transpose != y.transpose) return "arguments of task " + std::to_string(t);
  }
  if (want.succs != got.succs) {
    for (size_t e = 0; e < want.succs.size() && e < got.succs.size(); ++e)
      if (want.succs[e] != got.succs[e])
        return "successor entry " + std::to_string(e) + ": " + std::to_string(got.succs[e]) + ", want " +
               std::to_string(want.succs[e]);
    return std::to_string(got.succs.size()) + " successor entries, want " + std::to_string(want.succs.size());
  }
  if (want.roots != got.roots) return "roots differ";
  if (want.remaining != got.remaining) return "initial counters differ";
  return "";
}

// Pass rule: for every tree (hierarchical with 1, 2 and 3 domains), both teams, tile grids
// from 1 x 1 to 12 x 12 — square, tall and wide — and chunks of 1, 5 and
// 64 tasks and one chunk for all, the closed form's layout equals the
// generic one: the same headers (kind, team, predecessor count, successor
// range, first successor), arguments, successor entries in the same
// (priority) order, roots in the same order and initial counters.
TEST(Fr4QrGraph, EqualsTheCompiledGraph) {
  const int32_t grids[][2] = {{1, 1}, {1, 6}, {6, 1}, {2, 2}, {3, 7}, {7, 3}, {5, 5}, {9, 4}, {4, 9}, {12, 12}, {11, 6}};
  const std::pair<Tree, int32_t> trees[] = {{Tree::flat, 1},         {Tree::binary, 1},       {Tree::greedy, 1},
                                             {Tree::hierarchical, 1}, {Tree::hierarchical, 2}, {Tree::hierarchical, 3}};
  for (const auto& [tree, domains] : trees)
    for (const Team team : {Team::warp, Team::block})
      for (const auto& grid : grids) {
        const int32_t p = grid[0], q = grid[1];
        const CompiledGraph compiled = generic_graph(p, q, tree, domains, team);
        const DeviceLayout want = taskgraph::make_device_layout(compiled);
        for (const int32_t chunk : {1, 5, 64, 1 << 20}) {
          const taskgraph::LayoutStream stream = qr_factor_graph(p, q, tree, domains, team, chunk);
          SCOPED_TRACE(std::to_string(p) + " x " + std::to_string(q) + " tiles, " + tree_name(tree) + " tree (" +
                       std::to_string(domains) + " domains), " +
                       (team == Team::warp ? "warp" : "block") + " tasks, chunks of " + std::to_string(chunk));
          EXPECT_EQ(stream.num_tasks, compiled.num_tasks());
          EXPECT_EQ(stream.num_edges, compiled.num_edges());
          EXPECT_EQ(stream.has_block_tasks, compiled.has_block_tasks());
          ASSERT_EQ(difference(want, taskgraph::collect_layout(stream)), "");
        }
      }
}

// Pass rule: with 4 priority classes, for every tree and a few grids, the
// stream passes the layout checks; apart from the classes its headers are
// those of one class; each task's class is ⌊4·(top − h)/top⌋ (at most 3) of
// its chain of time h — factor tasks weigh factor_time_weight, updates 1 —
// computed here from build_qr_dag's successors; the roots are class 0; and
// 8 CPU workers run it with every edge respected, twice.
TEST(Fr4QrGraph, PriorityClassesByChainOfTime) {
  const int32_t grids[][2] = {{1, 1}, {3, 7}, {7, 3}, {12, 12}, {20, 9}};
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy, Tree::hierarchical})
    for (const auto& grid : grids) {
      const int32_t p = grid[0], q = grid[1];
      SCOPED_TRACE(std::to_string(p) + " x " + std::to_string(q) + " tiles, " + tree_name(tree) + " tree");
      const Dag dag = build_qr_dag(p, q, tree);
      std::vector<int64_t> chain(size_t(dag.num_tasks()), 0);
      for (int32_t t = dag.num_tasks() - 1; t >= 0; --t) {  // successors have larger ids
        int64_t longest = 0;
        for (int64_t e = dag.succ_offsets[size_t(t)]; e < dag.succ_offsets[size_t(t) + 1]; ++e)
          longest = std::max(longest, chain[size_t(dag.succs[size_t(e)])]);
        chain[size_t(t)] = longest + (is_factorization(dag.tasks[size_t(t)].kind) ? factor_time_weight : 1);
      }
      const int64_t top = *std::max_element(chain.begin(), chain.end());

      const DeviceLayout one = taskgraph::collect_layout(qr_factor_graph(p, q, tree, 1, Team::warp, 5));
      const taskgraph::LayoutStream stream = qr_factor_graph(p, q, tree, 1, Team::warp, 5, 0, 4);
      ASSERT_EQ(stream.num_classes, 4);
      DeviceLayout four = taskgraph::collect_layout(stream);
      ASSERT_EQ(four.num_classes, 4);
      int64_t wrong_class = 0;
      for (int32_t t = 0; t < dag.num_tasks(); ++t) {
        const int64_t want = std::min<int64_t>(3, 4 * (top - chain[size_t(t)]) / top);
        if (four.headers[size_t(t)].priority_class != want) ++wrong_class;
      }
      EXPECT_EQ(wrong_class, 0) << "tasks whose class is not that of their chain of time";
      for (const int32_t r : four.roots) EXPECT_EQ(four.headers[size_t(r)].priority_class, 0) << "root " << r;
      DeviceLayout stripped = four;
      for (taskgraph::TaskHeader& h : stripped.headers) h.priority_class = 0;
      EXPECT_EQ(difference(one, stripped), "");
      int64_t express = 0;
      for (const int64_t c : stream.express_tasks) express += c;
      EXPECT_GE(qr_graph_device_bytes(p, q, tree, 1, 1024, false, 4),
                taskgraph::device_graph_arrays(stream.num_tasks, stream.num_edges, int64_t(stream.roots.size()), 1024,
                                               false, express)
                    .bytes());

      taskgraph::testing::CpuScheduler scheduler(four, 8);
      for (int run = 0; run < 2; ++run) {
        std::vector<int64_t> start(size_t(dag.num_tasks()), -1), end(size_t(dag.num_tasks()), -1);
        std::atomic<int64_t> clock{0};
        ASSERT_TRUE(scheduler.run([&](int32_t t, int32_t) {
          start[size_t(t)] = clock.fetch_add(1);
          end[size_t(t)] = clock.fetch_add(1);
        }));
        int64_t violated = 0, missing = 0;
        for (int32_t t = 0; t < dag.num_tasks(); ++t) {
          if (start[size_t(t)] < 0) ++missing;
          for (int64_t e = dag.succ_offsets[size_t(t)]; e < dag.succ_offsets[size_t(t) + 1]; ++e)
            if (!(end[size_t(t)] < start[size_t(dag.succs[size_t(e)])])) ++violated;
        }
        EXPECT_EQ(missing, 0);
        EXPECT_EQ(violated, 0);
        EXPECT_EQ(scheduler.completed(), uint64_t(dag.num_tasks()));
      }
    }
}

// Pass rule: the task-graph QR ranks its tasks into four classes at tile
// 256 with the flat tree up to 23170 rows and columns and into one
// elsewhere unless told otherwise, keeps a count it is given, and refuses
// one outside 0 … 4 with an InputError.
TEST(Fr4QrGraph, PriorityClassesOfTheTiles) {
  Options options;
  for (const auto& [tile, classes] : std::vector<std::pair<int, int>>{{32, 1}, {64, 1}, {128, 1}, {256, 4}}) {
    options.tile = tile;
    EXPECT_EQ(fr4_tiles(16384, 16384, false, options).priority_classes, classes) << "tile " << tile;
  }
  EXPECT_EQ(fr4_tiles(23170, 1000, false, options).priority_classes, 4);
  EXPECT_EQ(fr4_tiles(23171, 1000, false, options).priority_classes, 1);
  EXPECT_EQ(fr4_tiles(32768, 32768, false, options).priority_classes, 1);
  options.tree = Tree::binary;
  EXPECT_EQ(fr4_tiles(16384, 16384, false, options).priority_classes, 1);
  options.tree = Tree::flat;
  options.tile = 0;  // the choice for the shape: tile 32 at 1000², tile 256 at 16384²
  EXPECT_EQ(fr4_tiles(1000, 1000, false, options).priority_classes, 1);
  EXPECT_EQ(fr4_tiles(16384, 16384, true, options).priority_classes, 4);
  for (const int given : {1, 2, 3, 4}) {
    options.priority_classes = given;
    EXPECT_EQ(fr4_tiles(32768, 32768, false, options).priority_classes, given);
    options.tile = 32;
    EXPECT_EQ(fr4_tiles(100, 100, false, options).priority_classes, given);
    options.tile = 0;
  }
  for (const int bad : {-1, 5, 255}) {
    options.priority_classes = bad;
    EXPECT_THROW(fr4_tiles(100, 100, false, options), InputError) << bad;
  }
}

// Pass rule: the hierarchical tree's domains are the ones given, or for 0
// one per 8 tile rows (at least one); the other trees have one; a binary
// inner tree or a negative count is an InputError naming it.
TEST(Fr4QrGraph, HierarchicalDomains) {
  Options options;
  options.tile = 256;
  options.tree = Tree::hierarchical;
  options.tree_domains = 0;
  EXPECT_EQ(fr4_tiles(262144, 1024, false, options).domains, 128);  // 1024 tile rows
  EXPECT_EQ(fr4_tiles(262144 + 1, 1024, false, options).domains, 129);  // 1025
  EXPECT_EQ(fr4_tiles(300, 300, false, options).domains, 1);
  options.tree_domains = 5;
  EXPECT_EQ(fr4_tiles(262144, 1024, false, options).domains, 5);
  options.tree = Tree::binary;
  EXPECT_EQ(fr4_tiles(262144, 1024, false, options).domains, 1);
  options.tree = Tree::hierarchical;
  options.tree_domains = -2;
  EXPECT_THROW(fr4_tiles(1000, 1000, false, options), InputError);
  options.tree_domains = 2;
  options.inner_tree = Tree::binary;
  try {
    fr4_tiles(1000, 1000, false, options);
    ADD_FAILURE() << "a binary inner tree was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("inner tree binary"), std::string::npos) << e.what();
  }
}

// Pass rule: qr_graph_device_bytes, from the closed form alone, is what
// device_graph_arrays gives for the stream's own task, edge and root counts
// (and so what a DeviceGraph of it allocates), with and without a trace.
TEST(Fr4QrGraph, DeviceBytesMatchTheStream) {
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy, Tree::hierarchical})
    for (const auto& grid : {std::pair<int32_t, int32_t>{1, 1}, {8, 3}, {3, 8}, {40, 40}})
      for (const bool trace : {false, true}) {
        const int32_t domains = tree == Tree::hierarchical ? 5 : 1;
        const taskgraph::LayoutStream s = qr_factor_graph(grid.first, grid.second, tree, domains, Team::warp);
        const int64_t workers = 132 * 16;
        EXPECT_EQ(qr_graph_device_bytes(grid.first, grid.second, tree, domains, workers, trace),
                  taskgraph::device_graph_arrays(s.num_tasks, s.num_edges, int64_t(s.roots.size()), workers, trace)
                      .bytes())
            << grid.first << " x " << grid.second << " tiles, " << tree_name(tree);
      }
}

// Pass rule: a graph whose tasks do not fit the executor's 32-bit ids (a
// 65536² matrix at tile 32, flat tree: 2048 x 2048 tiles, 2.9·10⁹ tasks)
// is refused within a second, before anything is allocated, with an
// InputError giving the task count and the limit; its device bytes are
// still computed (for the message of a device too small).
TEST(Fr4QrGraph, TooManyTasksRefusedUpFront) {
  const auto start = std::chrono::steady_clock::now();
  try {
    qr_factor_graph(2048, 2048, Tree::flat, 1, Team::warp);
    ADD_FAILURE() << "2048 x 2048 tiles were accepted";
  } catch (const InputError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("2865409024 tasks"), std::string::npos) << text;
    EXPECT_NE(text.find("32-bit"), std::string::npos) << text;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  EXPECT_GT(qr_graph_device_bytes(2048, 2048, Tree::flat, 1, 1024, false), uint64_t(2865409024) * 88);
}

// Pass rule: a graph whose predecessor counts and priorities need more
// host memory than allowed is refused before they are allocated, with an
// InputError saying what they need (the 1024 x 1024 tiles of a 32768²
// matrix, binary tree: 7.2·10⁸ tasks, 3.3 GiB, against a 64 MiB limit).
TEST(Fr4QrGraph, HostMemoryRefusedUpFront) {
  const auto start = std::chrono::steady_clock::now();
  try {
    qr_factor_graph(1024, 1024, Tree::binary, 1, Team::warp, 1 << 20, uint64_t(64) << 20);
    ADD_FAILURE() << "1024 x 1024 tiles fit in 64 MiB";
  } catch (const InputError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("of host memory"), std::string::npos) << text;
    EXPECT_NE(text.find("3.34 GiB"), std::string::npos) << text;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

}  // namespace
}  // namespace tiledqr::gpu
