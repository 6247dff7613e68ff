// The enkf workload's GPU helpers (gpu_support.hpp), the choice of a GPU
// method and the CUDA-event timing of one.
#include <cuda_runtime.h>

#include "gpu_methods.hpp"
#include "gpu_support.hpp"

namespace tiledqr::enkf {

std::string gpu_description() {
  int device = 0;
  gpu::check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  gpu::check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return std::string(prop.name) + " (" + std::to_string(prop.multiProcessorCount) + " SMs)";
}

std::unique_ptr<GpuMethod> make_gpu_method(Method method, const DeviceProblem& problem) {
  switch (method) {
    case Method::tiled: return make_tiled_method(problem);
    case Method::fft: return make_fft_method(problem);
    case Method::dense: return make_dense_method(problem);
    default: throw InputError(std::string("'") + method_name(method) + "' is not a GPU method");
  }
}

namespace {

// Destroys the stream and events of one timing on every path out.
struct TimingResources {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  ~TimingResources() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
  }
};

}  // namespace

std::vector<double> time_gpu_method(GpuMethod& method, int warmup, int repeats) {
  TimingResources r;
  gpu::check(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  gpu::check(cudaEventCreate(&r.start), "cudaEventCreate");
  gpu::check(cudaEventCreate(&r.stop), "cudaEventCreate");
  std::vector<double> seconds;
  for (int run = 0; run < warmup + repeats; ++run) {
    gpu::check(cudaEventRecord(r.start, r.stream), "cudaEventRecord");
    method.launch(r.stream);
    gpu::check(cudaEventRecord(r.stop, r.stream), "cudaEventRecord");
    method.finish(r.stream);
    gpu::check(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
    float ms = 0;
    gpu::check(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime");
    if (run >= warmup) seconds.push_back(double(ms) * 1e-3);
  }
  return seconds;
}

}  // namespace tiledqr::enkf
