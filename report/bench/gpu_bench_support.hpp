// What the driver's GPU stages share (fr3_bench.cu, fr4_bench.cu,
// cusolver_bench.cu): the driver's random matrix, its upload, and the
// event timer of common/gpu.
#pragma once

#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "bench_accuracy.hpp"
#include "bench_case.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu/event_timer.hpp"
#include "size_check.hpp"

namespace tiledqr::bench {

// `a` copied to a new device buffer.
template <typename T>
gpu::DeviceBuffer<T> upload(const std::vector<T>& a) {
  gpu::DeviceBuffer<T> d_a(a.size(), "benchmark matrix");
  gpu::check(cudaMemcpy(d_a.get(), a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  return d_a;
}

using gpu::EventTimer;

// An outcome on this GPU with `repeats` timings of `launch` (the device work
// it enqueues on the default stream, between CUDA events); `finish` runs
// after each launch, before its time is read.
template <typename Launch, typename Finish>
BenchOutcome time_on_device(int repeats, Launch launch, Finish finish) {
  EventTimer timer;
  BenchOutcome out;
  out.device = gpu::device_name();
  for (int r = 0; r < repeats; ++r) {
    timer.start();
    launch();
    timer.stop();
    finish();
    out.seconds.push_back(timer.seconds());
  }
  return out;
}

}  // namespace tiledqr::bench
