// The GPU methods of fr4_enkf, behind one interface: each prepares what it
// needs once (its FR4 graph, cuFFT plans, a cuBLAS handle, workspaces) and
// then computes P_HT = [C ∘ (e eᵀ)] Hᵀ / (L − 1) into DeviceProblem::out()
// on every launch.
//   auto method = make_gpu_method(Method::tiled, problem);
//   method->launch(stream);  method->finish(stream);
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "device_problem.hpp"
#include "method_choice.hpp"

namespace tiledqr::enkf {

class GpuMethod {
 public:
  virtual ~GpuMethod() = default;
  // Enqueues one computation of P_HT on `stream`.
  virtual void launch(cudaStream_t stream) = 0;
  // Waits for it. Throws GpuError (a failed call, a fault, a stalled graph).
  virtual void finish(cudaStream_t stream) = 0;
};

// "tiled": the row-block × column-block tasks of the EnKF report ("ECE 408
// final report") and a reduction, as an FR4 task graph (tiled_plan.hpp); C is
// never stored densely.
std::unique_ptr<GpuMethod> make_tiled_method(const DeviceProblem& problem);
// "fft": Σ_l e_l ∘ (C (e_l ∘ h_m)) by circulant embedding and batched cuFFT.
std::unique_ptr<GpuMethod> make_fft_method(const DeviceProblem& problem);
// "dense": C ∘ (e eᵀ) formed densely, times dense Hᵀ by cuBLAS dgemm.
// Throws InputError when N² doubles do not fit in free GPU memory.
std::unique_ptr<GpuMethod> make_dense_method(const DeviceProblem& problem);
// One of the three (not automatic or cpu).
std::unique_ptr<GpuMethod> make_gpu_method(Method method, const DeviceProblem& problem);

// Whether the dense method's N×N matrix fits in free GPU memory.
bool dense_fits(int64_t n, int64_t m);

// Runs `method` warmup + repeats times on a stream of its own, each run
// bracketed by CUDA events; returns the seconds of the timed repeats.
std::vector<double> time_gpu_method(GpuMethod& method, int warmup, int repeats);

}  // namespace tiledqr::enkf
