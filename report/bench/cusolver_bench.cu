// cuSOLVER's geqrf for the benchmark driver (the GPU-as-accelerator peer
// every GPU figure is measured against): handle, workspace query and allocations outside the timing;
// each timed run factors a fresh device copy of the same matrix, with CUDA
// events around cusolverDn?geqrf only.
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <lapacke.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench_case.hpp"
#include "checks.hpp"
#include "cuda_versions.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu_bench_support.hpp"
#include "provenance.hpp"

namespace tiledqr::bench {
namespace {

void check_solver(cusolverStatus_t status, const char* what) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw GpuError(std::string(what) + ": cuSOLVER status " + std::to_string(int(status)));
}

cusolverStatus_t geqrf_buffer_size(cusolverDnHandle_t h, int m, int n, double* a, int* lwork) {
  return cusolverDnDgeqrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t geqrf_buffer_size(cusolverDnHandle_t h, int m, int n, float* a, int* lwork) {
  return cusolverDnSgeqrf_bufferSize(h, m, n, a, m, lwork);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, double* a, double* tau, double* work,
                       int lwork, int* info) {
  return cusolverDnDgeqrf(h, m, n, a, m, tau, work, lwork, info);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, float* a, float* tau, float* work,
                       int lwork, int* info) {
  return cusolverDnSgeqrf(h, m, n, a, m, tau, work, lwork, info);
}

struct SolverHandle {
  cusolverDnHandle_t handle = nullptr;
  SolverHandle() { check_solver(cusolverDnCreate(&handle), "cusolverDnCreate"); }
  ~SolverHandle() { cusolverDnDestroy(handle); }
};

template <typename T>
BenchOutcome run_cusolver(const BenchCase& c) {
  if (!gpu::device_available()) throw NoDevice{"no CUDA device"};
  const std::vector<T> a = random_input<T>(c);
  const int m = int(c.m), n = int(c.n), k = std::min(m, n);
  const gpu::DeviceBuffer<T> d_original = upload(a);
  gpu::DeviceBuffer<T> d_a(a.size(), "benchmark matrix");
  const SolverHandle solver;
  int lwork = 0;
  check_solver(geqrf_buffer_size(solver.handle, m, n, d_a.get(), &lwork), "geqrf_bufferSize");
  gpu::DeviceBuffer<T> d_work(size_t(std::max(lwork, 1)), "geqrf workspace"), d_tau(size_t(k), "tau");
  gpu::DeviceBuffer<int> d_info(1, "info");
  EventTimer timer;
  BenchOutcome out;
  out.device = gpu::device_name();
  for (int r = -c.warmup; r < c.repeats; ++r) {
    gpu::check(cudaMemcpy(d_a.get(), d_original.get(), a.size() * sizeof(T), cudaMemcpyDeviceToDevice), "copy");
    timer.start();
    check_solver(geqrf(solver.handle, m, n, d_a.get(), d_tau.get(), d_work.get(), lwork, d_info.get()), "geqrf");
    timer.stop();
    const double seconds = timer.seconds();
    if (r >= 0) out.seconds.push_back(seconds);
  }
  int info = 0;
  gpu::check(cudaMemcpy(&info, d_info.get(), sizeof info, cudaMemcpyDeviceToHost), "info");
  if (info != 0) throw GpuError("geqrf returned info " + std::to_string(info));
  if (c.check) {
    std::vector<T> factored(a.size()), tau(static_cast<size_t>(k));
    gpu::check(cudaMemcpy(factored.data(), d_a.get(), a.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
    gpu::check(cudaMemcpy(tau.data(), d_tau.get(), tau.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
    record_accuracy(out, geqrf_residuals(a.data(), c.m, c.n, factored, tau));
  }
  return out;
}

}  // namespace

BenchOutcome bench_cusolver(const BenchCase& c) {
  return c.precision == "float" ? run_cusolver<float>(c) : run_cusolver<double>(c);
}

std::string gpu_provenance() { return cuda_library_versions() + "; " + gpu_clock_text(); }

}  // namespace tiledqr::bench
