// The device layout on the host (device_layout.hpp): a compiled graph laid
// out, the chunked stream every upload goes through and its checks, and the
// device memory a DeviceGraph allocates. Host code only.
#include "device_layout.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "executor_params.hpp"

namespace tiledqr::taskgraph {

DeviceLayout make_device_layout(const CompiledGraph& graph) {
  const int32_t n = graph.num_tasks();
  if (graph.num_edges() > max_edges)
    throw GraphError("graph has " + std::to_string(graph.num_edges()) +
                     " edges; the executor addresses at most 2^31 - 1");
  DeviceLayout out;
  out.succs.resize(graph.succs.size());
  for (size_t e = 0; e < graph.succs.size(); ++e) {
    const int32_t s = graph.succs[e];
    out.succs[e] = successor_entry(s, graph.pred_count[size_t(s)]);
  }
  out.headers.resize(size_t(n));
  for (int32_t t = 0; t < n; ++t) {
    const int64_t begin = graph.succ_offsets[size_t(t)], end = graph.succ_offsets[size_t(t) + 1];
    out.headers[size_t(t)] =
        make_task_header(graph.kind[size_t(t)], graph.team[size_t(t)], graph.pred_count[size_t(t)],
                         static_cast<int32_t>(begin), static_cast<int32_t>(end - begin),
                         end > begin ? out.succs[size_t(begin)] : 0u,
                         graph.priority_class.empty() ? 0 : graph.priority_class[size_t(t)]);
  }
  out.num_classes = graph.num_classes;
  out.args = graph.args;
  out.roots = graph.roots;
  out.remaining = graph.pred_count;
  return out;
}

ExpressCounts express_counts(const DeviceLayout& layout) {
  ExpressCounts counts{};
  for (const TaskHeader& h : layout.headers)
    if (int32_t(h.priority_class) + 1 < layout.num_classes) ++counts[h.priority_class];
  return counts;
}

namespace {

// Where the successor lists of the tasks before `task` end.
int64_t edges_before(const DeviceLayout& l, int32_t task) {
  if (task == 0) return 0;
  const TaskHeader& h = l.headers[size_t(task) - 1];
  return int64_t(h.succ_begin) + h.succ_count;
}

}  // namespace

LayoutStream layout_stream(DeviceLayout layout, bool has_block_tasks, int32_t chunk_tasks) {
  if (chunk_tasks < 1) throw GraphError("layout_stream: chunk_tasks must be >= 1");
  LayoutStream out;
  out.num_tasks = static_cast<int32_t>(layout.headers.size());
  out.num_edges = static_cast<int64_t>(layout.succs.size());
  out.roots = layout.roots;
  out.has_block_tasks = has_block_tasks;
  out.num_classes = layout.num_classes;
  out.express_tasks = express_counts(layout);
  out.chunk_tasks = std::max(std::min(chunk_tasks, out.num_tasks), 1);
  // The chunks are fixed runs of tasks: the edge capacity is their largest edge count.
  for (int32_t first = 0; first < out.num_tasks; first += out.chunk_tasks) {
    const int32_t end = std::min(out.num_tasks, first + out.chunk_tasks);
    out.chunk_edges = std::max(out.chunk_edges, edges_before(layout, end) - edges_before(layout, first));
  }
  auto shared = std::make_shared<const DeviceLayout>(std::move(layout));
  out.produce = [shared, chunk = out.chunk_tasks](LayoutChunk& buffers,
                                                  const std::function<void(const LayoutChunk&)>& emit) {
    const DeviceLayout& l = *shared;
    const int32_t n = static_cast<int32_t>(l.headers.size());
    for (int32_t first = 0; first < n; first += chunk) {
      const int32_t end = std::min(n, first + chunk);
      buffers.first_task = first;
      buffers.task_count = end - first;
      buffers.first_edge = edges_before(l, first);
      buffers.edge_count = edges_before(l, end) - buffers.first_edge;
      std::copy(l.headers.begin() + first, l.headers.begin() + end, buffers.headers);
      std::copy(l.args.begin() + first, l.args.begin() + end, buffers.args);
      std::copy(l.succs.begin() + buffers.first_edge, l.succs.begin() + buffers.first_edge + buffers.edge_count,
                buffers.succs);
      emit(buffers);
    }
  };
  return out;
}

ChunkChecker::ChunkChecker(const LayoutStream& stream) : stream_(stream) {
  if (stream.num_tasks < 0 || stream.num_tasks > Graph::max_tasks)
    throw GraphError("graph has " + std::to_string(stream.num_tasks) + " tasks; the executor runs 0 .. " +
                     std::to_string(Graph::max_tasks));
  if (stream.num_edges < 0 || stream.num_edges > max_edges)
    throw GraphError("graph has " + std::to_string(stream.num_edges) +
                     " edges; the executor addresses at most 2^31 - 1");
  if (stream.num_classes < 1 || stream.num_classes > max_priority_classes)
    throw GraphError("graph has " + std::to_string(stream.num_classes) + " priority classes; the executor runs 1 .. " +
                     std::to_string(max_priority_classes));
  for (int32_t c = 0; c + 1 < max_priority_classes; ++c)
    if (stream.express_tasks[size_t(c)] < 0 || stream.express_tasks[size_t(c)] > stream.num_tasks ||
        (c + 1 >= stream.num_classes && stream.express_tasks[size_t(c)] != 0))
      throw GraphError("graph declares " + std::to_string(stream.express_tasks[size_t(c)]) + " tasks of priority class " +
                       std::to_string(c) + " (of " + std::to_string(stream.num_classes) + " classes, " +
                       std::to_string(stream.num_tasks) + " tasks)");
  if (stream.num_tasks > 0 && (stream.chunk_tasks < 1 || stream.chunk_edges < 0 || !stream.produce))
    throw GraphError("layout stream without chunk capacities or a producer");
}

void ChunkChecker::check(const LayoutChunk& c) {
  const auto fail = [&c](const std::string& what) {
    throw GraphError("layout chunk at task " + std::to_string(c.first_task) + ": " + what);
  };
  if (c.first_task != next_task_ || c.first_edge != next_edge_)
    fail("expected the chunk at task " + std::to_string(next_task_) + ", edge " + std::to_string(next_edge_) +
         " (edge " + std::to_string(c.first_edge) + " given)");
  if (c.task_count < 1 || c.task_count > stream_.chunk_tasks || c.edge_count < 0 || c.edge_count > stream_.chunk_edges)
    fail(std::to_string(c.task_count) + " tasks and " + std::to_string(c.edge_count) +
         " edges, outside the capacities " + std::to_string(stream_.chunk_tasks) + " and " +
         std::to_string(stream_.chunk_edges));
  if (int64_t(c.first_task) + c.task_count > stream_.num_tasks || c.first_edge + c.edge_count > stream_.num_edges)
    fail("runs past the graph's " + std::to_string(stream_.num_tasks) + " tasks or " +
         std::to_string(stream_.num_edges) + " edges");
  int64_t edge = c.first_edge;
  for (int32_t k = 0; k < c.task_count; ++k) {
    const TaskHeader& h = c.headers[k];
    const auto task = [&c, k] { return "task " + std::to_string(c.first_task + k); };  // for messages only
    if (h.team > uint8_t(Team::block) || (h.team == uint8_t(Team::block) && !stream_.has_block_tasks))
      fail(task() + " has team " + std::to_string(h.team) + (stream_.has_block_tasks ? "" : " in a graph of warp tasks"));
    if (int32_t(h.priority_class) >= stream_.num_classes)
      fail(task() + " has priority class " + std::to_string(h.priority_class) + " of " +
           std::to_string(stream_.num_classes));
    if (int32_t(h.priority_class) + 1 < stream_.num_classes &&
        ++express_seen_[h.priority_class] > stream_.express_tasks[h.priority_class])
      fail("more tasks of priority class " + std::to_string(h.priority_class) + " than the " +
           std::to_string(stream_.express_tasks[h.priority_class]) + " declared");
    if (h.pred_count < 0 || h.succ_count < 0 || h.succ_begin != edge)
      fail(task() + ": successors from " + std::to_string(h.succ_begin) + " (expected " + std::to_string(edge) +
           "), " + std::to_string(h.succ_count) + " of them, " + std::to_string(h.pred_count) + " predecessors");
    edge += h.succ_count;
    if (edge > c.first_edge + c.edge_count) fail(task() + "'s successors run past the chunk's entries");
    const uint32_t expected_first = h.succ_count > 0 ? c.succs[h.succ_begin - c.first_edge] : 0u;
    if (h.first_succ != expected_first) fail(task() + "'s first_succ is not its first successor entry");
  }
  if (edge != c.first_edge + c.edge_count) fail("successor entries that belong to no task");
  for (int64_t e = 0; e < c.edge_count; ++e)
    if (int64_t(c.succs[e] & ~single_predecessor_bit) >= stream_.num_tasks)
      fail("successor entry " + std::to_string(c.first_edge + e) + " names task " +
           std::to_string(c.succs[e] & ~single_predecessor_bit) + ", outside the graph");
  next_task_ += c.task_count;
  next_edge_ += c.edge_count;
}

void ChunkChecker::finish() const {
  if (next_task_ != stream_.num_tasks || next_edge_ != stream_.num_edges)
    throw GraphError("layout stream ended after " + std::to_string(next_task_) + " of " +
                     std::to_string(stream_.num_tasks) + " tasks and " + std::to_string(next_edge_) + " of " +
                     std::to_string(stream_.num_edges) + " edges");
  for (const int32_t r : stream_.roots)
    if (r < 0 || r >= stream_.num_tasks) throw GraphError("root " + std::to_string(r) + " is not a task of the graph");
  if (express_seen_ != stream_.express_tasks)
    throw GraphError("layout stream's tasks per priority class differ from the counts it declared");
}

uint64_t chunk_buffer_bytes(int32_t chunk_tasks, int64_t chunk_edges) {
  return uint64_t(chunk_tasks) * (sizeof(TaskHeader) + sizeof(TaskArgs) + sizeof(int32_t)) +
         uint64_t(chunk_edges) * sizeof(uint32_t);
}

void consume_stream(const LayoutStream& stream, LayoutChunk& buffers,
                    const std::function<void(const LayoutChunk&)>& consume) {
  ChunkChecker checker(stream);
  if (stream.num_tasks > 0)
    stream.produce(buffers, [&](const LayoutChunk& c) {
      checker.check(c);
      consume(c);
    });
  checker.finish();
}

void consume_stream(const LayoutStream& stream, const std::function<void(const LayoutChunk&)>& consume) {
  ChunkChecker counts(stream);  // the capacities are sane before they are allocated
  std::vector<TaskHeader> headers(size_t(std::max(stream.chunk_tasks, 1)));
  std::vector<TaskArgs> args(headers.size());
  std::vector<uint32_t> succs(size_t(std::max<int64_t>(stream.chunk_edges, 1)));
  LayoutChunk buffers;
  buffers.headers = headers.data();
  buffers.args = args.data();
  buffers.succs = succs.data();
  consume_stream(stream, buffers, consume);
}

DeviceLayout collect_layout(const LayoutStream& stream) {
  DeviceLayout out;
  consume_stream(stream, [&out](const LayoutChunk& c) {
    out.headers.insert(out.headers.end(), c.headers, c.headers + c.task_count);
    out.args.insert(out.args.end(), c.args, c.args + c.task_count);
    out.succs.insert(out.succs.end(), c.succs, c.succs + c.edge_count);
  });
  out.roots = stream.roots;
  out.num_classes = stream.num_classes;
  out.remaining.reserve(out.headers.size());
  for (const TaskHeader& h : out.headers) out.remaining.push_back(h.pred_count);
  return out;
}

uint64_t DeviceGraphArrays::bytes() const {
  return uint64_t(headers) * sizeof(TaskHeader) + uint64_t(succs) * sizeof(uint32_t) +
         uint64_t(roots + remaining + initial_remaining) * sizeof(int32_t) + uint64_t(args) * sizeof(TaskArgs) +
         uint64_t(slots) * sizeof(unsigned long long) + uint64_t(run_counters) * sizeof(RunCounters) +
         uint64_t(trace) * sizeof(TraceEvent);
}

DeviceGraphArrays device_graph_arrays(int64_t num_tasks, int64_t num_edges, int64_t num_roots, int64_t workers,
                                      bool trace, int64_t express_slots) {
  DeviceGraphArrays a;
  if (num_tasks == 0) return a;
  a.headers = a.remaining = a.initial_remaining = a.args = num_tasks;
  a.succs = num_edges;
  a.roots = num_roots;
  a.slots = num_tasks + workers + express_slots;
  a.run_counters = 1;
  a.trace = trace ? num_tasks : 0;
  return a;
}

}  // namespace tiledqr::taskgraph
