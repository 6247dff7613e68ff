// The elimination trees (flat, binary, greedy, hierarchical) of one panel and the tasks they give; see elimination_tree.hpp.
#include "elimination_tree.hpp"

#include "errors.hpp"

namespace tiledqr {
namespace {

// Flat reduction of `rows` onto rows[0]: geqrt, then tsqrt one by one.
void reduce_flat(const std::vector<int32_t>& rows, std::vector<Elimination>& plan) {
  plan.push_back({TaskKind::geqrt, rows[0], rows[0]});
  for (size_t r = 1; r < rows.size(); ++r) plan.push_back({TaskKind::tsqrt, rows[r], rows[0]});
}

// Binary merge of the triangles of `rows` onto rows[0]: neighbours in the
// list at distance 1, 2, 4, …
void merge_binary(const std::vector<int32_t>& rows, std::vector<Elimination>& plan) {
  const size_t count = rows.size();
  for (size_t stride = 1; stride < count; stride *= 2)
    for (size_t r = 0; r + stride < count; r += 2 * stride)
      plan.push_back({TaskKind::ttqrt, rows[r + stride], rows[r]});
}

void reduce_binary(const std::vector<int32_t>& rows, std::vector<Elimination>& plan) {
  for (const int32_t i : rows) plan.push_back({TaskKind::geqrt, i, i});
  merge_binary(rows, plan);
}

std::vector<int32_t> row_range(int32_t first, int32_t end, int32_t step) {
  std::vector<int32_t> rows;
  for (int32_t i = first; i < end; i += step) rows.push_back(i);
  return rows;
}

}  // namespace

std::vector<Elimination> panel_eliminations(int32_t p, int32_t k, Tree tree, int32_t domains,
                                            Tree inner) {
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
    merge_binary(tops, plan);
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
