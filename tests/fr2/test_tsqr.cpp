// Tests of the tsqr tree (common/factorization/tsqr.hpp, docs/design.md §8): against
// LAPACK and against FR1's tile factorisation, on ragged shapes in both
// precisions; FR1 and FR2 on 1, 2 and many threads giving the same bits for
// the same row blocks; Q applied, formed and solved with; scaling near the
// overflow threshold; bad arguments.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "checks.hpp"
#include "dag.hpp"
#include "elimination_tree.hpp"
#include "errors.hpp"
#include "serial_executor.hpp"
#include "test_support.hpp"
#include "threaded_executor.hpp"

namespace tiledqr {
namespace {

using testing::make_engine;
using testing::random_matrix;

struct Case {
  int64_t m, n;
  int blocks, fan_in, inner_block;
};

// Ragged shapes: m a multiple of nothing, n = 1, m = n + 1, more blocks
// asked for than m / n allows, a wide matrix (one block), a square one.
const std::vector<Case> kCases = {
    {1001, 37, 5, 2, 0},  {1000, 1, 7, 3, 0},   {38, 37, 3, 4, 16}, {2053, 64, 7, 8, 16},
    {97, 13, 16, 4, 5},   {5, 5, 2, 4, 0},       {3, 7, 4, 4, 0},    {1, 1, 1, 4, 0},
    {641, 40, 3, 3, 40},  {5000, 3, 16, 5, 2},
};

std::string describe(const Case& c, Backend backend, const char* precision) {
  return std::to_string(c.m) + "x" + std::to_string(c.n) + " blocks " + std::to_string(c.blocks) + " fan-in " +
         std::to_string(c.fan_in) + " ib " + std::to_string(c.inner_block) + " " + backend_name(backend) + " " +
         precision;
}

Options tsqr_options(const Case& c, Backend backend = Backend::lapack) {
  Options o;
  o.tree = Tree::tsqr;
  o.tile = int(std::min<int64_t>(32, std::max(c.m, c.n)));
  o.inner_block = c.inner_block;
  o.tree_domains = c.blocks;
  o.fan_in = c.fan_in;
  o.backend = backend;
  return o;
}

int lapack_geqrf(int64_t m, int64_t n, double* a, double* tau) {
  return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, int(m), int(n), a, int(m), tau);
}
int lapack_geqrf(int64_t m, int64_t n, float* a, float* tau) {
  return LAPACKE_sgeqrf(LAPACK_COL_MAJOR, int(m), int(n), a, int(m), tau);
}

// ‖D·x − y‖_F / (‖y‖_F·n·ε) with D = diag(sign(y_ii) / sign(x_ii)): two R
// factors of one matrix agree up to the signs of their rows.
// Both are divided by y's largest entry first, so that entries near the
// overflow threshold square without overflowing.
template <typename T>
double r_difference(const DenseMatrix<T>& x, const DenseMatrix<T>& y, int64_t n) {
  double largest = 0;
  for (const T v : y.data) largest = std::max(largest, std::fabs(double(v)));
  double diff = 0, norm = 0;
  for (int64_t i = 0; i < x.rows; ++i) {
    const double sign = (x(i, i) < 0) == (y(i, i) < 0) ? 1.0 : -1.0;
    for (int64_t j = i; j < x.cols; ++j) {
      const double d = (sign * double(x(i, j)) - double(y(i, j))) / largest;
      diff += d * d;
      norm += (double(y(i, j)) / largest) * (double(y(i, j)) / largest);
    }
  }
  return std::sqrt(diff) / (std::sqrt(norm) * double(n) * double(std::numeric_limits<T>::epsilon()));
}

// The upper triangle of LAPACK's geqrf, (min(m, n), n).
template <typename T>
DenseMatrix<T> lapack_r(const DenseMatrix<T>& a) {
  DenseMatrix<T> work = a;
  std::vector<T> tau(size_t(std::min(a.rows, a.cols)));
  EXPECT_EQ(lapack_geqrf(a.rows, a.cols, work.data.data(), tau.data()), 0);
  DenseMatrix<T> r(std::min(a.rows, a.cols), a.cols);
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i <= std::min(j, r.rows - 1); ++i) r(i, j) = work(i, j);
  return r;
}

// Pass rule, each case and backend: ‖A−QR‖_F/(‖A‖_F·n·ε) < 50 and
// ‖I−QᵀQ‖_F/(n·ε) < 50; R equal to LAPACK's geqrf and to FR1's flat tile
// tree up to row signs, ‖D·R − R_ref‖_F/(‖R_ref‖_F·n·ε) < 50; zeros below
// R's diagonal.
template <typename T>
void expect_accurate(uint64_t salt) {
  const char* precision = sizeof(T) == 8 ? "double" : "float";
  for (const Case& c : kCases)
    for (const Backend backend : {Backend::lapack, Backend::reference}) {
      SCOPED_TRACE(describe(c, backend, precision));
      std::mt19937_64 engine = make_engine(salt++);
      const DenseMatrix<T> a = random_matrix<T>(c.m, c.n, engine);
      const Factorization<T> f = factor(a.data.data(), c.m, c.n, c.m, tsqr_options(c, backend));
      const Residuals res = check_factorization(a.data.data(), c.m, c.n, c.m, f);
      EXPECT_LT(res.residual, 50);
      EXPECT_LT(res.orthogonality, 50);
      const DenseMatrix<T> r = f.r();
      EXPECT_LT(r_difference(r, lapack_r(a), c.n), 50) << "against LAPACK";
      Options tiles;
      tiles.tile = 8;
      tiles.backend = backend;
      const Factorization<T> fr1 = factor(a.data.data(), c.m, c.n, c.m, tiles);
      EXPECT_LT(r_difference(r, fr1.r(), c.n), 50) << "against FR1's tiles";
      for (int64_t j = 0; j < r.cols; ++j)
        for (int64_t i = j + 1; i < r.rows; ++i) ASSERT_EQ(r(i, j), T(0));
    }
}

TEST(TsqrAccuracy, AgainstLapackAndFr1Double) { expect_accurate<double>(100); }
TEST(TsqrAccuracy, AgainstLapackAndFr1Float) { expect_accurate<float>(200); }

// Pass rule: the blocks are the ones asked for, cut to ⌊m/n⌋ (at least
// one), their sizes differ by at most one row, and every block of several
// holds n rows or more.
TEST(TsqrAccuracy, RowBlocksAreEvenAndTallEnough) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(describe(c, Backend::lapack, "double"));
    const std::vector<double> a(size_t(c.m * c.n), 1.0);
    const TsqrFactors<double> t(a.data(), c.m, c.n, c.m, c.blocks, 8, c.fan_in, false);
    const int64_t want = c.blocks == 1 ? 1 : std::max<int64_t>(1, std::min<int64_t>(c.blocks, c.m / c.n));
    EXPECT_EQ(t.count(), want);
    EXPECT_EQ(t.first.front(), 0);
    EXPECT_EQ(t.first.back(), c.m);
    int64_t fewest = c.m, most = 0;
    for (int32_t d = 0; d < t.count(); ++d) {
      fewest = std::min(fewest, t.rows(d));
      most = std::max(most, t.rows(d));
    }
    EXPECT_LE(most - fewest, 1);
    if (t.count() > 1) {
      EXPECT_GE(fewest, c.n);
    }
  }
}

template <typename T>
bool same_values(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0);
}

// Bitwise equality of everything the tsqr tree stores: the blocks (R and
// V), both sets of T factors and the exponents.
template <typename T>
void expect_same_bits(const Factorization<T>& got, const Factorization<T>& want) {
  ASSERT_EQ(got.tsqr.count(), want.tsqr.count());
  for (int32_t d = 0; d < want.tsqr.count(); ++d) {
    EXPECT_TRUE(same_values(got.tsqr.blocks[size_t(d)], want.tsqr.blocks[size_t(d)])) << "block " << d;
    EXPECT_TRUE(same_values(got.tsqr.t_block[size_t(d)], want.tsqr.t_block[size_t(d)])) << "T of block " << d;
    EXPECT_TRUE(same_values(got.tsqr.t_merge[size_t(d)], want.tsqr.t_merge[size_t(d)])) << "T of merge " << d;
  }
  EXPECT_EQ(got.tsqr.scale, want.tsqr.scale);
  EXPECT_EQ(got.scale_exponent, want.scale_exponent);
}

// Columns of Q the tests form: all of them (k = m) where that stays small.
int64_t q_columns(const Case& c) { return c.m <= 2100 ? c.m : std::min(c.m, c.n + 7); }

// Pass rule: for the same row blocks, FR2 on 1, 2, 3 and 8 threads stores
// the same bits as FR1, twice in a row, and Q formed or applied on FR2's
// threads equals Q formed or applied in program order, bit for bit.
template <typename T>
void expect_threads_match_serial(uint64_t salt) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(describe(c, Backend::lapack, sizeof(T) == 8 ? "double" : "float"));
    std::mt19937_64 engine = make_engine(salt++);
    const DenseMatrix<T> a = random_matrix<T>(c.m, c.n, engine);
    const DenseMatrix<T> b = random_matrix<T>(c.m, 3, engine);
    Options o = tsqr_options(c);
    const Factorization<T> serial = factor(a.data.data(), c.m, c.n, c.m, o);
    const int64_t k = q_columns(c);
    DenseMatrix<T> q_serial(c.m, k), qtb_serial = b;
    serial.form_q(k, q_serial.data.data(), c.m);
    serial.apply_qt(qtb_serial.data.data(), c.m, 3);
    for (const int threads : {1, 2, 3, 8})
      for (int run = 0; run < 2; ++run) {
        SCOPED_TRACE("threads " + std::to_string(threads) + " run " + std::to_string(run));
        o.threads = threads;
        const Factorization<T> threaded = factor_threaded(a.data.data(), c.m, c.n, c.m, o);
        expect_same_bits(threaded, serial);
        const DagExecutor on_threads = [threads](const Dag& dag, const std::function<void(const Task&)>& run_task) {
          run_dag_threaded(dag, threads, run_task);
        };
        DenseMatrix<T> q(c.m, k), qtb = b;
        threaded.form_q(k, q.data.data(), c.m, on_threads);
        threaded.apply_qt(qtb.data.data(), c.m, 3, on_threads);
        EXPECT_TRUE(same_values(q.data, q_serial.data)) << "form_q";
        EXPECT_TRUE(same_values(qtb.data, qtb_serial.data)) << "apply_qt";
      }
  }
}

TEST(TsqrBits, ThreadsMatchSerialDouble) { expect_threads_match_serial<double>(300); }
TEST(TsqrBits, ThreadsMatchSerialFloat) { expect_threads_match_serial<float>(400); }

// Pass rule: with every task delayed by a random 0–200 µs on its worker, 30
// runs of 2–8 threads on 16 blocks store the same bits as FR1, and the
// tasks ran on more than one worker.
TEST(TsqrBits, RandomSleepsMatchSerial) {
  const Case c{3001, 20, 16, 3, 8};
  std::mt19937_64 engine = make_engine(500);
  const DenseMatrix<double> a = random_matrix<double>(c.m, c.n, engine);
  const Factorization<double> serial = factor(a.data.data(), c.m, c.n, c.m, tsqr_options(c));
  std::mutex mutex;
  std::set<int> workers;
  for (int run = 0; run < 30; ++run) {
    Factorization<double> f(a.data.data(), c.m, c.n, c.m, tsqr_options(c));
    ThreadedHooks hooks;
    hooks.before_task = [&](int worker) {
      thread_local std::mt19937_64 sleepy(std::hash<std::thread::id>()(std::this_thread::get_id()));
      std::this_thread::sleep_for(std::chrono::microseconds(sleepy() % 200));
      const std::lock_guard<std::mutex> lock(mutex);
      workers.insert(worker);
    };
    run_threaded(f, 2 + run % 7, hooks);
    expect_same_bits(f, serial);
  }
  EXPECT_GT(workers.size(), 1u);
}

// Pass rule, each case: Qᵀ(Q B) = B and Q(Qᵀ B) = B to 50·n·ε relative;
// form_q(k) for k = 0, 1, min(m, n) and m (min(m, n + 7) where m > 2100)
// equals Q applied to the first k
// columns of the identity bit for bit; QᵀA holds R in its first rows and
// (near) zeros below, to 50·n·ε relative.
TEST(TsqrApply, RoundTripsFormQAndQtA) {
  uint64_t salt = 600;
  for (const Case& c : kCases) {
    SCOPED_TRACE(describe(c, Backend::lapack, "double"));
    std::mt19937_64 engine = make_engine(salt++);
    const DenseMatrix<double> a = random_matrix<double>(c.m, c.n, engine);
    const DenseMatrix<double> b = random_matrix<double>(c.m, 4, engine);
    const Factorization<double> f = factor(a.data.data(), c.m, c.n, c.m, tsqr_options(c));
    const double eps = std::numeric_limits<double>::epsilon(), scale = 50 * double(c.n) * eps;
    const auto relative = [](const DenseMatrix<double>& x, const DenseMatrix<double>& y) {
      double d = 0, s = 0;
      for (size_t e = 0; e < x.data.size(); ++e) {
        d += (x.data[e] - y.data[e]) * (x.data[e] - y.data[e]);
        s += y.data[e] * y.data[e];
      }
      return std::sqrt(d / s);
    };
    DenseMatrix<double> x = b;
    f.apply_q(x.data.data(), c.m, 4);
    f.apply_qt(x.data.data(), c.m, 4);
    EXPECT_LT(relative(x, b), scale) << "Qᵀ Q B";
    f.apply_qt(x.data.data(), c.m, 4);
    f.apply_q(x.data.data(), c.m, 4);
    EXPECT_LT(relative(x, b), scale) << "Q Qᵀ B";
    for (const int64_t k : {int64_t(0), int64_t(1), std::min(c.m, c.n), q_columns(c)}) {
      DenseMatrix<double> q(c.m, k), identity(c.m, k);
      for (int64_t j = 0; j < k; ++j) identity(j, j) = 1;
      f.form_q(k, q.data.data(), c.m);
      f.apply_q(identity.data.data(), c.m, k);
      EXPECT_TRUE(same_values(q.data, identity.data)) << "form_q(" << k << ")";
    }
    DenseMatrix<double> qta = a, r_full(c.m, c.n);
    f.apply_qt(qta.data.data(), c.m, c.n);
    const DenseMatrix<double> r = f.r();
    for (int64_t j = 0; j < c.n; ++j)
      for (int64_t i = 0; i < r.rows; ++i) r_full(i, j) = r(i, j);
    EXPECT_LT(relative(qta, r_full), scale) << "Qᵀ A";
  }
}

// Pass rule: X from solve (tsqr, 1 and 3 blocks) matches LAPACK's dgels to
// 1e-10 relative on a 700×30 system with 2 right-hand sides.
TEST(TsqrApply, SolveMatchesDgels) {
  const int64_t m = 700, n = 30, k = 2;
  std::mt19937_64 engine = make_engine(700);
  const DenseMatrix<double> a = random_matrix<double>(m, n, engine);
  const DenseMatrix<double> b = random_matrix<double>(m, k, engine);
  DenseMatrix<double> la = a, lb = b;
  ASSERT_EQ(LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', int(m), int(n), int(k), la.data.data(), int(m), lb.data.data(),
                          int(m)),
            0);
  for (const int blocks : {1, 3}) {
    const Factorization<double> f = factor(a.data.data(), m, n, m, tsqr_options({m, n, blocks, 4, 0}));
    const DenseMatrix<double> x = f.solve(b.data.data(), m, k);
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(x(i, j), lb(i, j), 1e-10 * std::fabs(lb(i, j)) + 1e-12);
  }
}

// Pass rule: entries near the overflow threshold in some of the 4 blocks
// (one block at `huge`, the others at 1; every block at `huge`; blocks at
// huge/10 and huge, scaled by different powers of two, a smaller exponent
// merged into a larger one and a larger into a smaller)
// are scaled (the exponent is not 0) and factor with finite R, residuals
// < 50, and R equal to FR1's (which scales the whole matrix) up to row
// signs, to 50·n·ε.
template <typename T>
void expect_scaled_correctly(T huge) {
  const Case c{900, 12, 4, 2, 0};
  const std::vector<std::vector<T>> block_scales = {
      {1, 1, huge, 1}, {huge, huge, huge, huge}, {huge / 10, huge, huge, huge / 10}};
  for (const std::vector<T>& scales : block_scales) {
    SCOPED_TRACE(::testing::Message() << "block scales " << scales[0] << " " << scales[1] << " " << scales[2] << " "
                                      << scales[3]);
    std::mt19937_64 engine = make_engine(800);
    DenseMatrix<T> a = random_matrix<T>(c.m, c.n, engine);
    for (int64_t j = 0; j < c.n; ++j)
      for (int64_t i = 0; i < c.m; ++i) a(i, j) *= scales[size_t(i / (c.m / 4))];
    const Factorization<T> f = factor(a.data.data(), c.m, c.n, c.m, tsqr_options(c));
    EXPECT_NE(f.scale_exponent, 0);
    const DenseMatrix<T> r = f.r();
    EXPECT_TRUE(testing::all_finite(r.data));
    const Residuals res = check_factorization(a.data.data(), c.m, c.n, c.m, f);
    EXPECT_LT(res.residual, 50);
    EXPECT_LT(res.orthogonality, 50);
    Options tiles;
    tiles.tile = 16;
    EXPECT_LT(r_difference(r, factor(a.data.data(), c.m, c.n, c.m, tiles).r(), c.n), 50);
  }
}

TEST(TsqrAccuracy, NearOverflowDouble) { expect_scaled_correctly<double>(1e306); }
TEST(TsqrAccuracy, NearOverflowFloat) { expect_scaled_correctly<float>(1e37f); }

// Pass rule: the tsqr tree's plan is geqrt on every block, then the fan-in
// merges level by level (7 blocks, fan-in 3: 1, 2 → 0; 4, 5 → 3; then
// 3, 6 → 0), fan-in 2 is the binary tree's plan, and the DAG lets a merge
// run only after both blocks' factorisations.
TEST(TsqrTree, FanInPlanAndDag) {
  const std::vector<Elimination> plan = panel_eliminations(7, 0, Tree::tsqr, 1, Tree::flat, 3);
  std::vector<std::pair<int32_t, int32_t>> merges;
  for (size_t e = 0; e < plan.size(); ++e) {
    if (e < 7) {
      EXPECT_EQ(plan[e].kind, TaskKind::geqrt);
      EXPECT_EQ(plan[e].i, int32_t(e));
    } else {
      EXPECT_EQ(plan[e].kind, TaskKind::ttqrt);
      merges.push_back({plan[e].i, plan[e].piv});
    }
  }
  const std::vector<std::pair<int32_t, int32_t>> want = {{1, 0}, {2, 0}, {4, 3}, {5, 3}, {3, 0}, {6, 0}};
  EXPECT_EQ(merges, want);
  // Fan-in 2 is the binary tree.
  const std::vector<Elimination> two = panel_eliminations(6, 0, Tree::tsqr, 1, Tree::flat, 2);
  const std::vector<Elimination> binary = panel_eliminations(6, 0, Tree::binary);
  ASSERT_EQ(two.size(), binary.size());
  for (size_t e = 0; e < two.size(); ++e) EXPECT_TRUE(two[e].i == binary[e].i && two[e].piv == binary[e].piv);
  // Every merge comes after the factorisations of both its blocks (through
  // earlier merges into the same block, if not directly).
  const Dag dag = build_qr_dag(7, 1, Tree::tsqr, 1, Tree::flat, 3);
  ASSERT_EQ(dag.num_tasks(), 13);
  std::vector<std::set<int32_t>> before(size_t(dag.num_tasks()));
  for (int32_t t = 0; t < dag.num_tasks(); ++t)
    for (int64_t e = dag.pred_offsets[t]; e < dag.pred_offsets[t + 1]; ++e) {
      const int32_t p = dag.preds[size_t(e)];
      before[size_t(t)].insert(p);
      before[size_t(t)].insert(before[size_t(p)].begin(), before[size_t(p)].end());
    }
  for (int32_t t = 7; t < dag.num_tasks(); ++t) {
    const Task& task = dag.tasks[size_t(t)];
    for (const int32_t block : {task.i, task.piv}) EXPECT_EQ(before[size_t(t)].count(block), 1u) << "merge " << t;
  }
}

// Pass rule: fan-in < 2, blocks < 1, inner block < 1, several block
// columns and the closed-form DAG each throw InputError with a message.
TEST(TsqrErrors, BadArgumentsThrowInputError) {
  const std::vector<double> a(100 * 4, 1.0);
  const auto refuses = [&](Options o) {
    try {
      factor(a.data(), 100, 4, 100, o);
    } catch (const InputError& e) {
      return std::string(e.what()).find("tsqr") != std::string::npos;
    }
    return false;
  };
  Options o = tsqr_options({100, 4, 2, 4, 0});
  o.fan_in = 1;
  EXPECT_TRUE(refuses(o));
  o = tsqr_options({100, 4, 2, 4, 0});
  o.tree_domains = 0;
  EXPECT_TRUE(refuses(o));
  EXPECT_THROW(TsqrFactors<double>(a.data(), 100, 4, 100, 2, 0, 4, false), InputError);
  EXPECT_THROW(build_qr_dag(4, 2, Tree::tsqr), InputError);
  EXPECT_THROW(build_apply_dag(4, 2, 1, Tree::tsqr, 1, Tree::flat, true, false), InputError);
  EXPECT_THROW(panel_eliminations(4, 0, Tree::tsqr, 1, Tree::flat, 1), InputError);
}

}  // namespace
}  // namespace tiledqr
