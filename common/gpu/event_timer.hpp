// CUDA events around GPU work on a stream: the timing of every GPU stage,
// workload and benchmark.
#pragma once

#include <cuda_runtime.h>

#include "gpu/cuda_check.hpp"

namespace tiledqr::gpu {

// Two events: start() before the timed work, stop() after it (on the
// default stream unless told), seconds() waits for the second and gives the
// time between.
class EventTimer {
 public:
  EventTimer() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(cudaStream_t stream = 0) { check(cudaEventRecord(start_, stream), "cudaEventRecord"); }
  void stop(cudaStream_t stream = 0) { check(cudaEventRecord(stop_, stream), "cudaEventRecord"); }
  // Whether the work before stop() has finished (cudaEventQuery).
  cudaError_t query() const { return cudaEventQuery(stop_); }
  double seconds() {
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return double(ms) * 1e-3;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace tiledqr::gpu
