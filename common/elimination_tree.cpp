#include "elimination_tree.hpp"

namespace tiledqr {

std::vector<Elimination> panel_eliminations(int32_t p, int32_t k, Tree tree) {
  std::vector<Elimination> plan;
  if (tree == Tree::flat) {
    plan.push_back({TaskKind::geqrt, k, k});
    for (int32_t i = k + 1; i < p; ++i) plan.push_back({TaskKind::tsqrt, i, k});
    return plan;
  }
  for (int32_t i = k; i < p; ++i) plan.push_back({TaskKind::geqrt, i, i});
  if (tree == Tree::binary) {
    for (int32_t stride = 1; stride < p - k; stride *= 2)
      for (int32_t i = k; i + stride < p; i += 2 * stride)
        plan.push_back({TaskKind::ttqrt, i + stride, i});
    return plan;
  }
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
