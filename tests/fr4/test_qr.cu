// The tiled QR workload on the FR4 scheduler (suites fr4 and gpu; exits 77
// without a GPU), tested against FR1 — itself tested against LAPACK — with
// the reference backend, the same tree and tile 32.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "dag.hpp"
#include "fr4_qr.hpp"
#include "serial_executor.hpp"
#include "device_matrix.hpp"
#include "test_seed.hpp"

namespace tiledqr::gpu {
namespace {

namespace testing = taskgraph::testing;

using testing_support::DeviceMatrix;
using testing_support::random_matrix;
using testing_support::relative_difference;

template <typename T>
Factorization<T> factor_on_fr4(const std::vector<T>& a, int64_t m, int64_t n, Tree tree) {
  DeviceMatrix<T> d_a(a);
  Options options;
  options.tree = tree;
  Fr4Factorization<T> qr(m, n, options);
  qr.factor(d_a.data, m);
  return qr.download();
}

template <typename T>
Factorization<T> factor_on_fr1(const std::vector<T>& a, int64_t m, int64_t n, Tree tree) {
  Options o;
  o.tile = 32;
  o.backend = Backend::reference;
  o.tree = tree;
  return factor<T>(a.data(), m, n, m, o);
}

// τ of every factored tile, in task order, from a Factorization's T blocks.
std::vector<double> all_tau(const Factorization<double>& f) {
  std::vector<double> out;
  const int32_t steps = std::min(f.tiles.p, f.tiles.q);
  for (int32_t k = 0; k < steps; ++k)
    for (int32_t i = k; i < f.tiles.p; ++i) {
      if (f.options.tree != Tree::flat || i == k) out.insert(out.end(), f.t_local_tile(i, k), f.t_local_tile(i, k) + 32);
      if (i > k) out.insert(out.end(), f.t_merge_tile(i, k), f.t_merge_tile(i, k) + 32);
    }
  return out;
}

struct Shape {
  int64_t m, n;
};
const Shape kShapes[] = {{1, 1},   {33, 31},  {100, 37}, {37, 100}, {130, 130},
                         {257, 65}, {64, 200}, {500, 96}, {2000, 64}};
// The hierarchical tree of one domain (the Options default) eliminates as the flat one.
const Tree kTrees[] = {Tree::flat, Tree::binary, Tree::greedy, Tree::hierarchical};

// Pass rule: for every tree and shape (ragged, wide, tall), the tiles (R and
// V) and τ of FR4 are within 1e-13 of FR1's (‖FR4 − FR1‖_F / ‖FR1‖_F), and
// ‖A − QR‖_F/(‖A‖_F·n·ε) and ‖I − QᵀQ‖_F/(n·ε) are below 50.
TEST(Fr4QrVsFr1, EveryTreeRaggedAndWideShapes) {
  const uint64_t seed = testing::test_seed("EveryTreeRaggedAndWideShapes");
  for (const Tree tree : kTrees)
    for (const Shape s : kShapes) {
      SCOPED_TRACE(std::string(tree_name(tree)) + " " + std::to_string(s.m) + "x" + std::to_string(s.n));
      const std::vector<double> a = random_matrix<double>(s.m, s.n, seed + uint64_t(s.m * 7 + s.n));
      const Factorization<double> fr4 = factor_on_fr4(a, s.m, s.n, tree);
      const Factorization<double> fr1 = factor_on_fr1(a, s.m, s.n, tree);
      EXPECT_LE(relative_difference(fr4.tiles.data, fr1.tiles.data), 1e-13);
      EXPECT_LE(relative_difference(all_tau(fr4), all_tau(fr1)), 1e-13);
      const Residuals r = check_factorization(a.data(), s.m, s.n, s.m, fr4);
      EXPECT_LT(r.residual, 50);
      EXPECT_LT(r.orthogonality, 50);
    }
}

// Pass rule: in float, both residuals are below 50 for every tree.
TEST(Fr4QrFloat, ResidualsEveryTree) {
  const uint64_t seed = testing::test_seed("ResidualsEveryTree");
  for (const Tree tree : kTrees)
    for (const Shape s : {Shape{300, 200}, Shape{1000, 40}, Shape{70, 150}}) {
      SCOPED_TRACE(std::string(tree_name(tree)) + " " + std::to_string(s.m) + "x" + std::to_string(s.n));
      const std::vector<float> a = random_matrix<float>(s.m, s.n, seed);
      const Residuals r = check_factorization(a.data(), s.m, s.n, s.m, factor_on_fr4(a, s.m, s.n, tree));
      EXPECT_LT(r.residual, 50);
      EXPECT_LT(r.orthogonality, 50);
    }
}

// Pass rule: 50 factorisations of one matrix with one Fr4Factorization give
// bit-identical tiles and τ, for each tree (each tile sees its updates in
// one order whatever the schedule).
TEST(Fr4QrDeterminism, FiftyRunsBitIdentical) {
  const uint64_t seed = testing::test_seed("FiftyRunsBitIdentical");
  const int64_t m = 640, n = 320;
  const std::vector<double> a = random_matrix<double>(m, n, seed);
  DeviceMatrix<double> d_a(a);
  for (const Tree tree : kTrees) {
    SCOPED_TRACE(tree_name(tree));
    Options options;
    options.tree = tree;
    Fr4Factorization<double> qr(m, n, options);
    qr.factor(d_a.data, m);
    const Factorization<double> first = qr.download();
    for (int run = 1; run < 50; ++run) {
      qr.factor(d_a.data, m);
      const Factorization<double> again = qr.download();
      ASSERT_EQ(std::memcmp(again.tiles.data.data(), first.tiles.data.data(), first.tiles.data.size() * sizeof(double)), 0)
          << "run " << run;
      ASSERT_EQ(std::memcmp(again.t_local.data(), first.t_local.data(), first.t_local.size() * sizeof(double)), 0);
      ASSERT_EQ(std::memcmp(again.t_merge.data(), first.t_merge.data(), first.t_merge.size() * sizeof(double)), 0);
    }
    // Ready tasks ranked into priority classes run in another order, each
    // tile's updates still in one: the same bits.
    for (const int classes : {2, 4}) {
      SCOPED_TRACE("priority classes " + std::to_string(classes));
      Options ranked = options;
      ranked.priority_classes = classes;
      Fr4Factorization<double> other(m, n, ranked);
      ASSERT_EQ(other.tiles().priority_classes, classes);
      for (int run = 0; run < 5; ++run) {
        other.factor(d_a.data, m);
        const Factorization<double> again = other.download();
        ASSERT_EQ(std::memcmp(again.tiles.data.data(), first.tiles.data.data(), first.tiles.data.size() * sizeof(double)),
                  0)
            << "run " << run;
        ASSERT_EQ(std::memcmp(again.t_local.data(), first.t_local.data(), first.t_local.size() * sizeof(double)), 0);
        ASSERT_EQ(std::memcmp(again.t_merge.data(), first.t_merge.data(), first.t_merge.size() * sizeof(double)), 0);
      }
    }
  }
}

// Pass rule: the device calls agree with the host Factorization of the same
// factors within 1e-12 (relative, Frobenius): Qᵀ B, Q B, thin Q, R and the
// least-squares solution; bad calls throw InputError.
TEST(Fr4QrApi, DeviceCallsMatchHost) {
  const uint64_t seed = testing::test_seed("DeviceCallsMatchHost");
  const int64_t m = 300, n = 100, nrhs = 7;
  for (const Tree tree : kTrees) {
    SCOPED_TRACE(tree_name(tree));
    const std::vector<double> a = random_matrix<double>(m, n, seed);
    const std::vector<double> b = random_matrix<double>(m, nrhs, seed + 1);
    DeviceMatrix<double> d_a(a);
    Options options;
    options.tree = tree;
    Fr4Factorization<double> qr(m, n, options);
    qr.factor(d_a.data, m);
    const Factorization<double> host = qr.download();

    std::vector<double> expected = b;
    host.apply_qt(expected.data(), m, nrhs);
    DeviceMatrix<double> d_b(b);
    qr.apply_qt(d_b.data, m, nrhs);
    EXPECT_LE(relative_difference(d_b.download(b.size()), expected), 1e-12) << "apply_qt";

    expected = b;
    host.apply_q(expected.data(), m, nrhs);
    DeviceMatrix<double> d_c(b);
    qr.apply_q(d_c.data, m, nrhs);
    EXPECT_LE(relative_difference(d_c.download(b.size()), expected), 1e-12) << "apply_q";

    const DenseMatrix<double> q = host.thin_q();
    DeviceMatrix<double> d_q(size_t(m * n));
    qr.thin_q(d_q.data, m);
    EXPECT_LE(relative_difference(d_q.download(size_t(m * n)), q.data), 1e-12) << "thin_q";

    const DenseMatrix<double> r = host.r();
    DeviceMatrix<double> d_r(size_t(n * n));
    qr.r(d_r.data, n);
    EXPECT_EQ(d_r.download(size_t(n * n)), r.data) << "r";

    const DenseMatrix<double> x = host.solve(b.data(), m, nrhs);
    DeviceMatrix<double> d_rhs(b);
    DeviceMatrix<double> d_x(size_t(n * nrhs));
    qr.solve(d_rhs.data, m, nrhs, d_x.data, n);
    EXPECT_LE(relative_difference(d_x.download(size_t(n * nrhs)), x.data), 1e-12) << "solve";

    EXPECT_THROW(qr.apply_qt(d_b.data, m - 1, nrhs), InputError);
  }
  Fr4Factorization<double> wide(50, 80);
  std::vector<double> a = random_matrix<double>(50, 80, seed);
  DeviceMatrix<double> d_a(a);
  wide.factor(d_a.data, 50);
  DeviceMatrix<double> d_x(80);
  EXPECT_THROW(wide.solve(d_a.data, 50, 1, d_x.data, 80), InputError);
  // Tiles and inner blocks without kernels are refused up front.
  for (const auto& [tile, inner_block] : std::vector<std::pair<int, int>>{{48, 0}, {16, 0}, {512, 32}, {32, 16},
                                                                        {128, 8}, {128, 128}, {256, 64}}) {
    Options odd;
    odd.tile = tile;
    odd.inner_block = inner_block;
    EXPECT_THROW(Fr4Factorization<double>(50, 80, odd), InputError) << tile << " " << inner_block;
  }
}

// Pass rule: a tall-skinny matrix whose tiles alone exceed the device's
// memory is refused by Fr4Factorization's constructor with a GpuError naming the
// amounts (before the task graph is built), and the GPU factors normally
// afterwards.
TEST(Fr4QrApi, TooLargeForTheDeviceIsRefusedUpFront) {
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  const int64_t m = int64_t(total_bytes / (64 * sizeof(double))) + 1024;
  try {
    Fr4Factorization<double> qr(m, 64, Options{});
    ADD_FAILURE() << m << " x 64 was accepted";
  } catch (const GpuError& e) {
    EXPECT_NE(std::string(e.what()).find("of device memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("are free"), std::string::npos) << e.what();
  }
  const uint64_t seed = testing::test_seed("TooLargeForTheDeviceIsRefusedUpFront");
  const std::vector<double> a = random_matrix<double>(96, 40, seed);
  const Factorization<double> f = factor_on_fr4(a, 96, 40, Tree::binary);
  const Residuals r = check_factorization(a.data(), 96, 40, 96, f);
  EXPECT_LT(r.residual, 50);
  EXPECT_LT(r.orthogonality, 50);
}

// Pass rule: Fr4Factorization::device_bytes is what the constructor takes from the
// device: 16384² in float with the flat tree (45 million tasks) and 8192²
// with the binary tree, traced (11.2 million tasks). Free memory drops by
// that much within the driver's rounding: at most 2 MiB more for each of
// the 13 allocations (tiles and two T or τ arrays; at tile 256 the staged
// copies of the tsqrt factors; the graph's headers, successors, roots, two
// counter arrays, arguments, ready slots, run counters, trace), at most
// that much less where a small one fits in a block mapped before — 26 MiB,
// while a miscount of 4 bytes a task would be 171 MiB and 43 MiB.
TEST(Fr4QrApi, DeviceBytesAreWhatIsAllocated) {
  Fr4Factorization<float> warm(64, 64);  // loads the executor's module, which takes device memory of its own
  const double rounding = 13 * 2097152.0;
  for (const auto& shape : {std::pair<Tree, int64_t>{Tree::flat, 16384}, {Tree::binary, 8192}}) {
    SCOPED_TRACE(tree_name(shape.first));
    Options options;
    options.tree = shape.first;
    options.trace = shape.first == Tree::binary;
    const int64_t n = shape.second;
    size_t free_before = 0, free_after = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
    const Fr4Factorization<float> qr(n, n, options);
    ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
    const double used = double(free_before) - double(free_after);
    const double expected = Fr4Factorization<float>::device_bytes(n, n, options);
    EXPECT_GE(used, expected - rounding) << expected << " bytes expected";
    EXPECT_LE(used, expected + rounding) << expected << " bytes expected";
  }
}

// Pass rule: with a trace, a factorisation has one record per task, record
// t being task t of build_qr_dag's DAG (the closed form's ids are its
// program order), for each tree.
TEST(Fr4QrApi, TraceRecordsTheClosedFormsTasks) {
  const uint64_t seed = testing::test_seed("TraceRecordsTheClosedFormsTasks");
  const int64_t m = 3000, n = 2500;
  const std::vector<float> a = random_matrix<float>(m, n, seed);
  DeviceMatrix<float> d_a(a);
  for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy}) {
    SCOPED_TRACE(tree_name(tree));
    Options options;
    options.tree = tree;
    options.trace = true;
    Fr4Factorization<float> qr(m, n, options);
    qr.factor(d_a.data, m);
    const Dag dag = build_qr_dag(qr.tile_rows(), qr.tile_cols(), tree);
    const std::vector<TaskRecord> trace = qr.trace();
    ASSERT_EQ(trace.size(), dag.tasks.size());
    ASSERT_EQ(qr.task_count(), dag.num_tasks());
    int wrong = 0;
    for (size_t t = 0; t < trace.size(); ++t) wrong += trace[t].task == dag.tasks[t] ? 0 : 1;
    EXPECT_EQ(wrong, 0);
  }
}

}  // namespace
}  // namespace tiledqr::gpu
