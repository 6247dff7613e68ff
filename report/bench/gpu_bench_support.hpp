// What the driver's GPU stages share (fr3_bench.cu, fr4_bench.cu,
// cusolver_bench.cu): the driver's random matrix, its upload, and a pair of
// CUDA events that time the device work between them.
#pragma once

#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "bench_case.hpp"
#include "gpu/cuda_check.hpp"
#include "size_check.hpp"

namespace tiledqr::bench {

// The driver's matrix: uniform in [-1, 1) from mt19937_64(seed), as every stage draws it.
template <typename T>
std::vector<T> random_input(const BenchCase& c) {
  std::vector<T> a(checked_elements({c.m, c.n}, sizeof(T), "benchmark matrix"));
  std::mt19937_64 engine(c.seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (T& x : a) x = T(uniform(engine));
  return a;
}

// `a` copied to a new device buffer.
template <typename T>
gpu::DeviceBuffer<T> upload(const std::vector<T>& a) {
  gpu::DeviceBuffer<T> d_a(a.size(), "benchmark matrix");
  gpu::check(cudaMemcpy(d_a.get(), a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  return d_a;
}

// Two events on the default stream: start() before the timed work,
// stop() after it, seconds() waits for the second and gives the time between.
class EventTimer {
 public:
  EventTimer() {
    gpu::check(cudaEventCreate(&start_), "cudaEventCreate");
    gpu::check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start() { gpu::check(cudaEventRecord(start_, 0), "cudaEventRecord"); }
  void stop() { gpu::check(cudaEventRecord(stop_, 0), "cudaEventRecord"); }
  double seconds() {
    gpu::check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    gpu::check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace tiledqr::bench
