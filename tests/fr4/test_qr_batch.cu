// A batch of QR factorisations as one task graph on the FR4 scheduler
// (Fr4Batch, fr4_scheduler/qr/fr4_batch.hpp; suites fr4 and gpu, exits 77
// without a GPU), each matrix tested against FR1 with the same tree, and
// against FR4 factoring it alone.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "checks.hpp"
#include "errors.hpp"
#include "fr4_batch.hpp"
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

// The ragged batch: one tile, a row, a column, empty ones, tall, wide, ragged edges; every tree.
const std::vector<Fr4BatchMatrix> kRagged = {
    {1, 1, Tree::flat},     {33, 31, Tree::flat},    {100, 37, Tree::binary}, {37, 100, Tree::flat},
    {0, 5, Tree::flat},     {130, 130, Tree::greedy}, {1, 50, Tree::flat},    {70, 1, Tree::binary},
    {5, 0, Tree::flat},     {500, 32, Tree::binary},  {257, 65, Tree::hierarchical}, {64, 64, Tree::flat},
    {2000, 40, Tree::hierarchical}};

// Pass rule: every matrix of the ragged batch, factored in one run, has
// tiles (R and V) and τ within 1e-13 of FR1's with its tree
// (‖FR4 − FR1‖_F / ‖FR1‖_F), both residuals below 50; write_r leaves in
// each matrix its R with zeros below, bit for bit the downloaded factors'
// R; a second run gives the same bits.
TEST(Fr4QrBatch, RaggedBatchMatchesFr1) {
  const uint64_t seed = testing::test_seed("RaggedBatchMatchesFr1");
  std::vector<std::vector<double>> inputs;
  std::vector<std::unique_ptr<DeviceMatrix<double>>> device;
  std::vector<const double*> pointers;
  std::vector<double*> outputs;
  std::vector<int64_t> lda;
  for (size_t b = 0; b < kRagged.size(); ++b) {
    const Fr4BatchMatrix& s = kRagged[b];
    inputs.push_back(random_matrix<double>(s.m, s.n, seed + b));
    device.push_back(std::make_unique<DeviceMatrix<double>>(inputs.back()));
    pointers.push_back(s.m && s.n ? device.back()->data : nullptr);
    outputs.push_back(device.back()->data);
    lda.push_back(std::max<int64_t>(1, s.m));
  }
  Fr4Batch<double> batch(kRagged);
  batch.factor(pointers.data(), lda.data());
  std::vector<Factorization<double>> first;
  for (size_t b = 0; b < kRagged.size(); ++b) {
    const Fr4BatchMatrix& s = kRagged[b];
    SCOPED_TRACE("matrix " + std::to_string(b) + ": " + std::to_string(s.m) + "x" + std::to_string(s.n) + " " +
                 tree_name(s.tree));
    if (s.m == 0 || s.n == 0) {
      EXPECT_THROW(batch.download(int64_t(b)), InputError);
      first.emplace_back();
      continue;
    }
    first.push_back(batch.download(int64_t(b)));
    const Factorization<double>& f = first.back();
    Options o = f.options;
    const Factorization<double> fr1 = factor<double>(inputs[b].data(), s.m, s.n, s.m, o);
    EXPECT_LE(relative_difference(f.tiles.data, fr1.tiles.data), 1e-13);
    EXPECT_LE(relative_difference(f.t_local, fr1.t_local), 1e-13);
    EXPECT_LE(relative_difference(f.t_merge, fr1.t_merge), 1e-13);
    const Residuals r = check_factorization(inputs[b].data(), s.m, s.n, s.m, f);
    EXPECT_LT(r.residual, 50);
    EXPECT_LT(r.orthogonality, 50);
  }
  batch.write_r(outputs.data(), lda.data(), 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (size_t b = 0; b < kRagged.size(); ++b) {
    const Fr4BatchMatrix& s = kRagged[b];
    if (s.m == 0 || s.n == 0) continue;
    SCOPED_TRACE("R of matrix " + std::to_string(b));
    const std::vector<double> r = device[b]->download(size_t(s.m * s.n));
    const DenseMatrix<double> expected = first[b].r();  // min(m, n) × n
    bool same = true;
    for (int64_t c = 0; c < s.n; ++c)
      for (int64_t i = 0; i < s.m; ++i) {
        const double want = i < expected.rows && i <= c ? expected(i, c) : 0.0;
        same = same && r[size_t(i + c * s.m)] == want;
      }
    EXPECT_TRUE(same);
  }
  // Again, from the original matrices: the same bits.
  std::vector<std::unique_ptr<DeviceMatrix<double>>> again_device;
  for (size_t b = 0; b < kRagged.size(); ++b) {
    again_device.push_back(std::make_unique<DeviceMatrix<double>>(inputs[b]));
    pointers[b] = kRagged[b].m && kRagged[b].n ? again_device.back()->data : nullptr;
  }
  batch.factor(pointers.data(), lda.data());
  const std::vector<Factorization<double>> all = batch.download_all();
  for (size_t b = 0, member = 0; b < kRagged.size(); ++b) {
    if (kRagged[b].m == 0 || kRagged[b].n == 0) continue;
    const Factorization<double>& again = all[member++];
    EXPECT_EQ(again.tiles.data, first[b].tiles.data) << "matrix " << b;
    EXPECT_EQ(again.t_local, first[b].t_local) << "matrix " << b;
    EXPECT_EQ(again.t_merge, first[b].t_merge) << "matrix " << b;
  }
}

// Pass rule: a strided stack of 40 matrices 96 × 64 (flat) and 20 of 300 ×
// 40 (binary) give each matrix the same bits as FR4 factoring it alone
// (the same tasks on the same kernels, each tile's updates in one order).
TEST(Fr4QrBatch, StridedStackSameBitsAsAlone) {
  const uint64_t seed = testing::test_seed("StridedStackSameBitsAsAlone");
  for (const Fr4BatchMatrix shape : {Fr4BatchMatrix{96, 64, Tree::flat}, Fr4BatchMatrix{300, 40, Tree::binary}}) {
    const int64_t count = shape.m == 96 ? 40 : 20, lda = shape.m + 3, stride = lda * shape.n + 5;
    SCOPED_TRACE(std::to_string(shape.m) + "x" + std::to_string(shape.n));
    const std::vector<double> stack = random_matrix<double>(count * stride, 1, seed + uint64_t(shape.m));
    DeviceMatrix<double> d_stack(stack);
    Fr4Batch<double> batch(std::vector<Fr4BatchMatrix>(size_t(count), shape));
    batch.launch_factor_strided(d_stack.data, lda, stride, 0);
    batch.finish_factor();
    Options options;
    options.tree = shape.tree;
    Fr4Factorization<double> alone(shape.m, shape.n, options);
    for (int64_t b = 0; b < count; ++b) {
      alone.factor(d_stack.data + b * stride, lda);
      const Factorization<double> expected = alone.download(), got = batch.download(b);
      EXPECT_EQ(got.tiles.data, expected.tiles.data) << "matrix " << b;
      EXPECT_EQ(got.t_local, expected.t_local) << "matrix " << b;
      EXPECT_EQ(got.t_merge, expected.t_merge) << "matrix " << b;
    }
  }
}

// Pass rule: in float, every matrix of the ragged batch has both residuals below 50.
TEST(Fr4QrBatch, FloatResiduals) {
  const uint64_t seed = testing::test_seed("FloatResiduals");
  std::vector<std::vector<float>> inputs;
  std::vector<std::unique_ptr<DeviceMatrix<float>>> device;
  std::vector<const float*> pointers;
  std::vector<int64_t> lda;
  for (size_t b = 0; b < kRagged.size(); ++b) {
    inputs.push_back(random_matrix<float>(kRagged[b].m, kRagged[b].n, seed + b));
    device.push_back(std::make_unique<DeviceMatrix<float>>(inputs.back()));
    pointers.push_back(device.back()->data);
    lda.push_back(std::max<int64_t>(1, kRagged[b].m));
  }
  Fr4Batch<float> batch(kRagged);
  batch.factor(pointers.data(), lda.data());
  for (size_t b = 0; b < kRagged.size(); ++b) {
    const Fr4BatchMatrix& s = kRagged[b];
    if (s.m == 0 || s.n == 0) continue;
    const Residuals r = check_factorization(inputs[b].data(), s.m, s.n, s.m, batch.download(int64_t(b)));
    EXPECT_LT(r.residual, 50) << "matrix " << b;
    EXPECT_LT(r.orthogonality, 50) << "matrix " << b;
  }
}

// Pass rule: bad arguments throw InputError before any device work: a
// negative size, a tile other than 32, a leading dimension below m, a
// NULL matrix, R or a download before a factorisation, a matrix index out
// of range; a batch of empty matrices factors nothing and says so by
// having no tasks.
TEST(Fr4QrBatch, BadArguments) {
  EXPECT_THROW(Fr4Batch<double>({{-1, 3, Tree::flat}}), InputError);
  Options tile64;
  tile64.tile = 64;
  EXPECT_THROW(Fr4Batch<double>({{10, 10, Tree::flat}}, tile64), InputError);
  Fr4Batch<double> batch({{10, 10, Tree::flat}, {20, 5, Tree::binary}});
  EXPECT_THROW(batch.download(0), InputError);
  std::vector<double*> none(2, nullptr);
  const std::vector<int64_t> ld = {10, 20}, short_ld = {10, 19};
  EXPECT_THROW(batch.write_r(none.data(), ld.data(), 0), InputError);
  DeviceMatrix<double> a(std::vector<double>(200, 1.0));
  const double* pointers[2] = {a.data, nullptr};
  EXPECT_THROW(batch.factor(pointers, ld.data()), InputError);
  pointers[1] = a.data;
  EXPECT_THROW(batch.factor(pointers, short_ld.data()), InputError);
  EXPECT_THROW(batch.matrix(2), InputError);
  Fr4Batch<double> empty({{0, 4, Tree::flat}, {3, 0, Tree::flat}});
  EXPECT_EQ(empty.task_count(), 0);
  const double* nothing[2] = {nullptr, nullptr};
  const std::vector<int64_t> ones = {1, 3};
  empty.factor(nothing, ones.data());
  EXPECT_THROW(empty.download(1), InputError);
  EXPECT_TRUE(empty.download_all().empty());
}

}  // namespace
}  // namespace tiledqr::gpu
