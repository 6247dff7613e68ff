// Host side of the closed-form QR DAG: the checked shape and checked
// id/task conversions (qr_dag.hpp).
#include "qr_dag.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "errors.hpp"

namespace tiledqr::qr_dag {
namespace {

__extension__ typedef unsigned __int128 Wide;  // a GCC/Clang extension, hence the marker

std::string grid_text(const Shape& s) {
  return std::to_string(s.p) + " x " + std::to_string(s.q) + " tiles, " + tree_name(s.tree) + " tree" +
         (s.tree == Tree::hierarchical ? " of " + std::to_string(s.domains) + " domains" : "");
}

std::string task_text(const Task& t) {
  return std::string(task_kind_name(t.kind)) + "(k=" + std::to_string(t.k) + ", i=" + std::to_string(t.i) +
         ", j=" + std::to_string(t.j) + ", piv=" + std::to_string(t.piv) + ")";
}

// Σ_{t<k} (p − t)(q − t) and Σ_{t<k} (q − t) in 128 bits.
Wide rect_sum(int64_t p, int64_t q, int64_t steps) {
  const Wide k = Wide(steps);
  return k * Wide(p) * Wide(q) - Wide(p + q) * (k * (k - 1) / 2) + (k - 1) * k * (2 * k - 1) / 6;
}
Wide column_sum(int64_t q, int64_t steps) {
  const Wide k = Wide(steps);
  return k * Wide(q) - k * (k - 1) / 2;
}

}  // namespace

Shape make_shape(int64_t p, int64_t q, Tree tree, int32_t domains) {
  if (p < 1 || q < 1 || p > max_tiles || q > max_tiles)
    throw InputError("QR DAG: tile grid " + std::to_string(p) + " x " + std::to_string(q) +
                     " is outside 1 .. " + std::to_string(max_tiles) + " tiles per dimension");
  if (tree == Tree::tsqr)
    throw InputError(
        "QR DAG: the closed form covers the flat, binary, greedy and hierarchical trees, not the tsqr one");
  if (tree == Tree::hierarchical && domains < 1)
    throw InputError("QR DAG: the hierarchical tree needs domains >= 1, got " + std::to_string(domains));
  Shape s;
  s.p = int32_t(p);
  s.q = int32_t(q);
  s.tree = tree;
  s.domains = tree == Tree::hierarchical ? domains : 1;
  s.steps = int32_t(p < q ? p : q);
  // The count in 128 bits, before any 64-bit formula relies on it being small:
  // the flat tree's tasks and, for the others, each step's merges (top rows
  // G_t − 1 a step, G_t = p − t, or min(domains, p − t)).
  const int64_t k = s.steps;
  const Wide rect = rect_sum(p, q, k);
  Wide merges = 0;
  if (tree == Tree::hierarchical) {
    const int64_t full = std::min<int64_t>(std::max<int64_t>(p - s.domains + 1, 0), k);  // steps with G_t = D
    merges = Wide(s.domains - 1) * column_sum(q, full) + rect_sum(p - 1, q, k) - rect_sum(p - 1, q, full);
  } else if (tree != Tree::flat) {
    merges = rect_sum(p - 1, q, k);
  }
  const Wide total = rect + merges;
  if (total > Wide(max_tasks)) {
    char count[32];
    std::snprintf(count, sizeof count, "%.3g", double(total));
    throw InputError("QR DAG of " + grid_text(s) + " has " + count +
                     " tasks, more than the 2^60 its 64-bit ids allow");
  }
  s.num_tasks = int64_t(total);
  if (step_begin(s, s.steps) != s.num_tasks)
    throw std::logic_error("QR DAG: closed-form task count disagrees with the sum for " + grid_text(s));
  return s;
}

int64_t checked_id_of(const Shape& shape, const Task& task) {
  if (!contains(shape, task))
    throw InputError("QR DAG: task " + task_text(task) + " is not in the DAG of " + grid_text(shape));
  return id_of(shape, task);
}

Task checked_task_of(const Shape& shape, int64_t id) {
  if (id < 0 || id >= shape.num_tasks)
    throw InputError("QR DAG: task id " + std::to_string(id) + " is outside 0 .. " +
                     std::to_string(shape.num_tasks - 1) + " (" + grid_text(shape) + ")");
  return task_of(shape, id);
}

}  // namespace tiledqr::qr_dag
