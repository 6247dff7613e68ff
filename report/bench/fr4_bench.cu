// FR4 for the benchmark driver (issue 5): the tiled QR task graph of
// c.tree on the generic scheduler. The matrix is already on the device; a
// pair of CUDA events brackets each factor call's device work (the layout
// conversion and the scheduler's run) — the same bracket cuSOLVER's geqrf
// gets. Planning (building and uploading the task graph, allocating) is
// done once per shape and tree and never timed, as cuSOLVER's workspace
// query and allocation are not; the last plan is kept across the driver's
// calls for one case.
#include <cuda_runtime.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_case.hpp"
#include "checks.hpp"
#include "cuda_check.hpp"
#include "errors.hpp"
#include "fr4_qr.hpp"

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

// The plan of the last case, reused while the driver repeats it.
template <typename T>
struct CachedPlan {
  int64_t m = 0, n = 0;
  Tree tree = Tree::flat;
  std::unique_ptr<fr4::DeviceQr<T>> qr;
};

template <typename T>
fr4::DeviceQr<T>& plan_for(const BenchCase& c, Tree tree) {
  static CachedPlan<T> cache;
  if (!cache.qr || cache.m != c.m || cache.n != c.n || cache.tree != tree) {
    cache.qr.reset();  // free the old plan's device memory first
    fr4::QrOptions options;
    options.tree = tree;
    cache.qr = std::make_unique<fr4::DeviceQr<T>>(c.m, c.n, options);
    cache.m = c.m;
    cache.n = c.n;
    cache.tree = tree;
  }
  return *cache.qr;
}

struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    gpu::check(cudaEventCreate(&start), "cudaEventCreate");
    gpu::check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

template <typename T>
BenchOutcome run_fr4(const BenchCase& c) {
  if (!fr4::gpu_available()) throw NoDevice{"no CUDA device"};
  if (c.tile != 32) throw InputError("fr4 runs tile 32 only (FR3's warp kernels)");
  const Tree tree = parse_tree(c.tree);
  const std::vector<T> a = random_input<T>(c);
  gpu::DeviceBuffer<T> d_a(a.size(), "benchmark matrix");
  gpu::check(cudaMemcpy(d_a.get(), a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  fr4::DeviceQr<T>& qr = plan_for<T>(c, tree);
  for (int w = 0; w < c.warmup; ++w) qr.factor(d_a.get(), c.m);
  EventPair events;
  BenchOutcome out;
  out.device = fr4::gpu_name();
  for (int r = 0; r < c.repeats; ++r) {
    gpu::check(cudaEventRecord(events.start, 0), "cudaEventRecord");
    qr.launch_factor(d_a.get(), c.m, 0);
    gpu::check(cudaEventRecord(events.stop, 0), "cudaEventRecord");
    qr.finish_factor();  // the watchdog's wait; throws on a failed run
    gpu::check(cudaEventSynchronize(events.stop), "cudaEventSynchronize");
    float ms = 0;
    gpu::check(cudaEventElapsedTime(&ms, events.start, events.stop), "cudaEventElapsedTime");
    out.seconds.push_back(ms * 1e-3);
  }
  if (c.check) {
    if (c.repeats == 0) qr.factor(d_a.get(), c.m);
    const Residuals res = check_factorization(a.data(), c.m, c.n, c.m, qr.download());
    out.residual = res.residual;
    out.orthogonality = res.orthogonality;
  }
  return out;
}

}  // namespace

BenchOutcome bench_fr4(const BenchCase& c) {
  return c.precision == "float" ? run_fr4<float>(c) : run_fr4<double>(c);
}

}  // namespace tiledqr::bench
