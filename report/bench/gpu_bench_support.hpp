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

// A case's stack: the matrices of batch_shapes(c), each column-major with
// ld = its rows, one after another from offsets[b], uniform in [-1, 1) from
// the case's seed (as random_input draws one matrix).
template <typename T>
std::vector<T> random_stack(const BenchCase& c, std::vector<size_t>& offsets) {
  size_t total = 0;
  offsets.clear();
  for (const auto& [m, n] : batch_shapes(c)) {
    offsets.push_back(total);
    total += checked_elements({m, n}, sizeof(T), "benchmark matrix");
  }
  std::vector<T> a(total);
  std::mt19937_64 engine(c.seed);
  fill_uniform(a, engine);
  return a;
}

// The matrices of a stack whose residuals a check computes: the first and
// the last (the worst of the two is recorded).
inline std::vector<size_t> checked_members(size_t count) {
  return count > 1 ? std::vector<size_t>{0, count - 1} : std::vector<size_t>{0};
}

// The worse of two residual pairs.
inline void record_worse(BenchOutcome& out, const Residuals& r) {
  if (!(out.residual >= r.residual)) out.residual = r.residual;
  if (!(out.orthogonality >= r.orthogonality)) out.orthogonality = r.orthogonality;
}

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
