// Runs the task grid under a random schedule and checks it against the
// flat-tree DAG: every DAG task issued exactly once, no edge violated
// (a task is issued only after all its predecessors completed), and the
// grid ends finished. Several tasks may be "running" at once, so the
// schedule exercises the orders concurrent workers can produce.
#pragma once

#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "dag.hpp"
#include "host_task_grid.hpp"

namespace tiledqr::testing {

inline std::tuple<int, int, int, int, int> task_key(const Task& t) {
  return {int(t.kind), t.k, t.i, t.j, t.piv};
}

inline std::string describe(const Task& t) {
  return std::string(task_kind_name(t.kind)) + "(k=" + std::to_string(t.k) + ",i=" +
         std::to_string(t.i) + ",j=" + std::to_string(t.j) + ")";
}

// Returns the first problem found, or nothing when the schedule is valid.
inline std::optional<std::string> check_random_grid_schedule(int32_t p, int32_t q,
                                                             bool seed_rules_only,
                                                             std::mt19937_64& engine) {
  const Dag dag = build_qr_dag(p, q, Tree::flat);
  std::map<std::tuple<int, int, int, int, int>, int32_t> id_of;
  for (int32_t t = 0; t < dag.num_tasks(); ++t) id_of[task_key(dag.tasks[t])] = t;

  HostTaskGrid owner(p, q, seed_rules_only);
  TaskGrid& grid = owner.grid();
  std::vector<Task> ready, running;
  std::vector<int> issued(dag.tasks.size(), 0), completed(dag.tasks.size(), 0);
  std::optional<std::string> problem;
  auto emit = [&](const Task& t) { ready.push_back(t); };
  grid.start(emit);
  while (!problem && (!ready.empty() || !running.empty())) {
    const bool issue = !ready.empty() && (running.empty() || engine() % 2 == 0);
    std::vector<Task>& from = issue ? ready : running;
    const size_t pick = engine() % from.size();
    const Task t = from[pick];
    from[pick] = from.back();
    from.pop_back();
    const auto found = id_of.find(task_key(t));
    if (found == id_of.end()) return "grid issued a task the DAG lacks: " + describe(t);
    const int32_t id = found->second;
    if (issue) {
      if (issued[id]++) return "task issued twice: " + describe(t);
      for (int64_t e = dag.pred_offsets[id]; e < dag.pred_offsets[id + 1]; ++e)
        if (!completed[dag.preds[e]])
          return "edge violated: " + describe(dag.tasks[dag.preds[e]]) + " -> " + describe(t);
      running.push_back(t);
    } else {
      completed[id] = 1;
      grid.complete(t, emit);
    }
  }
  for (int32_t t = 0; t < dag.num_tasks(); ++t)
    if (!issued[t]) return "task never issued: " + describe(dag.tasks[t]);
  if (!grid.finished()) return std::string("grid did not reach the finished state");
  return std::nullopt;
}

}  // namespace tiledqr::testing
