// FR3 for the benchmark driver: the matrix is already on the
// device; CUDA events bracket each tiledqr::gpu factorisation call only.
#include <cuda_runtime.h>

#include <vector>

#include "bench_case.hpp"
#include "checks.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu_bench_support.hpp"
#include "gpu_qr.hpp"

namespace tiledqr::bench {
namespace {

template <typename T>
BenchOutcome run_fr3(const BenchCase& c) {
  if (!gpu::device_available()) throw NoDevice{"no CUDA device"};
  gpu::require_gpu_tile(c.tile, "fr3");
  if (c.tree != "flat") throw InputError("fr3 runs the flat tree only");
  const std::vector<T> a = random_input<T>(c);
  const gpu::DeviceBuffer<T> d_a = upload(a);
  Options options;
  options.executors_per_sm = c.executors_per_sm;
  options.double_task_weight = c.double_task_weight;

  // The first call allocates the device memory and is never timed; it is
  // the first warm-up (or set-up only, with no warm-ups).
  gpu::Fr3Factorization<T> f = gpu::fr3_factor(d_a.get(), c.m, c.n, c.m, options);
  for (int w = 1; w < c.warmup; ++w) f.refactor(d_a.get(), c.m);
  BenchOutcome out = time_on_device(c.repeats, [&] { f.refactor(d_a.get(), c.m); }, [] {});
  if (c.check) record_accuracy(out, check_factorization(a.data(), c.m, c.n, c.m, f.download()));
  return out;
}

}  // namespace

BenchOutcome bench_fr3(const BenchCase& c) {
  return c.precision == "float" ? run_fr3<float>(c) : run_fr3<double>(c);
}

}  // namespace tiledqr::bench
