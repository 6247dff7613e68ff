// Schedule stress. Every tile receives its updates in the same
// order whatever the schedule (docs/design.md §5), so any valid order of the tasks
// must give the same bits. FR1 is driven by a seeded random ReadyPicker
// through thousands of orders; FR2 by random sleeps before each task.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "serial_executor.hpp"
#include "test_support.hpp"
#include "threaded_executor.hpp"

namespace tiledqr {
namespace {

using testing::make_engine;
using testing::random_matrix;

constexpr Tree kTrees[] = {Tree::flat, Tree::binary, Tree::greedy};

// memcmp of the contents; two empty vectors (t_merge of a single tile row)
// are equal without a call, as memcmp's pointers must not be null.
template <typename T>
bool same_bytes(const std::vector<T>& x, const std::vector<T>& y) {
  if (x.size() != y.size()) return false;
  return x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

// Tiles (R and V) and both T arrays, bit for bit.
bool bit_identical(const Factorization<double>& x, const Factorization<double>& y) {
  return same_bytes(x.tiles.data, y.tiles.data) && same_bytes(x.t_local, y.t_local) &&
         same_bytes(x.t_merge, y.t_merge);
}

// A random shape of 1..8 × 1..8 tiles of size b, ragged in both directions
// (the last tile row and column hold 1..b rows and columns).
struct Shape {
  int b;
  int64_t m, n;
};
Shape random_shape(int b, std::mt19937_64& engine) {
  std::uniform_int_distribution<int> tiles(1, 8), last(1, b);
  const int p = tiles(engine), q = tiles(engine);
  return {b, int64_t(p - 1) * b + last(engine), int64_t(q - 1) * b + last(engine)};
}

// Pass rule: for 10 000 seeded random schedules (run_serial with a picker
// choosing uniformly among the ready tasks; grids of 1..8 × 1..8 tiles,
// b = 2..4, ragged; flat, binary and greedy trees; reference backend) the
// tiles and T factors are bit-identical (memcmp) to the priority-order
// run's. So that the test cannot pass vacuously, at least half of the runs
// with more than one task must have executed them in a different order
// from the priority run (checked through the trace).
TEST(RobustSchedules, Fr1RandomOrdersBitIdentical) {
  std::mt19937_64 engine = make_engine(9101);
  int multi_task_runs = 0, reordered_runs = 0;
  for (int run = 0; run < 10000; ++run) {
    const Shape s = random_shape(2 + run % 3, engine);
    Options options;
    options.tile = s.b;
    options.backend = Backend::reference;
    options.tree = kTrees[run % 3];
    options.trace = true;
    const DenseMatrix<double> a = random_matrix<double>(s.m, s.n, engine);
    const Factorization<double> priority = factor(a.data.data(), s.m, s.n, s.m, options);
    Factorization<double> shuffled(a.data.data(), s.m, s.n, s.m, options);
    run_serial(shuffled, [&engine](size_t count) { return size_t(engine() % count); });
    ASSERT_TRUE(bit_identical(shuffled, priority))
        << "run " << run << ": " << s.m << " x " << s.n << ", b " << s.b << ", tree "
        << tree_name(options.tree);
    ASSERT_EQ(shuffled.trace.size(), priority.trace.size());
    if (priority.trace.size() > 1) {
      ++multi_task_runs;
      for (size_t t = 0; t < priority.trace.size(); ++t) {
        if (!(shuffled.trace[t].task == priority.trace[t].task)) {
          ++reordered_runs;
          break;
        }
      }
    }
  }
  std::printf("[ schedules] %d of %d multi-task runs were reordered\n", reordered_runs,
              multi_task_runs);
  EXPECT_GE(2 * reordered_runs, multi_task_runs);
}

// Pass rule: the two extreme pickers, always the highest-priority ready task
// and always the lowest, give the priority run's bits on every tree, for
// a square, a tall and a wide grid.
TEST(RobustSchedules, Fr1ExtremePickersBitIdentical) {
  std::mt19937_64 engine = make_engine(9102);
  for (const Tree tree : kTrees) {
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{23, 23}, {61, 9}, {9, 61}}) {
      Options options;
      options.tile = 3;
      options.backend = Backend::reference;
      options.tree = tree;
      const DenseMatrix<double> a = random_matrix<double>(m, n, engine);
      const Factorization<double> priority = factor(a.data.data(), m, n, m, options);
      for (const bool last : {false, true}) {
        Factorization<double> f(a.data.data(), m, n, m, options);
        run_serial(f, [last](size_t count) { return last ? count - 1 : size_t(0); });
        EXPECT_TRUE(bit_identical(f, priority))
            << m << " x " << n << " " << tree_name(tree) << (last ? " lowest" : " highest");
      }
    }
  }
}

// Pass rule: 500 FR2 runs on 8 workers, each worker sleeping a random
// 0–20 µs before every task (fr2's ThreadedHooks), on random grids of up
// to 8 × 8 tiles (b = 2..4, ragged), all three trees and both backends,
// are bit-identical to FR1's priority-order result; and the hook ran on
// more than one worker (the sleeps really spread the tasks).
TEST(RobustSchedules, Fr2RandomDelaysBitIdentical) {
  constexpr int kWorkers = 8;
  std::mt19937_64 engine = make_engine(9103);
  std::vector<std::mt19937_64> worker_engines;  // each worker touches only its own
  for (int w = 0; w < kWorkers; ++w) worker_engines.emplace_back(engine());
  std::vector<std::atomic<int64_t>> tasks_of_worker(kWorkers);
  ThreadedHooks hooks;
  hooks.before_task = [&](int worker) {
    tasks_of_worker[size_t(worker)].fetch_add(1, std::memory_order_relaxed);
    std::uniform_int_distribution<int> micros(0, 20);
    std::this_thread::sleep_for(std::chrono::microseconds(micros(worker_engines[size_t(worker)])));
  };
  for (int run = 0; run < 500; ++run) {
    const Shape s = random_shape(2 + run % 3, engine);
    Options options;
    options.tile = s.b;
    options.tree = kTrees[run % 3];
    options.backend = (run / 3) % 2 == 0 ? Backend::reference : Backend::lapack;
    const DenseMatrix<double> a = random_matrix<double>(s.m, s.n, engine);
    const Factorization<double> serial = factor(a.data.data(), s.m, s.n, s.m, options);
    Factorization<double> threaded(a.data.data(), s.m, s.n, s.m, options);
    run_threaded(threaded, kWorkers, hooks);
    ASSERT_TRUE(bit_identical(threaded, serial))
        << "run " << run << ": " << s.m << " x " << s.n << ", b " << s.b << ", tree "
        << tree_name(options.tree) << ", backend " << backend_name(options.backend);
  }
  int busy_workers = 0;
  for (const auto& count : tasks_of_worker) busy_workers += count.load() > 0;
  EXPECT_GT(busy_workers, 1);
}

}  // namespace
}  // namespace tiledqr
