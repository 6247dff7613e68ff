// Tests for fr2_threaded/threaded_executor: FR2 against FR1 (every stage is
// tested against FR1).
//
// TILEDQR_TEST_BACKEND=reference runs every test on the reference kernels
// only: for ThreadSanitizer runs, should OpenBLAS (not built for TSan) ever
// produce reports (see scripts/tsan).

#include "threaded_executor.hpp"

#include <cblas.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "checks.hpp"
#include "cpu_threads.hpp"
#include "dag.hpp"
#include "errors.hpp"
#include "serial_executor.hpp"
#include "task_grid.hpp"

namespace tiledqr {
namespace {

// The seed of every random test: fixed so that runs repeat, printed so that a
// failure can be reproduced, and overridable through TILEDQR_TEST_SEED.
uint64_t test_seed() {
  static const uint64_t seed = [] {
    const char* env = std::getenv("TILEDQR_TEST_SEED");
    const uint64_t s = env != nullptr ? std::strtoull(env, nullptr, 10) : 20240613u;
    std::printf("test_threaded_executor: seed %llu (set TILEDQR_TEST_SEED to change)\n",
                static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

// `wanted`, unless TILEDQR_TEST_BACKEND=reference forces the reference kernels.
Backend test_backend(Backend wanted) {
  const char* env = std::getenv("TILEDQR_TEST_BACKEND");
  if (env != nullptr && std::string(env) == "reference") return Backend::reference;
  return wanted;
}

// Uniform in ±[0.1, 1]: random, and never zero.
template <typename T>
std::vector<T> random_matrix(int64_t rows, int64_t cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> magnitude(0.1, 1.0);
  std::vector<T> a(size_t(rows * cols));
  for (T& x : a) x = T(rng() % 2 == 0 ? magnitude(rng) : -magnitude(rng));
  return a;
}

// Bitwise equality of two arrays (memcmp; an empty array has no pointer to
// compare, so it is skipped).
template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Bitwise equality of everything a factorisation stores: the tiles (R and
// V) and both sets of T factors.
template <typename T>
void expect_bit_identical(const Factorization<T>& got, const Factorization<T>& want) {
  EXPECT_TRUE(same_bits(got.tiles.data, want.tiles.data)) << "tiles (R and V) differ";
  EXPECT_TRUE(same_bits(got.t_local, want.t_local)) << "geqrt T factors differ";
  EXPECT_TRUE(same_bits(got.t_merge, want.t_merge)) << "tsqrt/ttqrt T factors differ";
}

const Tree kTrees[] = {Tree::flat, Tree::binary, Tree::greedy};

struct Shape {
  int64_t m, n;
  int tile, inner_block;
  Backend backend;
};

std::string describe(const Shape& s, Tree tree, int threads) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + " tile " + std::to_string(s.tile) +
         " ib " + std::to_string(s.inner_block) + " " + backend_name(s.backend) + " " +
         tree_name(tree) + " threads " + std::to_string(threads);
}

// 20 shapes: a few fixed corner cases (1×1, one tile, one tile row, wide,
// exact multiples) and random ones, ragged or not, tall or wide, with up to
// 12 tile rows and columns; reference kernels on even shapes, lapack on odd.
std::vector<Shape> twenty_shapes(std::mt19937_64& rng) {
  std::vector<Shape> shapes = {{1, 1, 4, 0, Backend::reference},
                               {7, 5, 8, 0, Backend::lapack},
                               {5, 40, 4, 0, Backend::reference},
                               {33, 70, 8, 4, Backend::lapack},
                               {48, 32, 8, 0, Backend::reference},
                               {90, 12, 4, 2, Backend::lapack}};
  const int tiles[] = {3, 4, 5, 8, 16};
  while (shapes.size() < 20) {
    Shape s;
    s.tile = tiles[rng() % 5];
    s.m = 1 + int64_t(rng() % uint64_t(12 * s.tile));
    s.n = 1 + int64_t(rng() % uint64_t(12 * s.tile));
    s.inner_block = int(rng() % uint64_t(s.tile + 1));
    s.backend = shapes.size() % 2 == 0 ? Backend::reference : Backend::lapack;
    shapes.push_back(s);
  }
  for (Shape& s : shapes) s.backend = test_backend(s.backend);
  return shapes;
}

Options options_of(const Shape& s, Tree tree) {
  Options options;
  options.tile = s.tile;
  options.inner_block = s.inner_block;
  options.backend = s.backend;
  options.tree = tree;
  return options;
}

// Pass rule: for 1, 2, 3 and 8 workers and each tree, the tiles and T
// factors are bit-identical (memcmp) to FR1's on 20 shapes.
template <typename T>
void check_matches_serial(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const Shape& s : twenty_shapes(rng)) {
    const std::vector<T> a = random_matrix<T>(s.m, s.n, rng);
    for (const Tree tree : kTrees) {
      Options options = options_of(s, tree);
      const Factorization<T> serial = factor(a.data(), s.m, s.n, s.m, options);
      for (const int threads : {1, 2, 3, 8}) {
        SCOPED_TRACE(describe(s, tree, threads));
        options.threads = threads;
        const Factorization<T> threaded = factor_threaded(a.data(), s.m, s.n, s.m, options);
        expect_bit_identical(threaded, serial);
      }
    }
  }
}

TEST(ThreadedBitIdentical, DoubleMatchesSerial) { check_matches_serial<double>(test_seed()); }
TEST(ThreadedBitIdentical, FloatMatchesSerial) { check_matches_serial<float>(test_seed() + 1); }

// Pass rule: with every task delayed by a random 0–50 µs on its worker,
// 200 runs on 5×4 grids of 4×4 tiles (some ragged) over all trees, 2–8
// workers and both backends are all bit-identical to FR1, and the tasks
// ran on more than one worker.
TEST(ThreadedDelay, RandomSleepsMatchSerial) {
  std::mt19937_64 rng(test_seed() + 2);
  const int thread_counts[] = {2, 3, 4, 8};
  const int max_threads = 8;
  // One engine per worker: each worker touches only its own.
  std::vector<std::mt19937_64> engines;
  for (int w = 0; w < max_threads; ++w) engines.emplace_back(rng());
  std::vector<std::atomic<int64_t>> tasks_of_worker(max_threads);
  ThreadedHooks hooks;
  hooks.before_task = [&](int worker) {
    tasks_of_worker[size_t(worker)].fetch_add(1, std::memory_order_relaxed);
    std::uniform_int_distribution<int> micros(0, 50);
    std::this_thread::sleep_for(std::chrono::microseconds(micros(engines[size_t(worker)])));
  };
  for (int run = 0; run < 200; ++run) {
    const bool ragged = run % 2 == 1;
    const int64_t m = ragged ? 19 : 20, n = ragged ? 13 : 16;
    const std::vector<double> a = random_matrix<double>(m, n, rng);
    Options options;
    options.tile = 4;
    options.tree = kTrees[run % 3];
    options.backend = test_backend(run % 4 < 2 ? Backend::reference : Backend::lapack);
    const int threads = thread_counts[(run / 3) % 4];
    SCOPED_TRACE("run " + std::to_string(run) + ": " + std::to_string(m) + "x" +
                 std::to_string(n) + " " + tree_name(options.tree) + " " +
                 backend_name(options.backend) + " threads " + std::to_string(threads));
    const Factorization<double> serial = factor(a.data(), m, n, m, options);
    Factorization<double> threaded(a.data(), m, n, m, options);
    run_threaded(threaded, threads, hooks);
    expect_bit_identical(threaded, serial);
  }
  int busy_workers = 0;
  for (const auto& count : tasks_of_worker) busy_workers += count.load() > 0;
  EXPECT_GT(busy_workers, 1);
}

// Pass rule: a factorisation that has factored one matrix on 2 workers and
// is given a second of the same shape by load() holds, once run again, the
// same bits as FR1's factorisation of the second made from scratch (tiles,
// both T sets, the scale exponent), on the twenty shapes, every tile tree
// and both precisions; the second matrix's entries near the overflow
// threshold on every fourth shape (a scaled A after an unscaled one). The
// tsqr tree (3 workers) gives the same R as its own run from scratch; load
// empties the trace and refuses lda < m.
template <typename T>
void check_reload(uint64_t seed) {
  std::mt19937_64 rng(seed);
  int index = 0;
  for (const Shape& s : twenty_shapes(rng)) {
    const std::vector<T> first = random_matrix<T>(s.m, s.n, rng);
    std::vector<T> second = random_matrix<T>(s.m, s.n, rng);
    if (index++ % 4 == 3)
      for (T& x : second) x *= std::numeric_limits<T>::max() / T(4);
    for (const Tree tree : kTrees) {
      SCOPED_TRACE(describe(s, tree, 2));
      Options options = options_of(s, tree);
      options.trace = true;
      Factorization<T> f(first.data(), s.m, s.n, s.m, options);
      run_threaded(f, 2);
      ASSERT_FALSE(f.trace.empty());
      f.load(second.data(), s.m);
      EXPECT_TRUE(f.trace.empty());
      run_threaded(f, 2);
      const Factorization<T> fresh = factor(second.data(), s.m, s.n, s.m, options);
      expect_bit_identical(f, fresh);
      EXPECT_EQ(f.scale_exponent, fresh.scale_exponent);
      EXPECT_THROW(f.load(second.data(), s.m - 1), InputError);
    }
  }
  const int64_t m = 300, n = 7;
  const std::vector<T> first = random_matrix<T>(m, n, rng), second = random_matrix<T>(m, n, rng);
  Options options;
  options.tree = Tree::tsqr;
  options.tile = 8;
  options.tree_domains = 3;
  options.backend = test_backend(Backend::lapack);
  options.threads = 3;
  Factorization<T> f = factor_threaded(first.data(), m, n, m, options);
  f.load(second.data(), m);
  run_threaded(f, 3);
  const Factorization<T> fresh = factor_threaded(second.data(), m, n, m, options);
  EXPECT_TRUE(same_bits(f.r().data, fresh.r().data)) << "tsqr R differs after load";
}

TEST(ThreadedReload, DoubleMatchesFreshFactorisation) { check_reload<double>(test_seed() + 11); }
TEST(ThreadedReload, FloatMatchesFreshFactorisation) { check_reload<float>(test_seed() + 12); }

using TaskKey = std::tuple<int, int32_t, int32_t, int32_t, int32_t>;
TaskKey key_of(const Task& t) { return {int(t.kind), t.k, t.i, t.j, t.piv}; }

// Pass rule: --trace records every task exactly once, each with a worker id
// in [0, threads) and start ≤ end on one clock, sorted by start; and no task
// starts before all its DAG predecessors ended (the same clock for all
// workers makes the times comparable).
TEST(ThreadedTrace, RecordsEveryTaskWithItsWorker) {
  std::mt19937_64 rng(test_seed() + 3);
  const int64_t m = 70, n = 45;
  const std::vector<double> a = random_matrix<double>(m, n, rng);
  for (const Tree tree : kTrees) {
    SCOPED_TRACE(tree_name(tree));
    Options options;
    options.tile = 8;
    options.tree = tree;
    options.backend = test_backend(Backend::lapack);
    options.trace = true;
    options.threads = 3;
    const Factorization<double> f = factor_threaded(a.data(), m, n, m, options);
    const Dag dag = build_qr_dag(f.tiles.p, f.tiles.q, tree);
    ASSERT_EQ(f.trace.size(), dag.tasks.size());
    if (tree == Tree::flat) {
      EXPECT_EQ(int64_t(f.trace.size()), grid_task_count(f.tiles.p, f.tiles.q));
    }
    std::map<TaskKey, const TaskRecord*> record_of;
    std::set<int32_t> workers;
    for (size_t r = 0; r < f.trace.size(); ++r) {
      const TaskRecord& record = f.trace[r];
      EXPECT_TRUE(record_of.emplace(key_of(record.task), &record).second) << "task recorded twice";
      EXPECT_GE(record.worker, 0);
      EXPECT_LT(record.worker, 3);
      workers.insert(record.worker);
      EXPECT_LE(record.start_ns, record.end_ns);
      if (r > 0) {
        EXPECT_LE(f.trace[r - 1].start_ns, record.start_ns);
      }
    }
    for (int32_t t = 0; t < dag.num_tasks(); ++t) {
      const auto found = record_of.find(key_of(dag.tasks[t]));
      ASSERT_NE(found, record_of.end()) << "task missing from the trace";
      for (int64_t e = dag.pred_offsets[t]; e < dag.pred_offsets[t + 1]; ++e) {
        const TaskRecord* pred = record_of.at(key_of(dag.tasks[dag.preds[size_t(e)]]));
        EXPECT_LE(pred->end_ns, found->second->start_ns) << "a task started before its predecessor ended";
      }
    }
  }
}

// Pass rule: ‖A − QR‖_F/(‖A‖_F·n·ε) < 50 and ‖I − QᵀQ‖_F/(n·ε) < 50
// (common/factorization/checks.hpp) for a 32768×64 matrix, tile 32, every tree, both
// precisions, on 4 workers.
template <typename T>
void check_tall_skinny(int64_t m, int64_t n, Tree tree, int threads, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<T> a = random_matrix<T>(m, n, rng);
  Options options;
  options.tile = 32;
  options.tree = tree;
  options.backend = test_backend(Backend::lapack);
  options.threads = threads;
  const Factorization<T> f = factor_threaded(a.data(), m, n, m, options);
  const Residuals res = check_factorization(a.data(), m, n, m, f);
  EXPECT_LT(res.residual, 50);
  EXPECT_LT(res.orthogonality, 50);
  std::printf("%lld x %lld %s %s: residual %.3g, orthogonality %.3g\n", (long long)m, (long long)n,
              sizeof(T) == 8 ? "double" : "float", tree_name(tree), res.residual, res.orthogonality);
}

TEST(ThreadedAccuracy, TallSkinnyDouble) {
  for (const Tree tree : kTrees) check_tall_skinny<double>(32768, 64, tree, 4, test_seed() + 4);
}
TEST(ThreadedAccuracy, TallSkinnyFloat) {
  for (const Tree tree : kTrees) check_tall_skinny<float>(32768, 64, tree, 4, test_seed() + 5);
}

// Pass rule: as ThreadedAccuracy, for 262144×64 with the binary tree on
// every hardware thread (suite 'slow').
TEST(ThreadedLarge, TallSkinnyBinary) {
  check_tall_skinny<double>(262144, 64, Tree::binary, 0, test_seed() + 6);
  check_tall_skinny<float>(262144, 64, Tree::binary, 0, test_seed() + 7);
}

// Pass rule: an exception thrown by a task (here by the hook, as a LAPACK
// argument error would be) reaches the caller with its type and message,
// after every worker stopped; nothing hangs; the next run works.
TEST(ThreadedErrors, TaskExceptionReachesCaller) {
  std::mt19937_64 rng(test_seed() + 8);
  const int64_t m = 60, n = 40;
  const std::vector<double> a = random_matrix<double>(m, n, rng);
  for (const Tree tree : kTrees) {
    for (const int threads : {1, 2, 4}) {
      for (const int failing_task : {0, 7, 40}) {
        SCOPED_TRACE(std::string(tree_name(tree)) + " threads " + std::to_string(threads) +
                     " failing task " + std::to_string(failing_task));
        Options options;
        options.tile = 8;
        options.tree = tree;
        options.backend = test_backend(Backend::lapack);
        Factorization<double> f(a.data(), m, n, m, options);
        std::atomic<int> started{0};
        ThreadedHooks hooks;
        hooks.before_task = [&](int) {
          if (started.fetch_add(1) == failing_task) throw std::logic_error("dtpqrt rejected argument 4");
        };
        try {
          run_threaded(f, threads, hooks);
          ADD_FAILURE() << "no exception";
        } catch (const std::logic_error& e) {
          EXPECT_STREQ(e.what(), "dtpqrt rejected argument 4");
        }
        // The flat grid has one ready task at first: when it fails, nothing else starts.
        if (tree == Tree::flat && failing_task == 0) {
          EXPECT_EQ(started.load(), 1);
        }
      }
    }
  }
  Options options;
  options.tile = 8;
  options.threads = 4;
  const Factorization<double> again = factor_threaded(a.data(), m, n, m, options);
  expect_bit_identical(again, factor(a.data(), m, n, m, options));
}

// Pass rule: threads = 0 uses every CPU of the affinity mask and gives FR1's result;
// the caller's OpenBLAS thread count (2) is the same after FR1 and FR2 as before;
// negative thread counts and empty matrices are InputErrors.
TEST(ThreadedErrors, ThreadCountsAndBadInput) {
  std::mt19937_64 rng(test_seed() + 9);
  const std::vector<double> a = random_matrix<double>(50, 30, rng);
  Options options;
  options.tile = 8;
  options.backend = test_backend(Backend::lapack);
  options.threads = 0;
  openblas_set_num_threads(2);
  const int blas_threads = openblas_get_num_threads();
  const Factorization<double> f = factor_threaded(a.data(), 50, 30, 50, options);
  EXPECT_EQ(openblas_get_num_threads(), blas_threads);
  EXPECT_EQ(f.options.threads, available_cpus());
  expect_bit_identical(f, factor(a.data(), 50, 30, 50, options));
  EXPECT_EQ(openblas_get_num_threads(), blas_threads);
  options.threads = -1;
  EXPECT_THROW(factor_threaded(a.data(), 50, 30, 50, options), InputError);
  options.threads = 2;
  EXPECT_THROW(factor_threaded(a.data(), 0, 30, 50, options), InputError);
  EXPECT_THROW(factor_threaded(a.data(), 50, 30, 10, options), InputError);
}

// Pass rule: applying Qᵀ and Q to a random B and forming Q (k = min(m, n)
// and m) on FR2's executor with 1, 2, 3 and 8 workers, with random sleeps
// before tasks to shuffle the schedule, gives the same bits (memcmp) as
// program order on 20 shapes and every tree: each tile's updates come in
// the same order whatever the schedule.
TEST(ThreadedApply, MatchesProgramOrder) {
  std::mt19937_64 rng(test_seed() + 21);
  for (const Shape& s : twenty_shapes(rng)) {
    const std::vector<double> a = random_matrix<double>(s.m, s.n, rng);
    const int64_t nrhs = 1 + int64_t(rng() % 20);
    const std::vector<double> b = random_matrix<double>(s.m, nrhs, rng);
    for (const Tree tree : kTrees) {
      const Options options = options_of(s, tree);
      const Factorization<double> f = factor(a.data(), s.m, s.n, s.m, options);
      std::vector<double> qtb = b, qb = b, q(size_t(s.m * s.m)), thin(size_t(s.m * std::min(s.m, s.n)));
      f.apply_qt(qtb.data(), s.m, nrhs);
      f.apply_q(qb.data(), s.m, nrhs);
      f.form_q(s.m, q.data(), s.m);
      f.form_q(std::min(s.m, s.n), thin.data(), s.m);
      for (const int threads : {1, 2, 3, 8}) {
        SCOPED_TRACE(describe(s, tree, threads));
        std::mt19937_64 sleeps(rng());
        std::mutex sleeps_mutex;
        const DagExecutor executor = [&](const Dag& dag, const std::function<void(const Task&)>& run) {
          run_dag_threaded(dag, threads, [&](const Task& t) {
            int micros = 0;
            {
              const std::lock_guard<std::mutex> lock(sleeps_mutex);
              micros = int(sleeps() % 3 == 0 ? sleeps() % 40 : 0);
            }
            std::this_thread::sleep_for(std::chrono::microseconds(micros));
            run(t);
          });
        };
        std::vector<double> got_qtb = b, got_qb = b, got_q(q.size()), got_thin(thin.size());
        f.apply_qt(got_qtb.data(), s.m, nrhs, executor);
        f.apply_q(got_qb.data(), s.m, nrhs, executor);
        f.form_q(s.m, got_q.data(), s.m, executor);
        f.form_q(std::min(s.m, s.n), got_thin.data(), s.m, executor);
        EXPECT_TRUE(same_bits(got_qtb, qtb)) << "Qt B";
        EXPECT_TRUE(same_bits(got_qb, qb)) << "Q B";
        EXPECT_TRUE(same_bits(got_q, q)) << "complete Q";
        EXPECT_TRUE(same_bits(got_thin, thin)) << "thin Q";
      }
    }
  }
}

// Pass rule: run_dag_threaded rethrows a task's exception once the workers
// have stopped and runs an empty graph; run_independent calls its body
// once for every index (none for 0), on any number of workers, and
// rethrows the first exception.
TEST(ThreadedApply, ErrorsAndIndependentLoop) {
  const Dag dag = build_apply_dag(6, 3, 4, Tree::flat, 1, Tree::flat, true, false);
  for (const int threads : {1, 2, 4}) {
    std::atomic<int> runs{0};
    try {
      run_dag_threaded(dag, threads, [&](const Task&) {
        if (runs.fetch_add(1) == 5) throw std::logic_error("task 5 failed");
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::logic_error& e) {
      EXPECT_STREQ(e.what(), "task 5 failed");
    }
    run_dag_threaded(Dag(), threads, [](const Task&) { ADD_FAILURE() << "a task of an empty graph ran"; });
    for (const int64_t count : {0, 1, 3, 1000}) {
      std::vector<std::atomic<int>> seen(static_cast<size_t>(count));
      run_independent(count, threads, [&](int64_t i) { ++seen[size_t(i)]; });
      for (int64_t i = 0; i < count; ++i) EXPECT_EQ(seen[size_t(i)].load(), 1) << i;
    }
    try {
      run_independent(100, threads, [](int64_t i) {
        if (i == 17) throw std::runtime_error("item 17");
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 17");
    }
  }
}

// Pass rule: default_tree picks binary exactly when the matrix is tall
// (p ≥ 4q) and the flat tree's average width is below two tasks per worker.
TEST(ThreadedDefaultTree, BinaryOnlyForStarvedTallSkinny) {
  EXPECT_EQ(default_tree(262144, 64, 32, 16), Tree::binary);
  EXPECT_EQ(default_tree(262144, 64, 32, 2), Tree::binary);
  EXPECT_EQ(default_tree(262144, 64, 32, 1), Tree::flat);       // one worker cannot starve
  EXPECT_EQ(default_tree(3000, 1000, 32, 16), Tree::flat);      // not tall
  EXPECT_EQ(default_tree(4096, 4096, 32, 16), Tree::flat);
  EXPECT_EQ(default_tree(262144, 1024, 32, 16), Tree::flat);    // 32 tile columns: wide enough
  EXPECT_EQ(default_tree(100, 100, 32, 16), Tree::flat);
  EXPECT_THROW(default_tree(0, 10, 32, 4), InputError);
}

}  // namespace
}  // namespace tiledqr
