// Tests for the tall-skinny tree variants (docs/design.md §8).
//
// TreeKernels: the reference ttqrt/ttmqr kernels (common/kernels/) and the
// lapack backend's tpqrt/tpmqrt wrappers with l = n (common/lapack_kernels)
// against LAPACKE_?tpqrt/?tpmqrt, in double and float.
//   Pass rule: every entry of R̂, V2 and of the updated [C1; C2] differs from
//   LAPACK's by at most 20·(m + n)·ε·max(1, max|input|) — rounding level.
//
// TreeDag: the binary and greedy DAGs of common/task_graph/dag.hpp, run by FR1 in random
// valid orders.
//   Pass rule: every DAG task is issued exactly once; in every run order each
//   tile part and T factor sees its reads and writes in program order (the
//   same access check the flat tree's grid gets), which a deliberately broken
//   order fails; |R| equals LAPACKE_dgeqrf's |R| to 1e-10 relative.

#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "checks.hpp"
#include "dag.hpp"
#include "elimination_tree.hpp"
#include "kernels/householder.hpp"
#include "kernels/host/tsmqr.hpp"
#include "kernels/host/tsqrt.hpp"
#include "kernels/lapack/lapack_kernels.hpp"
#include "serial_executor.hpp"

namespace tiledqr {
namespace {

// The seed of every random test: fixed so that runs repeat, printed so that a
// failure can be reproduced, and overridable through TILEDQR_TEST_SEED.
uint64_t test_seed() {
  static const uint64_t seed = [] {
    const char* env = std::getenv("TILEDQR_TEST_SEED");
    const uint64_t s = env != nullptr ? std::strtoull(env, nullptr, 10) : 20240612u;
    std::printf("test_tree_kernels: seed %llu (set TILEDQR_TEST_SEED to change)\n",
                static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

// Uniform in ±[0.1, 1]: random, and never zero.
template <typename T>
T nonzero_entry(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> magnitude(0.1, 1.0);
  return T(rng() % 2 == 0 ? magnitude(rng) : -magnitude(rng));
}

template <typename T>
std::vector<T> random_matrix(int64_t rows, int64_t cols, std::mt19937_64& rng) {
  std::vector<T> a(size_t(rows * cols));
  for (T& x : a) x = nonzero_entry<T>(rng);
  return a;
}

// (rows, cols) col-major, ld = rows: random on and above the diagonal,
// `below` strictly below it (a sentinel the kernels must not touch).
template <typename T>
std::vector<T> random_upper(int rows, int cols, T below, std::mt19937_64& rng) {
  std::vector<T> a(size_t(rows) * cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) a[i + size_t(j) * rows] = i <= j ? nonzero_entry<T>(rng) : below;
  return a;
}

// LAPACKE by precision.
lapack_int lapacke_tpqrt(int m, int n, int l, int nb, double* a, int lda, double* b, int ldb,
                         double* t, int ldt) {
  return LAPACKE_dtpqrt(LAPACK_COL_MAJOR, m, n, l, nb, a, lda, b, ldb, t, ldt);
}
lapack_int lapacke_tpqrt(int m, int n, int l, int nb, float* a, int lda, float* b, int ldb,
                         float* t, int ldt) {
  return LAPACKE_stpqrt(LAPACK_COL_MAJOR, m, n, l, nb, a, lda, b, ldb, t, ldt);
}
lapack_int lapacke_tpmqrt(char trans, int m, int n, int k, int l, int nb, const double* v,
                          int ldv, const double* t, int ldt, double* a, int lda, double* b,
                          int ldb) {
  return LAPACKE_dtpmqrt(LAPACK_COL_MAJOR, 'L', trans, m, n, k, l, nb, v, ldv, t, ldt, a, lda, b,
                         ldb);
}
lapack_int lapacke_tpmqrt(char trans, int m, int n, int k, int l, int nb, const float* v, int ldv,
                          const float* t, int ldt, float* a, int lda, float* b, int ldb) {
  return LAPACKE_stpmqrt(LAPACK_COL_MAJOR, 'L', trans, m, n, k, l, nb, v, ldv, t, ldt, a, lda, b,
                         ldb);
}

// max |x − y| over the (rows, cols) part of two col-major arrays, ld = ld,
// restricted to i ≤ j when `upper` (the trapezoid a kernel defines).
template <typename T>
double max_difference(const std::vector<T>& x, const std::vector<T>& y, int rows, int cols,
                      int ld, bool upper) {
  double worst = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows && (!upper || i <= j); ++i)
      worst = std::max(worst, std::fabs(double(x[i + size_t(j) * ld]) - double(y[i + size_t(j) * ld])));
  return worst;
}

template <typename T>
double max_magnitude(const std::vector<T>& x) {
  double worst = 1;
  for (const T v : x) worst = std::max(worst, std::fabs(double(v)));
  return worst;
}

template <typename T>
double rounding_tolerance(int m, int n, double scale) {
  return 20.0 * (m + n) * double(kernels::RealLimits<T>::eps) * scale;
}

// The shapes of [R1 (n, n); R2 (m, n)]: square tiles (m = n, l = n, what
// the tree executors use) and trapezoids m < n (l = m).
const std::vector<std::pair<int, int>> kTriangleShapes = {
    {1, 1}, {2, 2}, {3, 3}, {8, 8}, {17, 17}, {32, 32}, {3, 8}, {5, 17}};

// One factorisation of [R1; R2] by the reference kernel and by LAPACK.
template <typename T>
struct TriangleCase {
  int m = 0, n = 0;
  std::vector<T> r1, r2;            // inputs: (n, n) and (m, n), ld = n and m
  std::vector<T> r1_ref, v2_ref;    // reference ttqrt outputs
  std::vector<T> tau;               // (n)
  std::vector<T> r1_lap, v2_lap;    // LAPACKE_?tpqrt outputs, l = m
  std::vector<T> t_lap;             // (nb, n), ld = nb
  int nb = 0;
};

template <typename T>
TriangleCase<T> factor_triangles(int m, int n, int nb, std::mt19937_64& rng) {
  TriangleCase<T> c;
  c.m = m;
  c.n = n;
  c.nb = nb;
  c.r1 = random_upper<T>(n, n, T(7), rng);
  c.r2 = random_upper<T>(m, n, T(-5), rng);
  c.r1_ref = c.r1;
  c.v2_ref = c.r2;
  c.tau.assign(size_t(n), T(0));
  kernels::ttqrt(m, n, c.r1_ref.data(), n, c.v2_ref.data(), m, c.tau.data());
  c.r1_lap = c.r1;
  c.v2_lap = c.r2;
  c.t_lap.assign(size_t(nb) * n, T(0));
  EXPECT_EQ(lapacke_tpqrt(m, n, m, nb, c.r1_lap.data(), n, c.v2_lap.data(), m, c.t_lap.data(), nb),
            0);
  return c;
}

template <typename T>
void check_ttqrt_matches_lapack() {
  std::mt19937_64 rng(test_seed());
  for (const auto& [m, n] : kTriangleShapes) {
    SCOPED_TRACE("m = " + std::to_string(m) + ", n = " + std::to_string(n));
    const TriangleCase<T> c = factor_triangles<T>(m, n, std::min(n, 4), rng);
    const double tol = rounding_tolerance<T>(m, n, max_magnitude(c.r1));
    EXPECT_LE(max_difference(c.r1_ref, c.r1_lap, n, n, n, true), tol) << "R̂";
    EXPECT_LE(max_difference(c.v2_ref, c.v2_lap, m, n, m, true), tol) << "V2";
    // The parts outside the triangles hold other data in a tile (geqrt's V).
    for (int j = 0; j < n; ++j) {
      for (int i = j + 1; i < n; ++i) EXPECT_EQ(c.r1_ref[i + size_t(j) * n], T(7));
      for (int i = j + 1; i < m; ++i) EXPECT_EQ(c.v2_ref[i + size_t(j) * m], T(-5));
    }
  }
}

TEST(TreeKernels, TtqrtMatchesLapackTpqrtDouble) { check_ttqrt_matches_lapack<double>(); }
TEST(TreeKernels, TtqrtMatchesLapackTpqrtFloat) { check_ttqrt_matches_lapack<float>(); }

template <typename T>
void check_ttmqr_matches_lapack() {
  std::mt19937_64 rng(test_seed() + 1);
  for (const auto& [m, n] : kTriangleShapes) {
    const TriangleCase<T> c = factor_triangles<T>(m, n, std::min(n, 3), rng);
    for (const int cols : {1, 5, n}) {
      for (const bool transpose : {true, false}) {
        SCOPED_TRACE("m = " + std::to_string(m) + ", n = " + std::to_string(n) + ", cols = " +
                     std::to_string(cols) + (transpose ? ", Qᵀ" : ", Q"));
        const std::vector<T> c1 = random_matrix<T>(n, cols, rng);
        const std::vector<T> c2 = random_matrix<T>(m, cols, rng);
        std::vector<T> top_ref = c1, bottom_ref = c2, top_lap = c1, bottom_lap = c2;
        kernels::ttmqr(transpose, m, cols, n, c.v2_ref.data(), m, c.tau.data(), top_ref.data(), n,
                       bottom_ref.data(), m);
        ASSERT_EQ(lapacke_tpmqrt(transpose ? 'T' : 'N', m, cols, n, m, c.nb, c.v2_lap.data(), m,
                                 c.t_lap.data(), c.nb, top_lap.data(), n, bottom_lap.data(), m),
                  0);
        const double tol = rounding_tolerance<T>(m, n, 1.0);
        EXPECT_LE(max_difference(top_ref, top_lap, n, cols, n, false), tol);
        EXPECT_LE(max_difference(bottom_ref, bottom_lap, m, cols, m, false), tol);
      }
    }
  }
}

TEST(TreeKernels, TtmqrMatchesLapackTpmqrtDouble) { check_ttmqr_matches_lapack<double>(); }
TEST(TreeKernels, TtmqrMatchesLapackTpmqrtFloat) { check_ttmqr_matches_lapack<float>(); }

// Qᵀ [R1; R2] = [R̂; 0] and Q Qᵀ C = C, through the reference kernels alone.
template <typename T>
void check_ttmqr_inverts_ttqrt() {
  std::mt19937_64 rng(test_seed() + 2);
  for (const auto& [m, n] : kTriangleShapes) {
    SCOPED_TRACE("m = " + std::to_string(m) + ", n = " + std::to_string(n));
    const TriangleCase<T> c = factor_triangles<T>(m, n, 1, rng);
    std::vector<T> top = c.r1, bottom = c.r2;
    for (int j = 0; j < n; ++j) {  // the sentinels stand for zeros here
      for (int i = j + 1; i < n; ++i) top[i + size_t(j) * n] = T(0);
      for (int i = j + 1; i < m; ++i) bottom[i + size_t(j) * m] = T(0);
    }
    kernels::ttmqr(true, m, n, n, c.v2_ref.data(), m, c.tau.data(), top.data(), n, bottom.data(), m);
    const double tol = rounding_tolerance<T>(m, n, max_magnitude(c.r1));
    EXPECT_LE(max_difference(top, c.r1_ref, n, n, n, true), tol) << "R̂";
    EXPECT_LE(max_difference(bottom, std::vector<T>(bottom.size(), T(0)), m, n, m, false), tol)
        << "eliminated triangle";

    const std::vector<T> c1 = random_matrix<T>(n, 3, rng), c2 = random_matrix<T>(m, 3, rng);
    std::vector<T> x1 = c1, x2 = c2;
    kernels::ttmqr(true, m, 3, n, c.v2_ref.data(), m, c.tau.data(), x1.data(), n, x2.data(), m);
    kernels::ttmqr(false, m, 3, n, c.v2_ref.data(), m, c.tau.data(), x1.data(), n, x2.data(), m);
    EXPECT_LE(max_difference(x1, c1, n, 3, n, false), tol);
    EXPECT_LE(max_difference(x2, c2, m, 3, m, false), tol);
  }
}

TEST(TreeKernels, TtmqrInvertsTtqrtDouble) { check_ttmqr_inverts_ttqrt<double>(); }
TEST(TreeKernels, TtmqrInvertsTtqrtFloat) { check_ttmqr_inverts_ttqrt<float>(); }

// The lapack backend's wrappers as Factorization::run_task calls them for
// ttqrt/ttmqr (m = n = b, l = b), for several inner blocks ib, against the
// reference kernels.
template <typename T>
void check_lapack_backend_wrappers() {
  std::mt19937_64 rng(test_seed() + 3);
  for (const int b : {1, 2, 7, 16, 32}) {
    for (const int ib : {1, 3, b}) {
      if (ib > b) continue;
      SCOPED_TRACE("b = " + std::to_string(b) + ", ib = " + std::to_string(ib));
      const TriangleCase<T> c = factor_triangles<T>(b, b, 1, rng);
      std::vector<T> r1 = c.r1, v2 = c.r2, t(size_t(ib) * b, T(0));
      lapack_kernels::tpqrt(b, b, b, ib, r1.data(), b, v2.data(), b, t.data(), ib);
      const double tol = rounding_tolerance<T>(b, b, max_magnitude(c.r1));
      EXPECT_LE(max_difference(r1, c.r1_ref, b, b, b, true), tol) << "R̂";
      EXPECT_LE(max_difference(v2, c.v2_ref, b, b, b, true), tol) << "V2";

      for (const bool transpose : {true, false}) {
        const std::vector<T> c1 = random_matrix<T>(b, b, rng), c2 = random_matrix<T>(b, b, rng);
        std::vector<T> top_ref = c1, bottom_ref = c2, top = c1, bottom = c2;
        kernels::ttmqr(transpose, b, b, b, c.v2_ref.data(), b, c.tau.data(), top_ref.data(), b,
                       bottom_ref.data(), b);
        lapack_kernels::tpmqrt(transpose, b, b, b, b, ib, v2.data(), b, t.data(), ib, top.data(), b,
                               bottom.data(), b);
        EXPECT_LE(max_difference(top, top_ref, b, b, b, false), tol);
        EXPECT_LE(max_difference(bottom, bottom_ref, b, b, b, false), tol);
      }
    }
  }
}

TEST(TreeKernels, LapackBackendWrappersDouble) { check_lapack_backend_wrappers<double>(); }
TEST(TreeKernels, LapackBackendWrappersFloat) { check_lapack_backend_wrappers<float>(); }

// A zero triangle below gives identity reflectors (τ = 0), never NaN, and
// leaves R1 as it was.
TEST(TreeKernels, ZeroLowerTriangleGivesIdentity) {
  std::mt19937_64 rng(test_seed() + 4);
  const int n = 6;
  const std::vector<double> r1 = random_upper<double>(n, n, 0.0, rng);
  std::vector<double> top = r1, bottom(size_t(n) * n, 0.0), tau(size_t(n), 1.0);
  kernels::ttqrt(n, n, top.data(), n, bottom.data(), n, tau.data());
  for (const double x : tau) EXPECT_EQ(x, 0.0);
  EXPECT_EQ(top, r1);
  for (const double x : bottom) EXPECT_EQ(x, 0.0);
}

// ---------------------------------------------------------------- TreeDag

// The data a task touches, as its kernel's doc comment defines it: each tile
// is two parts (strict lower: geqrt's V; upper: R, or ttqrt's V2), plus the
// tile's two T factors (Factorization::t_local, t_merge).
enum Part { lower = 0, upper = 1, t_local = 2, t_merge = 3 };

struct Access {
  int64_t object;
  bool write;
};

std::vector<Access> accesses_of(const Task& t, int32_t p) {
  std::vector<Access> out;
  auto add = [&](int32_t i, int32_t j, Part part, bool write) {
    out.push_back({(int64_t(i) + int64_t(j) * p) * 4 + part, write});
  };
  auto whole = [&](int32_t i, int32_t j, bool write) {
    add(i, j, lower, write);
    add(i, j, upper, write);
  };
  switch (t.kind) {
    case TaskKind::geqrt:
      whole(t.i, t.k, true);
      add(t.i, t.k, t_local, true);
      break;
    case TaskKind::ormqr:
      add(t.i, t.k, lower, false);
      add(t.i, t.k, t_local, false);
      whole(t.i, t.j, true);
      break;
    case TaskKind::tsqrt:
      add(t.piv, t.k, upper, true);
      whole(t.i, t.k, true);
      add(t.i, t.k, t_merge, true);
      break;
    case TaskKind::tsmqr:
      whole(t.i, t.k, false);
      add(t.i, t.k, t_merge, false);
      whole(t.piv, t.j, true);
      whole(t.i, t.j, true);
      break;
    case TaskKind::ttqrt:
      add(t.piv, t.k, upper, true);
      add(t.i, t.k, upper, true);
      add(t.i, t.k, t_merge, true);
      break;
    case TaskKind::ttmqr:
      add(t.i, t.k, upper, false);
      add(t.i, t.k, t_merge, false);
      whole(t.piv, t.j, true);
      whole(t.i, t.j, true);
      break;
  }
  return out;
}

using TaskKey = std::tuple<int, int32_t, int32_t, int32_t, int32_t>;
TaskKey key_of(const Task& t) { return {int(t.kind), t.k, t.i, t.j, t.piv}; }

// Empty when `order` issues each task of `program` (the serial algorithm's
// order) exactly once and every data object sees its conflicting accesses
// (read-after-write, write-after-read, write-after-write) in program order;
// otherwise the first problem found.
std::string check_order(const std::vector<Task>& program, const std::vector<Task>& order,
                        int32_t p) {
  std::map<TaskKey, size_t> index;
  for (size_t t = 0; t < program.size(); ++t)
    if (!index.emplace(key_of(program[t]), t).second) return "program lists a task twice";
  std::vector<int64_t> position(program.size(), -1);
  for (size_t s = 0; s < order.size(); ++s) {
    const auto found = index.find(key_of(order[s]));
    if (found == index.end()) return "order has a task not in the program";
    if (position[found->second] >= 0) return "order issues a task twice";
    position[found->second] = int64_t(s);
  }
  if (order.size() != program.size()) return "order misses tasks";

  struct History {
    int64_t last_write = -1;      // position of the last writer in program order so far
    int64_t latest_read = -1;     // latest position of a reader since that write
  };
  std::map<int64_t, History> objects;
  for (size_t t = 0; t < program.size(); ++t) {
    for (const Access& a : accesses_of(program[t], p)) {
      History& h = objects[a.object];
      const std::string where = std::string(task_kind_name(program[t].kind)) + "(k=" +
                                std::to_string(program[t].k) + ", i=" +
                                std::to_string(program[t].i) + ", j=" +
                                std::to_string(program[t].j) + ")";
      if (position[t] < h.last_write) return where + " ran before the previous writer";
      if (a.write) {
        if (position[t] < h.latest_read) return where + " overwrote data a reader still needed";
        h.last_write = position[t];
        h.latest_read = -1;
      } else {
        h.latest_read = std::max(h.latest_read, position[t]);
      }
    }
  }
  return "";
}

// The serial algorithm's task order, from the elimination plans alone.
std::vector<Task> program_order(int32_t p, int32_t q, Tree tree) {
  std::vector<Task> program;
  for (int32_t k = 0; k < std::min(p, q); ++k) {
    for (const Elimination& e : panel_eliminations(p, k, tree)) {
      program.push_back(factor_task(e, k));
      for (int32_t j = k + 1; j < q; ++j) program.push_back(update_task(e, k, j));
    }
  }
  return program;
}

const std::vector<std::pair<int32_t, int32_t>> kDagGrids = {
    {1, 1}, {1, 4}, {2, 2}, {3, 1}, {4, 9}, {5, 3}, {7, 7}, {9, 2}, {13, 5}, {16, 3}};

// Each panel's plan is a reduction tree: every row k … p−1 is factored
// once, every row but k is then merged away exactly once into a row still
// alive, and log₂ levels suffice.
TEST(TreeDag, PanelPlansAreReductionTrees) {
  for (const Tree tree : {Tree::binary, Tree::greedy}) {
    for (const int32_t p : {1, 2, 3, 5, 8, 13, 64, 100}) {
      for (int32_t k = 0; k < std::min(p, 4); ++k) {
        SCOPED_TRACE(std::string(tree_name(tree)) + ", p = " + std::to_string(p) + ", k = " +
                     std::to_string(k));
        std::vector<int> factored(size_t(p), 0), merged(size_t(p), 0), level(size_t(p), 0);
        for (const Elimination& e : panel_eliminations(p, k, tree)) {
          ASSERT_GE(e.i, k);
          ASSERT_LT(e.i, p);
          if (e.kind == TaskKind::geqrt) {
            EXPECT_EQ(e.piv, e.i);
            ++factored[e.i];
            continue;
          }
          ASSERT_EQ(e.kind, TaskKind::ttqrt);
          EXPECT_EQ(factored[e.i], 1);
          EXPECT_EQ(factored[e.piv], 1);
          EXPECT_EQ(merged[e.piv], 0) << "pivot row already merged away";
          EXPECT_EQ(merged[e.i], 0);
          ++merged[e.i];
          level[e.piv] = std::max(level[e.piv], level[e.i]) + 1;
        }
        int depth = 0;
        for (int32_t i = k; i < p; ++i) {
          EXPECT_EQ(factored[i], 1);
          EXPECT_EQ(merged[i], i == k ? 0 : 1);
          depth = std::max(depth, level[i]);
        }
        EXPECT_LE(depth, int(std::ceil(std::log2(double(p - k)))));
      }
    }
  }
}

// The DAG holds exactly the program's tasks, in program order, and its
// own edges point forward.
TEST(TreeDag, DagHoldsTheProgramsTasks) {
  for (const Tree tree : {Tree::binary, Tree::greedy}) {
    for (const auto& [p, q] : kDagGrids) {
      SCOPED_TRACE(std::string(tree_name(tree)) + ", " + std::to_string(p) + "x" + std::to_string(q));
      const Dag dag = build_qr_dag(p, q, tree);
      const std::vector<Task> program = program_order(p, q, tree);
      ASSERT_EQ(dag.tasks.size(), program.size());
      for (size_t t = 0; t < program.size(); ++t) EXPECT_TRUE(dag.tasks[t] == program[t]);
      for (int32_t t = 0; t < dag.num_tasks(); ++t)
        for (int64_t e = dag.pred_offsets[t]; e < dag.pred_offsets[t + 1]; ++e)
          EXPECT_LT(dag.preds[size_t(e)], t);
      EXPECT_EQ(check_order(program, dag.tasks, p), "");
    }
  }
}

// FR1 runs the DAG in random valid orders (random picks among the ready
// tasks); the order it ran, read from its trace, passes the access check
// and the factors are bit-identical to the priority order's.
TEST(TreeDag, RandomValidOrdersKeepEveryEdge) {
  std::mt19937_64 rng(test_seed() + 5);
  const int b = 3;
  for (const Tree tree : {Tree::binary, Tree::greedy}) {
    for (const auto& [p, q] : kDagGrids) {
      const int64_t m = int64_t(p) * b - 1, n = int64_t(q) * b - (q > 1 ? 2 : 0);
      const std::vector<double> a = random_matrix<double>(m, n, rng);
      Options options;
      options.tile = b;
      options.tree = tree;
      options.backend = Backend::reference;
      const Factorization<double> priority = factor(a.data(), m, n, m, options);
      const std::vector<Task> program = program_order(p, q, tree);
      for (int run = 0; run < 5; ++run) {
        SCOPED_TRACE(std::string(tree_name(tree)) + ", " + std::to_string(p) + "x" +
                     std::to_string(q) + ", run " + std::to_string(run));
        options.trace = true;
        Factorization<double> f(a.data(), m, n, m, options);
        run_serial(f, [&rng](size_t count) { return size_t(rng() % count); });
        std::vector<Task> order;
        for (const TaskRecord& r : f.trace) order.push_back(r.task);
        EXPECT_EQ(check_order(program, order, p), "");
        EXPECT_EQ(f.tiles.data, priority.tiles.data);
        EXPECT_EQ(f.t_merge, priority.t_merge);
      }
    }
  }
}

// The hierarchical tree (3 domains, flat or binary inside): FR1 in random
// valid orders passes the access check against the DAG's program order and
// gives the priority order's factors bit for bit; both residuals < 50.
TEST(TreeDag, HierarchicalRandomOrdersAndAccuracy) {
  std::mt19937_64 rng(test_seed() + 7);
  const int b = 3;
  for (const Tree inner : {Tree::flat, Tree::binary}) {
    for (const auto& [p, q] : kDagGrids) {
      SCOPED_TRACE(std::string("inner ") + tree_name(inner) + ", " + std::to_string(p) + "x" + std::to_string(q));
      const int64_t m = int64_t(p) * b - 1, n = int64_t(q) * b - (q > 1 ? 2 : 0);
      const std::vector<double> a = random_matrix<double>(m, n, rng);
      Options options;
      options.tile = b;
      options.tree = Tree::hierarchical;
      options.tree_domains = 3;
      options.inner_tree = inner;
      options.backend = Backend::reference;
      const Factorization<double> priority = factor(a.data(), m, n, m, options);
      const Dag dag = build_qr_dag(p, q, Tree::hierarchical, 3, inner);
      for (int run = 0; run < 3; ++run) {
        options.trace = true;
        Factorization<double> f(a.data(), m, n, m, options);
        run_serial(f, [&rng](size_t count) { return size_t(rng() % count); });
        std::vector<Task> order;
        for (const TaskRecord& r : f.trace) order.push_back(r.task);
        EXPECT_EQ(check_order(dag.tasks, order, p), "");
        EXPECT_EQ(f.tiles.data, priority.tiles.data);
      }
      const Residuals res = check_factorization(a.data(), m, n, m, priority);
      EXPECT_LT(res.residual, 50);
      EXPECT_LT(res.orthogonality, 50);
    }
  }
}

// The access check is not vacuous: moving an update before the merge that
// produces its reflectors, or two merges into one pivot past each other,
// fails it.
TEST(TreeDag, AccessCheckCatchesBrokenOrders) {
  for (const Tree tree : {Tree::binary, Tree::greedy}) {
    const int32_t p = 6, q = 3;
    const std::vector<Task> program = program_order(p, q, tree);
    ASSERT_EQ(check_order(program, program, p), "");
    auto first_of = [&](TaskKind kind) {
      return size_t(std::find_if(program.begin(), program.end(),
                                 [kind](const Task& t) { return t.kind == kind; }) -
                    program.begin());
    };
    std::vector<Task> early_update = program;
    const size_t merge = first_of(TaskKind::ttqrt), update = first_of(TaskKind::ttmqr);
    std::swap(early_update[merge], early_update[update]);
    EXPECT_NE(check_order(program, early_update, p), "") << tree_name(tree);

    std::vector<Task> dropped = program;
    dropped.pop_back();
    EXPECT_NE(check_order(program, dropped, p), "");

    // Two ttmqr of one panel writing one tile column in the wrong order.
    std::vector<Task> swapped = program;
    size_t first = program.size(), second = program.size();
    for (size_t t = 0; t < program.size() && second == program.size(); ++t) {
      if (program[t].kind != TaskKind::ttmqr || program[t].j != 1) continue;
      if (first == program.size()) first = t;
      else if (program[t].piv == program[first].piv) second = t;
    }
    ASSERT_LT(second, program.size());
    std::swap(swapped[first], swapped[second]);
    EXPECT_NE(check_order(program, swapped, p), "") << tree_name(tree);
  }
}

lapack_int lapacke_geqrf(int m, int n, double* a, int lda, double* tau) {
  return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
}

// R of FR1 with the trees equals LAPACK's up to the sign of each row:
// |R(i, j)| to 1e-10 relative to max|R|, and |R(i, i)| to 1e-10 relative.
TEST(TreeDag, RMatchesLapackGeqrf) {
  std::mt19937_64 rng(test_seed() + 6);
  struct Shape {
    int64_t m, n;
    int tile;
  };
  for (const Shape s : {Shape{200, 60, 16}, Shape{97, 97, 8}, Shape{50, 120, 16},
                        Shape{333, 17, 5}, Shape{64, 64, 32}}) {
    const std::vector<double> a = random_matrix<double>(s.m, s.n, rng);
    std::vector<double> lapack = a, tau(size_t(std::min(s.m, s.n)));
    ASSERT_EQ(lapacke_geqrf(int(s.m), int(s.n), lapack.data(), int(s.m), tau.data()), 0);
    for (const Tree tree : {Tree::binary, Tree::greedy}) {
      for (const Backend backend : {Backend::reference, Backend::lapack}) {
        SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n) + " tile " +
                     std::to_string(s.tile) + ", " + tree_name(tree) + ", " + backend_name(backend));
        Options options;
        options.tile = s.tile;
        options.tree = tree;
        options.backend = backend;
        const DenseMatrix<double> r = factor(a.data(), s.m, s.n, s.m, options).r();
        double scale = 0;
        for (const double x : r.data) scale = std::max(scale, std::fabs(x));
        for (int64_t j = 0; j < r.cols; ++j) {
          for (int64_t i = 0; i <= std::min(j, r.rows - 1); ++i) {
            const double expected = std::fabs(lapack[size_t(i + j * s.m)]);
            const double got = std::fabs(r(i, j));
            if (i == j) {
              EXPECT_NEAR(got, expected, 1e-10 * expected) << "diagonal " << i;
            }
            EXPECT_NEAR(got, expected, 1e-10 * scale) << "(" << i << ", " << j << ")";
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tiledqr
