// The scheduler core's queue and counters hammered by 8 std::threads
// (docs/design.md §10: the same code as the GPU's, compiled for the host). Host only
// (suite fr4, runs in CI).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "cpu_workers.hpp"
#include "taskgraph/device_layout.hpp"
#include "taskgraph/graph_generators.hpp"
#include "test_seed.hpp"

namespace tiledqr::taskgraph {
namespace {

using testing::CpuScheduler;

constexpr int kThreads = 8;

// What a run did: per task, how often it ran, and the global ticket at its
// start and at its end.
struct RunRecord {
  explicit RunRecord(int32_t n) : runs(size_t(n)), start(size_t(n), -1), end(size_t(n), -1) {}
  std::vector<std::atomic<int>> runs;
  std::vector<int64_t> start, end;
  std::atomic<int64_t> clock{0};

  void body(int32_t task) {
    start[size_t(task)] = clock.fetch_add(1);
    runs[size_t(task)].fetch_add(1);
    end[size_t(task)] = clock.fetch_add(1);
  }
};

// Pass rule: every task ran exactly once, and for every edge u → v, u
// ended before v started.
void expect_valid_run(const CompiledGraph& g, const RunRecord& r) {
  int64_t wrong_runs = 0, violated = 0;
  for (int32_t t = 0; t < g.num_tasks(); ++t) {
    if (r.runs[size_t(t)].load() != 1) ++wrong_runs;
    for (int64_t e = g.succ_offsets[size_t(t)]; e < g.succ_offsets[size_t(t) + 1]; ++e)
      if (!(r.end[size_t(t)] < r.start[size_t(g.succs[size_t(e)])])) ++violated;
  }
  EXPECT_EQ(wrong_runs, 0) << "tasks that did not run exactly once";
  EXPECT_EQ(violated, 0) << "edges whose successor started before its predecessor ended";
}

void run_and_check(const CompiledGraph& g, int workers) {
  const DeviceLayout layout = make_device_layout(g);
  CpuScheduler scheduler(layout, workers);
  RunRecord record(g.num_tasks());
  ASSERT_TRUE(scheduler.run([&](int32_t task, int32_t) { record.body(task); }));
  expect_valid_run(g, record);
  EXPECT_EQ(scheduler.completed(), static_cast<unsigned long long>(g.num_tasks()));
}

TEST(Fr4CpuScheduler, RandomLayeredDag100k) {
  const uint64_t seed = testing::test_seed("RandomLayeredDag100k");
  const CompiledGraph g = graph_of_shape(layered_random_shape(100000, 200, 4, seed), 5, seed + 1).compile();
  run_and_check(g, kThreads);
}

TEST(Fr4CpuScheduler, Chain) { run_and_check(graph_of_shape(chain_shape(20000), 1, 0).compile(), kThreads); }

TEST(Fr4CpuScheduler, IndependentTasks) {
  run_and_check(graph_of_shape(independent_shape(200000), 1, 0).compile(), kThreads);
}

TEST(Fr4CpuScheduler, OneTaskAndMoreWorkersThanTasks) {
  run_and_check(graph_of_shape(independent_shape(1), 1, 0).compile(), kThreads);
  run_and_check(graph_of_shape(chain_shape(3), 1, 0).compile(), 64);
}

// Pass rule: runs of one instantiated graph — new epoch, counters restored
// by the tasks themselves — are each valid.
TEST(Fr4CpuScheduler, RerunsReuseTheCounters) {
  const uint64_t seed = testing::test_seed("RerunsReuseTheCounters");
  const CompiledGraph g = graph_of_shape(layered_random_shape(5000, 40, 3, seed), 1, 0).compile();
  const DeviceLayout layout = make_device_layout(g);
  CpuScheduler scheduler(layout, kThreads);
  for (int run = 0; run < 30; ++run) {
    RunRecord record(g.num_tasks());
    ASSERT_TRUE(scheduler.run([&](int32_t task, int32_t) { record.body(task); }));
    expect_valid_run(g, record);
    ASSERT_EQ(scheduler.remaining(), layout.remaining) << "counters not restored after run " << run;
  }
}

// Pass rule: data written by predecessors with plain stores is what each
// task reads: value(t) = 1 + Σ value(predecessors), compared with a serial
// evaluation in topological order.
TEST(Fr4CpuScheduler, PredecessorWritesAreVisible) {
  const uint64_t seed = testing::test_seed("PredecessorWritesAreVisible");
  const GraphShape shape = layered_random_shape(30000, 60, 4, seed);
  const CompiledGraph g = graph_of_shape(shape, 1, 0).compile();
  std::vector<std::vector<int32_t>> preds(size_t(g.num_tasks()));
  for (const auto& e : shape.edges) preds[size_t(e.second)].push_back(e.first);
  std::vector<uint64_t> expected(size_t(g.num_tasks()));
  for (int32_t t = 0; t < g.num_tasks(); ++t) {  // layers make ids topological
    uint64_t v = 1;
    for (const int32_t p : preds[size_t(t)]) v += expected[size_t(p)];
    expected[size_t(t)] = v % 1000000007ull;
  }
  std::vector<uint64_t> value(size_t(g.num_tasks()), 0);
  const DeviceLayout layout = make_device_layout(g);
  CpuScheduler scheduler(layout, kThreads);
  ASSERT_TRUE(scheduler.run([&](int32_t t, int32_t) {
    uint64_t v = 1;
    for (const int32_t p : preds[size_t(t)]) v += value[size_t(p)];
    value[size_t(t)] = v % 1000000007ull;
  }));
  EXPECT_EQ(value, expected);
}

// Pass rule: a task waiting on a predecessor that never finishes does not
// hang the workers: once the host raises the abort flag (after the progress
// word stopped moving), every worker returns and the run reports the abort.
TEST(Fr4CpuScheduler, StallEndsThroughAbortFlag) {
  const CompiledGraph g = graph_of_shape(layered_random_shape(2000, 10, 3, 5), 1, 0).compile();
  const DeviceLayout layout = make_device_layout(g);
  CpuScheduler scheduler(layout, kThreads);
  int32_t victim = -1;
  for (int32_t t = 0; t < g.num_tasks() && victim < 0; ++t)
    if (g.pred_count[size_t(t)] >= 2) victim = t;
  ASSERT_GE(victim, 0);
  scheduler.remaining()[size_t(victim)] += 1;  // a predecessor that does not exist
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    uint32_t last = scheduler.progress();
    auto last_change = std::chrono::steady_clock::now();
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      const uint32_t now = scheduler.progress();
      if (now != last) {
        last = now;
        last_change = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - last_change > std::chrono::milliseconds(200)) {
        scheduler.request_abort();
      }
    }
  });
  std::atomic<int> ran{0};
  const bool finished = scheduler.run([&](int32_t, int32_t) { ran.fetch_add(1); });
  done.store(true);
  watchdog.join();
  EXPECT_FALSE(finished);
  EXPECT_LT(ran.load(), g.num_tasks());
  EXPECT_GT(ran.load(), 0);
}

// Pass rule (queue hammer): diamonds of 20000-wide fan-outs and fan-ins —
// every worker pushes into the ring and decrements the same counter at
// once — still run each task once and respect every edge, 10 times over.
TEST(Fr4QueueHammer, WideFanOutFanIn) {
  const int32_t width = 20000, stages = 4;
  Graph g;
  g.define_kind(0, "node");
  struct None {};
  int32_t previous_join = g.add(0, None{}).id();
  for (int s = 0; s < stages; ++s) {
    const int32_t first = g.size();
    for (int32_t k = 0; k < width; ++k) g.add_edge(previous_join, g.add(0, None{}).id());
    const int32_t join = g.add(0, None{}).id();
    for (int32_t k = 0; k < width; ++k) g.add_edge(first + k, join);
    previous_join = join;
  }
  const CompiledGraph cg = g.compile();
  const DeviceLayout layout = make_device_layout(cg);
  CpuScheduler scheduler(layout, kThreads);
  for (int run = 0; run < 10; ++run) {
    RunRecord record(cg.num_tasks());
    ASSERT_TRUE(scheduler.run([&](int32_t task, int32_t) { record.body(task); }));
    expect_valid_run(cg, record);
  }
}

// Pass rule: many roots and many short chains (every task either a root
// drawn by ticket or a continuation) with more workers than cores.
TEST(Fr4QueueHammer, ManyShortChains) {
  GraphShape shape;
  const int32_t chains = 5000, length = 8;
  shape.tasks = chains * length;
  for (int32_t c = 0; c < chains; ++c)
    for (int32_t k = 1; k < length; ++k) shape.edges.emplace_back(c * length + k - 1, c * length + k);
  run_and_check(graph_of_shape(shape, 1, 0).compile(), 16);
}

}  // namespace
}  // namespace tiledqr::taskgraph
