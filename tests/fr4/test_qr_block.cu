// The tiled QR on the FR4 scheduler with the block kernels (tiles of 64, 128
// and 256, common/kernels/block), tested against FR1 — itself tested
// against LAPACK — with the lapack backend, the same tile, inner block and
// tree; suites fr4 and gpu, exits 77 without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "checks.hpp"
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

Options block_options(int tile, int inner_block, Tree tree) {
  Options o;
  o.tile = tile;
  o.inner_block = inner_block;
  o.tree = tree;
  o.tree_domains = tree == Tree::hierarchical ? 2 : 1;  // flat in each domain, one merge across
  return o;
}

// The T factors with each (ib, b) block's strict lower part zeroed: LAPACK
// leaves it unspecified.
template <typename T>
std::vector<T> upper_blocks(std::vector<T> t, int ib) {
  for (size_t e = 0; e < t.size(); ++e) {
    const size_t r = e % size_t(ib), c = e / size_t(ib);
    if (r > c % size_t(ib)) t[e] = T(0);
  }
  return t;
}

struct Case {
  int tile, inner_block;
  int64_t m, n;
};
// Ragged in both directions for each tile, square, wide and tall, every
// inner block the kernels take; at tile 256 also whole tiles beside ragged
// ones (600 × 520: tsmqr on whole pairs of tiles fills its stages from the
// staged copies of the tsqrt factors, A1_b by unmasked copies).
const Case kCases[] = {
    {64, 16, 100, 37},  {64, 32, 37, 100},  {64, 64, 130, 130}, {64, 32, 257, 65},  {64, 16, 500, 96},
    {64, 32, 1, 1},     {128, 32, 300, 200}, {128, 16, 129, 257}, {128, 64, 1000, 130}, {128, 32, 70, 45},
    {256, 32, 300, 260}, {256, 16, 600, 200}, {256, 32, 200, 520}, {256, 16, 600, 520}, {256, 32, 600, 520},
};
const Tree kTrees[] = {Tree::flat, Tree::binary, Tree::greedy, Tree::hierarchical};

std::string label(const Case& c, Tree tree) {
  return "tile " + std::to_string(c.tile) + " ib " + std::to_string(c.inner_block) + " " + tree_name(tree) + " " +
         std::to_string(c.m) + "x" + std::to_string(c.n);
}

// Pass rule: for every case and tree, FR4's tiles (R and V) and T factors
// are within 1e-12 (double) or 1e-4 (float) of FR1's with the lapack
// backend, same tile, inner block and tree (‖FR4 − FR1‖_F / ‖FR1‖_F; the
// two compute the same reflectors in other orders of summation), and
// ‖A − QR‖_F/(‖A‖_F·n·ε) and ‖I − QᵀQ‖_F/(n·ε) are below 50.
template <typename T>
void check_against_fr1(double tolerance, uint64_t seed) {
  for (const Case& c : kCases)
    for (const Tree tree : kTrees) {
      SCOPED_TRACE(label(c, tree));
      const std::vector<T> a = random_matrix<T>(c.m, c.n, seed + uint64_t(c.m * 7 + c.n + c.tile));
      const Options options = block_options(c.tile, c.inner_block, tree);
      DeviceMatrix<T> d_a(a);
      Fr4Factorization<T> qr(c.m, c.n, options);
      ASSERT_EQ(qr.tiles().tile, c.tile);
      ASSERT_EQ(qr.tiles().inner_block, c.inner_block);
      qr.factor(d_a.data, c.m);
      const Factorization<T> fr4 = qr.download();
      Options cpu = options;
      cpu.backend = Backend::lapack;
      const Factorization<T> fr1 = factor<T>(a.data(), c.m, c.n, c.m, cpu);
      EXPECT_LE(relative_difference(fr4.tiles.data, fr1.tiles.data), tolerance) << "tiles";
      const int ib = c.inner_block;
      EXPECT_LE(relative_difference(upper_blocks(fr4.t_local, ib), upper_blocks(fr1.t_local, ib)), tolerance)
          << "T (geqrt)";
      EXPECT_LE(relative_difference(upper_blocks(fr4.t_merge, ib), upper_blocks(fr1.t_merge, ib)), tolerance)
          << "T (tsqrt, ttqrt)";
      const Residuals r = check_factorization(a.data(), c.m, c.n, c.m, fr4);
      EXPECT_LT(r.residual, 50);
      EXPECT_LT(r.orthogonality, 50);
    }
}

TEST(Fr4BlockVsFr1, Double) { check_against_fr1<double>(1e-12, testing::test_seed("Fr4BlockVsFr1.Double")); }
TEST(Fr4BlockVsFr1, Float) { check_against_fr1<float>(1e-4, testing::test_seed("Fr4BlockVsFr1.Float")); }

// Pass rule: with tiles of 64 and 128, two factorisations of one matrix by
// one Fr4Factorization give bit-identical tiles and T (each tile sees its
// updates in one order whatever the schedule), for every tree; and so do
// factorisations with two and four priority classes against the default (one).
TEST(Fr4BlockDeterminism, RunsBitIdentical) {
  const uint64_t seed = testing::test_seed("Fr4BlockDeterminism");
  const int64_t m = 1100, n = 700;
  const std::vector<double> a = random_matrix<double>(m, n, seed);
  DeviceMatrix<double> d_a(a);
  for (const int tile : {64, 128})
    for (const Tree tree : kTrees) {
      SCOPED_TRACE(std::to_string(tile) + " " + tree_name(tree));
      Fr4Factorization<double> qr(m, n, block_options(tile, 32, tree));
      qr.factor(d_a.data, m);
      const Factorization<double> first = qr.download();
      for (int run = 1; run < 5; ++run) {
        qr.factor(d_a.data, m);
        const Factorization<double> again = qr.download();
        ASSERT_EQ(std::memcmp(again.tiles.data.data(), first.tiles.data.data(), first.tiles.data.size() * sizeof(double)),
                  0)
            << "run " << run;
        ASSERT_EQ(std::memcmp(again.t_local.data(), first.t_local.data(), first.t_local.size() * sizeof(double)), 0);
        ASSERT_EQ(std::memcmp(again.t_merge.data(), first.t_merge.data(), first.t_merge.size() * sizeof(double)), 0);
      }
      ASSERT_EQ(qr.tiles().priority_classes, 1);
      for (const int classes : {2, 4}) {
        SCOPED_TRACE("priority classes " + std::to_string(classes));
        Options ranked = block_options(tile, 32, tree);
        ranked.priority_classes = classes;
        Fr4Factorization<double> other(m, n, ranked);
        other.factor(d_a.data, m);
        const Factorization<double> again = other.download();
        ASSERT_EQ(std::memcmp(again.tiles.data.data(), first.tiles.data.data(), first.tiles.data.size() * sizeof(double)),
                  0);
        ASSERT_EQ(std::memcmp(again.t_local.data(), first.t_local.data(), first.t_local.size() * sizeof(double)), 0);
        ASSERT_EQ(std::memcmp(again.t_merge.data(), first.t_merge.data(), first.t_merge.size() * sizeof(double)), 0);
      }
    }
}

// Pass rule: with block tiles the device calls agree with the host
// Factorization of the same factors within 1e-12 (relative, Frobenius):
// Qᵀ B, Q B, thin Q, R (exactly) and the least-squares solution.
TEST(Fr4BlockApi, DeviceCallsMatchHost) {
  const uint64_t seed = testing::test_seed("Fr4BlockApi");
  const int64_t m = 700, n = 300, nrhs = 9;
  for (const int tile : {64, 128, 256})
    for (const Tree tree : {Tree::flat, Tree::binary}) {
      SCOPED_TRACE(std::to_string(tile) + " " + tree_name(tree));
      const std::vector<double> a = random_matrix<double>(m, n, seed + uint64_t(tile));
      const std::vector<double> b = random_matrix<double>(m, nrhs, seed + 1);
      DeviceMatrix<double> d_a(a);
      Fr4Factorization<double> qr(m, n, block_options(tile, 32, tree));
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
    }
}

}  // namespace
}  // namespace tiledqr::gpu
