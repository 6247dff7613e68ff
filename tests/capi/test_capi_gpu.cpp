// Tests of the GPU C interface (include/tiledqr/tiledqr_gpu.h) through
// libtiledqr_gpu: R and the downloaded factors, and least squares, against
// the CPU interface on the same matrix, on a non-blocking stream, in both
// precisions and trees, and clear statuses for bad arguments. Exits 77 (skipped) without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
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

int gpu_gels(int64_t m, int64_t n, int64_t k, double* a, int64_t lda, double* b, int64_t ldb, const tiledqr_options* o,
             cudaStream_t s) {
  return tiledqr_gpu_dgels(m, n, k, a, lda, b, ldb, o, s);
}
int gpu_gels(int64_t m, int64_t n, int64_t k, float* a, int64_t lda, float* b, int64_t ldb, const tiledqr_options* o,
             cudaStream_t s) {
  return tiledqr_gpu_sgels(m, n, k, a, lda, b, ldb, o, s);
}
int gpu_gels_host(int64_t m, int64_t n, int64_t k, double* a, int64_t lda, double* b, int64_t ldb,
                  const tiledqr_options* o) {
  return tiledqr_gpu_dgels_host(m, n, k, a, lda, b, ldb, o);
}
int gpu_gels_host(int64_t m, int64_t n, int64_t k, float* a, int64_t lda, float* b, int64_t ldb,
                  const tiledqr_options* o) {
  return tiledqr_gpu_sgels_host(m, n, k, a, lda, b, ldb, o);
}
int cpu_gels(int64_t m, int64_t n, int64_t k, double* a, int64_t lda, double* b, int64_t ldb) {
  return tiledqr_dgels(m, n, k, a, lda, b, ldb, nullptr);
}
int cpu_gels(int64_t m, int64_t n, int64_t k, float* a, int64_t lda, float* b, int64_t ldb) {
  return tiledqr_sgels(m, n, k, a, lda, b, ldb, nullptr);
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
int gpu_geqrf_batch_host(int64_t b, int64_t m, int64_t n, double* a, int64_t lda, int64_t stride, tiledqr_factors** f) {
  return tiledqr_gpu_dgeqrf_batch_host(b, m, n, a, lda, stride, f, nullptr);
}
int gpu_geqrf_batch_host(int64_t b, int64_t m, int64_t n, float* a, int64_t lda, int64_t stride, tiledqr_factors** f) {
  return tiledqr_gpu_sgeqrf_batch_host(b, m, n, a, lda, stride, f, nullptr);
}
int gpu_geqrf_batch(int64_t b, int64_t m, int64_t n, double* d, int64_t lda, int64_t stride, cudaStream_t s) {
  return tiledqr_gpu_dgeqrf_batch(b, m, n, d, lda, stride, nullptr, s);
}
int gpu_geqrf_batch(int64_t b, int64_t m, int64_t n, float* d, int64_t lda, int64_t stride, cudaStream_t s) {
  return tiledqr_gpu_sgeqrf_batch(b, m, n, d, lda, stride, nullptr, s);
}
int cpu_geqrf(int64_t m, int64_t n, double* a, int64_t lda) { return tiledqr_dgeqrf(m, n, a, lda, nullptr, nullptr); }
int cpu_geqrf(int64_t m, int64_t n, float* a, int64_t lda) { return tiledqr_sgeqrf(m, n, a, lda, nullptr, nullptr); }
int cpu_orgqr(int64_t m, int64_t k, tiledqr_factors* f, double* q, int64_t ldq) { return tiledqr_dorgqr(m, k, f, q, ldq); }
int cpu_orgqr(int64_t m, int64_t k, tiledqr_factors* f, float* q, int64_t ldq) { return tiledqr_sorgqr(m, k, f, q, ldq); }

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

// Pass rule for a batch on the GPU (one task graph): each matrix's R, from
// the device and the host stacks (gaps between the matrices, ragged
// 45 × 30, 1 × 7 and 300 × 20 binary), agrees with the CPU's tiledqr_?geqrf
// up to the signs of its rows to 100·n·ε·max|R|; the gaps keep their
// values; the host handles give Q with ‖I − QᵀQ‖ ≤ 100·n·ε.
template <typename T>
void check_batch(int64_t m, int64_t n, uint64_t salt) {
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + (sizeof(T) == 4 ? " float" : " double"));
  auto engine = make_engine(salt);
  const int64_t batch = 7, lda = m + 1, stride = lda * n + 3;
  const DenseMatrix<T> stack = random_matrix<T>(batch * stride, 1, engine);
  const T eps = std::numeric_limits<T>::epsilon();
  const auto compare = [&](const std::vector<T>& got) {
    for (int64_t i = 0; i < batch; ++i) {
      std::vector<T> cpu(stack.data.begin() + i * stride, stack.data.begin() + i * stride + lda * n);
      ASSERT_EQ(cpu_geqrf(m, n, cpu.data(), lda), TILEDQR_SUCCESS) << tiledqr_last_error();
      double largest = 0;
      for (int64_t j = 0; j < std::min(m, n); ++j) largest = std::max(largest, std::abs(double(cpu[size_t(j + j * lda)])));
      for (int64_t j = 0; j < n; ++j)
        for (int64_t r = 0; r < lda; ++r) {
          const double g = got[size_t(i * stride + r + j * lda)];
          if (r >= m) ASSERT_EQ(g, stack.data[size_t(i * stride + r + j * lda)]) << "beyond m";
          else if (r > j) ASSERT_EQ(g, 0.0) << "below the diagonal";
          else ASSERT_NEAR(std::abs(g), std::abs(double(cpu[size_t(r + j * lda)])), 100.0 * double(n) * double(eps) * largest)
              << "matrix " << i << " R(" << r << "," << j << ")";
        }
      for (int64_t g = lda * n; g < stride; ++g)
        ASSERT_EQ(got[size_t(i * stride + g)], stack.data[size_t(i * stride + g)]) << "the gap after matrix " << i;
    }
  };
  std::vector<T> host = stack.data;
  std::vector<tiledqr_factors*> handles(batch, nullptr);
  ASSERT_EQ(gpu_geqrf_batch_host(batch, m, n, host.data(), lda, stride, handles.data()), TILEDQR_SUCCESS)
      << tiledqr_last_error();
  compare(host);
  const int64_t k = std::min(m, n);
  std::vector<T> q(size_t(m * k));
  for (tiledqr_factors* f : handles) {
    ASSERT_EQ(cpu_orgqr(m, k, f, q.data(), m), TILEDQR_SUCCESS) << tiledqr_last_error();
    double off = 0;
    for (int64_t a = 0; a < k; ++a)
      for (int64_t b = 0; b < k; ++b) {
        double dot = 0;
        for (int64_t r = 0; r < m; ++r) dot += double(q[size_t(r + a * m)]) * double(q[size_t(r + b * m)]);
        off += std::pow(dot - (a == b ? 1.0 : 0.0), 2);
      }
    EXPECT_LE(std::sqrt(off), 100.0 * double(k) * double(eps));
    tiledqr_factors_free(f);
  }
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  T* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), stack.data.size() * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, stack.data.data(), stack.data.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(gpu_geqrf_batch(batch, m, n, d, lda, stride, stream), TILEDQR_SUCCESS) << tiledqr_last_error();
  std::vector<T> device(stack.data.size());
  ASSERT_EQ(cudaMemcpy(device.data(), d, device.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  compare(device);
  cudaFree(d);
  cudaStreamDestroy(stream);
}

TEST(CapiGpu, BatchMatchesCpu) {
  check_batch<double>(45, 30, 300);
  check_batch<double>(1, 7, 301);
  check_batch<double>(300, 20, 302);
  check_batch<float>(45, 30, 303);
}

// Pass rule for a batch of different shapes (ragged, tall, one row, an
// empty one): each R agrees with the CPU's tiledqr_dgeqrf up to the signs
// of its rows to 100·n·ε·max|R|, zeros below the diagonal, rows beyond m
// unchanged.
TEST(CapiGpu, VariableBatchMatchesCpu) {
  auto engine = make_engine(500);
  const std::vector<int64_t> m = {40, 1, 300, 0, 64, 100}, n = {30, 7, 20, 5, 64, 130};
  std::vector<int64_t> ld;
  std::vector<DenseMatrix<double>> inputs;
  std::vector<double*> device;
  for (size_t i = 0; i < m.size(); ++i) {
    ld.push_back(std::max<int64_t>(1, m[i]) + 1);
    inputs.push_back(random_matrix<double>(ld.back(), n[i], engine));
    double* d = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), std::max<size_t>(1, inputs.back().data.size()) * sizeof(double)),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, inputs.back().data.data(), inputs.back().data.size() * sizeof(double), cudaMemcpyHostToDevice),
              cudaSuccess);
    device.push_back(d);
  }
  ASSERT_EQ(tiledqr_gpu_dgeqrf_vbatch(int64_t(m.size()), m.data(), n.data(), device.data(), ld.data(), nullptr, nullptr),
            TILEDQR_SUCCESS)
      << tiledqr_last_error();
  const double eps = std::numeric_limits<double>::epsilon();
  for (size_t i = 0; i < m.size(); ++i) {
    SCOPED_TRACE("matrix " + std::to_string(i));
    std::vector<double> got(inputs[i].data.size());
    ASSERT_EQ(cudaMemcpy(got.data(), device[i], got.size() * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(device[i]);
    if (m[i] == 0 || n[i] == 0) continue;
    std::vector<double> cpu = inputs[i].data;
    ASSERT_EQ(tiledqr_dgeqrf(m[i], n[i], cpu.data(), ld[i], nullptr, nullptr), TILEDQR_SUCCESS);
    double largest = 0;
    for (int64_t j = 0; j < std::min(m[i], n[i]); ++j) largest = std::max(largest, std::abs(cpu[size_t(j + j * ld[i])]));
    for (int64_t j = 0; j < n[i]; ++j)
      for (int64_t r = 0; r < ld[i]; ++r) {
        const double g = got[size_t(r + j * ld[i])];
        if (r >= m[i]) ASSERT_EQ(g, inputs[i](r, j)) << "beyond m";
        else if (r > j) ASSERT_EQ(g, 0.0) << "below the diagonal";
        else ASSERT_NEAR(std::abs(g), std::abs(cpu[size_t(r + j * ld[i])]), 100.0 * double(n[i]) * eps * largest)
            << "R(" << r << "," << j << ")";
      }
  }
}

// Pass rule for plans: a plan of one matrix (tile chosen) and one of a
// batch, each run on three different inputs and two streams (one the
// caller's non-blocking stream), give the same R, bit for bit, as the
// one-shot tiledqr_gpu_?geqrf / ?geqrf_batch on the same input; running a
// plan with a stack that does not fit it, or with the other precision's
// function, is refused (TILEDQR_ERR_INVALID_ARGUMENT) and changes nothing.
TEST(CapiGpu, PlansMatchOneShotCalls) {
  auto engine = make_engine(400);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const int64_t batch : {int64_t(1), int64_t(6)}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    const int64_t m = 150, n = 70, lda = m + 2, stride = lda * n;
    tiledqr_gpu_plan* plan = nullptr;
    ASSERT_EQ(tiledqr_gpu_dgeqrf_plan(&plan, batch, m, n, nullptr), TILEDQR_SUCCESS) << tiledqr_last_error();
    double* d = nullptr;
    const size_t count = size_t(batch * stride);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), count * sizeof(double)), cudaSuccess);
    for (int run = 0; run < 3; ++run) {
      const DenseMatrix<double> a = random_matrix<double>(int64_t(count), 1, engine);
      ASSERT_EQ(cudaMemcpy(d, a.data.data(), count * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(tiledqr_gpu_dgeqrf_execute(plan, d, lda, stride, run == 1 ? stream : nullptr), TILEDQR_SUCCESS)
          << tiledqr_last_error();
      std::vector<double> planned(count), one_shot(count);
      ASSERT_EQ(cudaMemcpy(planned.data(), d, count * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(d, a.data.data(), count * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
      const int status = batch == 1 ? tiledqr_gpu_dgeqrf(m, n, d, lda, nullptr, nullptr, nullptr)
                                    : tiledqr_gpu_dgeqrf_batch(batch, m, n, d, lda, stride, nullptr, nullptr);
      ASSERT_EQ(status, TILEDQR_SUCCESS) << tiledqr_last_error();
      ASSERT_EQ(cudaMemcpy(one_shot.data(), d, count * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(planned, one_shot) << "run " << run;
    }
    std::vector<double> before(count), after(count);
    ASSERT_EQ(cudaMemcpy(before.data(), d, count * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(tiledqr_gpu_dgeqrf_execute(plan, d, m - 1, stride, nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(tiledqr_gpu_dgeqrf_execute(plan, nullptr, lda, stride, nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
    if (batch > 1) {
      EXPECT_EQ(tiledqr_gpu_dgeqrf_execute(plan, d, lda, stride - 1, nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
    }
    EXPECT_EQ(tiledqr_gpu_sgeqrf_execute(plan, reinterpret_cast<float*>(d), lda, stride, nullptr),
              TILEDQR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tiledqr_last_error()).find("made for double"), std::string::npos) << tiledqr_last_error();
    ASSERT_EQ(cudaMemcpy(after.data(), d, count * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(before, after) << "a refused run changes nothing";
    tiledqr_gpu_plan_destroy(plan);
    cudaFree(d);
  }
  cudaStreamDestroy(stream);
}

// Pass rule for least squares on the GPU, device and host arrays: X agrees
// with the CPU's tiledqr_?gels, ‖X − X_cpu‖_F ≤ 100·n·ε·‖X_cpu‖_F (random A,
// well conditioned); R (in A) agrees with the CPU's up to the signs of its
// rows, to 100·n·ε·max|R|; B's rows below n and A's rows beyond m keep their
// values.
template <typename T>
void check_least_squares(int64_t m, int64_t n, int64_t nrhs, int tile, uint64_t salt) {
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + " nrhs " + std::to_string(nrhs) + " tile " +
               std::to_string(tile) + (sizeof(T) == 4 ? " float" : " double"));
  auto engine = make_engine(salt);
  const int64_t lda = m + 2, ldb = m + 1;
  const DenseMatrix<T> a = random_matrix<T>(lda, n, engine), b = random_matrix<T>(ldb, nrhs, engine);
  std::vector<T> r_cpu = a.data, x_cpu = b.data;
  ASSERT_EQ(cpu_gels(m, n, nrhs, r_cpu.data(), lda, x_cpu.data(), ldb), TILEDQR_SUCCESS) << tiledqr_last_error();
  tiledqr_options opts{};
  opts.tile = tile;
  const T eps = std::numeric_limits<T>::epsilon();
  const auto compare = [&](const std::vector<T>& r, const std::vector<T>& x) {
    double diff = 0, norm = 0, largest = 0;
    for (int64_t j = 0; j < nrhs; ++j) {
      for (int64_t i = 0; i < n; ++i) {
        diff += std::pow(double(x[size_t(i + j * ldb)]) - double(x_cpu[size_t(i + j * ldb)]), 2);
        norm += std::pow(double(x_cpu[size_t(i + j * ldb)]), 2);
      }
      for (int64_t i = n; i < ldb; ++i) ASSERT_EQ(x[size_t(i + j * ldb)], b(i, j)) << "B below row n";
    }
    EXPECT_LE(std::sqrt(diff), 100.0 * double(n) * double(eps) * std::sqrt(norm));
    for (int64_t j = 0; j < n; ++j) largest = std::max(largest, std::abs(double(r_cpu[size_t(j + j * lda)])));
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i <= j; ++i)
        ASSERT_NEAR(std::abs(double(r[size_t(i + j * lda)])), std::abs(double(r_cpu[size_t(i + j * lda)])),
                    100.0 * double(n) * double(eps) * largest) << "R(" << i << "," << j << ")";
      for (int64_t i = m; i < lda; ++i) ASSERT_EQ(r[size_t(i + j * lda)], a(i, j)) << "A beyond m";
    }
  };
  // Host arrays.
  std::vector<T> r_host = a.data, x_host = b.data;
  ASSERT_EQ(gpu_gels_host(m, n, nrhs, r_host.data(), lda, x_host.data(), ldb, &opts), TILEDQR_SUCCESS)
      << tiledqr_last_error();
  compare(r_host, x_host);
  // Device arrays on a non-blocking stream.
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  T *d_a = nullptr, *d_b = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_a), a.data.size() * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_b), std::max<size_t>(1, b.data.size()) * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(d_a, a.data.data(), a.data.size() * sizeof(T), cudaMemcpyHostToDevice, stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(d_b, b.data.data(), b.data.size() * sizeof(T), cudaMemcpyHostToDevice, stream), cudaSuccess);
  ASSERT_EQ(gpu_gels(m, n, nrhs, d_a, lda, d_b, ldb, &opts, stream), TILEDQR_SUCCESS) << tiledqr_last_error();
  std::vector<T> r_dev(a.data.size()), x_dev(b.data.size());
  ASSERT_EQ(cudaMemcpy(r_dev.data(), d_a, r_dev.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(x_dev.data(), d_b, x_dev.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  compare(r_dev, x_dev);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaStreamDestroy(stream);
}

TEST(CapiGpu, LeastSquaresMatchesCpu) {
  uint64_t salt = 200;
  for (const int tile : {0, 32, 64})
    for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {64, 64}, {100, 37}, {300, 64}})
      for (const int64_t nrhs : {0, 1, 3}) {
        check_least_squares<double>(m, n, nrhs, tile, salt++);
        check_least_squares<float>(m, n, nrhs, tile, salt++);
      }
}

// A matrix with two equal columns: TILEDQR_RANK_DEFICIENT, as the CPU's
// ?gels, with R in A and B unchanged (host and device arrays).
TEST(CapiGpu, LeastSquaresRankDeficient) {
  auto engine = make_engine(300);
  const int64_t m = 50, n = 8;
  DenseMatrix<double> a = random_matrix<double>(m, n, engine);
  for (int64_t i = 0; i < m; ++i) a(i, 5) = a(i, 2);
  const DenseMatrix<double> b = random_matrix<double>(m, 2, engine);
  std::vector<double> r = a.data, x = b.data;
  EXPECT_EQ(tiledqr_gpu_dgels_host(m, n, 2, r.data(), m, x.data(), m, nullptr), TILEDQR_RANK_DEFICIENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("rank-deficient"), std::string::npos) << tiledqr_last_error();
  EXPECT_EQ(x, b.data) << "B unchanged";
  EXPECT_NE(r, a.data) << "A holds R";
  double *d_a = nullptr, *d_b = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_a), a.data.size() * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_b), b.data.size() * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_a, a.data.data(), a.data.size() * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_b, b.data.data(), b.data.size() * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(tiledqr_gpu_dgels(m, n, 2, d_a, m, d_b, m, nullptr, nullptr), TILEDQR_RANK_DEFICIENT);
  ASSERT_EQ(cudaMemcpy(x.data(), d_b, x.size() * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(x, b.data) << "dB unchanged";
  cudaFree(d_a);
  cudaFree(d_b);
}

TEST(CapiGpu, BadArguments) {
  double* d_a = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_a), 16 * sizeof(double)), cudaSuccess);
  tiledqr_gpu_factors* f = nullptr;
  tiledqr_options tile48{};
  tile48.tile = 48;  // the GPU runs tiles of 32, 64, 128 and 256 only
  EXPECT_EQ(tiledqr_gpu_dgeqrf(4, 4, d_a, 4, &f, &tile48, nullptr), TILEDQR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tiledqr_last_error()).find("got tile 48"), std::string::npos) << tiledqr_last_error();
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
