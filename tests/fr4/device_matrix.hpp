// What the FR4 QR tests share: the random matrices they factor, a device
// copy of one, and the relative difference they compare results by.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace tiledqr::gpu::testing_support {

// m × n entries uniform in [-1, 1) from mt19937_64(seed).
template <typename T>
std::vector<T> random_matrix(int64_t m, int64_t n, uint64_t seed) {
  std::vector<T> a(size_t(m * n));
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (T& x : a) x = T(uniform(engine));
  return a;
}

// A device array, from a host one or of `count` entries; the CUDA calls checked.
template <typename T>
struct DeviceMatrix {
  T* data = nullptr;
  explicit DeviceMatrix(const std::vector<T>& host) {
    EXPECT_EQ(cudaMalloc(&data, host.size() * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  explicit DeviceMatrix(size_t count) { EXPECT_EQ(cudaMalloc(&data, count * sizeof(T)), cudaSuccess); }
  ~DeviceMatrix() { cudaFree(data); }
  DeviceMatrix(const DeviceMatrix&) = delete;
  DeviceMatrix& operator=(const DeviceMatrix&) = delete;
  std::vector<T> download(size_t count) const {
    std::vector<T> out(count);
    EXPECT_EQ(cudaMemcpy(out.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  }
};

// ‖x − reference‖_F / ‖reference‖_F (the absolute norm for a zero reference).
template <typename T>
double relative_difference(const std::vector<T>& x, const std::vector<T>& reference) {
  double diff = 0, norm = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    const double d = double(x[k]) - double(reference[k]);
    diff += d * d;
    norm += double(reference[k]) * double(reference[k]);
  }
  return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

}  // namespace tiledqr::gpu::testing_support
