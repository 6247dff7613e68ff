// CUDA events around GPU work on the default stream (both LCS methods).
#pragma once

#include <cuda_runtime.h>

#include "gpu/cuda_check.hpp"

namespace tiledqr::lcs {

// CUDA events that bracket one run on the default stream.
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
    return double(ms) * 1e-3;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace tiledqr::lcs
