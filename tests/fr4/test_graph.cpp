// FR4 host API: graph building, edge inference, priorities, the device
// layout, build errors and DOT. Host only (suite fr4, runs in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "taskgraph/device_layout.hpp"
#include "taskgraph/graph.hpp"
#include "taskgraph/graph_generators.hpp"
#include "test_seed.hpp"

namespace tiledqr::taskgraph {
namespace {

struct Value {
  int32_t x;
};

Graph graph_with_kinds() {
  Graph g;
  g.define_kind(0, "load");
  g.define_kind(1, "compute");
  g.define_kind(7, "reduce", Team::block);
  return g;
}

std::vector<std::pair<int32_t, int32_t>> edges_of(const CompiledGraph& c) {
  std::vector<std::pair<int32_t, int32_t>> out;
  for (int32_t t = 0; t < c.num_tasks(); ++t)
    for (int64_t e = c.succ_offsets[size_t(t)]; e < c.succ_offsets[size_t(t) + 1]; ++e)
      out.emplace_back(t, c.succs[size_t(e)]);
  std::sort(out.begin(), out.end());
  return out;
}

using Edges = std::vector<std::pair<int32_t, int32_t>>;

// Pass rule: precede/succeed (also variadic) give exactly the stated edges,
// duplicates merged, with predecessor counts to match.
TEST(Fr4Graph, StatedEdges) {
  Graph g = graph_with_kinds();
  TaskHandle a = g.add(0, Value{1}), b = g.add(1, Value{2}), c = g.add(1, Value{3}), d = g.add(0, Value{4});
  a.precede(b, c);
  d.succeed(b, c);
  a.precede(b);  // duplicate
  const CompiledGraph cg = g.compile();
  EXPECT_EQ(edges_of(cg), (Edges{{0, 1}, {0, 2}, {1, 3}, {2, 3}}));
  EXPECT_EQ(cg.pred_count, (std::vector<int32_t>{0, 1, 1, 2}));
  EXPECT_EQ(cg.roots, (std::vector<int32_t>{0}));
  EXPECT_EQ(cg.args[2].as<Value>().x, 3);
}

// Pass rule: declared reads/writes give read-after-write, write-after-read
// and write-after-write edges in insertion order, and nothing between readers.
TEST(Fr4Graph, InferredEdges) {
  Graph g = graph_with_kinds();
  TaskHandle w1 = g.add(0, Value{0}).writes(10);            // 0
  TaskHandle r1 = g.add(1, Value{0}).reads(10);             // 1: RAW on 0
  TaskHandle r2 = g.add(1, Value{0}).reads(10).writes(11);  // 2: RAW on 0
  TaskHandle w2 = g.add(0, Value{0}).writes(10);            // 3: WAR on 1, 2; WAW on 0
  TaskHandle r3 = g.add(1, Value{0}).reads(11).reads(10);   // 4: RAW on 2 (11) and 3 (10)
  (void)w1, (void)r1, (void)r2, (void)w2, (void)r3;
  const CompiledGraph cg = g.compile();
  EXPECT_EQ(edges_of(cg), (Edges{{0, 1}, {0, 2}, {0, 3}, {1, 3}, {2, 3}, {2, 4}, {3, 4}}));
}

// Pass rule: accesses may be declared after later tasks exist; the order
// that counts is the tasks' insertion order. A task that reads and writes
// one object depends on its last writer once.
TEST(Fr4Graph, InferenceUsesInsertionOrder) {
  Graph g = graph_with_kinds();
  TaskHandle a = g.add(0, Value{0});
  TaskHandle b = g.add(1, Value{0});
  TaskHandle c = g.add(1, Value{0});
  c.reads(5).writes(5);
  b.writes(5);
  a.writes(5);
  EXPECT_EQ(edges_of(g.compile()), (Edges{{0, 1}, {1, 2}}));
}

// Pass rule: priority is the number of tasks on the longest path to a sink;
// successor lists and roots come highest priority first (ties by id).
TEST(Fr4Graph, CriticalPathPriority) {
  Graph g = graph_with_kinds();
  for (int k = 0; k < 6; ++k) g.add(0, Value{k});
  // 0 → 1 → 2 → 3 (long), 0 → 4 (short), 5 alone
  g.add_edge(0, 4);
  g.add_edge(0, 1);
  g.add_edge(1, 2);
  g.add_edge(2, 3);
  const CompiledGraph cg = g.compile();
  EXPECT_EQ(cg.priority, (std::vector<int32_t>{4, 3, 2, 1, 1, 1}));
  EXPECT_EQ(std::vector<int32_t>(cg.succs.begin() + cg.succ_offsets[0], cg.succs.begin() + cg.succ_offsets[1]),
            (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(cg.roots, (std::vector<int32_t>{0, 5}));
}

// Pass rule: the device layout marks successors with one predecessor, keeps
// the counters of the others, and carries kinds and teams.
TEST(Fr4Graph, DeviceLayout) {
  Graph g = graph_with_kinds();
  TaskHandle a = g.add(0, Value{0}), b = g.add(1, Value{0}), c = g.add(7, Value{0});
  a.precede(b, c);
  b.precede(c);
  const DeviceLayout layout = make_device_layout(g.compile());
  ASSERT_EQ(layout.headers.size(), 3u);
  EXPECT_EQ(layout.headers[2].kind, 7);
  EXPECT_EQ(layout.headers[2].team, 1);
  EXPECT_EQ(layout.headers[2].pred_count, 2);
  EXPECT_EQ(layout.headers[0].succ_count, 2);
  // a's successors by priority: b (2) before c (1); b has one predecessor.
  EXPECT_EQ(layout.succs[size_t(layout.headers[0].succ_begin)], 1u | single_predecessor_bit);
  EXPECT_EQ(layout.succs[size_t(layout.headers[0].succ_begin) + 1], 2u);
  EXPECT_EQ(layout.remaining, (std::vector<int32_t>{0, 1, 2}));
}

// Pass rule: an empty graph compiles to nothing; names given are kept,
// others read "<kind>#<id>".
TEST(Fr4Graph, EmptyGraphAndNames) {
  Graph empty;
  const CompiledGraph ce = empty.compile();
  EXPECT_EQ(ce.num_tasks(), 0);
  EXPECT_TRUE(ce.roots.empty());
  Graph g = graph_with_kinds();
  g.add(0, Value{0}).name("first");
  g.add(1, Value{0});
  const CompiledGraph cg = g.compile();
  EXPECT_EQ(cg.task_name(0), "first");
  EXPECT_EQ(cg.task_name(1), "compute#1");
  EXPECT_TRUE(cg.has_block_tasks() == false);
}

std::string compile_error(const Graph& g) {
  try {
    g.compile();
  } catch (const GraphError& e) {
    return e.what();
  }
  return "";
}

// Pass rule: a cycle is rejected with the names of the tasks on it, in
// edge order, and tasks outside it are not named.
TEST(Fr4GraphErrors, CycleNamesItsTasks) {
  Graph g = graph_with_kinds();
  TaskHandle start = g.add(0, Value{0}).name("start");
  TaskHandle a = g.add(1, Value{0}).name("alpha");
  TaskHandle b = g.add(1, Value{0}).name("beta");
  TaskHandle c = g.add(1, Value{0}).name("gamma");
  start.precede(a);
  a.precede(b);
  b.precede(c);
  c.precede(a);
  const std::string message = compile_error(g);
  EXPECT_NE(message.find("cycle"), std::string::npos) << message;
  EXPECT_NE(message.find("'alpha' -> 'beta' -> 'gamma' -> 'alpha'"), std::string::npos) << message;
  EXPECT_EQ(message.find("start"), std::string::npos) << message;
}

// Pass rule: a cycle made by inferred edges cannot happen (insertion order
// is a topological order), but a stated edge against it is caught.
TEST(Fr4GraphErrors, StatedEdgeAgainstInferredOrder) {
  Graph g = graph_with_kinds();
  TaskHandle w = g.add(0, Value{0}).writes(1).name("writer");
  TaskHandle r = g.add(1, Value{0}).reads(1).name("reader");
  r.precede(w);
  const std::string message = compile_error(g);
  EXPECT_NE(message.find("'writer' -> 'reader' -> 'writer'"), std::string::npos) << message;
}

// Pass rule: a task preceding itself is a cycle naming it.
TEST(Fr4GraphErrors, SelfEdge) {
  Graph g = graph_with_kinds();
  TaskHandle a = g.add(0, Value{0}).name("loop");
  a.precede(a);
  EXPECT_NE(compile_error(g).find("'loop' -> 'loop'"), std::string::npos);
}

// Pass rule: edges to tasks of another graph, to empty handles or to ids
// outside the graph are rejected by compile(), naming the task involved.
TEST(Fr4GraphErrors, DanglingEdges) {
  Graph g = graph_with_kinds();
  Graph other = graph_with_kinds();
  TaskHandle a = g.add(0, Value{0}).name("mine");
  TaskHandle foreign = other.add(0, Value{0});
  a.precede(foreign);
  std::string message = compile_error(g);
  EXPECT_NE(message.find("dangling edge: 'mine' precedes task 0 of another graph"), std::string::npos) << message;

  Graph h = graph_with_kinds();
  TaskHandle b = h.add(0, Value{0}).name("lonely");
  b.succeed(TaskHandle{});
  EXPECT_NE(compile_error(h).find("'lonely' succeeds an empty task handle"), std::string::npos);

  Graph k = graph_with_kinds();
  k.add(0, Value{0}).name("zero");
  k.add_edge(0, 42);
  message = compile_error(k);
  EXPECT_NE(message.find("dangling edge: 'zero' -> 'task 42 (not in the graph)'"), std::string::npos) << message;
}

// Pass rule: unknown kinds and ids are refused with a message naming them.
TEST(Fr4GraphErrors, UnknownKindAndBadIds) {
  Graph g = graph_with_kinds();
  try {
    g.add(3, Value{0});
    FAIL() << "kind 3 was never defined";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("kind 3"), std::string::npos);
  }
  EXPECT_THROW(g.define_kind(70000, "too big"), GraphError);
  EXPECT_THROW(TaskHandle{}.precede(TaskHandle{}), GraphError);
  g.add(0, Value{0});
  g.add_access(9, 1, true);
  EXPECT_NE(compile_error(g).find("task 9, which does not exist"), std::string::npos);
}

// Pass rule: DOT lists every task with its label (quotes escaped, block
// kinds boxed) and every stated and inferred edge; a cyclic graph dumps too.
TEST(Fr4GraphDot, NodesAndEdges) {
  Graph g = graph_with_kinds();
  g.add(0, Value{0}).name("say \"hi\"").writes(3);
  g.add(7, Value{0}).reads(3);
  g.add(1, Value{0});
  g.add_edge(2, 0);
  g.add_edge(1, 2);  // with the inferred 0 → 1: a cycle
  const std::string dot = g.dump();
  EXPECT_NE(dot.find("digraph"), std::string::npos);
  EXPECT_NE(dot.find("t0 [label=\"say \\\"hi\\\"\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("t1 [label=\"reduce#1\", shape=box]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("t0 -> t1;"), std::string::npos) << dot;
  EXPECT_NE(dot.find("t1 -> t2;"), std::string::npos) << dot;
  EXPECT_NE(dot.find("t2 -> t0;"), std::string::npos) << dot;
  EXPECT_THROW(g.compile(), GraphError);  // 0 → 1 → 2 → 0
  std::ostringstream out;
  g.dump(out);
  EXPECT_EQ(out.str(), dot);
}

// The layout of a random layered graph of `tasks` tasks, a third of them
// block tasks, task t with argument Value{t}.
DeviceLayout random_layout(int32_t tasks, uint64_t seed) {
  const GraphShape shape = layered_random_shape(tasks, 20, 3, seed);
  Graph g = graph_with_kinds();
  for (int32_t t = 0; t < shape.tasks; ++t) g.add(t % 3 == 2 ? 7 : t % 2, Value{t});
  for (const auto& e : shape.edges) g.add_edge(e.first, e.second);
  return make_device_layout(g.compile());
}

bool same_layout(const DeviceLayout& a, const DeviceLayout& b) {
  if (a.headers.size() != b.headers.size() || a.args.size() != b.args.size()) return false;
  for (size_t t = 0; t < a.headers.size(); ++t) {
    const TaskHeader &x = a.headers[t], &y = b.headers[t];
    if (x.kind != y.kind || x.team != y.team || x.pred_count != y.pred_count || x.succ_begin != y.succ_begin ||
        x.succ_count != y.succ_count || x.first_succ != y.first_succ)
      return false;
    if (std::memcmp(a.args[t].bytes, b.args[t].bytes, task_arg_bytes) != 0) return false;
  }
  return a.succs == b.succs && a.roots == b.roots && a.remaining == b.remaining;
}

// Pass rule: a compiled graph streamed in chunks of 1, 7, 100 tasks and
// all at once, and collected again under the consumer's checks, is the
// layout it came from, whatever the chunk size.
TEST(Fr4Layout, StreamRoundTrip) {
  const uint64_t seed = testing::test_seed("StreamRoundTrip");
  const DeviceLayout layout = random_layout(1000, seed);
  ASSERT_GT(layout.succs.size(), 1000u);
  for (const int32_t chunk : {1, 7, 100, 1 << 20}) {
    const LayoutStream stream = layout_stream(layout, true, chunk);
    EXPECT_EQ(stream.num_tasks, 1000);
    EXPECT_TRUE(same_layout(collect_layout(stream), layout)) << "chunks of " << chunk;
  }
  const DeviceLayout none = collect_layout(layout_stream(DeviceLayout{}, false));
  EXPECT_TRUE(none.headers.empty() && none.succs.empty());
}

// Pass rule: each way a producer can break the stream's contract — a chunk
// out of order, over capacity, a header whose successors do not start where
// the last ended or whose first_succ is not its first entry, a successor
// outside the graph, a block task in a graph of warp tasks, tasks missing
// at the end — is a GraphError naming it, not a wrong upload.
TEST(Fr4Layout, BrokenStreamsRefused) {
  const uint64_t seed = testing::test_seed("BrokenStreamsRefused");
  const DeviceLayout layout = random_layout(300, seed);
  // Each case changes the stream (chunks of 50 tasks) or its chunk number k.
  struct Case {
    const char* what;  // in the message
    std::function<void(LayoutStream&)> on_stream;
    std::function<void(LayoutChunk&, int k)> on_chunk;
  };
  const auto none = [](LayoutStream&) {};
  const auto as_is = [](LayoutChunk&, int) {};
  const std::vector<Case> cases = {
      {"expected the chunk", none, [](LayoutChunk& c, int k) { if (k == 2) c.first_task += 1; }},
      {"outside the capacities", none, [](LayoutChunk& c, int k) { if (k == 1) c.task_count = 51; }},
      {"successors from", none, [](LayoutChunk& c, int k) { if (k == 1) c.headers[3].succ_begin += 1; }},
      {"first_succ", none,
       [](LayoutChunk& c, int k) {
         for (int32_t t = 0; k == 0 && t < c.task_count; ++t)
           if (c.headers[t].succ_count > 0) c.headers[t].first_succ ^= 1u;
       }},
      {"outside the graph", none, [](LayoutChunk& c, int k) { if (k == 0 && c.edge_count > 0) c.succs[c.edge_count - 1] = 300; }},
      {"graph of warp tasks", [](LayoutStream& s) { s.has_block_tasks = false; }, as_is},
      {"ended after", [](LayoutStream& s) { s.num_tasks = 301; }, as_is},
  };
  for (const Case& broken : cases) {
    const LayoutStream good = layout_stream(layout, true, 50);
    LayoutStream stream = good;
    broken.on_stream(stream);
    int chunk = 0;
    stream.produce = [&](LayoutChunk& buffers, const std::function<void(const LayoutChunk&)>& emit) {
      good.produce(buffers, [&](const LayoutChunk& c) {
        LayoutChunk changed = c;
        broken.on_chunk(changed, chunk++);
        emit(changed);
      });
    };
    try {
      collect_layout(stream);
      ADD_FAILURE() << broken.what << ": accepted";
    } catch (const GraphError& e) {
      EXPECT_NE(std::string(e.what()).find(broken.what), std::string::npos) << e.what();
    }
  }
}

// Pass rule: the device arrays of a graph are its headers, arguments, two
// counter arrays and successor entries, the roots, a ready slot per task
// and per worker, one per express ring entry, one RunCounters (its lines:
// six, and one per express ring of the most priority classes) and the
// trace if asked: bytes() adds up exactly those (88 bytes a task, 4 an edge
// and a root, 8 a worker and an express entry, 128 a line, and 24 a task
// of trace); an empty graph allocates nothing.
TEST(Fr4Layout, DeviceGraphBytes) {
  const uint64_t counters = (6 + max_priority_classes - 1) * 128;
  EXPECT_EQ(sizeof(RunCounters), counters);
  const DeviceGraphArrays a = device_graph_arrays(1000, 2500, 3, 64, false);
  EXPECT_EQ(a.slots, 1064);
  EXPECT_EQ(a.bytes(), uint64_t(1000 * (24 + 48 + 4 + 4 + 8) + 2500 * 4 + 3 * 4 + 64 * 8) + counters);
  EXPECT_EQ(device_graph_arrays(1000, 2500, 3, 64, true).bytes(), a.bytes() + 1000 * 24);
  EXPECT_EQ(device_graph_arrays(1000, 2500, 3, 64, false, 700).bytes(), a.bytes() + 700 * 8);
  EXPECT_EQ(device_graph_arrays(0, 0, 0, 64, true).bytes(), 0u);
}

}  // namespace
}  // namespace tiledqr::taskgraph
