// The FR4 persistent executor on the GPU (suites fr4 and gpu; exits 77
// without a GPU). Each test states its pass rule; random graphs print
// their seed.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "taskgraph/graph_generators.hpp"
#include "record_kinds.cuh"
#include "test_seed.hpp"

namespace tiledqr::taskgraph {
namespace {

using testing::RecordBuffers;
using testing::RecordKinds;

// Pass rule for every test below that runs a graph: RecordBuffers::problems
// is empty — each task ran exactly once, as its kind, on its team (32
// threads, or the block's for block kinds), and for every edge u → v the
// ticket at u's end is below the ticket at v's start.
std::string run_and_check(const CompiledGraph& g, const ExecOptions& options = ExecOptions{}) {
  RecordBuffers record(g.num_tasks());
  GraphExec<RecordKinds> exec(g, options);
  const Status s = exec.run(record.params());
  if (!s.ok()) return std::string("run failed: ") + s.message;
  return record.problems(g, 32 * exec.shape().warps_per_block);
}

TEST(Fr4Executor, EmptyGraph) {
  Graph g;
  GraphExec<RecordKinds> exec(g);
  EXPECT_TRUE(exec.run().ok());
  EXPECT_TRUE(exec.run().ok());
}

TEST(Fr4Executor, OneTask) { EXPECT_EQ(run_and_check(graph_of_shape(independent_shape(1), 1, 0).compile()), ""); }

TEST(Fr4Executor, RandomLayeredDag100kRandomKinds) {
  const uint64_t seed = testing::test_seed("RandomLayeredDag100kRandomKinds");
  const CompiledGraph g =
      graph_of_shape(layered_random_shape(100000, 100, 4, seed), testing::record_kind_count, seed + 1).compile();
  EXPECT_EQ(run_and_check(g), "");
}

TEST(Fr4Executor, Chain100k) { EXPECT_EQ(run_and_check(graph_of_shape(chain_shape(100000), 1, 0).compile()), ""); }

TEST(Fr4Executor, IndependentMillion) {
  EXPECT_EQ(run_and_check(graph_of_shape(independent_shape(1000000), 2, 7).compile()), "");
}

// Also: fewer workers than the GPU holds (one block) still finish.
TEST(Fr4Executor, OneBlockOfWorkers) {
  const uint64_t seed = testing::test_seed("OneBlockOfWorkers");
  ExecOptions options;
  options.max_blocks = 1;
  EXPECT_EQ(run_and_check(graph_of_shape(layered_random_shape(3000, 30, 3, seed), 3, seed).compile(), options), "");
}

// Block kinds mixed with warp kinds in a random layered DAG: each block task
// is run by every thread of one block.
TEST(Fr4Executor, BlockTasksAmongWarpTasks) {
  const uint64_t seed = testing::test_seed("BlockTasksAmongWarpTasks");
  const GraphShape shape = layered_random_shape(20000, 50, 3, seed);
  Graph g;
  for (int k = 0; k < testing::record_kind_count; ++k) g.define_kind(k, "k" + std::to_string(k));
  g.define_kind(testing::kind_block, "block", Team::block);
  std::mt19937_64 engine(seed);
  struct None {};
  for (int32_t t = 0; t < shape.tasks; ++t)
    g.add(engine() % 5 == 0 ? testing::kind_block : int(engine() % 5), None{});
  for (const auto& e : shape.edges) g.add_edge(e.first, e.second);
  const CompiledGraph cg = g.compile();
  ASSERT_TRUE(cg.has_block_tasks());
  EXPECT_EQ(run_and_check(cg), "");
  ExecOptions eight_warps;
  eight_warps.warps_per_block = 8;
  EXPECT_EQ(run_and_check(cg, eight_warps), "");
}

// Pass rule: 100 runs of one instantiated graph, each with new run
// parameters (another record buffer every other run) and new argument
// blocks (the other target buffer, the run's number), are each complete and
// ordered, and each run's argument writes land where its arguments point.
TEST(Fr4Executor, HundredRerunsWithNewArguments) {
  const uint64_t seed = testing::test_seed("HundredRerunsWithNewArguments");
  const GraphShape shape = layered_random_shape(4000, 40, 3, seed);
  Graph g;
  g.define_kind(0, "k0");
  g.define_kind(testing::kind_write_arg, "write");
  int* targets[2] = {nullptr, nullptr};
  for (int*& t : targets) ASSERT_EQ(cudaMalloc(&t, size_t(shape.tasks) * sizeof(int)), cudaSuccess);
  for (int32_t t = 0; t < shape.tasks; ++t)
    g.add(t % 2 == 0 ? testing::kind_write_arg : 0, testing::WriteArgs{targets[0], -1});
  for (const auto& e : shape.edges) g.add_edge(e.first, e.second);
  const CompiledGraph cg = g.compile();
  GraphExec<RecordKinds> exec(cg);
  RecordBuffers records[2] = {RecordBuffers(cg.num_tasks()), RecordBuffers(cg.num_tasks())};
  std::vector<int> written(size_t(shape.tasks));
  for (int run = 0; run < 100; ++run) {
    RecordBuffers& record = records[run % 2];
    record.clear();
    int* target = targets[run % 2];
    for (int32_t t = 0; t < shape.tasks; t += 2) exec.set_args(t, testing::WriteArgs{target, run});
    const Status s = exec.run(record.params());
    ASSERT_TRUE(s.ok()) << "run " << run << ": " << s.message;
    ASSERT_EQ(record.problems(cg, 32 * exec.shape().warps_per_block), "") << "run " << run;
    cudaMemcpy(written.data(), target, written.size() * sizeof(int), cudaMemcpyDeviceToHost);
    for (int32_t t = 0; t < shape.tasks; t += 2) ASSERT_EQ(written[size_t(t)], run) << "run " << run << ", task " << t;
  }
  for (int* t : targets) cudaFree(t);
}

// Pass rule: with ExecOptions::trace, every task has an event with
// start ≤ end, a worker inside the launch, and each edge's successor
// starts no earlier than its predecessor ends.
TEST(Fr4Executor, Trace) {
  const uint64_t seed = testing::test_seed("Trace");
  const CompiledGraph g = graph_of_shape(layered_random_shape(5000, 50, 3, seed), 2, seed).compile();
  ExecOptions options;
  options.trace = true;
  RecordBuffers record(g.num_tasks());
  GraphExec<RecordKinds> exec(g, options);
  ASSERT_TRUE(exec.run(record.params()).ok());
  const std::vector<TraceEvent> trace = exec.trace();
  ASSERT_EQ(trace.size(), size_t(g.num_tasks()));
  int bad = 0;
  for (int32_t t = 0; t < g.num_tasks(); ++t) {
    const TraceEvent& e = trace[size_t(t)];
    if (!(e.start_ns > 0 && e.start_ns <= e.end_ns && e.worker >= 0 && e.worker < exec.shape().workers)) ++bad;
    for (int64_t k = g.succ_offsets[size_t(t)]; k < g.succ_offsets[size_t(t) + 1]; ++k)
      if (trace[size_t(g.succs[size_t(k)])].start_ns < e.end_ns) ++bad;
  }
  EXPECT_EQ(bad, 0);
}

// Pass rule: a cyclic graph is refused before anything reaches the GPU,
// with the tasks named.
TEST(Fr4ExecutorErrors, CycleRefused) {
  Graph g;
  g.define_kind(0, "k0");
  struct None {};
  TaskHandle a = g.add(0, None{}).name("a"), b = g.add(0, None{}).name("b");
  a.precede(b);
  b.precede(a);
  try {
    GraphExec<RecordKinds> exec(g);
    FAIL() << "a cycle was accepted";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("'a' -> 'b' -> 'a'"), std::string::npos) << e.what();
  }
}

// Pass rule: a task whose counter waits for a predecessor that does not
// exist stalls the graph; the watchdog ends the run with Code::stalled
// within a few timeouts (no hang), and the next run of the same graph is
// complete and ordered.
TEST(Fr4ExecutorErrors, StalledGraphEndsWithError) {
  const uint64_t seed = testing::test_seed("StalledGraphEndsWithError");
  const CompiledGraph g = graph_of_shape(layered_random_shape(3000, 20, 3, seed), 2, seed).compile();
  int32_t victim = -1;
  for (int32_t t = 0; t < g.num_tasks() && victim < 0; ++t)
    if (g.pred_count[size_t(t)] >= 2) victim = t;
  ASSERT_GE(victim, 0);
  ExecOptions options;
  options.stall_timeout_seconds = 0.5;
  RecordBuffers record(g.num_tasks());
  GraphExec<RecordKinds> exec(g, options);
  exec.device_graph().add_phantom_predecessor_for_testing(victim);
  const auto start = std::chrono::steady_clock::now();
  const Status s = exec.run(record.params());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(s.code, Status::Code::stalled) << s.message;
  EXPECT_NE(s.message.find("tasks had finished"), std::string::npos) << s.message;
  EXPECT_LT(seconds, 5.0);
  record.clear();
  const Status again = exec.run(record.params());
  ASSERT_TRUE(again.ok()) << again.message;
  EXPECT_EQ(record.problems(g, 32 * exec.shape().warps_per_block), "");
}

// Pass rule: a worker that never starts (the block's watcher warp, and
// another) strands nothing — a worker only ever waits on tickets it drew —
// so the run completes with every task run once and every edge respected.
TEST(Fr4ExecutorErrors, WorkerThatNeverStartsIsAbsorbed) {
  const uint64_t seed = testing::test_seed("WorkerThatNeverStartsIsAbsorbed");
  const CompiledGraph g = graph_of_shape(layered_random_shape(20000, 50, 3, seed), 2, seed).compile();
  for (const int absent : {0, 5}) {
    SCOPED_TRACE("absent worker " + std::to_string(absent));
    ExecOptions options;
    options.stall_timeout_seconds = 2;
    options.test_absent_worker = absent;
    EXPECT_EQ(run_and_check(g, options), "");
  }
}

// Pass rule: a task that waits (polling ctx.aborted()) past the timeout is
// ended by the watchdog with Code::stalled, and the GPU runs the next graph.
TEST(Fr4ExecutorErrors, WaitingTaskEndsThroughAbort) {
  Graph g;
  g.define_kind(0, "k0");
  g.define_kind(testing::kind_wait_for_abort, "wait");
  struct None {};
  TaskHandle first = g.add(0, None{});
  TaskHandle wait = g.add(testing::kind_wait_for_abort, None{}).name("waits forever");
  TaskHandle last = g.add(0, None{});
  first.precede(wait);
  wait.precede(last);
  ExecOptions options;
  options.stall_timeout_seconds = 0.5;
  RecordBuffers record(g.size());
  GraphExec<RecordKinds> exec(g, options);
  const Status s = exec.run(record.params());
  EXPECT_EQ(s.code, Status::Code::stalled) << s.message;
  EXPECT_EQ(run_and_check(graph_of_shape(chain_shape(1000), 1, 0).compile()), "");
}

// Pass rule: run() without wait() in between is refused, not queued.
TEST(Fr4ExecutorErrors, LaunchWhileRunningRefused) {
  const CompiledGraph g = graph_of_shape(chain_shape(100), 1, 0).compile();
  RecordBuffers record(g.num_tasks());
  GraphExec<RecordKinds> exec(g);
  ASSERT_TRUE(exec.launch(record.params()).ok());
  EXPECT_EQ(exec.launch(record.params()).code, Status::Code::invalid);
  EXPECT_TRUE(exec.wait().ok());
  EXPECT_EQ(exec.wait().code, Status::Code::invalid);
}

}  // namespace
}  // namespace tiledqr::taskgraph
