// The elimination trees (flat, binary, greedy, hierarchical) of one panel and the tasks they give; see elimination_tree.hpp.
#include "elimination_tree.hpp"

#include <string>

#include "errors.hpp"

namespace tiledqr {
namespace {

// Flat reduction of `rows` onto rows[0]: geqrt, then tsqrt one by one.
void reduce_flat(const std::vector<int32_t>& rows, std::vector<Elimination>& plan) {
  plan.push_back({TaskKind::geqrt, rows[0], rows[0]});
  for (size_t r = 1; r < rows.size(); ++r) plan.push_back({TaskKind::tsqrt, rows[r], rows[0]});
}

// Merge of the triangles of `rows` onto rows[0] by a tree of fan-in f:
// level by level (distance 1, f, f², … in the list), each node merges the
// triangles of up to f − 1 later entries into its first one, in order.
// f = 2 is the binary tree: neighbours at distance 1, 2, 4, …
void merge_fan_in(const std::vector<int32_t>& rows, size_t fan_in, std::vector<Elimination>& plan) {
  const size_t count = rows.size();
  for (size_t stride = 1; stride < count; stride *= fan_in)
    for (size_t top = 0; top + stride < count; top += fan_in * stride)
      for (size_t c = 1; c < fan_in && top + c * stride < count; ++c)
        plan.push_back({TaskKind::ttqrt, rows[top + c * stride], rows[top]});
}

void reduce_binary(const std::vector<int32_t>& rows, std::vector<Elimination>& plan) {
  for (const int32_t i : rows) plan.push_back({TaskKind::geqrt, i, i});
  merge_fan_in(rows, 2, plan);
}

std::vector<int32_t> row_range(int32_t first, int32_t end, int32_t step) {
  std::vector<int32_t> rows;
  for (int32_t i = first; i < end; i += step) rows.push_back(i);
  return rows;
}

}  // namespace

std::vector<Elimination> panel_eliminations(int32_t p, int32_t k, Tree tree, int32_t domains,
                                            Tree inner, int32_t fan_in) {
  std::vector<Elimination> plan;
  if (tree == Tree::flat) {
    reduce_flat(row_range(k, p, 1), plan);
    return plan;
  }
  if (tree == Tree::binary) {
    reduce_binary(row_range(k, p, 1), plan);
    return plan;
  }
  if (tree == Tree::hierarchical) {
    if (domains < 1) throw InputError("hierarchical tree: domains must be >= 1");
    if (inner != Tree::flat && inner != Tree::binary)
      throw InputError("hierarchical tree: the inner tree must be flat or binary");
    std::vector<int32_t> tops;
    for (int32_t top = k; top < p && top < k + domains; ++top) {
      const std::vector<int32_t> rows = row_range(top, p, domains);
      if (inner == Tree::flat) reduce_flat(rows, plan);
      else reduce_binary(rows, plan);
      tops.push_back(top);
    }
    merge_fan_in(tops, 2, plan);
    return plan;
  }
  if (tree == Tree::tsqr) {
    if (fan_in < 2) throw InputError("tsqr tree: the fan-in must be >= 2, got " + std::to_string(fan_in));
    const std::vector<int32_t> rows = row_range(k, p, 1);
    for (const int32_t i : rows) plan.push_back({TaskKind::geqrt, i, i});
    merge_fan_in(rows, size_t(fan_in), plan);
    return plan;
  }
  for (int32_t i = k; i < p; ++i) plan.push_back({TaskKind::geqrt, i, i});
  std::vector<int32_t> live;
  for (int32_t i = k; i < p; ++i) live.push_back(i);
  while (live.size() > 1) {
    const size_t keep = (live.size() + 1) / 2;
    for (size_t t = 0; t + keep < live.size(); ++t)
      plan.push_back({TaskKind::ttqrt, live[t + keep], live[t]});
    live.resize(keep);
  }
  return plan;
}

Task factor_task(const Elimination& e, int32_t k) {
  Task t;
  t.kind = e.kind;
  t.k = k;
  t.i = e.i;
  t.j = k;
  t.piv = e.piv;
  return t;
}

Task update_task(const Elimination& e, int32_t k, int32_t j) {
  Task t = factor_task(e, k);
  t.j = j;
  switch (e.kind) {
    case TaskKind::geqrt: t.kind = TaskKind::ormqr; break;
    case TaskKind::tsqrt: t.kind = TaskKind::tsmqr; break;
    default: t.kind = TaskKind::ttmqr; break;
  }
  return t;
}

}  // namespace tiledqr
