// Sweeps that fill the closed-form QR DAG's per-task arrays (qr_dag_arrays.hpp).
#include "qr_dag_arrays.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <cstring>
#include <limits>
#include <string>

#include "errors.hpp"
#include "size_check.hpp"

namespace tiledqr {
namespace {

using qr_dag::Shape;
using qr_dag::detail::Elim;

std::string dag_text(const Shape& s) {
  return "the QR DAG of " + std::to_string(s.p) + " x " + std::to_string(s.q) + " tiles (" +
         tree_name(s.tree) + " tree, " + std::to_string(s.num_tasks) + " tasks)";
}

void check_memory(uint64_t bytes, uint64_t limit, const std::string& what) {
  const uint64_t allowed = limit != 0 ? limit : physical_memory_bytes();
  if (bytes > allowed)
    throw InputError(what + " needs " + format_bytes(double(bytes)) + " of host memory, " +
                     format_bytes(double(allowed)) + (limit != 0 ? " allowed" : " available"));
}

// Predecessors of the factor task and of each update of elimination `m` of step k.
void elim_pred_counts(int32_t k, const Elim& m, uint8_t& factor, uint8_t& update) {
  const uint8_t later = k > 0 ? 1 : 0;
  if (m.kind == TaskKind::geqrt) factor = later, update = 1 + later;
  else if (m.kind == TaskKind::tsqrt) factor = 1 + later, update = 2 + later;
  else factor = 2, update = 3;
}

// priority[self + u] = 1 + the larger of a[u] and b[u] (either may be
// absent) for u = 1 … c−1; returns the largest value written (0 if none).
int32_t fill_update_priorities(int32_t* self, const int32_t* a, const int32_t* b, int64_t c) {
  int32_t best = 0;
  if (a && b) {
    for (int64_t u = 1; u < c; ++u) {
      const int32_t v = std::max(a[u], b[u]) + 1;
      self[u] = v;
      best = std::max(best, v);
    }
  } else if (a || b) {
    const int32_t* only = a ? a : b;
    for (int64_t u = 1; u < c; ++u) {
      const int32_t v = only[u] + 1;
      self[u] = v;
      best = std::max(best, v);
    }
  } else {
    for (int64_t u = 1; u < c; ++u) self[u] = 1;
    best = c > 1 ? 1 : 0;
  }
  return best;
}

// The chains of elimination `ids` (its factor task self, its updates
// self + u, u = 1 … c − 1) from those of its successors, each update
// weighing 1 and the factor task `factor_weight`. Throws InputError when
// they would not fit in int32.
void fill_elim_chains(int32_t* chain, const ElimIds& ids, int64_t c, int32_t factor_weight, const Shape& s,
                      const char* what);

// Blocks from this size on come straight from mmap, with huge pages asked for.
constexpr size_t mapped_bytes = size_t(4) << 20;

}  // namespace

ElimIds elim_ids(const Shape& s, int32_t k, int32_t e, int64_t step_base, int64_t next_step_base) {
  const int32_t r = s.p - k;
  const int64_t c = s.q - k;
  ElimIds ids;
  ids.elim = qr_dag::detail::elim_at(s, r, e);
  ids.self = step_base + e * c;
  int32_t next = 0;
  ids.next = qr_dag::detail::next_elim(s, r, ids.elim, e, next) ? step_base + next * c : -1;
  // id(k+1, d−1, u−1) = below + u; only updates (u ≥ 1) use it.
  ids.below = ids.elim.kind != TaskKind::geqrt
                  ? next_step_base + int64_t(qr_dag::detail::first_use_index(s, r - 1, ids.elim.d - 1)) * (c - 1) - 1
                  : -1;
  return ids;
}

namespace detail {

void* allocate_array_bytes(size_t bytes) {
  if (bytes < mapped_bytes) return ::operator new(bytes);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without huge pages it still works
#endif
  return p;
}

void release_array_bytes(void* p, size_t bytes) {
  if (bytes < mapped_bytes) ::operator delete(p);
  else munmap(p, bytes);
}

}  // namespace detail

int64_t count_edges(const Shape& s) {
  int64_t edges = 0;
  for (int32_t k = 0; k < s.steps; ++k) {
    // g geqrt (their updates one edge more), r − g tsqrt (one more again),
    // g − 1 ttqrt (two, their updates three), g the panel's top rows.
    const int64_t r = s.p - k, c = s.q - k, later = k > 0 ? 1 : 0, g = qr_dag::detail::top_rows(s, int32_t(r));
    edges += g * later + g * (c - 1) * (1 + later) + (r - g) * (1 + later) + (r - g) * (c - 1) * (2 + later) +
             2 * (g - 1) + 3 * (g - 1) * (c - 1);
  }
  return edges;
}

uint64_t qr_dag_arrays_bytes(const Shape& s, int32_t priority_classes) {
  const uint64_t roots = uint64_t(qr_dag::detail::top_rows(s, s.p));
  const uint64_t classes = priority_classes > 1 ? sizeof(uint8_t) + sizeof(int32_t) : 0;  // classes, chains of time
  return uint64_t(s.num_tasks) * (sizeof(uint8_t) + sizeof(int32_t) + classes) + roots * sizeof(int64_t);
}

template <class Index>
uint64_t successor_csr_bytes(const Shape& s) {
  return (uint64_t(s.num_tasks) + 1 + uint64_t(count_edges(s))) * sizeof(Index);
}

QrDagArrays build_qr_dag_arrays(const Shape& s, uint64_t memory_limit_bytes, int32_t priority_classes) {
  if (priority_classes < 1 || priority_classes > 4)
    throw InputError("priority classes must be 1 .. 4, got " + std::to_string(priority_classes));
  check_memory(qr_dag_arrays_bytes(s, priority_classes), memory_limit_bytes,
               "the predecessor counts and priorities of " + dag_text(s));
  QrDagArrays out;
  out.shape = s;
  out.num_classes = priority_classes;
  out.pred_count.resize(size_t(s.num_tasks));
  out.priority.resize(size_t(s.num_tasks));
  uint8_t* count = out.pred_count.data();
  int32_t* prio = out.priority.data();
  TaskArray<int32_t> time_chain(priority_classes > 1 ? size_t(s.num_tasks) : 0);
  // Successors have larger ids, so one sweep from the last task back gives
  // every task's longest path once all of its successors have theirs.
  for (int32_t k = s.steps - 1; k >= 0; --k) {
    const int64_t base = qr_dag::step_begin(s, k), next_base = qr_dag::step_begin(s, k + 1);
    const int64_t c = s.q - k;
    for (int32_t e = qr_dag::detail::num_elims(s, s.p - k) - 1; e >= 0; --e) {
      const ElimIds ids = elim_ids(s, k, e, base, next_base);
      uint8_t factor_count = 0, update_count = 0;
      elim_pred_counts(k, ids.elim, factor_count, update_count);
      count[ids.self] = factor_count;
      std::memset(count + ids.self + 1, update_count, size_t(c - 1));

      fill_elim_chains(prio, ids, c, 1, s, "critical path");
      if (!time_chain.empty())
        fill_elim_chains(time_chain.data(), ids, c, factor_time_weight, s, "chain of time");
    }
  }
  // The roots: the geqrt of panel 0 on each of its top rows.
  for (int32_t d = 0; d < qr_dag::detail::top_rows(s, s.p); ++d)
    out.roots.push_back(int64_t(qr_dag::detail::first_use_index(s, s.p, d)) * s.q);
  std::stable_sort(out.roots.begin(), out.roots.end(),
                   [prio](int64_t a, int64_t b) { return prio[a] > prio[b]; });
  if (!time_chain.empty()) {
    // The longest chain starts at a task without predecessors: a root.
    int64_t top = 1;
    for (const int64_t r : out.roots) top = std::max<int64_t>(top, time_chain[size_t(r)]);
    out.priority_class.resize(size_t(s.num_tasks));
    const int64_t last = priority_classes - 1;
    for (int64_t t = 0; t < s.num_tasks; ++t)
      out.priority_class[size_t(t)] =
          uint8_t(std::min(last, int64_t(priority_classes) * (top - time_chain[size_t(t)]) / top));
  }
  return out;
}

namespace {

void fill_elim_chains(int32_t* chain, const ElimIds& ids, int64_t c, int32_t factor_weight, const Shape& s,
                      const char* what) {
  const int32_t* same = ids.next >= 0 ? chain + ids.next : nullptr;
  const int32_t* below = ids.below >= 0 ? chain + ids.below : nullptr;
  int32_t best = fill_update_priorities(chain + ids.self, same, below, c);
  if (same) best = std::max(best, same[0]);
  // Every stored chain is at most this elimination's factor chain, so
  // checking it keeps every later addition of a weight inside int32.
  if (best >= std::numeric_limits<int32_t>::max() - 2 * factor_weight)
    throw InputError(std::string("the ") + what + " of " + dag_text(s) + " does not fit in int32 priorities");
  chain[ids.self] = best + factor_weight;
}

}  // namespace

template <class Index>
SuccessorCsr<Index> build_successor_csr(const Shape& s, uint64_t memory_limit_bytes) {
  const int64_t edges = count_edges(s);
  if (s.num_tasks > int64_t(std::numeric_limits<Index>::max()) || edges > int64_t(std::numeric_limits<Index>::max()))
    throw InputError(dag_text(s) + " has " + std::to_string(edges) + " edges; " +
                     std::to_string(8 * sizeof(Index)) + "-bit successor lists hold at most " +
                     std::to_string(std::numeric_limits<Index>::max()) + " tasks and edges");
  check_memory(successor_csr_bytes<Index>(s), memory_limit_bytes, "the successor lists of " + dag_text(s));
  SuccessorCsr<Index> out;
  out.offsets.resize(size_t(s.num_tasks) + 1);
  out.succs.resize(size_t(edges));
  Index* offsets = out.offsets.data();
  Index* succ = out.succs.data();
  Index pos = 0;
  for (int32_t k = 0; k < s.steps; ++k) {
    const int64_t base = qr_dag::step_begin(s, k), next_base = qr_dag::step_begin(s, k + 1);
    const int64_t c = s.q - k;
    const int32_t elims = qr_dag::detail::num_elims(s, s.p - k);
    for (int32_t e = 0; e < elims; ++e) {
      const ElimIds ids = elim_ids(s, k, e, base, next_base);
      offsets[ids.self] = pos;
      for (int64_t u = 1; u < c; ++u) succ[pos++] = Index(ids.self + u);
      if (ids.next >= 0) succ[pos++] = Index(ids.next);
      for (int64_t u = 1; u < c; ++u) {
        offsets[ids.self + u] = pos;
        if (ids.next >= 0) succ[pos++] = Index(ids.next + u);
        if (ids.below >= 0) succ[pos++] = Index(ids.below + u);
      }
    }
  }
  offsets[s.num_tasks] = pos;
  if (int64_t(pos) != edges)
    throw std::logic_error("successor CSR: " + std::to_string(int64_t(pos)) + " edges written, " +
                           std::to_string(edges) + " counted for " + dag_text(s));
  return out;
}

template uint64_t successor_csr_bytes<int32_t>(const Shape&);
template uint64_t successor_csr_bytes<int64_t>(const Shape&);
template SuccessorCsr<int32_t> build_successor_csr<int32_t>(const Shape&, uint64_t);
template SuccessorCsr<int64_t> build_successor_csr<int64_t>(const Shape&, uint64_t);

}  // namespace tiledqr
