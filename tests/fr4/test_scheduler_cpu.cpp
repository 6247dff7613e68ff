// The scheduler core's queue and counters hammered by 8 std::threads
// (docs/design.md §10: the same code as the GPU's, compiled for the host),
// with one priority class and with several (express rings). Host only
// (suite fr4, runs in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <string>
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

// Runs `layout` (of `g`) `runs` times, each run checked; the counters
// must be restored after each.
void run_layout_and_check(const CompiledGraph& g, const DeviceLayout& layout, int workers, int runs = 1) {
  CpuScheduler scheduler(layout, workers);
  for (int run = 0; run < runs; ++run) {
    RunRecord record(g.num_tasks());
    ASSERT_TRUE(scheduler.run([&](int32_t task, int32_t) { record.body(task); }));
    expect_valid_run(g, record);
    EXPECT_EQ(scheduler.completed(), static_cast<unsigned long long>(g.num_tasks())) << "run " << run;
    ASSERT_EQ(scheduler.remaining(), layout.remaining) << "counters not restored after run " << run;
  }
}

void run_and_check(const CompiledGraph& g, int workers) { run_layout_and_check(g, make_device_layout(g), workers); }

// `g`'s layout with `classes` priority classes drawn at random per task.
DeviceLayout layout_with_random_classes(const CompiledGraph& g, int32_t classes, uint64_t seed) {
  DeviceLayout layout = make_device_layout(g);
  layout.num_classes = classes;
  std::mt19937_64 engine(seed);
  for (TaskHeader& h : layout.headers) h.priority_class = static_cast<uint8_t>(engine() % uint64_t(classes));
  return layout;
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

// Pass rule (as the hammers above, for 1 … 4 classes drawn at random per
// task): every task runs once, every edge is respected, the completed
// count is the task count, and reruns (new epochs) are valid too.
TEST(Fr4PriorityClasses, RandomClassesOnRandomDags) {
  const uint64_t seed = testing::test_seed("RandomClassesOnRandomDags");
  const CompiledGraph g = graph_of_shape(layered_random_shape(50000, 120, 4, seed), 1, 0).compile();
  for (int32_t classes = 1; classes <= max_priority_classes; ++classes) {
    SCOPED_TRACE("classes " + std::to_string(classes));
    run_layout_and_check(g, layout_with_random_classes(g, classes, seed + uint64_t(classes)), kThreads, 3);
  }
}

TEST(Fr4PriorityClasses, RandomClassesOnWideFanOutFanIn) {
  const uint64_t seed = testing::test_seed("RandomClassesOnWideFanOutFanIn");
  const int32_t width = 20000;
  Graph g;
  g.define_kind(0, "node");
  struct None {};
  const int32_t source = g.add(0, None{}).id();
  const int32_t first = g.size();
  for (int32_t k = 0; k < width; ++k) g.add_edge(source, g.add(0, None{}).id());
  const int32_t join = g.add(0, None{}).id();
  for (int32_t k = 0; k < width; ++k) g.add_edge(first + k, join);
  const CompiledGraph cg = g.compile();
  for (int32_t classes = 2; classes <= max_priority_classes; ++classes) {
    SCOPED_TRACE("classes " + std::to_string(classes));
    run_layout_and_check(cg, layout_with_random_classes(cg, classes, seed + uint64_t(classes)), kThreads, 4);
  }
}

TEST(Fr4PriorityClasses, RandomClassesOnShortChainsAndManyWorkers) {
  const uint64_t seed = testing::test_seed("RandomClassesOnShortChainsAndManyWorkers");
  GraphShape shape;
  const int32_t chains = 3000, length = 6;
  shape.tasks = chains * length;
  for (int32_t c = 0; c < chains; ++c)
    for (int32_t k = 1; k < length; ++k) shape.edges.emplace_back(c * length + k - 1, c * length + k);
  const CompiledGraph g = graph_of_shape(shape, 1, 0).compile();
  for (int32_t classes = 2; classes <= max_priority_classes; ++classes) {
    SCOPED_TRACE("classes " + std::to_string(classes));
    run_layout_and_check(g, layout_with_random_classes(g, classes, seed + uint64_t(classes)), 16, 2);
  }
}

// Pass rule: classes from Graph::set_priority_classes run valid, and a
// chain's classes fall from 0 at its head to count − 1 at its tail.
TEST(Fr4PriorityClasses, ClassesFromCriticalPath) {
  const uint64_t seed = testing::test_seed("ClassesFromCriticalPath");
  Graph chain = graph_of_shape(chain_shape(8), 1, 0);
  chain.set_priority_classes(4);
  const CompiledGraph c = chain.compile();
  EXPECT_EQ(c.num_classes, 4);
  EXPECT_EQ(c.priority_class, (std::vector<uint8_t>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(graph_of_shape(chain_shape(8), 1, 0).compile().priority_class, std::vector<uint8_t>(8, 0));
  EXPECT_THROW(chain.set_priority_classes(0), GraphError);
  EXPECT_THROW(chain.set_priority_classes(max_priority_classes + 1), GraphError);

  Graph g = graph_of_shape(layered_random_shape(30000, 80, 3, seed), 1, 0);
  g.set_priority_classes(3);
  const CompiledGraph cg = g.compile();
  run_layout_and_check(cg, make_device_layout(cg), kThreads, 3);
}

// Pass rule: with one worker, a ready task of class c runs before every
// ready task of a higher class that was queued before it. A chain
// t_0 → … → t_C runs as continuations (each t_r's longer path is t_r+1),
// and t_r also releases q_r, of class C − 1 − r: the q_r are queued least
// urgent first, and must run most urgent first. With one class they run as
// queued.
TEST(Fr4PriorityClasses, UrgentTaskOvertakesEarlierQueued) {
  for (int32_t classes = 2; classes <= max_priority_classes; ++classes) {
    SCOPED_TRACE("classes " + std::to_string(classes));
    Graph g;
    g.define_kind(0, "node");
    struct None {};
    std::vector<int32_t> queued;  // q_r by r
    TaskHandle link = g.add(0, None{});
    for (int32_t r = 0; r < classes; ++r) {
      TaskHandle next = g.add(0, None{}), q = g.add(0, None{});
      link.precede(next, q);
      queued.push_back(q.id());
      link = next;
    }
    const CompiledGraph cg = g.compile();
    // The q_r in the order they ran with the classes above, or with one class.
    const auto q_order = [&](bool with_classes) {
      DeviceLayout layout = make_device_layout(cg);
      if (with_classes) {
        layout.num_classes = classes;
        for (int32_t r = 0; r < classes; ++r)
          layout.headers[size_t(queued[size_t(r)])].priority_class = uint8_t(classes - 1 - r);
      }
      CpuScheduler scheduler(layout, 1);
      std::vector<int32_t> ran;
      EXPECT_TRUE(scheduler.run([&](int32_t task, int32_t) {
        if (std::find(queued.begin(), queued.end(), task) != queued.end()) ran.push_back(task);
      }));
      return ran;
    };
    EXPECT_EQ(q_order(true), std::vector<int32_t>(queued.rbegin(), queued.rend()));
    EXPECT_EQ(q_order(false), queued);
  }
}

// Pass rule: a stream whose classes disagree with what it declares is refused.
TEST(Fr4PriorityClasses, ChunkCheckerRefusesWrongClasses) {
  const CompiledGraph g = graph_of_shape(chain_shape(10), 1, 0).compile();
  DeviceLayout layout = layout_with_random_classes(g, 3, 7);
  EXPECT_NO_THROW(collect_layout(layout_stream(layout, false, 4)));
  LayoutStream undercounted = layout_stream(layout, false, 4);
  undercounted.express_tasks[0] += 1;
  EXPECT_THROW(collect_layout(undercounted), GraphError);
  LayoutStream too_many = layout_stream(layout, false, 4);
  too_many.num_classes = max_priority_classes + 1;
  EXPECT_THROW(collect_layout(too_many), GraphError);
  layout.headers[3].priority_class = 3;  // of 3 classes
  EXPECT_THROW(collect_layout(layout_stream(layout, false, 4)), GraphError);
}

}  // namespace
}  // namespace tiledqr::taskgraph
