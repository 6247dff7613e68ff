// Several task graphs as one (fr4_scheduler/taskgraph/concatenated_stream.hpp)
// and the batch of QR graphs built on it (qr_batch_grid, qr_batch_graph): the
// layout against the members', runs on the scheduler core's CPU workers, and
// each matrix of a batch factored by those workers with the host kernels
// against FR1's factorisation of it alone, bit for bit. Host only (suite
// fr4, runs in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu_workers.hpp"
#include "dag.hpp"
#include "errors.hpp"
#include "factorization.hpp"
#include "qr_graph.hpp"
#include "taskgraph/concatenated_stream.hpp"
#include "taskgraph/device_layout.hpp"
#include "taskgraph/graph_generators.hpp"
#include "test_seed.hpp"

namespace tiledqr::taskgraph {
namespace {

// The member index a tag writes, in the last four bytes of an argument block.
constexpr size_t kTagOffset = task_arg_bytes - sizeof(int32_t);

int32_t tag_of(const TaskArgs& a) {
  int32_t g;
  std::memcpy(&g, a.bytes + kTagOffset, sizeof g);
  return g;
}

void write_tag(int32_t member, TaskArgs& a) { std::memcpy(a.bytes + kTagOffset, &member, sizeof member); }

// `layout` with random bytes in its argument blocks (all but the tag's).
DeviceLayout with_random_args(DeviceLayout layout, uint64_t seed) {
  std::mt19937_64 engine(seed);
  for (TaskArgs& a : layout.args)
    for (size_t b = 0; b < kTagOffset; ++b) a.bytes[b] = static_cast<unsigned char>(engine());
  return layout;
}

// Pass rule: every task of `layout` ran exactly once, and every task's
// successors started after it ended.
void expect_valid_run(const DeviceLayout& layout, int workers) {
  const int32_t n = int32_t(layout.headers.size());
  std::vector<std::atomic<int>> runs(size_t(n) + 1);
  std::vector<int64_t> start(size_t(n), -1), end(size_t(n), -1);
  std::atomic<int64_t> clock{0};
  testing::CpuScheduler scheduler(layout, workers);
  ASSERT_TRUE(scheduler.run([&](int32_t t, int32_t) {
    start[size_t(t)] = clock.fetch_add(1);
    runs[size_t(t)].fetch_add(1);
    end[size_t(t)] = clock.fetch_add(1);
  }));
  int64_t wrong_runs = 0, violated = 0;
  for (int32_t t = 0; t < n; ++t) {
    if (runs[size_t(t)].load() != 1) ++wrong_runs;
    const TaskHeader& h = layout.headers[size_t(t)];
    for (int32_t s = 0; s < h.succ_count; ++s) {
      const uint32_t v = layout.succs[size_t(h.succ_begin + s)] & ~single_predecessor_bit;
      if (!(end[size_t(t)] < start[v])) ++violated;
    }
  }
  EXPECT_EQ(wrong_runs, 0) << "tasks that did not run exactly once";
  EXPECT_EQ(violated, 0) << "edges whose successor started before its predecessor ended";
}

// Pass rule: the concatenation of a random layered DAG, a chain, an empty
// graph and independent tasks — streamed in chunks of 1, 7 and 1000 tasks,
// concatenated into chunks of 1, 16 and 1 << 16 — is the members one after
// another: each task's header (kind, team, predecessors, successor count)
// and argument block as in its member with the member's index tagged, its
// successor entries (and single-predecessor bits) shifted by the tasks
// before it, its successor range by the edges before it; the roots are
// every member's first, then every member's second, …; and the whole runs
// on 8 CPU workers with every edge respected.
TEST(Fr4Batch, ConcatenatedStreamsAreTheMembersInTurn) {
  const uint64_t seed = testing::test_seed("ConcatenatedStreamsAreTheMembersInTurn");
  std::vector<DeviceLayout> layouts;
  layouts.push_back(with_random_args(
      make_device_layout(graph_of_shape(layered_random_shape(3000, 40, 4, seed), 3, seed + 1).compile()), seed + 4));
  layouts.push_back(with_random_args(make_device_layout(graph_of_shape(chain_shape(500), 2, seed + 2).compile()), seed + 5));
  layouts.push_back(DeviceLayout{});
  layouts.push_back(
      with_random_args(make_device_layout(graph_of_shape(independent_shape(700), 1, seed + 3).compile()), seed + 6));
  for (const int32_t member_chunk : {1, 7, 1000})
    for (const int32_t chunk : {1, 16, 1 << 16}) {
      std::vector<LayoutStream> members;
      for (const DeviceLayout& l : layouts) members.push_back(layout_stream(l, false, member_chunk));
      const DeviceLayout all = collect_layout(concatenate_streams(std::move(members), write_tag, chunk));
      int32_t first_task = 0;
      int64_t first_edge = 0;
      int64_t wrong = 0;
      for (size_t g = 0; g < layouts.size(); ++g) {
        const DeviceLayout& l = layouts[g];
        for (size_t t = 0; t < l.headers.size(); ++t) {
          const TaskHeader &a = l.headers[t], &b = all.headers[size_t(first_task) + t];
          const TaskArgs& args = all.args[size_t(first_task) + t];
          if (a.kind != b.kind || a.team != b.team || a.pred_count != b.pred_count || a.succ_count != b.succ_count ||
              b.succ_begin != a.succ_begin + first_edge || tag_of(args) != int32_t(g) ||
              std::memcmp(args.bytes, l.args[t].bytes, kTagOffset) != 0)
            ++wrong;
          for (int32_t s = 0; s < a.succ_count; ++s) {
            const uint32_t x = l.succs[size_t(a.succ_begin + s)], y = all.succs[size_t(b.succ_begin + s)];
            if ((y & single_predecessor_bit) != (x & single_predecessor_bit) ||
                (y & ~single_predecessor_bit) != (x & ~single_predecessor_bit) + uint32_t(first_task))
              ++wrong;
          }
          if (a.succ_count > 0 && b.first_succ != all.succs[size_t(b.succ_begin)]) ++wrong;
        }
        first_task += int32_t(l.headers.size());
        first_edge += int64_t(l.succs.size());
      }
      EXPECT_EQ(wrong, 0) << "tasks unlike their member's (chunks " << member_chunk << ", " << chunk << ")";
      ASSERT_EQ(all.headers.size(), size_t(first_task));
      ASSERT_EQ(all.succs.size(), size_t(first_edge));
      std::vector<int32_t> roots;
      for (size_t r = 0;; ++r) {
        bool any = false;
        int32_t base = 0;
        for (const DeviceLayout& l : layouts) {
          if (r < l.roots.size()) roots.push_back(l.roots[r] + base), any = true;
          base += int32_t(l.headers.size());
        }
        if (!any) break;
      }
      EXPECT_EQ(all.roots, roots);
      expect_valid_run(all, 8);
    }
}

// Pass rule: a member of one class and one of three make a stream of three
// whose express rings count the second member's express tasks only: the
// first member's tasks go to the last class (its ticket ring), the
// second's keep theirs; ChunkChecker accepts the counts and the whole runs.
TEST(Fr4Batch, PriorityClassesOfMembers) {
  const uint64_t seed = testing::test_seed("PriorityClassesOfMembers");
  const DeviceLayout one = make_device_layout(graph_of_shape(layered_random_shape(400, 10, 3, seed), 2, seed).compile());
  DeviceLayout three = make_device_layout(graph_of_shape(layered_random_shape(600, 12, 3, seed + 1), 2, seed).compile());
  three.num_classes = 3;
  std::mt19937_64 engine(seed + 2);
  for (TaskHeader& h : three.headers) h.priority_class = uint8_t(engine() % 3);
  std::vector<LayoutStream> members;
  members.push_back(layout_stream(one, false, 64));
  members.push_back(layout_stream(three, false, 64));
  const LayoutStream stream = concatenate_streams(std::move(members));
  EXPECT_EQ(stream.num_classes, 3);
  EXPECT_EQ(stream.express_tasks, express_counts(three));
  const DeviceLayout all = collect_layout(stream);
  for (size_t t = 0; t < one.headers.size(); ++t) EXPECT_EQ(all.headers[t].priority_class, 2) << t;
  for (size_t t = 0; t < three.headers.size(); ++t)
    EXPECT_EQ(all.headers[one.headers.size() + t].priority_class, three.headers[t].priority_class) << t;
  expect_valid_run(all, 6);
}

// Pass rule: chunk_tasks < 1 is refused; no members make an empty stream.
TEST(Fr4Batch, EdgeCases) {
  EXPECT_THROW(concatenate_streams({}, {}, 0), GraphError);
  const LayoutStream none = concatenate_streams({});
  EXPECT_EQ(none.num_tasks, 0);
  EXPECT_TRUE(collect_layout(none).headers.empty());
}

}  // namespace
}  // namespace tiledqr::taskgraph

namespace tiledqr::gpu {
namespace {

struct Member {
  int64_t m, n;
  Tree tree;
  int32_t domains;
};

// Pass rule: a batch of matrices of ragged shapes — one tile, one row, one
// column, tall, wide, square — with every tree (hierarchical with 2 and 3
// domains), tiles of 8 and 16, run as one graph on 4 CPU workers with the
// host kernels (reference and LAPACK backends), gives each matrix the tiles
// and T blocks FR1 gives it alone (its DAG run in program order), bit for
// bit; every task's k and j are tile columns of its own matrix in the
// batch's grid (its rows i and piv those of the matrix) and each matrix's
// tasks come together, in its own graph's order.
TEST(Fr4Batch, QrBatchFactorsEachMatrixAsFr1) {
  const uint64_t seed = taskgraph::testing::test_seed("QrBatchFactorsEachMatrixAsFr1");
  const std::vector<Member> shapes = {{8, 8, Tree::flat, 1},         {1, 37, Tree::flat, 1},
                                      {53, 1, Tree::binary, 1},      {100, 20, Tree::hierarchical, 3},
                                      {30, 70, Tree::greedy, 1},     {45, 45, Tree::flat, 1},
                                      {129, 31, Tree::hierarchical, 2}, {64, 40, Tree::binary, 1}};
  for (const Backend backend : {Backend::reference, Backend::lapack})
    for (const int tile : {8, 16}) {
      std::mt19937_64 engine(seed + uint64_t(tile));
      std::uniform_real_distribution<double> uniform(-1.0, 1.0);
      std::vector<Factorization<double>> batch, alone;
      batch.reserve(shapes.size());
      alone.reserve(shapes.size());
      std::vector<QrBatchMember> members;
      for (const Member& s : shapes) {
        std::vector<double> a(size_t(s.m * s.n));
        for (double& x : a) x = uniform(engine);
        Options o;
        o.tile = tile;
        o.inner_block = tile / 2;
        o.backend = backend;
        o.tree = s.tree;
        o.tree_domains = s.domains;
        o.inner_tree = Tree::flat;
        batch.emplace_back(a.data(), s.m, s.n, s.m, o);
        alone.emplace_back(a.data(), s.m, s.n, s.m, o);
        members.push_back(QrBatchMember{batch.back().tiles.p, batch.back().tiles.q, s.tree, s.domains});
      }
      for (Factorization<double>& f : alone) run_in_program_order(f.factor_dag(), [&f](const Task& t) { f.run_task(t); });
      const QrBatchGrid grid = qr_batch_grid(members);
      const taskgraph::DeviceLayout layout = taskgraph::collect_layout(qr_batch_graph(members, taskgraph::Team::warp, 5));
      // Each task's matrix, from its panel's column; the matrices' tasks in turn.
      std::vector<int32_t> member(layout.args.size());
      int64_t out_of_place = 0, out_of_turn = 0;
      for (size_t t = 0; t < layout.args.size(); ++t) {
        const QrTaskArgs a = layout.args[t].as<QrTaskArgs>();
        const int32_t g = grid.member_of_column(a.task.k);
        const int64_t first = grid.first_column[size_t(g)];
        const QrBatchMember& mb = members[size_t(g)];
        if (a.task.j < first || a.task.j >= first + mb.q || a.task.k >= first + mb.q || a.task.i >= mb.p ||
            a.task.piv >= mb.p || a.transpose != 1)
          ++out_of_place;
        if (t > 0 && g < member[t - 1]) ++out_of_turn;
        member[t] = g;
      }
      EXPECT_EQ(out_of_place, 0) << "tasks outside their matrix's tiles";
      EXPECT_EQ(out_of_turn, 0) << "a matrix's tasks before an earlier matrix's";
      taskgraph::testing::CpuScheduler scheduler(layout, 4);
      ASSERT_TRUE(scheduler.run([&](int32_t t, int32_t) {
        Task task = layout.args[size_t(t)].as<QrTaskArgs>().task;
        const int32_t g = member[size_t(t)];
        task.k -= int32_t(grid.first_column[size_t(g)]);
        task.j -= int32_t(grid.first_column[size_t(g)]);
        batch[size_t(g)].run_task(task);
      }));
      for (size_t g = 0; g < shapes.size(); ++g) {
        const std::string what = std::to_string(shapes[g].m) + " x " + std::to_string(shapes[g].n) + " " +
                                 tree_name(shapes[g].tree) + ", tile " + std::to_string(tile) +
                                 (backend == Backend::lapack ? ", lapack" : ", reference");
        EXPECT_EQ(batch[g].tiles.data, alone[g].tiles.data) << what;
        EXPECT_EQ(batch[g].t_local, alone[g].t_local) << what;
        EXPECT_EQ(batch[g].t_merge, alone[g].t_merge) << what;
      }
    }
}

// Pass rule: the grid has the members' most tile rows and the sum of their
// tile columns, each member's first column after the previous member's, and
// each column belongs to the member that holds it; the batch's task count is
// the members' sum; no members, an empty grid, a column outside the grid and
// a batch whose arrays exceed the memory allowed are refused (before
// anything is built) with InputError.
TEST(Fr4Batch, QrBatchGridAndRefusals) {
  const std::vector<QrBatchMember> two = {{3, 2, Tree::flat, 1}, {5, 5, Tree::binary, 1}};
  const QrBatchGrid grid = qr_batch_grid({{3, 2, Tree::flat, 1}, {1, 1, Tree::flat, 1}, {5, 5, Tree::binary, 1}});
  EXPECT_EQ(grid.p, 5);
  EXPECT_EQ(grid.q, 8);
  EXPECT_EQ(grid.first_column, (std::vector<int64_t>{0, 2, 3}));
  const std::vector<int32_t> owners = {0, 0, 1, 2, 2, 2, 2, 2};
  for (int64_t c = 0; c < grid.q; ++c) EXPECT_EQ(grid.member_of_column(c), owners[size_t(c)]) << c;
  EXPECT_THROW(grid.member_of_column(8), InputError);
  EXPECT_THROW(grid.member_of_column(-1), InputError);
  EXPECT_EQ(qr_batch_graph(two, taskgraph::Team::warp).num_tasks,
            qr_graph_shape(3, 2, Tree::flat, 1).num_tasks + qr_graph_shape(5, 5, Tree::binary, 1).num_tasks);
  EXPECT_THROW(qr_batch_grid({}), InputError);
  EXPECT_THROW(qr_batch_graph({}, taskgraph::Team::warp), InputError);
  EXPECT_THROW(qr_batch_graph({{0, 2, Tree::flat, 1}}, taskgraph::Team::warp), InputError);
  EXPECT_THROW(qr_batch_graph(two, taskgraph::Team::warp, 1 << 16, 64), InputError);
  EXPECT_THROW(qr_batch_graph(two, taskgraph::Team::warp, 0), InputError);
}

}  // namespace
}  // namespace tiledqr::gpu
