// The host side of the FR4 scheduler (docs/design.md §9): a task graph in the
// spirit of Taskflow. Register the kinds your executor's functor knows, add
// tasks with their argument blocks, and either state edges (precede /
// succeed) or declare which data objects each task reads and writes and let
// compile() infer the edges in insertion order (read-after-write,
// write-after-read, write-after-write), as PLASMA's dynamic scheduler does.
//
//   Graph g;
//   g.define_kind(0, "scale");
//   TaskHandle a = g.add(0, ScaleArgs{x, 2.0}).name("scale x");
//   TaskHandle b = g.add(0, ScaleArgs{y, 3.0}).name("scale y");
//   a.precede(b);                       // or: a.writes(1); b.reads(1);
//   g.dump(std::cout);                  // DOT
//   CompiledGraph c = g.compile();      // throws GraphError on a cycle
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "task_args.hpp"

namespace tiledqr::taskgraph {

// Who runs a task of a kind: one warp (32 threads), or every thread of one
// block of the persistent kernel (ExecOptions::warps_per_block warps).
enum class Team : uint8_t { warp = 0, block = 1 };

// A graph that cannot run: a cycle, an edge to a task that does not exist,
// an unknown kind. The message names the tasks.
struct GraphError : InputError {
  explicit GraphError(const std::string& what) : InputError(what) {}
};

class Graph;

// A task of a Graph. Cheap to copy; valid while its Graph lives.
class TaskHandle {
 public:
  TaskHandle() = default;

  // The task's index: tasks are numbered 0, 1, … in the order they were added.
  int32_t id() const { return id_; }

  // Names the task in DOT output and error messages.
  //   g.add(0, args).name("load tile 3");
  TaskHandle& name(const std::string& text);

  // This task runs before each of `others`.
  //   a.precede(b, c);   // a → b, a → c
  template <class... Handles>
  TaskHandle& precede(const TaskHandle& other, const Handles&... others) {
    add_edge_to(other);
    (add_edge_to(others), ...);
    return *this;
  }

  // This task runs after each of `others`.
  //   d.succeed(b, c);   // b → d, c → d
  template <class... Handles>
  TaskHandle& succeed(const TaskHandle& other, const Handles&... others) {
    add_edge_from(other);
    (add_edge_from(others), ...);
    return *this;
  }

  // Declares a read of data object `object` (any id the caller chooses).
  //   t.reads(tile_id(i, k)).writes(tile_id(i, j));
  TaskHandle& reads(int64_t object);
  // Declares a write (read-modify-write) of data object `object`.
  TaskHandle& writes(int64_t object);

 private:
  friend class Graph;
  TaskHandle(Graph* graph, int32_t id) : graph_(graph), id_(id) {}
  void add_edge_to(const TaskHandle& other);
  void add_edge_from(const TaskHandle& other);
  void connect(const TaskHandle& other, bool forward);

  Graph* graph_ = nullptr;
  int32_t id_ = -1;
};

// A validated graph in the layout the executor uploads: successors in CSR,
// each task's successors and the roots sorted by critical-path priority
// (highest first), so the device needs no priority queue.
struct CompiledGraph {
  std::vector<int32_t> kind;          // per task
  std::vector<Team> team;             // per task, from its kind
  std::vector<TaskArgs> args;         // per task
  std::vector<int64_t> succ_offsets;  // successors of t: succs[succ_offsets[t] .. succ_offsets[t+1])
  std::vector<int32_t> succs;
  std::vector<int32_t> pred_count;    // predecessors per task
  std::vector<int32_t> priority;      // tasks on the longest path from t to a sink, t included
  std::vector<int32_t> roots;         // tasks without predecessors
  int32_t num_classes = 1;            // priority classes (Graph::set_priority_classes)
  std::vector<uint8_t> priority_class;  // per task: 0 (most urgent) … num_classes − 1
  std::vector<std::string> kind_names;            // by kind id
  std::unordered_map<int32_t, std::string> names;  // tasks given a name

  int32_t num_tasks() const { return static_cast<int32_t>(kind.size()); }
  // The task's name, or "<kind name>#<id>".
  std::string task_name(int32_t id) const;
  int64_t num_edges() const { return static_cast<int64_t>(succs.size()); }
  bool has_block_tasks() const;
};

class Graph {
 public:
  // Largest task count: one id is reserved for the executor's exit marker.
  static constexpr int32_t max_tasks = 0x7ffffffe;

  // Registers kind id `kind` (0 ≤ kind < 65536) under `name`; tasks of it
  // run on a warp or a whole block.
  //   g.define_kind(3, "tsmqr");
  void define_kind(int32_t kind, const std::string& name, Team team = Team::warp);

  // Adds a task of a registered kind with argument block `args` (trivially
  // copyable, at most task_arg_bytes bytes). Throws GraphError for an
  // unregistered kind.
  //   TaskHandle t = g.add(kScale, ScaleArgs{ptr, 2.0});
  template <class A>
  TaskHandle add(int32_t kind, const A& args) {
    return add_task(kind, TaskArgs::of(args));
  }
  TaskHandle add_task(int32_t kind, const TaskArgs& args);

  // The handle of task `id` (checked when the graph is compiled).
  TaskHandle task(int32_t id) { return TaskHandle(this, id); }

  // Edge by ids: `before` runs before `after`. Ids outside the graph are
  // reported by compile() as dangling edges.
  void add_edge(int32_t before, int32_t after);
  // Data access by id (see TaskHandle::reads / writes).
  void add_access(int32_t task, int64_t object, bool write);

  int32_t size() const { return static_cast<int32_t>(kind_.size()); }
  // The task's name, or "<kind name>#<id>" when it has none.
  std::string task_name(int32_t id) const;

  // Ranks the tasks into `count` priority classes (1 … 4; default 1) by
  // critical path: of the longest priority `top`, a task of priority p
  // joins class ⌊count·(top − p)/top⌋. A ready task of a lower class runs
  // before those of higher classes queued earlier (scheduler_core.hpp).
  // Throws GraphError for a count outside 1 … 4.
  //   g.set_priority_classes(4);
  void set_priority_classes(int32_t count);

  // Writes the graph (stated and inferred edges) in Graphviz DOT. Works on
  // graphs compile() would reject, to show what is wrong.
  //   g.dump(std::cout);
  void dump(std::ostream& out) const;
  std::string dump() const;

  // Validates and lays the graph out for an executor. Throws GraphError
  // naming the tasks of a cycle or of a dangling edge.
  //   CompiledGraph c = g.compile();
  CompiledGraph compile() const;

 private:
  friend class TaskHandle;
  struct Access {
    int32_t task;
    int64_t object;
    bool write;
  };
  struct KindInfo {
    std::string name;
    Team team = Team::warp;
    bool defined = false;
  };

  // Stated plus inferred edges, sorted, without duplicates; self-edges kept.
  std::vector<std::pair<int32_t, int32_t>> edges() const;
  void note_problem(const std::string& text) { problems_.push_back(text); }

  std::vector<KindInfo> kinds_;
  std::vector<int32_t> kind_;
  std::vector<TaskArgs> args_;
  std::unordered_map<int32_t, std::string> names_;  // only tasks given a name
  std::vector<std::pair<int32_t, int32_t>> stated_edges_;
  std::vector<Access> accesses_;
  std::vector<std::string> problems_;  // dangling handles, reported by compile()
  int32_t priority_classes_ = 1;
};

}  // namespace tiledqr::taskgraph
