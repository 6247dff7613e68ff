// The explicit QR DAG and the apply DAG, built task by task for any tree; see dag.hpp.
#include "dag.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "elimination_tree.hpp"
#include "errors.hpp"
#include "qr_dag.hpp"

namespace tiledqr {
namespace {

// Last writer and readers since of each data object, for edge inference.
class AccessTracker {
 public:
  AccessTracker(int32_t p, int32_t q) : p_(p), objects_(size_t(p) * q * 2) {}

  void read(int32_t i, int32_t j, TilePart part, int32_t task, std::vector<int32_t>& preds) {
    for (const int32_t o : object_ids(i, j, part)) {
      Object& obj = objects_[o];
      if (obj.last_writer >= 0) preds.push_back(obj.last_writer);
      obj.readers.push_back(task);
    }
  }

  void write(int32_t i, int32_t j, TilePart part, int32_t task, std::vector<int32_t>& preds) {
    for (const int32_t o : object_ids(i, j, part)) {
      Object& obj = objects_[o];
      if (obj.last_writer >= 0) preds.push_back(obj.last_writer);
      preds.insert(preds.end(), obj.readers.begin(), obj.readers.end());
      obj.readers.clear();
      obj.last_writer = task;
    }
  }

 private:
  struct Object {
    int32_t last_writer = -1;
    std::vector<int32_t> readers;
  };

  std::vector<int32_t> object_ids(int32_t i, int32_t j, TilePart part) const {
    const int32_t base = 2 * (i + j * p_);
    if (part == TilePart::lower) return {base};
    if (part == TilePart::upper) return {base + 1};
    return {base, base + 1};
  }

  int32_t p_;
  std::vector<Object> objects_;
};

void record_accesses(const Task& t, int32_t id, AccessTracker& tracker,
                     std::vector<int32_t>& preds) {
  for (const TileAccess& a : tile_accesses(t)) {
    if (a.write) tracker.write(a.i, a.j, a.part, id, preds);
    else tracker.read(a.i, a.j, a.part, id, preds);
  }
}

// Fills dag's predecessor and successor arrays from each task's list of
// predecessors (duplicates and the task itself dropped) and its priorities.
void link_dag(Dag& dag, std::vector<std::vector<int32_t>>& preds_of) {
  const int32_t n = dag.num_tasks();
  for (int32_t t = 0; t < n; ++t) {
    std::vector<int32_t>& preds = preds_of[size_t(t)];
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    preds.erase(std::remove(preds.begin(), preds.end(), t), preds.end());
  }
  dag.pred_offsets.assign(size_t(n) + 1, 0);
  std::vector<int64_t> succ_count(size_t(n) + 1, 0);
  for (int32_t t = 0; t < n; ++t) {
    dag.pred_offsets[t + 1] = dag.pred_offsets[t] + int64_t(preds_of[t].size());
    for (const int32_t s : preds_of[t]) ++succ_count[s + 1];
  }
  dag.preds.reserve(size_t(dag.pred_offsets[n]));
  for (const auto& list : preds_of) dag.preds.insert(dag.preds.end(), list.begin(), list.end());
  dag.succ_offsets.assign(size_t(n) + 1, 0);
  for (int32_t t = 0; t < n; ++t) dag.succ_offsets[t + 1] = dag.succ_offsets[t] + succ_count[t + 1];
  dag.succs.assign(dag.preds.size(), 0);
  std::vector<int64_t> fill(dag.succ_offsets.begin(), dag.succ_offsets.end() - 1);
  for (int32_t t = 0; t < n; ++t)
    for (const int32_t s : preds_of[t]) dag.succs[size_t(fill[s]++)] = t;

  // Program order is topological, so one backward sweep gives each task's
  // longest path to a sink: the critical-path priority.
  dag.priority.assign(size_t(n), 1);
  for (int32_t t = n - 1; t >= 0; --t)
    for (int64_t e = dag.succ_offsets[t]; e < dag.succ_offsets[t + 1]; ++e)
      dag.priority[t] = std::max(dag.priority[t], dag.priority[dag.succs[e]] + 1);
}

}  // namespace

void run_in_program_order(const Dag& dag, const std::function<void(const Task&)>& run) {
  for (const Task& t : dag.tasks) run(t);
}

std::vector<TileAccess> tile_accesses(const Task& t) {
  switch (t.kind) {
    case TaskKind::geqrt:
      return {{t.i, t.k, TilePart::whole, true}};
    case TaskKind::ormqr:
      return {{t.i, t.k, TilePart::lower, false}, {t.i, t.j, TilePart::whole, true}};
    case TaskKind::tsqrt:
      return {{t.piv, t.k, TilePart::upper, true}, {t.i, t.k, TilePart::whole, true}};
    case TaskKind::tsmqr:
      return {{t.i, t.k, TilePart::whole, false}, {t.piv, t.j, TilePart::whole, true},
              {t.i, t.j, TilePart::whole, true}};
    case TaskKind::ttqrt:
      return {{t.piv, t.k, TilePart::upper, true}, {t.i, t.k, TilePart::upper, true}};
    case TaskKind::ttmqr:
      return {{t.i, t.k, TilePart::upper, false}, {t.piv, t.j, TilePart::whole, true},
              {t.i, t.j, TilePart::whole, true}};
  }
  return {};
}

namespace {

// The tsqr tree's grid is one column of row blocks.
void require_one_block_column(int32_t q, Tree tree, const char* builder) {
  if (tree == Tree::tsqr && q != 1)
    throw InputError(std::string(builder) + ": the tsqr tree factors one column of row blocks, got " +
                     std::to_string(q) + " columns");
}

}  // namespace

Dag build_qr_dag(int32_t p, int32_t q, Tree tree, int32_t domains, Tree inner, int32_t fan_in) {
  if (p < 1 || q < 1) throw InputError("build_qr_dag: empty tile grid");
  require_one_block_column(q, tree, "build_qr_dag");
  // Counted in closed form before anything is allocated: this builder's ids
  // are int32. The hierarchical and tsqr trees have at most the binary
  // tree's tasks (each tile row below the first is eliminated once, by a
  // tsqrt or a ttqrt).
  const bool like_binary = tree == Tree::hierarchical || tree == Tree::tsqr;
  const int64_t tasks = qr_dag::make_shape(p, q, like_binary ? Tree::binary : tree).num_tasks;
  if (tasks > std::numeric_limits<int32_t>::max())
    throw InputError("build_qr_dag: " + std::to_string(p) + " x " + std::to_string(q) + " tiles with the " +
                     tree_name(tree) + " tree give " + std::to_string(tasks) +
                     " tasks, more than its 32-bit task ids hold (2147483647); "
                     "the closed-form DAG of qr_dag.hpp has 64-bit ids");
  Dag dag;
  AccessTracker tracker(p, q);
  std::vector<std::vector<int32_t>> preds_of;
  auto add = [&](const Task& t) {
    const int32_t id = static_cast<int32_t>(dag.tasks.size());
    std::vector<int32_t> preds;
    record_accesses(t, id, tracker, preds);
    dag.tasks.push_back(t);
    preds_of.push_back(std::move(preds));
  };
  const int32_t steps = std::min(p, q);
  for (int32_t k = 0; k < steps; ++k) {
    for (const Elimination& e : panel_eliminations(p, k, tree, domains, inner, fan_in)) {
      add(factor_task(e, k));
      for (int32_t j = k + 1; j < q; ++j) add(update_task(e, k, j));
    }
  }
  link_dag(dag, preds_of);
  return dag;
}

Dag build_apply_dag(int32_t p, int32_t q, int32_t cols, Tree tree, int32_t domains, Tree inner, bool transpose,
                    bool form_q, int32_t fan_in) {
  if (p < 1 || q < 1 || cols < 1) throw InputError("build_apply_dag: empty tile grid");
  require_one_block_column(q, tree, "build_apply_dag");
  const int32_t steps = std::min(p, q);
  // Tasks: Σ over the panels of (eliminations) × (tile columns updated); a
  // panel of r tile rows has r eliminations (flat) or at most 2r − 1 (each
  // row's geqrt, and one merge per row but the first).
  int64_t tasks = 0;
  for (int32_t k = 0; k < steps; ++k)
    tasks += (tree == Tree::flat ? int64_t(p - k) : 2 * int64_t(p - k) - 1) * (form_q ? std::max(cols - k, 0) : cols);
  if (tasks > std::numeric_limits<int32_t>::max())
    throw InputError("build_apply_dag: " + std::to_string(tasks) + " tasks, more than its 32-bit task ids hold");
  Dag dag;
  // Each task writes its tile row(s) of column j of B; V and T are only read.
  AccessTracker tracker(p, cols);
  std::vector<std::vector<int32_t>> preds_of;
  for (int32_t s = 0; s < steps; ++s) {
    const int32_t k = transpose ? s : steps - 1 - s;
    std::vector<Elimination> plan = panel_eliminations(p, k, tree, domains, inner, fan_in);
    if (!transpose) std::reverse(plan.begin(), plan.end());
    for (const Elimination& e : plan)
      for (int32_t j = form_q ? k : 0; j < cols; ++j) {
        const Task t = update_task(e, k, j);
        const int32_t id = static_cast<int32_t>(dag.tasks.size());
        std::vector<int32_t> preds;
        if (t.kind != TaskKind::ormqr) tracker.write(t.piv, t.j, TilePart::whole, id, preds);
        tracker.write(t.i, t.j, TilePart::whole, id, preds);
        dag.tasks.push_back(t);
        preds_of.push_back(std::move(preds));
      }
  }
  link_dag(dag, preds_of);
  return dag;
}

}  // namespace tiledqr
