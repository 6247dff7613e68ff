#include <cuda_runtime.h>

#include "gpu_methods.hpp"
#include "gpu_support.hpp"

namespace tiledqr::enkf {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw GpuError(std::string(what) + " failed: " + cudaGetErrorString(e));
}

std::string gpu_description() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
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
  check_cuda(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  check_cuda(cudaEventCreate(&r.start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&r.stop), "cudaEventCreate");
  std::vector<double> seconds;
  for (int run = 0; run < warmup + repeats; ++run) {
    check_cuda(cudaEventRecord(r.start, r.stream), "cudaEventRecord");
    method.launch(r.stream);
    check_cuda(cudaEventRecord(r.stop, r.stream), "cudaEventRecord");
    method.finish(r.stream);
    check_cuda(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime");
    if (run >= warmup) seconds.push_back(double(ms) * 1e-3);
  }
  return seconds;
}

}  // namespace tiledqr::enkf
