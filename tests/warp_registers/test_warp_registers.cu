// The register-resident warp tsmqr (common/kernels/warp_registers) against
// the host kernel it mirrors (common/kernels/tsmqr.hpp) on factors made by
// the host tsqrt, double and float, both transposes, four tasks per block
// (one per warp).
//
// Pass rules: ‖X_gpu − X_host‖_F ≤ 10·32·ε·‖X_in‖_F for X = [A1; A2] of
// every task; two runs give bit-identical results.
// Without a GPU the program exits 77 (meson's "skipped").

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/host/tsmqr.hpp"
#include "kernels/host/tsqrt.hpp"
#include "kernels/warp_registers/tsmqr.cuh"
#include "gpu_test_main.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

namespace wr = kernels::warp_registers;
constexpr int b = wr::tile;
constexpr int tasks = 4;  // warps of the one block
constexpr std::size_t tile_elements = std::size_t(b) * b;

void cuda_ok(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Warp w runs the task whose tiles start at w·32·32 (τ at w·32).
template <typename T>
__global__ void tsmqr_kernel(bool transpose, const T* v, const T* tau, T* a1, T* a2) {
  extern __shared__ __align__(16) unsigned char raw[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  T* shared = reinterpret_cast<T*>(raw) + warp * wr::shared_elements;
  const std::size_t at = std::size_t(warp) * tile_elements;
  wr::tsmqr(transpose, v + at, tau + warp * b, a1 + at, a2 + at, shared, lane);
}

template <typename T>
std::vector<T> run(bool transpose, const std::vector<T>& v, const std::vector<T>& tau,
                   const std::vector<T>& a1, const std::vector<T>& a2) {
  T *dv, *dtau, *da1, *da2;
  const std::size_t bytes = a1.size() * sizeof(T);
  cuda_ok(cudaMalloc(&dv, bytes), "cudaMalloc");
  cuda_ok(cudaMalloc(&dtau, tau.size() * sizeof(T)), "cudaMalloc");
  cuda_ok(cudaMalloc(&da1, bytes), "cudaMalloc");
  cuda_ok(cudaMalloc(&da2, bytes), "cudaMalloc");
  cuda_ok(cudaMemcpy(dv, v.data(), bytes, cudaMemcpyHostToDevice), "upload");
  cuda_ok(cudaMemcpy(dtau, tau.data(), tau.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  cuda_ok(cudaMemcpy(da1, a1.data(), bytes, cudaMemcpyHostToDevice), "upload");
  cuda_ok(cudaMemcpy(da2, a2.data(), bytes, cudaMemcpyHostToDevice), "upload");
  const std::size_t shared = tasks * wr::shared_elements * sizeof(T);
  cuda_ok(cudaFuncSetAttribute(tsmqr_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)),
          "cudaFuncSetAttribute");
  tsmqr_kernel<T><<<1, 32 * tasks, shared>>>(transpose, dv, dtau, da1, da2);
  cuda_ok(cudaGetLastError(), "launch");
  cuda_ok(cudaDeviceSynchronize(), "run");
  std::vector<T> out(2 * a1.size());
  cuda_ok(cudaMemcpy(out.data(), da1, bytes, cudaMemcpyDeviceToHost), "download");
  cuda_ok(cudaMemcpy(out.data() + a1.size(), da2, bytes, cudaMemcpyDeviceToHost), "download");
  cudaFree(dv);
  cudaFree(dtau);
  cudaFree(da1);
  cudaFree(da2);
  return out;
}

template <typename T>
void check(bool transpose, uint64_t salt) {
  SCOPED_TRACE(std::string(sizeof(T) == 8 ? "double" : "float") + (transpose ? " Qᵀ" : " Q"));
  std::mt19937_64 engine = testing::make_engine(salt);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto random = [&](std::size_t count) {
    std::vector<T> x(count);
    for (T& value : x) value = T(uniform(engine));
    return x;
  };
  std::vector<T> r = random(tasks * tile_elements), v = random(tasks * tile_elements);
  std::vector<T> tau(tasks * b);
  for (int i = 0; i < tasks; ++i)
    kernels::tsqrt(b, b, r.data() + i * tile_elements, b, v.data() + i * tile_elements, b, tau.data() + i * b);
  const std::vector<T> a1 = random(tasks * tile_elements), a2 = random(tasks * tile_elements);
  std::vector<T> expected(2 * a1.size());
  std::copy(a1.begin(), a1.end(), expected.begin());
  std::copy(a2.begin(), a2.end(), expected.begin() + a1.size());
  for (int i = 0; i < tasks; ++i)
    kernels::tsmqr(transpose, b, b, b, v.data() + i * tile_elements, b, tau.data() + i * b,
                   expected.data() + i * tile_elements, b, expected.data() + a1.size() + i * tile_elements, b);
  const std::vector<T> first = run(transpose, v, tau, a1, a2), second = run(transpose, v, tau, a1, a2);
  const double eps = std::numeric_limits<T>::epsilon() / 2;
  for (int i = 0; i < tasks; ++i) {
    double diff = 0, norm = 0;
    for (int part = 0; part < 2; ++part)
      for (std::size_t e = 0; e < tile_elements; ++e) {
        const std::size_t at = part * a1.size() + i * tile_elements + e;
        const double in = part == 0 ? a1[i * tile_elements + e] : a2[i * tile_elements + e];
        diff += std::pow(double(first[at]) - double(expected[at]), 2);
        norm += in * in;
      }
    EXPECT_LE(std::sqrt(diff), 10.0 * b * eps * std::sqrt(norm)) << "task " << i;
  }
  EXPECT_TRUE(testing::all_finite(first));
  EXPECT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * sizeof(T)));
}

TEST(WarpRegistersTsmqr, Double) {
  check<double>(true, 1);
  check<double>(false, 2);
}
TEST(WarpRegistersTsmqr, Float) {
  check<float>(true, 3);
  check<float>(false, 4);
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) { return tiledqr::testing::run_gpu_tests(argc, argv); }
