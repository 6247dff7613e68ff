// The executor's view of a graph on the host: task headers, argument
// blocks, successor entries, roots and initial counters, laid out as the
// device reads them (scheduler_core.hpp), whole or streamed in chunks; and
// the device memory a DeviceGraph allocates for them. Host code only; the
// CPU tests run on it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "graph.hpp"
#include "scheduler_core.hpp"
#include "task_args.hpp"

namespace tiledqr::taskgraph {

// Most successor entries in one graph: headers address them with int32.
constexpr int64_t max_edges = 0x7fffffff;

// A task's header; `first_succ` is its first successor entry (0 when it
// has none), `priority_class` the ring it is pushed to (scheduler_core.hpp).
inline TaskHeader make_task_header(int32_t kind, Team team, int32_t pred_count, int32_t succ_begin,
                                   int32_t succ_count, uint32_t first_succ, int32_t priority_class = 0) {
  TaskHeader h{};
  h.kind = static_cast<uint16_t>(kind);
  h.team = static_cast<uint8_t>(team);
  h.priority_class = static_cast<uint8_t>(priority_class);
  h.pred_count = pred_count;
  h.succ_begin = succ_begin;
  h.succ_count = succ_count;
  h.first_succ = succ_count > 0 ? first_succ : 0u;
  return h;
}

// A successor entry: the task id, with single_predecessor_bit when that
// task has exactly one predecessor (it then needs no counter).
inline uint32_t successor_entry(int32_t task, int32_t pred_count) {
  return static_cast<uint32_t>(task) | (pred_count == 1 ? single_predecessor_bit : 0u);
}

// Tasks of each priority class but the last (which uses the ticket ring):
// the capacities of the express rings.
using ExpressCounts = std::array<int64_t, max_priority_classes - 1>;

// Host vectors in the device layout (also what the CPU tests run on).
struct DeviceLayout {
  int32_t num_classes = 1;          // each header's priority_class is below it
  std::vector<TaskHeader> headers;
  std::vector<TaskArgs> args;
  std::vector<uint32_t> succs;  // task id | single_predecessor_bit
  std::vector<int32_t> roots;
  std::vector<int32_t> remaining;  // initial counters: the predecessor counts
};

// Lays `graph` out for the scheduler core. Throws GraphError when the graph
// has more edges than 32-bit offsets can address.
DeviceLayout make_device_layout(const CompiledGraph& graph);

// The express ring capacities of `layout`, from its headers.
ExpressCounts express_counts(const DeviceLayout& layout);

// One chunk of a graph handed over in the device layout: tasks
// [first_task, first_task + task_count) and their successor entries
// [first_edge, first_edge + edge_count), which are exactly these tasks'
// lists, in task order. A header's succ_begin counts from the graph's first
// edge, not the chunk's.
struct LayoutChunk {
  int32_t first_task = 0;
  int32_t task_count = 0;
  int64_t first_edge = 0;
  int64_t edge_count = 0;
  TaskHeader* headers = nullptr;  // (task_count)
  TaskArgs* args = nullptr;       // (task_count)
  uint32_t* succs = nullptr;      // (edge_count)
};

// A producer's chunk being filled: `tasks` tasks and `edges` successor
// entries are in `buffers`, after the `first_task` tasks and `first_edge`
// entries of the chunks already handed over; flush() hands this one over
// (emit) and starts the next.
class ChunkFill {
 public:
  ChunkFill(LayoutChunk& buffers, const std::function<void(const LayoutChunk&)>& emit)
      : buffers(buffers), emit_(emit) {}

  void flush() {
    if (tasks == 0) return;
    buffers.first_task = int32_t(first_task);
    buffers.task_count = tasks;
    buffers.first_edge = first_edge;
    buffers.edge_count = edges;
    emit_(buffers);
    first_task += tasks;
    first_edge += edges;
    tasks = 0;
    edges = 0;
  }

  LayoutChunk& buffers;
  int64_t first_task = 0, first_edge = 0;
  int32_t tasks = 0;
  int64_t edges = 0;

 private:
  const std::function<void(const LayoutChunk&)>& emit_;
};

// A graph given in the device layout chunk by chunk, for graphs whose tasks
// and edges follow a formula and are too many to hold as a Graph on the
// host (the tile QR of a 16384² matrix has 45 million tasks). Successor
// lists and roots come in the order the executor wants them (highest
// critical-path priority first, as Graph::compile() sorts them).
//   DeviceGraph upload(stream, options, kernel);  DeviceLayout all = collect_layout(stream);
struct LayoutStream {
  int32_t num_tasks = 0;
  int64_t num_edges = 0;
  std::vector<int32_t> roots;
  bool has_block_tasks = false;
  int32_t num_classes = 1;        // 1 … max_priority_classes; the headers' classes are below it
  ExpressCounts express_tasks{};  // tasks of classes 0 … num_classes − 2 (checked by ChunkChecker)
  int32_t chunk_tasks = 0;  // capacity of a chunk's headers and args
  int64_t chunk_edges = 0;  // capacity of a chunk's successor entries
  // Fills `buffers` (pointers to the capacities above; the consumer owns
  // them) with one chunk after another, task 0 first, and calls
  // emit(buffers) after each; the buffers are reused for the next chunk.
  std::function<void(LayoutChunk& buffers, const std::function<void(const LayoutChunk&)>& emit)> produce;
};

// The same graph as a stream (chunks of at most `chunk_tasks` tasks), for
// DeviceGraph's one upload path.
LayoutStream layout_stream(DeviceLayout layout, bool has_block_tasks, int32_t chunk_tasks = 1 << 18);

// Checks what a consumer of `stream` relies on, chunk by chunk and then at
// the end; throws GraphError naming the first violation.
class ChunkChecker {
 public:
  explicit ChunkChecker(const LayoutStream& stream);
  // The chunk follows the previous one and is consistent: capacities,
  // successor ranges, task ids, teams.
  void check(const LayoutChunk& chunk);
  // Every task and edge came, the roots are tasks of the graph, and the
  // classes have the stream's express_tasks.
  void finish() const;

 private:
  const LayoutStream& stream_;
  int32_t next_task_ = 0;
  int64_t next_edge_ = 0;
  ExpressCounts express_seen_{};
};

// What every consumer of a stream does: runs it through `buffers`
// (capacities stream.chunk_tasks and stream.chunk_edges), checks each chunk
// before passing it to `consume`, and the totals at the end (ChunkChecker).
void consume_stream(const LayoutStream& stream, LayoutChunk& buffers,
                    const std::function<void(const LayoutChunk&)>& consume);
// The same through buffers in ordinary host memory.
void consume_stream(const LayoutStream& stream, const std::function<void(const LayoutChunk&)>& consume);

// Host bytes of the page-locked buffers DeviceGraph uploads a stream
// through: a chunk's headers, arguments, counters and successor entries.
uint64_t chunk_buffer_bytes(int32_t chunk_tasks, int64_t chunk_edges);

// Runs `stream` into host vectors, checked as DeviceGraph checks it.
DeviceLayout collect_layout(const LayoutStream& stream);

// Element counts of the device arrays a DeviceGraph allocates (none when
// the graph has no tasks), and their bytes: what DeviceGraph allocates is
// exactly this (each cudaMalloc is then rounded up by the driver).
struct DeviceGraphArrays {
  int64_t headers = 0;           // TaskHeader
  int64_t succs = 0;             // uint32_t
  int64_t roots = 0;             // int32_t
  int64_t remaining = 0;         // int32_t: this run's counters
  int64_t initial_remaining = 0; // int32_t: the counters' start values, copied in between runs
  int64_t args = 0;              // TaskArgs
  int64_t slots = 0;             // unsigned long long: the ticket ring, num_tasks + workers, then the express rings'
  int64_t run_counters = 0;      // RunCounters
  int64_t trace = 0;             // TraceEvent when tracing
  uint64_t bytes() const;
};
// `express_slots` is the sum of the stream's express_tasks.
DeviceGraphArrays device_graph_arrays(int64_t num_tasks, int64_t num_edges, int64_t num_roots, int64_t workers,
                                      bool trace, int64_t express_slots = 0);

}  // namespace tiledqr::taskgraph
