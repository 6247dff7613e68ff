// The hard matrices of test_robust_numerics.cpp through the GPU stages
// (issue 7): FR3 (flat tree) and FR4 (flat and binary trees), tile 32, in
// double and, for the extreme scalings, float. Suites robustness and gpu;
// exits 77 (meson's "skipped") without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

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

template <typename T>
Factorization<T> factor_on(const std::string& stage, const DenseMatrix<T>& a) {
  gpu::DeviceBuffer<T> d_a(a.data.size(), "A");
  gpu::check(cudaMemcpy(d_a.get(), a.data.data(), a.data.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  if (stage == "FR3") return gpu::factor(d_a.get(), a.rows, a.cols, a.ld(), gpu::GpuOptions{}).download();
  gpu::QrOptions options;
  options.tree = stage == "FR4 flat" ? Tree::flat : Tree::binary;
  gpu::DeviceQr<T> qr(a.rows, a.cols, options);
  qr.factor(d_a.get(), a.ld());
  return qr.download();
}

// Pass rule, for FR3, FR4 flat and FR4 binary: expect_stable_factorization
// (residual and orthogonality below 50, nothing non-finite).
template <typename T>
void expect_backward_stable(const DenseMatrix<T>& a, const std::string& what) {
  for (const std::string stage : {"FR3", "FR4 flat", "FR4 binary"}) {
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
