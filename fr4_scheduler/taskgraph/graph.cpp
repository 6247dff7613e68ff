// The task-graph library's host side (graph.hpp): tasks, stated and
// inferred edges, DOT output, and compile() — validation, successor lists
// in CSR and critical-path priorities. No CUDA: the CPU tests compile it.
#include "graph.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>
#include <unordered_map>

#include "errors.hpp"
#include "scheduler_core.hpp"

namespace tiledqr::taskgraph {

namespace {

std::string quoted(const std::string& name) { return "'" + name + "'"; }

// Names of tasks on a list, at most `limit` of them, "a -> b -> c".
std::string name_path(const std::vector<int32_t>& tasks, const CompiledGraph& g, size_t limit) {
  std::string out;
  for (size_t k = 0; k < tasks.size() && k < limit; ++k) {
    if (k > 0) out += " -> ";
    out += quoted(g.task_name(tasks[k]));
  }
  if (tasks.size() > limit) out += " -> … (" + std::to_string(tasks.size() - limit) + " more)";
  return out;
}

std::string dot_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

TaskHandle& TaskHandle::name(const std::string& text) {
  if (graph_ == nullptr) throw GraphError("name() on an empty TaskHandle");
  if (id_ < 0 || id_ >= graph_->size()) {
    graph_->note_problem("name " + quoted(text) + " given to task " + std::to_string(id_) +
                         ", which does not exist");
    return *this;
  }
  graph_->names_[id_] = text;
  return *this;
}

void TaskHandle::add_edge_to(const TaskHandle& other) { connect(other, true); }

void TaskHandle::add_edge_from(const TaskHandle& other) { connect(other, false); }

// An edge from this task to `other` (forward) or from `other` to this task;
// a handle of another graph or none is noted as a dangling edge.
void TaskHandle::connect(const TaskHandle& other, bool forward) {
  if (graph_ == nullptr) throw GraphError(std::string(forward ? "precede()" : "succeed()") + " on an empty TaskHandle");
  if (other.graph_ != graph_) {
    graph_->note_problem("dangling edge: " + quoted(graph_->task_name(id_)) + (forward ? " precedes " : " succeeds ") +
                         (other.graph_ == nullptr ? std::string("an empty task handle")
                                                  : "task " + std::to_string(other.id_) + " of another graph"));
    return;
  }
  if (forward) graph_->add_edge(id_, other.id_);
  else graph_->add_edge(other.id_, id_);
}

TaskHandle& TaskHandle::reads(int64_t object) {
  if (graph_ == nullptr) throw GraphError("reads() on an empty TaskHandle");
  graph_->add_access(id_, object, false);
  return *this;
}

TaskHandle& TaskHandle::writes(int64_t object) {
  if (graph_ == nullptr) throw GraphError("writes() on an empty TaskHandle");
  graph_->add_access(id_, object, true);
  return *this;
}

std::string CompiledGraph::task_name(int32_t id) const {
  if (id < 0 || id >= num_tasks()) return "task " + std::to_string(id) + " (not in the graph)";
  const auto named = names.find(id);
  if (named != names.end()) return named->second;
  return kind_names[size_t(kind[size_t(id)])] + "#" + std::to_string(id);
}

bool CompiledGraph::has_block_tasks() const {
  return std::any_of(team.begin(), team.end(), [](Team t) { return t == Team::block; });
}

void Graph::define_kind(int32_t kind, const std::string& name, Team team) {
  if (kind < 0 || kind > 65535)
    throw GraphError("kind id " + std::to_string(kind) + " is outside 0..65535");
  if (size_t(kind) >= kinds_.size()) kinds_.resize(size_t(kind) + 1);
  kinds_[size_t(kind)] = KindInfo{name, team, true};
}

TaskHandle Graph::add_task(int32_t kind, const TaskArgs& args) {
  if (kind < 0 || size_t(kind) >= kinds_.size() || !kinds_[size_t(kind)].defined)
    throw GraphError("task " + std::to_string(size()) + " has kind " + std::to_string(kind) +
                     ", which was never defined (Graph::define_kind)");
  if (size() >= max_tasks) throw GraphError("a graph holds at most " + std::to_string(max_tasks) + " tasks");
  kind_.push_back(kind);
  args_.push_back(args);
  return TaskHandle(this, size() - 1);
}

void Graph::set_priority_classes(int32_t count) {
  if (count < 1 || count > max_priority_classes)
    throw GraphError("priority classes must be 1 .. " + std::to_string(max_priority_classes) + ", got " +
                     std::to_string(count));
  priority_classes_ = count;
}

void Graph::add_edge(int32_t before, int32_t after) { stated_edges_.emplace_back(before, after); }

void Graph::add_access(int32_t task, int64_t object, bool write) {
  accesses_.push_back(Access{task, object, write});
}

std::string Graph::task_name(int32_t id) const {
  if (id < 0 || id >= size()) return "task " + std::to_string(id) + " (not in the graph)";
  const auto named = names_.find(id);
  if (named != names_.end()) return named->second;
  return kinds_[size_t(kind_[size_t(id)])].name + "#" + std::to_string(id);
}

std::vector<std::pair<int32_t, int32_t>> Graph::edges() const {
  std::vector<std::pair<int32_t, int32_t>> out = stated_edges_;

  // Inferred edges: walk the accesses in task order; per object keep the
  // last writer and the readers since.
  std::vector<Access> accesses;
  accesses.reserve(accesses_.size());
  for (const Access& a : accesses_)
    if (a.task >= 0 && a.task < size()) accesses.push_back(a);
  std::stable_sort(accesses.begin(), accesses.end(), [](const Access& x, const Access& y) {
    if (x.task != y.task) return x.task < y.task;
    if (x.object != y.object) return x.object < y.object;
    return x.write > y.write;  // a write first: read+write of one object is a write
  });
  struct ObjectState {
    int32_t last_writer = -1;
    std::vector<int32_t> readers;
  };
  std::unordered_map<int64_t, ObjectState> objects;
  for (size_t k = 0; k < accesses.size(); ++k) {
    const Access& a = accesses[k];
    if (k > 0 && accesses[k - 1].task == a.task && accesses[k - 1].object == a.object) continue;
    ObjectState& s = objects[a.object];
    if (s.last_writer >= 0 && s.last_writer != a.task) out.emplace_back(s.last_writer, a.task);
    if (a.write) {
      for (const int32_t r : s.readers)
        if (r != a.task) out.emplace_back(r, a.task);
      s.readers.clear();
      s.last_writer = a.task;
    } else {
      s.readers.push_back(a.task);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void Graph::dump(std::ostream& out) const {
  out << "digraph fr4_graph {\n";
  for (int32_t t = 0; t < size(); ++t) {
    const KindInfo& k = kinds_[size_t(kind_[size_t(t)])];
    out << "  t" << t << " [label=\"" << dot_escape(task_name(t)) << "\"";
    if (k.team == Team::block) out << ", shape=box";
    out << "];\n";
  }
  for (const auto& e : edges()) {
    if (e.first < 0 || e.first >= size() || e.second < 0 || e.second >= size()) continue;
    out << "  t" << e.first << " -> t" << e.second << ";\n";
  }
  out << "}\n";
}

std::string Graph::dump() const {
  std::ostringstream out;
  dump(out);
  return out.str();
}

CompiledGraph Graph::compile() const {
  const int32_t n = size();
  std::vector<std::string> problems = problems_;
  for (const auto& e : stated_edges_) {
    const bool from_ok = e.first >= 0 && e.first < n, to_ok = e.second >= 0 && e.second < n;
    if (!from_ok || !to_ok)
      problems.push_back("dangling edge: " + quoted(task_name(e.first)) + " -> " +
                         quoted(task_name(e.second)));
  }
  for (const Access& a : accesses_)
    if (a.task < 0 || a.task >= n)
      problems.push_back("access to object " + std::to_string(a.object) + " declared by task " +
                         std::to_string(a.task) + ", which does not exist");
  if (!problems.empty()) {
    std::string text = "graph cannot run: " + problems.front();
    for (size_t k = 1; k < problems.size() && k < 10; ++k) text += "; " + problems[k];
    if (problems.size() > 10) text += "; … (" + std::to_string(problems.size() - 10) + " more)";
    throw GraphError(text);
  }

  CompiledGraph g;
  g.kind = kind_;
  g.args = args_;
  g.names = names_;
  for (const KindInfo& k : kinds_) g.kind_names.push_back(k.name);
  g.team.resize(size_t(n));
  for (int32_t t = 0; t < n; ++t) g.team[size_t(t)] = kinds_[size_t(kind_[size_t(t)])].team;

  const std::vector<std::pair<int32_t, int32_t>> edge_list = edges();
  for (const auto& e : edge_list)
    if (e.first == e.second)
      throw GraphError("graph has a cycle: " + quoted(g.task_name(e.first)) + " -> " +
                       quoted(g.task_name(e.first)));

  // CSR of successors (edge_list is sorted by source) and of predecessors.
  g.succ_offsets.assign(size_t(n) + 1, 0);
  g.pred_count.assign(size_t(n), 0);
  for (const auto& e : edge_list) {
    ++g.succ_offsets[size_t(e.first) + 1];
    ++g.pred_count[size_t(e.second)];
  }
  for (int32_t t = 0; t < n; ++t) g.succ_offsets[size_t(t) + 1] += g.succ_offsets[size_t(t)];
  g.succs.resize(edge_list.size());
  for (size_t k = 0; k < edge_list.size(); ++k) g.succs[k] = edge_list[k].second;

  // Kahn's algorithm: a topological order, or the tasks left on cycles.
  std::vector<int32_t> order;
  order.reserve(size_t(n));
  std::vector<int32_t> waiting = g.pred_count;
  for (int32_t t = 0; t < n; ++t)
    if (waiting[size_t(t)] == 0) order.push_back(t);
  for (size_t head = 0; head < order.size(); ++head) {
    const int32_t t = order[head];
    for (int64_t e = g.succ_offsets[size_t(t)]; e < g.succ_offsets[size_t(t) + 1]; ++e)
      if (--waiting[size_t(g.succs[size_t(e)])] == 0) order.push_back(g.succs[size_t(e)]);
  }
  if (order.size() < size_t(n)) {
    // Every task left has a predecessor that is left too: walking backwards
    // through such predecessors must revisit a task, closing a cycle.
    std::vector<int64_t> pred_offsets(size_t(n) + 1, 0);
    for (const auto& e : edge_list) ++pred_offsets[size_t(e.second) + 1];
    for (int32_t t = 0; t < n; ++t) pred_offsets[size_t(t) + 1] += pred_offsets[size_t(t)];
    std::vector<int32_t> preds(edge_list.size());
    std::vector<int64_t> fill(pred_offsets.begin(), pred_offsets.end() - 1);
    for (const auto& e : edge_list) preds[size_t(fill[size_t(e.second)]++)] = e.first;
    int32_t start = 0;
    while (waiting[size_t(start)] == 0) ++start;
    std::vector<int32_t> step_of(size_t(n), -1);
    std::vector<int32_t> walk;
    int32_t t = start;
    while (step_of[size_t(t)] < 0) {
      step_of[size_t(t)] = static_cast<int32_t>(walk.size());
      walk.push_back(t);
      int32_t next = -1;
      for (int64_t e = pred_offsets[size_t(t)]; e < pred_offsets[size_t(t) + 1]; ++e)
        if (waiting[size_t(preds[size_t(e)])] > 0) {
          next = preds[size_t(e)];
          break;
        }
      t = next;
    }
    std::vector<int32_t> cycle(walk.begin() + step_of[size_t(t)], walk.end());
    std::reverse(cycle.begin(), cycle.end());  // the walk went against the edges
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    cycle.push_back(cycle.front());  // from its first-added task back to it
    throw GraphError("graph has a cycle: " + name_path(cycle, g, 12) + " (" +
                     std::to_string(size_t(n) - order.size()) + " tasks cannot run)");
  }

  // Critical-path priority: tasks on the longest path to a sink.
  g.priority.assign(size_t(n), 1);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int32_t t = *it;
    for (int64_t e = g.succ_offsets[size_t(t)]; e < g.succ_offsets[size_t(t) + 1]; ++e)
      g.priority[size_t(t)] = std::max(g.priority[size_t(t)], g.priority[size_t(g.succs[size_t(e)])] + 1);
  }
  const auto by_priority = [&g](int32_t a, int32_t b) {
    if (g.priority[size_t(a)] != g.priority[size_t(b)]) return g.priority[size_t(a)] > g.priority[size_t(b)];
    return a < b;
  };
  for (int32_t t = 0; t < n; ++t)
    std::sort(g.succs.begin() + g.succ_offsets[size_t(t)], g.succs.begin() + g.succ_offsets[size_t(t) + 1],
              by_priority);
  for (int32_t t = 0; t < n; ++t)
    if (g.pred_count[size_t(t)] == 0) g.roots.push_back(t);
  std::sort(g.roots.begin(), g.roots.end(), by_priority);

  // Priority classes: buckets of (top − priority) / top, the most urgent first.
  g.num_classes = priority_classes_;
  g.priority_class.assign(size_t(n), 0);
  const int64_t top = n > 0 ? *std::max_element(g.priority.begin(), g.priority.end()) : 1;
  for (int32_t t = 0; t < n; ++t) {
    const int64_t bucket = int64_t(g.num_classes) * (top - g.priority[size_t(t)]) / top;
    g.priority_class[size_t(t)] = static_cast<uint8_t>(std::min<int64_t>(bucket, g.num_classes - 1));
  }
  return g;
}

}  // namespace tiledqr::taskgraph
