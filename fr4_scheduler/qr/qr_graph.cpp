// The tiled QR's FR4 task graph from the closed form (qr_graph.hpp): one
// sweep over the eliminations of each panel writes headers, argument
// blocks and priority-ordered successor lists into the consumer's chunk
// buffers.
#include "qr_graph.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "errors.hpp"
#include "qr_dag_arrays.hpp"
#include "size_check.hpp"
#include "taskgraph/concatenated_stream.hpp"

namespace tiledqr::gpu {
namespace {

using taskgraph::LayoutChunk;
using taskgraph::Team;

std::string graph_text(const qr_dag::Shape& s) {
  return "the QR task graph of " + std::to_string(s.p) + " x " + std::to_string(s.q) + " tiles (" +
         tree_name(s.tree) + " tree)";
}

// Tasks without predecessors: the geqrt of panel 0 on each top row — row 0
// in the flat tree, every tile row in the binary and greedy ones, each
// domain's first in the hierarchical one (build_qr_dag_arrays' roots).
int64_t root_count(const qr_dag::Shape& s) { return qr_dag::detail::top_rows(s, s.p); }

// Capacity of a chunk of at most `chunk_tasks` tasks: a chunk holds whole
// eliminations (at most 3 successors a task: c for the factor task, 2 for
// each of its c − 1 updates) and parts of two, so at most 3 per task and
// one factor task's q more.
struct ChunkCapacity {
  int32_t tasks;
  int64_t edges;
};
ChunkCapacity chunk_capacity(const qr_dag::Shape& s, int64_t edges, int32_t chunk_tasks) {
  const int32_t tasks = int32_t(std::min<int64_t>(chunk_tasks, s.num_tasks));
  return ChunkCapacity{tasks, std::min<int64_t>(3 * int64_t(tasks) + s.q, edges)};
}

taskgraph::TaskArgs task_args(const Task& t) {
  QrTaskArgs a;
  std::memset(static_cast<void*>(&a), 0, sizeof a);  // padding too: equal tasks give equal bytes
  a.task.kind = t.kind;
  a.task.k = t.k;
  a.task.i = t.i;
  a.task.j = t.j;
  a.task.piv = t.piv;
  a.transpose = 1;
  return taskgraph::TaskArgs::of(a);
}

// Sets the tile column j of the task in an argument block of task_args.
void set_column(taskgraph::TaskArgs& args, int32_t j) {
  std::memcpy(args.bytes + offsetof(QrTaskArgs, task) + offsetof(Task, j), &j, sizeof j);
}

// Writes the chunks of one graph into the consumer's buffers.
class ChunkWriter {
 public:
  ChunkWriter(const qr_dag::Shape& shape, Team team, const QrDagArrays& arrays, int32_t chunk_tasks,
              int64_t chunk_edges, LayoutChunk& buffers, const std::function<void(const LayoutChunk&)>& emit)
      : shape_(shape), team_(team), count_(arrays.pred_count.data()), priority_(arrays.priority.data()),
        class_(arrays.priority_class.empty() ? nullptr : arrays.priority_class.data()), chunk_tasks_(chunk_tasks), chunk_edges_(chunk_edges), fill_(buffers, emit) {}

  void run() {
    for (int32_t k = 0; k < shape_.steps; ++k) {
      const int64_t base = qr_dag::step_begin(shape_, k), next_base = qr_dag::step_begin(shape_, k + 1);
      const int32_t elims = qr_dag::detail::num_elims(shape_, shape_.p - k);
      for (int32_t e = 0; e < elims; ++e) eliminate(k, e, elim_ids(shape_, k, e, base, next_base));
    }
    fill_.flush();
  }

 private:
  // The factor task of elimination e of panel k and its update of each
  // later tile column: ids ids.self + u, u = 0 … q − k − 1.
  void eliminate(int32_t k, int32_t e, const ElimIds& ids) {
    const int64_t c = shape_.q - k;
    const Task factor = qr_dag::task_at(shape_, qr_dag::Coord{k, e, 0});
    const Task update = c > 1 ? qr_dag::task_at(shape_, qr_dag::Coord{k, e, 1}) : factor;
    // The argument blocks, built once: the updates differ only in the column.
    const taskgraph::TaskArgs factor_args = task_args(factor);
    taskgraph::TaskArgs update_args = task_args(update);
    for (int64_t u = 0; u < c; ++u) {
      uint32_t* list = begin_task(u == 0 ? (c - 1) + (ids.next >= 0) : (ids.next >= 0) + (ids.below >= 0));
      int32_t degree = 0;
      if (u == 0) {  // its updates, then the next elimination on its row
        for (int64_t v = 1; v < c; ++v) list[degree++] = uint32_t(ids.self + v);
        sort_by_priority(list, degree);
        if (ids.next >= 0) insert_by_priority(list, degree++, uint32_t(ids.next));
      } else {
        if (ids.next >= 0) list[degree++] = uint32_t(ids.next + u);
        if (ids.below >= 0) list[degree++] = uint32_t(ids.below + u);
        sort_by_priority(list, degree);
      }
      if (u == 0) {
        end_task(factor.kind, factor_args, list, degree);
      } else {
        set_column(update_args, int32_t(k + u));
        end_task(update.kind, update_args, list, degree);
      }
    }
  }

  // Room for a task with `degree` successors: a new chunk when this one is full.
  uint32_t* begin_task(int64_t degree) {
    if (fill_.tasks == chunk_tasks_ || fill_.edges + degree > chunk_edges_) fill_.flush();
    if (degree > chunk_edges_)
      throw std::logic_error(graph_text(shape_) + ": a task has " + std::to_string(degree) +
                             " successors, more than a chunk holds (" + std::to_string(chunk_edges_) + ")");
    return fill_.buffers.succs + fill_.edges;
  }

  // Whether task a comes before task b in a successor list: the order of
  // Graph::compile() (priority high to low, then id).
  bool before(uint32_t a, uint32_t b) const {
    return priority_[a] != priority_[b] ? priority_[a] > priority_[b] : a < b;
  }

  // A factor task's updates usually come in priority order already (one
  // less a column), so this is mostly the one pass that checks it.
  void sort_by_priority(uint32_t* list, int32_t n) const {
    const auto order = [this](uint32_t a, uint32_t b) { return before(a, b); };
    if (!std::is_sorted(list, list + n, order)) std::sort(list, list + n, order);
  }

  // `task` into list[0 .. n] in order, list[0 .. n) being sorted.
  void insert_by_priority(uint32_t* list, int32_t n, uint32_t task) const {
    uint32_t* at = std::upper_bound(list, list + n, task, [this](uint32_t a, uint32_t b) { return before(a, b); });
    std::memmove(at + 1, at, size_t(list + n - at) * sizeof(uint32_t));
    *at = task;
  }

  // The task, its successors in `list` already ordered: entries, header, arguments.
  void end_task(TaskKind kind, const taskgraph::TaskArgs& args, uint32_t* list, int32_t degree) {
    for (int32_t s = 0; s < degree; ++s) list[s] = taskgraph::successor_entry(int32_t(list[s]), count_[list[s]]);
    const int64_t id = fill_.first_task + fill_.tasks;
    fill_.buffers.headers[fill_.tasks] = taskgraph::make_task_header(
        int32_t(kind), team_, count_[id], int32_t(fill_.first_edge + fill_.edges), degree, degree > 0 ? list[0] : 0u,
        class_ ? class_[id] : 0);
    fill_.buffers.args[fill_.tasks] = args;
    ++fill_.tasks;
    fill_.edges += degree;
  }

  const qr_dag::Shape shape_;
  const Team team_;
  const uint8_t* count_;
  const int32_t* priority_;
  const uint8_t* class_;  // null: one class
  const int32_t chunk_tasks_;
  const int64_t chunk_edges_;
  taskgraph::ChunkFill fill_;  // the chunk being filled
};

}  // namespace

qr_dag::Shape qr_graph_shape(int64_t p, int64_t q, Tree tree, int32_t domains) {
  return qr_dag::make_shape(p, q, tree, domains);
}

taskgraph::LayoutStream qr_factor_graph(int64_t p, int64_t q, Tree tree, int32_t domains, Team team,
                                        int32_t chunk_tasks, uint64_t host_memory_limit, int32_t priority_classes) {
  if (chunk_tasks < 1) throw InputError("qr_factor_graph: chunk_tasks must be >= 1");
  const qr_dag::Shape shape = qr_graph_shape(p, q, tree, domains);
  const int64_t edges = count_edges(shape);
  if (shape.num_tasks > taskgraph::Graph::max_tasks || edges > taskgraph::max_edges)
    throw InputError(graph_text(shape) + " has " + std::to_string(shape.num_tasks) + " tasks and " +
                     std::to_string(edges) + " edges; the task-graph executor's 32-bit ids hold at most " +
                     std::to_string(taskgraph::Graph::max_tasks) + " tasks and " +
                     std::to_string(taskgraph::max_edges) + " edges (a larger tile has fewer)");
  auto arrays =
      std::make_shared<const QrDagArrays>(build_qr_dag_arrays(shape, host_memory_limit, priority_classes));

  taskgraph::LayoutStream out;
  out.num_tasks = int32_t(shape.num_tasks);
  out.num_edges = edges;
  out.roots.assign(arrays->roots.begin(), arrays->roots.end());
  out.has_block_tasks = team == Team::block;
  out.num_classes = arrays->num_classes;
  for (const uint8_t c : arrays->priority_class)
    if (int32_t(c) + 1 < out.num_classes) ++out.express_tasks[c];
  const ChunkCapacity capacity = chunk_capacity(shape, edges, chunk_tasks);
  out.chunk_tasks = capacity.tasks;
  out.chunk_edges = capacity.edges;
  out.produce = [shape, team, arrays, chunk_tasks = out.chunk_tasks, chunk_edges = out.chunk_edges](
                    LayoutChunk& buffers, const std::function<void(const LayoutChunk&)>& emit) {
    ChunkWriter(shape, team, *arrays, chunk_tasks, chunk_edges, buffers, emit).run();
  };
  return out;
}

int32_t QrBatchGrid::member_of_column(int64_t column) const {
  if (column < 0 || column >= q) throw InputError("the batch's grid has no tile column " + std::to_string(column));
  return int32_t(std::upper_bound(first_column.begin(), first_column.end(), column) - first_column.begin()) - 1;
}

QrBatchGrid qr_batch_grid(const std::vector<QrBatchMember>& members) {
  if (members.empty()) throw InputError("a batch of QR factorisations needs at least one matrix");
  QrBatchGrid g;
  for (const QrBatchMember& m : members) {
    if (m.p < 1 || m.q < 1)
      throw InputError("a matrix of a batch has " + std::to_string(m.p) + " x " + std::to_string(m.q) +
                       " tiles; each needs at least one");
    g.first_column.push_back(g.q);
    g.p = std::max(g.p, m.p);
    g.q += m.q;
  }
  return g;
}

taskgraph::LayoutStream qr_batch_graph(const std::vector<QrBatchMember>& members, Team team, int32_t chunk_tasks,
                                       uint64_t host_memory_limit, int32_t priority_classes) {
  if (chunk_tasks < 1) throw InputError("qr_batch_graph: chunk_tasks must be >= 1");
  const QrBatchGrid grid = qr_batch_grid(members);
  if (grid.q > std::numeric_limits<int32_t>::max())
    throw InputError("a batch's grid of " + std::to_string(grid.q) +
                     " tile columns is more than a task's 32-bit tile indices hold (split the batch)");
  // Before anything is built: the shapes, the sizes of the ids, the arrays' memory.
  int64_t tasks = 0, edges = 0;
  uint64_t bytes = 0;
  for (const QrBatchMember& m : members) {
    const qr_dag::Shape shape = qr_graph_shape(m.p, m.q, m.tree, m.domains);
    tasks += shape.num_tasks;
    edges += count_edges(shape);
    bytes += qr_dag_arrays_bytes(shape, priority_classes);
    if (tasks > taskgraph::Graph::max_tasks || edges > taskgraph::max_edges)
      throw InputError("a batch of " + std::to_string(members.size()) + " QR task graphs has more than " +
                       std::to_string(taskgraph::Graph::max_tasks) + " tasks or " +
                       std::to_string(taskgraph::max_edges) +
                       " edges, more than the task-graph executor's 32-bit ids hold (split the batch)");
  }
  const uint64_t allowed = host_memory_limit != 0 ? host_memory_limit : physical_memory_bytes();
  if (bytes > allowed)
    throw InputError("a batch of " + std::to_string(members.size()) + " QR task graphs needs " +
                     format_bytes(double(bytes)) + " of host memory, " + format_bytes(double(allowed)) +
                     (host_memory_limit != 0 ? " allowed" : " available"));
  std::vector<taskgraph::LayoutStream> streams;
  streams.reserve(members.size());
  for (const QrBatchMember& m : members)
    streams.push_back(qr_factor_graph(m.p, m.q, m.tree, m.domains, team, chunk_tasks, 0, priority_classes));
  // Member b's tile columns start at first_column[b]: k and j are tile columns.
  const auto shift = [first = grid.first_column](int32_t member, taskgraph::TaskArgs& args) {
    QrTaskArgs a = args.as<QrTaskArgs>();
    a.task.k += int32_t(first[size_t(member)]);
    a.task.j += int32_t(first[size_t(member)]);
    args = taskgraph::TaskArgs::of(a);
  };
  return taskgraph::concatenate_streams(std::move(streams), shift, chunk_tasks);
}

uint64_t qr_graph_host_bytes(int64_t p, int64_t q, Tree tree, int32_t domains, int32_t chunk_tasks,
                             int32_t priority_classes) {
  const qr_dag::Shape shape = qr_graph_shape(p, q, tree, domains);
  const ChunkCapacity capacity = chunk_capacity(shape, count_edges(shape), chunk_tasks);
  return qr_dag_arrays_bytes(shape, priority_classes) + taskgraph::chunk_buffer_bytes(capacity.tasks, capacity.edges);
}

uint64_t qr_graph_device_bytes(int64_t p, int64_t q, Tree tree, int32_t domains, int64_t workers, bool trace,
                               int32_t priority_classes) {
  const qr_dag::Shape shape = qr_graph_shape(p, q, tree, domains);
  const int64_t express = priority_classes > 1 ? shape.num_tasks : 0;
  return taskgraph::device_graph_arrays(shape.num_tasks, count_edges(shape), root_count(shape), workers, trace,
                                        express)
      .bytes();
}

}  // namespace tiledqr::gpu
