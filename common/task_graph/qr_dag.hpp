// The tiled QR DAG in closed form: task ids, tasks, predecessors and
// successors computed from (k, i, j, piv) and the tree, on the host or the
// GPU, with nothing allocated. Ids are build_qr_dag's program order (step k,
// then panel_eliminations' order, then factor before its updates j = k+1 …
// q−1) and are 64-bit, so any shape up to 2^60 tasks has ids.
//
// The edges are those build_qr_dag infers from the tile accesses, worked
// out once by hand (a test compares both on every small shape and tree).
// Write row offsets relative to step k as d = i − k, r = p − k rows and
// c = q − k columns; "the elimination of row d" is the tsqrt/ttqrt that
// merges d away, and "the last use of row d" the latest elimination of the
// panel that factored d (geqrt) or kept d as pivot:
//   geqrt(d)         ← update of column k in step k−1 by the elimination of row d+1
//   tsqrt(d)         ← the panel's previous factor task (the chain on the
//                      triangle of row 0, or of its domain's top row in the
//                      hierarchical tree), and as geqrt
//   ttqrt(d, piv)    ← factor tasks of the last uses of d and of piv
//   ormqr(d, j)      ← geqrt(d), and update of column j in step k−1 by the
//                      elimination of row d+1
//   tsmqr(d, j)      ← tsqrt(d), the previous tsmqr/ormqr of column j (they
//                      share the tile A_kj read-write, so they are chained),
//                      and as ormqr
//   ttmqr(d, piv, j) ← ttqrt(d, piv), updates of column j of the last uses of
//                      d and of piv
// Successors are the mirror image: a factor task precedes its own updates (a
// contiguous id range) and the next use of the row it wrote; an update
// precedes the next use of its row in the same column, and — when it belongs
// to the elimination of row d — the first task of step k+1 on tile (i, j).
#pragma once

#include <cstdint>

#include "host_device.hpp"
#include "options.hpp"
#include "task.hpp"

namespace tiledqr::qr_dag {

// Largest task count a shape may have: ids and edge counts stay far from
// int64 overflow in every formula below.
constexpr int64_t max_tasks = int64_t(1) << 60;

struct Shape {
  int32_t p = 0;       // tile rows
  int32_t q = 0;       // tile columns
  Tree tree = Tree::flat;
  int32_t domains = 1;  // the hierarchical tree's domains (≥ 1); 1 for the others
  int32_t steps = 0;   // min(p, q)
  int64_t num_tasks = 0;
};

// A task's place in program order: step k, elimination e of panel k (in
// panel_eliminations' order), u = 0 for its factor task, u ≥ 1 for its
// update of tile column k + u.
struct Coord {
  int32_t k = 0;
  int32_t e = 0;
  int32_t u = 0;
};

// Successors of one task: the ids [range_begin, range_end) (a factor task's
// own updates) and up to two more, all in increasing order.
struct Successors {
  int64_t range_begin = 0;
  int64_t range_end = 0;
  int64_t extra[2] = {0, 0};
  int num_extra = 0;

  TILEDQR_HOST_DEVICE int64_t count() const { return range_end - range_begin + num_extra; }
  // The n-th successor in increasing order, 0 ≤ n < count().
  TILEDQR_HOST_DEVICE int64_t at(int64_t n) const {
    const int64_t width = range_end - range_begin;
    return n < width ? range_begin + n : extra[n - width];
  }
};

// Most tile rows or columns: elimination numbers (≤ 2p − 1) stay in int32.
constexpr int64_t max_tiles = int64_t(1) << 30;

// The shape of a p×q tile grid's DAG for `tree` (host only); `domains`
// (≥ 1) only for the hierarchical tree, whose domains are reduced flat
// (elimination_tree.hpp, inner tree flat). Throws InputError for p or q
// outside 1 … max_tiles, more than max_tasks tasks, or the tsqr tree.
Shape make_shape(int64_t p, int64_t q, Tree tree, int32_t domains = 1);

// Host-only checked conversions: InputError naming the task or id when it is
// not in the DAG (the device versions below assume valid input).
int64_t checked_id_of(const Shape& shape, const Task& task);
Task checked_task_of(const Shape& shape, int64_t id);

namespace detail {

// One elimination of a panel, rows as offsets from the panel's top row k.
// level: the tree level of a ttqrt (0 first), −1 for geqrt, e − 1 for the
// flat tree's tsqrt number e.
struct Elim {
  TaskKind kind = TaskKind::geqrt;
  int32_t d = 0;    // row factored (geqrt) or merged away (tsqrt, ttqrt)
  int32_t piv = 0;  // row that keeps the triangle; == d for geqrt
  int32_t level = -1;
};

TILEDQR_HOST_DEVICE inline int32_t num_elims(Tree tree, int32_t r) {
  return tree == Tree::flat ? r : 2 * r - 1;
}

// Merges of level l of the binary tree over r rows (stride s = 2^l).
TILEDQR_HOST_DEVICE inline int64_t binary_level_count(int64_t r, int32_t l) {
  const int64_t s = int64_t(1) << l;
  return s < r ? (r - s - 1) / (2 * s) + 1 : 0;
}

// Index of a ttqrt of the binary or greedy tree among the panel's
// eliminations (after the r geqrt).
TILEDQR_HOST_DEVICE inline int32_t merge_index(Tree tree, int32_t r, const Elim& m) {
  int64_t before = r;
  if (tree == Tree::binary) {
    for (int32_t l = 0; l < m.level; ++l) before += binary_level_count(r, l);
    return int32_t(before + (int64_t(m.piv) >> (m.level + 1)));
  }
  int64_t live = r;
  for (int32_t l = 0; l < m.level; ++l) {
    before += live / 2;
    live = (live + 1) / 2;
  }
  return int32_t(before + m.piv);
}

TILEDQR_HOST_DEVICE inline int32_t elim_index(Tree tree, int32_t r, const Elim& m) {
  if (tree == Tree::flat || m.kind == TaskKind::geqrt) return m.d;
  return merge_index(tree, r, m);
}

// Elimination number e of a panel of r rows.
TILEDQR_HOST_DEVICE inline Elim elim_at(Tree tree, int32_t r, int32_t e) {
  if (tree == Tree::flat)
    return e == 0 ? Elim{TaskKind::geqrt, 0, 0, -1} : Elim{TaskKind::tsqrt, e, 0, e - 1};
  if (e < r) return Elim{TaskKind::geqrt, e, e, -1};
  int64_t t = e - r;
  if (tree == Tree::binary) {
    for (int32_t l = 0;; ++l) {
      const int64_t count = binary_level_count(r, l);
      if (t < count) {
        const int64_t piv = t << (l + 1);
        return Elim{TaskKind::ttqrt, int32_t(piv + (int64_t(1) << l)), int32_t(piv), l};
      }
      t -= count;
    }
  }
  int64_t live = r;
  for (int32_t l = 0;; ++l) {
    const int64_t keep = (live + 1) / 2;
    if (t < live - keep) return Elim{TaskKind::ttqrt, int32_t(t + keep), int32_t(t), l};
    t -= live - keep;
    live = keep;
  }
}

// The elimination that merges row d ≥ 1 away.
TILEDQR_HOST_DEVICE inline Elim eliminator(Tree tree, int32_t r, int32_t d) {
  if (tree == Tree::flat) return Elim{TaskKind::tsqrt, d, 0, d - 1};
  if (tree == Tree::binary) {
    int32_t l = 0;
    while (((d >> l) & 1) == 0) ++l;
    return Elim{TaskKind::ttqrt, d, d - (int32_t(1) << l), l};
  }
  int64_t live = r;
  for (int32_t l = 0;; ++l) {
    const int64_t keep = (live + 1) / 2;
    if (d >= keep) return Elim{TaskKind::ttqrt, d, int32_t(d - keep), l};
    live = keep;
  }
}

// The last use of row d before tree level `level` (binary, greedy): its
// latest merge as pivot at a lower level, else its geqrt.
TILEDQR_HOST_DEVICE inline Elim last_use_before(Tree tree, int32_t r, int32_t d, int32_t level) {
  if (tree == Tree::binary) {
    // Row d (a multiple of 2^level here) is pivot at level l < level
    // exactly when its partner d + 2^l exists.
    int32_t top = -1;
    for (int64_t gap = int64_t(r) - d - 1; gap > 0; gap >>= 1) ++top;  // ⌊log₂(r − d − 1)⌋
    const int32_t l = top < level - 1 ? top : level - 1;
    if (l < 0) return Elim{TaskKind::geqrt, d, d, -1};
    return Elim{TaskKind::ttqrt, d + (int32_t(1) << l), d, l};
  }
  Elim last{TaskKind::geqrt, d, d, -1};
  int64_t live = r;
  for (int32_t l = 0; l < level; ++l) {
    const int64_t keep = (live + 1) / 2;
    if (d < live / 2) last = Elim{TaskKind::ttqrt, int32_t(d + keep), d, l};
    live = keep;
  }
  return last;
}

// The next use of live row d after tree level `level` (−1: after its
// geqrt) in the binary or greedy tree; false when it has none.
TILEDQR_HOST_DEVICE inline bool next_use_after(Tree tree, int32_t r, int32_t d, int32_t level,
                                               Elim& next) {
  if (tree == Tree::binary) {
    const int32_t l = level + 1;
    const int64_t s = int64_t(1) << l;
    if (s >= r) return false;
    if (d & s) {
      next = Elim{TaskKind::ttqrt, d, int32_t(d - s), l};
      return true;
    }
    if (d + s < r) {
      next = Elim{TaskKind::ttqrt, int32_t(d + s), d, l};
      return true;
    }
    if (d == 0) return false;
    next = eliminator(tree, r, d);  // no partner above any more: wait for its own merge
    return true;
  }
  int64_t live = r;
  for (int32_t l = 0; l <= level; ++l) live = (live + 1) / 2;
  for (int32_t l = level + 1; live > 1; ++l) {
    const int64_t keep = (live + 1) / 2;
    if (d < live / 2) {
      next = Elim{TaskKind::ttqrt, int32_t(d + keep), d, l};
      return true;
    }
    if (d >= keep) {
      next = Elim{TaskKind::ttqrt, d, int32_t(d - keep), l};
      return true;
    }
    live = keep;  // the middle row of an odd count sits this level out
  }
  return false;
}

// The panel's next elimination after `m` that uses the row `m` wrote its
// triangle to; false when none.
TILEDQR_HOST_DEVICE inline bool next_elim(Tree tree, int32_t r, const Elim& m, int32_t e, int32_t& next) {
  if (tree == Tree::flat) {
    next = e + 1;
    return next < r;
  }
  Elim n;
  const int32_t row = m.kind == TaskKind::geqrt ? m.d : m.piv;
  if (!next_use_after(tree, r, row, m.level, n)) return false;
  next = merge_index(tree, r, n);
  return true;
}

// Whether `m` (factor kind, row offsets) is an elimination of a panel of r
// rows for `tree`.
TILEDQR_HOST_DEVICE inline bool is_elim(Tree tree, int32_t r, const Elim& m) {
  if (m.d < 0 || m.d >= r || m.piv < 0) return false;
  if (m.kind == TaskKind::geqrt) return m.piv == m.d && (tree != Tree::flat || m.d == 0);
  if (m.kind == TaskKind::tsqrt) return tree == Tree::flat && m.piv == 0 && m.d >= 1;
  if (tree == Tree::flat || m.piv >= m.d) return false;
  return eliminator(tree, r, m.d).piv == m.piv;
}

// Σ_{t<k} (p − t)(q − t) and Σ_{t<k} (q − t), exact modulo 2^64: each
// division is done on a factor it divides, and the callers' sums are below
// 2^62, so the wrapped result is the true one.
TILEDQR_HOST_DEVICE inline uint64_t sum_of_products(uint64_t p, uint64_t q, uint64_t k) {
  if (k == 0) return 0;
  const uint64_t pairs = (k % 2 == 0) ? (k / 2) * (k - 1) : k * ((k - 1) / 2);  // k(k−1)/2
  uint64_t a = k - 1, b = k, c = 2 * k - 1;                                       // (k−1)k(2k−1)/6
  (a % 2 == 0 ? a : b) /= 2;
  (a % 3 == 0 ? a : (b % 3 == 0 ? b : c)) /= 3;
  return k * p * q - (p + q) * pairs + a * b * c;
}
TILEDQR_HOST_DEVICE inline uint64_t sum_of_columns(uint64_t q, uint64_t k) {
  const uint64_t pairs = (k % 2 == 0) ? (k / 2) * (k - 1) : k * ((k - 1) / 2);
  return k * q - pairs;
}

// The panel of r rows of shape s, for every tree. The flat, binary and
// greedy trees are the functions above. The hierarchical tree (domains D,
// inner tree flat; elimination_tree.hpp) puts row d in domain d mod D; in
// program order come each domain's geqrt on its top row δ < G = min(D, r)
// and its tsqrt of rows δ + D, δ + 2D, … one after another (domain after
// domain), then the binary tree over the G top rows, whose ttqrt are those
// of the binary tree of G rows (offsets unchanged, indices shifted by r − G).
TILEDQR_HOST_DEVICE inline int32_t top_rows(const Shape& s, int32_t r) {
  return s.tree == Tree::flat ? 1 : s.tree == Tree::hierarchical ? (s.domains < r ? s.domains : r) : r;
}

// Index of the first elimination of domain δ (hierarchical): the domains
// before it hold ⌊r/D⌋ rows each, and one more each of the first r mod D.
TILEDQR_HOST_DEVICE inline int32_t domain_start(int32_t r, int32_t domains, int32_t delta) {
  const int32_t rows = r / domains, extra = r % domains;
  return delta * rows + (delta < extra ? delta : extra);
}
TILEDQR_HOST_DEVICE inline int32_t domain_rows(int32_t r, int32_t domains, int32_t delta) {
  return r / domains + (delta < r % domains ? 1 : 0);
}

TILEDQR_HOST_DEVICE inline int32_t num_elims(const Shape& s, int32_t r) {
  return s.tree == Tree::hierarchical ? r + top_rows(s, r) - 1 : num_elims(s.tree, r);
}

// Index of the elimination that first uses row d (its geqrt, or in the flat
// and hierarchical trees its tsqrt when it tops no domain).
TILEDQR_HOST_DEVICE inline int32_t first_use_index(const Shape& s, int32_t r, int32_t d) {
  if (s.tree != Tree::hierarchical) return d;
  return domain_start(r, s.domains, d % s.domains) + d / s.domains;
}

TILEDQR_HOST_DEVICE inline int32_t elim_index(const Shape& s, int32_t r, const Elim& m) {
  if (s.tree != Tree::hierarchical) return elim_index(s.tree, r, m);
  if (m.kind != TaskKind::ttqrt) return first_use_index(s, r, m.d);
  const int32_t g = top_rows(s, r);
  return r - g + merge_index(Tree::binary, g, m);
}

TILEDQR_HOST_DEVICE inline Elim elim_at(const Shape& s, int32_t r, int32_t e) {
  if (s.tree != Tree::hierarchical) return elim_at(s.tree, r, e);
  const int32_t g = top_rows(s, r);
  if (e >= r) return elim_at(Tree::binary, g, e - r + g);
  const int32_t domains = s.domains, rows = r / domains, extra = r % domains;
  int32_t delta, t;
  if (e < extra * (rows + 1)) {
    delta = e / (rows + 1);
    t = e % (rows + 1);
  } else {
    delta = extra + (e - extra * (rows + 1)) / rows;
    t = (e - extra * (rows + 1)) % rows;
  }
  const int32_t d = delta + t * domains;
  return t == 0 ? Elim{TaskKind::geqrt, d, d, -1} : Elim{TaskKind::tsqrt, d, delta, t - 1};
}

TILEDQR_HOST_DEVICE inline Elim eliminator(const Shape& s, int32_t r, int32_t d) {
  if (s.tree != Tree::hierarchical) return eliminator(s.tree, r, d);
  if (d >= s.domains) return Elim{TaskKind::tsqrt, d, d % s.domains, d / s.domains - 1};
  return eliminator(Tree::binary, top_rows(s, r), d);
}

TILEDQR_HOST_DEVICE inline Elim last_use_before(const Shape& s, int32_t r, int32_t d, int32_t level) {
  if (s.tree != Tree::hierarchical) return last_use_before(s.tree, r, d, level);
  const Elim last = last_use_before(Tree::binary, top_rows(s, r), d, level);
  if (last.kind != TaskKind::geqrt) return last;
  const int32_t rows = domain_rows(r, s.domains, d);  // no merge yet: its domain's last elimination
  if (rows == 1) return last;
  return Elim{TaskKind::tsqrt, d + (rows - 1) * s.domains, d, rows - 2};
}

TILEDQR_HOST_DEVICE inline bool next_elim(const Shape& s, int32_t r, const Elim& m, int32_t e, int32_t& next) {
  if (s.tree != Tree::hierarchical) return next_elim(s.tree, r, m, e, next);
  const int32_t g = top_rows(s, r);
  int32_t row = m.piv, level = m.level;
  if (m.kind != TaskKind::ttqrt) {
    const int32_t t = m.kind == TaskKind::geqrt ? 0 : m.level + 1;  // the row's place in its domain
    if (t + 1 < domain_rows(r, s.domains, row)) {
      next = e + 1;
      return true;
    }
    level = -1;  // the domain is reduced: its top row waits for the tree's first merge
  }
  Elim n;
  if (!next_use_after(Tree::binary, g, row, level, n)) return false;
  next = r - g + merge_index(Tree::binary, g, n);
  return true;
}

TILEDQR_HOST_DEVICE inline bool is_elim(const Shape& s, int32_t r, const Elim& m) {
  if (s.tree != Tree::hierarchical) return is_elim(s.tree, r, m);
  if (m.d < 0 || m.d >= r || m.piv < 0) return false;
  const int32_t g = top_rows(s, r);
  if (m.kind == TaskKind::geqrt) return m.piv == m.d && m.d < g;
  if (m.kind == TaskKind::tsqrt) return m.d >= s.domains && m.piv == m.d % s.domains;
  if (m.d >= g || m.piv >= m.d) return false;
  return eliminator(Tree::binary, g, m.d).piv == m.piv;
}

// Σ_{t<k} (G_t − 1)(q − t), G_t the top rows of step t's panel (p − t
// rows): the tasks the tree's merges add to the flat tree's count.
TILEDQR_HOST_DEVICE inline uint64_t merge_tasks_before(const Shape& s, int32_t k) {
  if (s.tree == Tree::flat || k == 0) return 0;
  const uint64_t p = uint64_t(s.p), q = uint64_t(s.q);
  if (s.tree != Tree::hierarchical) return sum_of_products(p - 1, q, uint64_t(k));
  // G_t = D while p − t ≥ D (steps t < p − D + 1), then p − t.
  const int64_t full = int64_t(s.p) - int64_t(s.domains) + 1;
  const uint64_t t1 = uint64_t(full < 0 ? 0 : full < k ? full : k);
  return uint64_t(s.domains - 1) * sum_of_columns(q, t1) + sum_of_products(p - 1, q, uint64_t(k)) -
         sum_of_products(p - 1, q, t1);
}

}  // namespace detail

// Id of the first task of step k (0 ≤ k ≤ steps; step_begin(steps) = num_tasks).
TILEDQR_HOST_DEVICE inline int64_t step_begin(const Shape& s, int32_t k) {
  return int64_t(detail::sum_of_products(uint64_t(s.p), uint64_t(s.q), uint64_t(k)) +
                 detail::merge_tasks_before(s, k));
}

TILEDQR_HOST_DEVICE inline int64_t id_at(const Shape& s, const Coord& c) {
  return step_begin(s, c.k) + int64_t(c.e) * (s.q - c.k) + c.u;
}

// Coordinates of task id, 0 ≤ id < num_tasks.
TILEDQR_HOST_DEVICE inline Coord coord_of(const Shape& s, int64_t id) {
  int32_t lo = 0, hi = s.steps - 1;  // the last k with step_begin(k) ≤ id
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo + 1) / 2;
    if (step_begin(s, mid) <= id) lo = mid;
    else hi = mid - 1;
  }
  const int64_t offset = id - step_begin(s, lo);
  const int64_t cols = s.q - lo;
  return Coord{lo, int32_t(offset / cols), int32_t(offset % cols)};
}

TILEDQR_HOST_DEVICE inline Task task_at(const Shape& s, const Coord& c) {
  const detail::Elim m = detail::elim_at(s, s.p - c.k, c.e);
  Task t;
  t.kind = m.kind;
  if (c.u > 0)
    t.kind = m.kind == TaskKind::geqrt ? TaskKind::ormqr
             : m.kind == TaskKind::tsqrt ? TaskKind::tsmqr
                                         : TaskKind::ttmqr;
  t.k = c.k;
  t.i = c.k + m.d;
  t.j = c.k + c.u;
  t.piv = c.k + m.piv;
  return t;
}

TILEDQR_HOST_DEVICE inline Task task_of(const Shape& s, int64_t id) { return task_at(s, coord_of(s, id)); }

// Whether `t` is a task of the DAG.
TILEDQR_HOST_DEVICE inline bool contains(const Shape& s, const Task& t) {
  if (t.k < 0 || t.k >= s.steps) return false;
  const bool factor = is_factorization(t.kind);
  if (factor ? t.j != t.k : (t.j <= t.k || t.j >= s.q)) return false;
  detail::Elim m{t.kind, t.i - t.k, t.piv - t.k, -1};
  if (t.kind == TaskKind::ormqr) m.kind = TaskKind::geqrt;
  if (t.kind == TaskKind::tsmqr) m.kind = TaskKind::tsqrt;
  if (t.kind == TaskKind::ttmqr) m.kind = TaskKind::ttqrt;
  return detail::is_elim(s, s.p - t.k, m);
}

// Coordinates of task t, which must satisfy contains(s, t).
TILEDQR_HOST_DEVICE inline Coord coord_of(const Shape& s, const Task& t) {
  const int32_t r = s.p - t.k;
  const bool merge = t.kind == TaskKind::ttqrt || t.kind == TaskKind::ttmqr;
  const int32_t e = merge ? detail::elim_index(s, r, detail::eliminator(s, r, t.i - t.k))
                          : detail::first_use_index(s, r, t.i - t.k);
  return Coord{t.k, e, t.j - t.k};
}

TILEDQR_HOST_DEVICE inline int64_t id_of(const Shape& s, const Task& t) { return id_at(s, coord_of(s, t)); }

// Number of predecessors of task id (at most 3).
TILEDQR_HOST_DEVICE inline int predecessor_count(const Shape& s, int64_t id) {
  const Coord c = coord_of(s, id);
  const int later = c.k > 0 ? 1 : 0;  // the edge from step k − 1
  const TaskKind kind = s.tree == Tree::flat     ? (c.e == 0 ? TaskKind::geqrt : TaskKind::tsqrt)
                        : s.tree == Tree::hierarchical ? detail::elim_at(s, s.p - c.k, c.e).kind
                        : c.e < s.p - c.k              ? TaskKind::geqrt
                                                       : TaskKind::ttqrt;
  if (kind == TaskKind::geqrt) return (c.u > 0 ? 1 : 0) + later;  // and ormqr
  if (kind == TaskKind::tsqrt) return (c.u > 0 ? 2 : 1) + later;  // and tsmqr
  return c.u > 0 ? 3 : 2;
}

// Predecessors of task id in increasing order into out[0 .. 3); returns how many.
TILEDQR_HOST_DEVICE inline int predecessors(const Shape& s, int64_t id, int64_t out[3]) {
  const Coord c = coord_of(s, id);
  const int32_t r = s.p - c.k;
  const detail::Elim m = detail::elim_at(s, r, c.e);
  int n = 0;
  if (m.kind == TaskKind::ttqrt) {
    const detail::Elim a = detail::last_use_before(s, r, m.piv, m.level);
    const detail::Elim b = detail::last_use_before(s, r, m.d, m.level);
    out[n++] = id_at(s, Coord{c.k, detail::elim_index(s, r, a), c.u});
    out[n++] = id_at(s, Coord{c.k, detail::elim_index(s, r, b), c.u});
  } else if (m.kind == TaskKind::tsqrt) {
    out[n++] = id_at(s, Coord{c.k, c.e - 1, c.u});
  }
  if (c.u > 0) out[n++] = id_at(s, Coord{c.k, c.e, 0});
  if (c.k > 0 && m.kind != TaskKind::ttqrt) {
    const detail::Elim w = detail::eliminator(s, r + 1, m.d + 1);
    out[n++] = id_at(s, Coord{c.k - 1, detail::elim_index(s, r + 1, w), c.u + 1});
  }
  for (int a = 1; a < n; ++a)  // at most three: insertion sort
    for (int b = a; b > 0 && out[b - 1] > out[b]; --b) {
      const int64_t x = out[b];
      out[b] = out[b - 1];
      out[b - 1] = x;
    }
  return n;
}

TILEDQR_HOST_DEVICE inline Successors successors(const Shape& s, int64_t id) {
  const Coord c = coord_of(s, id);
  const int32_t r = s.p - c.k;
  const detail::Elim m = detail::elim_at(s, r, c.e);
  Successors out;
  if (c.u == 0) {
    out.range_begin = id + 1;
    out.range_end = id + (s.q - c.k);
  } else {
    out.range_begin = out.range_end = id;
  }
  int32_t next = 0;
  if (detail::next_elim(s, r, m, c.e, next)) out.extra[out.num_extra++] = id_at(s, Coord{c.k, next, c.u});
  if (c.u > 0 && m.kind != TaskKind::geqrt)  // the update that merged row d away: its tile moves on to step k+1
    out.extra[out.num_extra++] = id_at(s, Coord{c.k + 1, detail::first_use_index(s, r - 1, m.d - 1), c.u - 1});
  return out;
}

}  // namespace tiledqr::qr_dag
