// Tests of the GPU C interface (include/tiledqr/tiledqr_gpu.h) through
// libtiledqr_gpu: R and the downloaded factors against the CPU interface on
// the same matrix, on a non-blocking stream, in both precisions and trees,
// and clear statuses for bad arguments. Exits 77 (skipped) without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tiledqr/tiledqr_gpu.h"

namespace {

using tiledqr::DenseMatrix;
using tiledqr::testing::make_engine;
using tiledqr::testing::random_matrix;

int gpu_geqrf(int64_t m, int64_t n, double* d, int64_t ld, tiledqr_gpu_factors** f, const tiledqr_options* o,
              cudaStream_t s) {
  return tiledqr_gpu_dgeqrf(m, n, d, ld, f, o, s);
}
int gpu_geqrf(int64_t m, int64_t n, float* d, int64_t ld, tiledqr_gpu_factors** f, const tiledqr_options* o,
              cudaStream_t s) {
  return tiledqr_gpu_sgeqrf(m, n, d, ld, f, o, s);
}
int ormqr(char t, int64_t m, int64_t k, const tiledqr_factors* f, double* b, int64_t ldb) {
  return tiledqr_dormqr(t, m, k, f, b, ldb);
}
int ormqr(char t, int64_t m, int64_t k, const tiledqr_factors* f, float* b, int64_t ldb) {
  return tiledqr_sormqr(t, m, k, f, b, ldb);
}

// Pass rule: ‖A − QR‖_F / (‖A‖_F·n·ε) < 50 with R from dA and Q from the
// downloaded factors; the rows below R and beyond m (lda > m) as specified.
template <typename T>
void check_factorisation(int64_t m, int64_t n, int64_t lda, int tree, uint64_t salt, int tile = 0) {
  auto engine = make_engine(salt);
  const DenseMatrix<T> a = random_matrix<T>(lda, n, engine);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  T* d_a = nullptr;
  const size_t bytes = a.data.size() * sizeof(T);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_a), bytes), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(d_a, a.data.data(), bytes, cudaMemcpyHostToDevice, stream), cudaSuccess);
  tiledqr_options opts{};
  opts.tree = tree;
  opts.tile = tile;
  tiledqr_gpu_factors* f = nullptr;
  ASSERT_EQ(gpu_geqrf(m, n, d_a, lda, &f, &opts, stream), TILEDQR_SUCCESS) << tiledqr_last_error();
  std::vector<T> r(a.data.size());
  ASSERT_EQ(cudaMemcpyAsync(r.data(), d_a, bytes, cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = j + 1; i < m; ++i) ASSERT_EQ(r[size_t(i + j * lda)], T(0)) << "below the diagonal";
    for (int64_t i = m; i < lda; ++i) ASSERT_EQ(r[size_t(i + j * lda)], a(i, j)) << "beyond m";
  }
  tiledqr_factors* host = nullptr;
  ASSERT_EQ(tiledqr_gpu_factors_download(f, &host), TILEDQR_SUCCESS) << tiledqr_last_error();
  std::vector<T> qr = r;
  ASSERT_EQ(ormqr('N', m, n, host, qr.data(), lda), TILEDQR_SUCCESS) << tiledqr_last_error();
  double diff = 0, norm = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      diff += std::pow(double(a(i, j)) - double(qr[size_t(i + j * lda)]), 2);
      norm += std::pow(double(a(i, j)), 2);
    }
  EXPECT_LT(std::sqrt(diff / norm) / (double(n) * std::numeric_limits<T>::epsilon()), 50) << m << "x" << n;
  tiledqr_factors_free(host);
  tiledqr_gpu_factors_free(f);
  cudaFree(d_a);
  cudaStreamDestroy(stream);
}

TEST(CapiGpu, DoubleAndFloatEveryTree) {
  uint64_t salt = 1;
  for (int tree : {TILEDQR_TREE_AUTO, TILEDQR_TREE_FLAT, TILEDQR_TREE_BINARY, TILEDQR_TREE_GREEDY})
    for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {100, 37}, {37, 100}, {300, 64}}) {
      SCOPED_TRACE("tree " + std::to_string(tree));
      check_factorisation<double>(m, n, m + 3, tree, salt++);
      check_factorisation<float>(m, n, m, tree, salt++);
    }
}

// The same through the block kernels (tiles of 64 and 128).
TEST(CapiGpu, BlockTiles) {
  uint64_t salt = 100;
  for (const int tile : {64, 128})
    for (int tree : {TILEDQR_TREE_FLAT, TILEDQR_TREE_BINARY})
      for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{100, 37}, {37, 100}, {300, 64}}) {
        SCOPED_TRACE("tile " + std::to_string(tile) + " tree " + std::to_string(tree));
        check_factorisation<double>(m, n, m + 3, tree, salt++, tile);
        check_factorisation<float>(m, n, m, tree, salt++, tile);
      }
}

// The host-array variant gives the same R (up to signs of rows) as the CPU.
TEST(CapiGpu, HostArrayMatchesCpu) {
  auto engine = make_engine(40);
  const int64_t m = 200, n = 90;
  const DenseMatrix<double> a = random_matrix<double>(m, n, engine);
  std::vector<double> r_gpu = a.data, r_cpu = a.data;
  tiledqr_factors* f = nullptr;
  ASSERT_EQ(tiledqr_gpu_dgeqrf_host(m, n, r_gpu.data(), m, &f, nullptr), TILEDQR_SUCCESS) << tiledqr_last_error();
  ASSERT_EQ(tiledqr_dgeqrf(m, n, r_cpu.data(), m, nullptr, nullptr), TILEDQR_SUCCESS);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= j && i < m; ++i)
      EXPECT_NEAR(std::abs(r_gpu[size_t(i + j * m)]), std::abs(r_cpu[size_t(i + j * m)]), 1e-11) << i << "," << j;
  std::vector<double> q(size_t(m * n));
  EXPECT_EQ(tiledqr_dorgqr(m, n, f, q.data(), m), TILEDQR_SUCCESS) << tiledqr_last_error();
  tiledqr_factors_free(f);
}

TEST(CapiGpu, BadArguments) {
  double* d_a = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_a), 16 * sizeof(double)), cudaSuccess);
  tiledqr_gpu_factors* f = nullptr;
  tiledqr_options tile64{};
  tile64.tile = 64;
  EXPECT_EQ(tiledqr_gpu_dgeqrf(4, 4, d_a, 4, &f, &tile64, nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("tile 32"), std::string::npos) << tiledqr_last_error();
  EXPECT_EQ(tiledqr_gpu_dgeqrf(4, 4, d_a, 3, &f, nullptr, nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("ldda"), std::string::npos) << tiledqr_last_error();
  EXPECT_EQ(tiledqr_gpu_dgeqrf(0, 4, d_a, 4, &f, nullptr, nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tiledqr_gpu_dgeqrf(4, 4, nullptr, 4, &f, nullptr, nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(f, nullptr);
  tiledqr_factors* host = nullptr;
  EXPECT_EQ(tiledqr_gpu_factors_download(nullptr, &host), TILEDQR_ERR_INVALID_ARGUMENT);
  std::vector<double> a(16, 1.0);
  a[5] = std::nan("");
  EXPECT_EQ(tiledqr_gpu_dgeqrf_host(4, 4, a.data(), 4, &host, nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
  tiledqr_gpu_factors_free(nullptr);
  cudaFree(d_a);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int status = tiledqr_gpu_check_device();
  if (status == TILEDQR_ERR_NO_GPU) {
    std::printf("no CUDA-capable GPU: skipped (%s)\n", tiledqr_last_error());
    return 77;
  }
  if (status != TILEDQR_SUCCESS) {  // a wrong architecture is a failure, not a skip
    std::printf("tiledqr_gpu_check_device: %s\n", tiledqr_last_error());
    return 1;
  }
  return RUN_ALL_TESTS();
}
