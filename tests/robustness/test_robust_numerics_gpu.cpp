// The hard matrices of test_robust_numerics.cpp through the GPU stages:
// FR3 (flat tree) and FR4 (flat and binary trees), tile 32, in
// double and, for the extreme scalings, float. Suites robustness and gpu;
// exits 77 (meson's "skipped") without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "checks.hpp"
#include "gpu/cuda_check.hpp"
#include "fr4_qr.hpp"
#include "gpu_qr.hpp"
#include "hard_matrices.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

using testing::make_engine;

// Ragged for tile 32: 70 = 2·32 + 6 rows, 45 = 32 + 13 columns.
constexpr int64_t kRows = 70, kCols = 45;

// A on the device with leading dimension lda ≥ rows; the rows between
// (rows and lda) hold `gap`.
template <typename T>
Factorization<T> factor_strided(const std::string& stage, const DenseMatrix<T>& a, int64_t lda, T gap) {
  std::vector<T> strided(size_t(lda) * size_t(a.cols), gap);
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < a.rows; ++i) strided[size_t(i + j * lda)] = a(i, j);
  gpu::DeviceBuffer<T> d_a(strided.size(), "A");
  gpu::check(cudaMemcpy(d_a.get(), strided.data(), strided.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  if (stage == "FR3") return gpu::fr3_factor(d_a.get(), a.rows, a.cols, lda, Options{}).download();
  Options options;
  options.tree = stage == "FR4 binary" ? Tree::binary : Tree::flat;
  if (stage == "FR4 tile 64") options.tile = 64;  // the block kernels: panels of 16 columns, 2 tile rows
  if (stage == "FR4 tile 64") options.inner_block = 16;
  if (stage == "FR4 tile 128") options.tile = 128;  // one tile: geqrt alone
  gpu::Fr4Factorization<T> qr(a.rows, a.cols, options);
  qr.factor(d_a.get(), lda);
  return qr.download();
}

template <typename T>
Factorization<T> factor_on(const std::string& stage, const DenseMatrix<T>& a) {
  return factor_strided(stage, a, a.rows, T(0));
}

// Pass rule, for FR3, FR4 flat and FR4 binary (tile 32, the warp kernels)
// and FR4 with tiles of 64 and 128 (the block kernels):
// expect_stable_factorization (residual and orthogonality below 50, nothing
// non-finite).
template <typename T>
void expect_backward_stable(const DenseMatrix<T>& a, const std::string& what) {
  for (const std::string stage : {"FR3", "FR4 flat", "FR4 binary", "FR4 tile 64", "FR4 tile 128"}) {
    SCOPED_TRACE(what + ", " + stage);
    const Factorization<T> f = factor_on(stage, a);
    testing::expect_stable_factorization(a, f);
  }
}

// Pass rule: expect_backward_stable for every matrix of
// hard_double_matrices: A·1e±300, graded columns and rows 1e−300 … 1e+300,
// Kahan, Hilbert, rank 1, and dlatms with cond 1e2 … 1e15 in modes 1 … 5.
TEST(RobustNumericsGpu, HardDoubleMatrices) {
  std::mt19937_64 engine = make_engine(8201);
  for (const auto& [what, a] : testing::hard_double_matrices(kRows, kCols, engine)) expect_backward_stable(a, what);
}

// Pass rule: the same for float near its own thresholds (FLT_MAX 3.4e38).
TEST(RobustNumericsGpu, ExtremeScalingFloat) {
  std::mt19937_64 engine = make_engine(8202);
  const DenseMatrix<float> a = testing::random_matrix<float>(kRows, kCols, engine);
  expect_backward_stable(testing::scaled(a, 1e+35), "float A * 1e+35");
  expect_backward_stable(testing::scaled(a, 1e-35), "float A * 1e-35");
  expect_backward_stable(testing::graded(a, -35, 35, false), "float columns 1e-35 .. 1e+35");
}

// 0 × NaN must not leak. The entries outside A (the
// rows between m and lda, and the padding of the ragged last tiles, which
// the kernels multiply by zero-padded reflectors) are NaN here; A itself is
// finite. Pass rule: R and the reflector tiles are bit-identical to the run
// whose gap holds zeros, and R is finite.
TEST(RobustNumericsGpu, NanOutsideTheMatrixDoesNotLeak) {
  std::mt19937_64 engine = make_engine(8203);
  const DenseMatrix<double> a = testing::random_matrix<double>(kRows, kCols, engine);
  const int64_t lda = kRows + 9;
  for (const std::string stage : {"FR3", "FR4 flat", "FR4 binary"}) {
    SCOPED_TRACE(stage);
    const Factorization<double> clean = factor_strided(stage, a, lda, 0.0);
    const Factorization<double> poisoned = factor_strided(stage, a, lda, std::nan(""));
    const DenseMatrix<double> r = poisoned.r();
    for (double x : r.data) ASSERT_TRUE(std::isfinite(x));
    EXPECT_EQ(0, std::memcmp(r.data.data(), clean.r().data.data(), r.data.size() * sizeof(double)));
    EXPECT_EQ(0, std::memcmp(poisoned.tiles.data.data(), clean.tiles.data.data(),
                             clean.tiles.data.size() * sizeof(double)));
  }
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA-capable GPU: skipped\n");
    return 77;
  }
  return RUN_ALL_TESTS();
}
