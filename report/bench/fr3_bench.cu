// FR3 for the benchmark driver (issue 4): the matrix is already on the
// device; CUDA events bracket each tiledqr::gpu factorisation call only.
#include <cuda_runtime.h>

#include <random>
#include <string>
#include <vector>

#include "bench_case.hpp"
#include "checks.hpp"
#include "cuda_check.hpp"
#include "gpu_qr.hpp"

namespace tiledqr::bench {
namespace {

// The driver's matrix: uniform in [-1, 1) from mt19937_64(seed), as every stage draws it.
template <typename T>
std::vector<T> random_input(const BenchCase& c) {
  std::vector<T> a(checked_elements({c.m, c.n}, sizeof(T), "benchmark matrix"));
  std::mt19937_64 engine(c.seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (T& x : a) x = T(uniform(engine));
  return a;
}

template <typename T>
BenchOutcome run_fr3(const BenchCase& c) {
  if (!gpu::device_available()) throw NoDevice{"no CUDA device"};
  if (c.tile != gpu::warp_tile_size) throw InputError("fr3 runs tile 32 only");
  if (c.tree != "flat") throw InputError("fr3 runs the flat tree only");
  const std::vector<T> a = random_input<T>(c);
  gpu::DeviceBuffer<T> d_a(a.size(), "benchmark matrix");
  gpu::check(cudaMemcpy(d_a.get(), a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  gpu::GpuOptions options;
  options.executors_per_sm = c.executors_per_sm;
  options.double_task_weight = c.double_task_weight;

  // The first call allocates the device memory and is never timed; it is
  // the first warm-up (or set-up only, with no warm-ups).
  gpu::GpuFactorization<T> f = gpu::factor(d_a.get(), c.m, c.n, c.m, options);
  for (int w = 1; w < c.warmup; ++w) f.refactor(d_a.get(), c.m);
  cudaEvent_t start, stop;
  gpu::check(cudaEventCreate(&start), "cudaEventCreate");
  gpu::check(cudaEventCreate(&stop), "cudaEventCreate");
  BenchOutcome out;
  out.device = gpu::device_name();
  try {
    for (int r = 0; r < c.repeats; ++r) {
      gpu::check(cudaEventRecord(start), "cudaEventRecord");
      f.refactor(d_a.get(), c.m);
      gpu::check(cudaEventRecord(stop), "cudaEventRecord");
      gpu::check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      gpu::check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      out.seconds.push_back(ms * 1e-3);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (c.check) {
    const Residuals res = check_factorization(a.data(), c.m, c.n, c.m, f.download());
    out.residual = res.residual;
    out.orthogonality = res.orthogonality;
  }
  return out;
}

}  // namespace

BenchOutcome bench_fr3(const BenchCase& c) {
  return c.precision == "float" ? run_fr3<float>(c) : run_fr3<double>(c);
}

}  // namespace tiledqr::bench
