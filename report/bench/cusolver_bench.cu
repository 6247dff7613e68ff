// cuSOLVER's geqrf for the benchmark driver (the GPU-as-accelerator peer
// every GPU figure is measured against): handle, workspace query and allocations outside the timing;
// each timed run factors a fresh device copy of the same matrix, with CUDA
// events around cusolverDn?geqrf only. For a stack (--batch) the peers are
// cuSOLVER called once a matrix, the events around the loop, and cuBLAS's
// batched geqrf (one shape), the events around its one call.
#include <cublas_v2.h>
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

// c.warmup untimed runs of `call` (the device work it enqueues on the
// default stream), then c.repeats timed ones, CUDA events around each; every
// run factors a fresh copy: d_a ← d_original (count entries) before it,
// outside the timing.
template <typename T, typename Call>
BenchOutcome time_fresh_copies(const BenchCase& c, T* d_a, const T* d_original, size_t count, Call call) {
  EventTimer timer;
  BenchOutcome out;
  out.device = gpu::device_name();
  for (int r = -c.warmup; r < c.repeats; ++r) {
    gpu::check(cudaMemcpy(d_a, d_original, count * sizeof(T), cudaMemcpyDeviceToDevice), "copy");
    timer.start();
    call();
    timer.stop();
    const double seconds = timer.seconds();
    if (r >= 0) out.seconds.push_back(seconds);
  }
  return out;
}

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
  BenchOutcome out = time_fresh_copies(c, d_a.get(), d_original.get(), a.size(), [&] {
    check_solver(geqrf(solver.handle, m, n, d_a.get(), d_tau.get(), d_work.get(), lwork, d_info.get()), "geqrf");
  });
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

// The loop over a stack: each matrix by cusolverDn?geqrf in turn, one
// workspace (the largest query) and a τ and info per matrix.
template <typename T>
BenchOutcome run_cusolver_loop(const BenchCase& c) {
  if (!gpu::device_available()) throw NoDevice{"no CUDA device"};
  const std::vector<std::pair<int64_t, int64_t>> shapes = batch_shapes(c);
  std::vector<size_t> offsets, tau_offsets;
  const std::vector<T> a = random_stack<T>(c, offsets);
  const gpu::DeviceBuffer<T> d_original = upload(a);
  gpu::DeviceBuffer<T> d_a(a.size(), "benchmark stack");
  const SolverHandle solver;
  int lwork = 1;
  size_t taus = 0;
  for (const auto& [m, n] : shapes) {
    int need = 0;
    check_solver(geqrf_buffer_size(solver.handle, int(m), int(n), d_a.get(), &need), "geqrf_bufferSize");
    lwork = std::max(lwork, need);
    tau_offsets.push_back(taus);
    taus += size_t(std::max<int64_t>(1, std::min(m, n)));
  }
  gpu::DeviceBuffer<T> d_work(size_t(lwork), "geqrf workspace"), d_tau(taus, "tau");
  gpu::DeviceBuffer<int> d_info(shapes.size(), "info");
  BenchOutcome out = time_fresh_copies(c, d_a.get(), d_original.get(), a.size(), [&] {
    for (size_t b = 0; b < shapes.size(); ++b) {
      const int m = int(shapes[b].first), n = int(shapes[b].second);
      check_solver(geqrf(solver.handle, m, n, d_a.get() + offsets[b], d_tau.get() + tau_offsets[b], d_work.get(), lwork,
                         d_info.get() + b),
                   "geqrf");
    }
  });
  std::vector<int> info(shapes.size());
  gpu::check(cudaMemcpy(info.data(), d_info.get(), info.size() * sizeof(int), cudaMemcpyDeviceToHost), "info");
  for (const int i : info)
    if (i != 0) throw GpuError("geqrf returned info " + std::to_string(i));
  if (c.check) {
    std::vector<T> factored(a.size()), tau(taus);
    gpu::check(cudaMemcpy(factored.data(), d_a.get(), a.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
    gpu::check(cudaMemcpy(tau.data(), d_tau.get(), taus * sizeof(T), cudaMemcpyDeviceToHost), "download");
    for (const size_t b : checked_members(shapes.size())) {
      const auto [m, n] = shapes[b];
      const std::vector<T> one(factored.begin() + std::ptrdiff_t(offsets[b]),
                               factored.begin() + std::ptrdiff_t(offsets[b] + size_t(m * n)));
      const std::vector<T> one_tau(tau.begin() + std::ptrdiff_t(tau_offsets[b]),
                                   tau.begin() + std::ptrdiff_t(tau_offsets[b] + size_t(std::min(m, n))));
      record_worse(out, geqrf_residuals(a.data() + offsets[b], m, n, one, one_tau));
    }
  }
  return out;
}

void check_blas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw GpuError(std::string(what) + ": cuBLAS status " + std::to_string(int(status)));
}
cublasStatus_t geqrf_batched(cublasHandle_t h, int m, int n, double* const* a, int lda, double* const* tau, int* info,
                             int batch) {
  return cublasDgeqrfBatched(h, m, n, a, lda, tau, info, batch);
}
cublasStatus_t geqrf_batched(cublasHandle_t h, int m, int n, float* const* a, int lda, float* const* tau, int* info,
                             int batch) {
  return cublasSgeqrfBatched(h, m, n, a, lda, tau, info, batch);
}

struct BlasHandle {
  cublasHandle_t handle = nullptr;
  BlasHandle() { check_blas(cublasCreate(&handle), "cublasCreate"); }
  ~BlasHandle() { cublasDestroy(handle); }
};

// cuBLAS's batched geqrf on a stack of one shape: the arrays of addresses
// built and uploaded outside the timing.
template <typename T>
BenchOutcome run_cublas(const BenchCase& c) {
  if (!gpu::device_available()) throw NoDevice{"no CUDA device"};
  if (c.batch <= 0 || c.mixed) throw InputError("cublas: a stack of one shape (--batch, without --mixed)");
  const int m = int(c.m), n = int(c.n), k = int(std::min(c.m, c.n)), count = int(c.batch);
  std::vector<size_t> offsets;
  const std::vector<T> a = random_stack<T>(c, offsets);
  const gpu::DeviceBuffer<T> d_original = upload(a);
  gpu::DeviceBuffer<T> d_a(a.size(), "benchmark stack"), d_tau(size_t(count) * size_t(std::max(k, 1)), "tau");
  std::vector<T*> a_pointers(static_cast<size_t>(count)), tau_pointers(static_cast<size_t>(count));
  for (int b = 0; b < count; ++b) {
    a_pointers[size_t(b)] = d_a.get() + offsets[size_t(b)];
    tau_pointers[size_t(b)] = d_tau.get() + size_t(b) * size_t(std::max(k, 1));
  }
  gpu::DeviceBuffer<T*> d_a_pointers(size_t(count), "address array"), d_tau_pointers(size_t(count), "address array");
  gpu::check(cudaMemcpy(d_a_pointers.get(), a_pointers.data(), size_t(count) * sizeof(T*), cudaMemcpyHostToDevice),
             "upload");
  gpu::check(cudaMemcpy(d_tau_pointers.get(), tau_pointers.data(), size_t(count) * sizeof(T*), cudaMemcpyHostToDevice),
             "upload");
  const BlasHandle blas;
  int info = 0;
  BenchOutcome out = time_fresh_copies(c, d_a.get(), d_original.get(), a.size(), [&] {
    check_blas(geqrf_batched(blas.handle, m, n, d_a_pointers.get(), m, d_tau_pointers.get(), &info, count),
               "geqrfBatched");
    if (info != 0) throw GpuError("geqrfBatched: argument " + std::to_string(-info) + " refused");
  });
  if (c.check) {
    std::vector<T> factored(a.size()), tau(size_t(count) * size_t(std::max(k, 1)));
    gpu::check(cudaMemcpy(factored.data(), d_a.get(), a.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
    gpu::check(cudaMemcpy(tau.data(), d_tau.get(), tau.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
    for (const size_t b : checked_members(size_t(count))) {
      const std::vector<T> one(factored.begin() + std::ptrdiff_t(offsets[b]),
                               factored.begin() + std::ptrdiff_t(offsets[b] + size_t(m) * size_t(n)));
      const std::vector<T> one_tau(tau.begin() + std::ptrdiff_t(b * size_t(std::max(k, 1))),
                                   tau.begin() + std::ptrdiff_t(b * size_t(std::max(k, 1)) + size_t(k)));
      record_worse(out, geqrf_residuals(a.data() + offsets[b], c.m, c.n, one, one_tau));
    }
  }
  return out;
}

}  // namespace

BenchOutcome bench_cusolver(const BenchCase& c) {
  if (c.batch > 0) return c.precision == "float" ? run_cusolver_loop<float>(c) : run_cusolver_loop<double>(c);
  return c.precision == "float" ? run_cusolver<float>(c) : run_cusolver<double>(c);
}

BenchOutcome bench_cublas(const BenchCase& c) {
  return c.precision == "float" ? run_cublas<float>(c) : run_cublas<double>(c);
}

std::string gpu_provenance() { return cuda_library_versions() + "; " + gpu_clock_text(); }

}  // namespace tiledqr::bench
