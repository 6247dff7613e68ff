// FR4 for the benchmark driver: the tiled QR task graph of c.tree on the
// generic scheduler, with tile c.tile (0: chosen for the shape), inner
// block c.inner_block and c.priority_classes. The matrix is already on the device; a
// pair of CUDA events brackets each factor call's device work (the layout
// conversion and the scheduler's run) — the same bracket cuSOLVER's geqrf
// gets. Planning (building and uploading the task graph, allocating) is
// done once per shape and tree and never timed, as cuSOLVER's workspace
// query and allocation are not; the last plan is kept across the driver's
// calls for one case.
#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "bench_case.hpp"
#include "checks.hpp"
#include "gpu/cuda_check.hpp"
#include "errors.hpp"
#include "fr4_qr.hpp"
#include "gpu_bench_support.hpp"

namespace tiledqr::bench {
namespace {

// The plan of the last case, reused while the driver repeats it.
template <typename T>
struct CachedPlan {
  int64_t m = 0, n = 0;
  Tree tree = Tree::flat;
  int tile = 0, inner_block = 0, priority_classes = 0;
  std::unique_ptr<gpu::Fr4Factorization<T>> qr;
};

template <typename T>
gpu::Fr4Factorization<T>& plan_for(const BenchCase& c, Tree tree) {
  static CachedPlan<T> cache;
  if (!cache.qr || cache.m != c.m || cache.n != c.n || cache.tree != tree || cache.tile != c.tile ||
      cache.inner_block != c.inner_block || cache.priority_classes != c.priority_classes) {
    cache.qr.reset();  // free the old plan's device memory first
    Options options;
    options.tree = tree;
    options.tree_domains = 0;  // hierarchical: FR4's choice, one domain per 8 tile rows (fr4_domains)
    options.tile = c.tile;  // 0: chosen for the shape
    options.inner_block = c.inner_block;
    options.priority_classes = c.priority_classes;
    cache.qr = std::make_unique<gpu::Fr4Factorization<T>>(c.m, c.n, options);
    cache.m = c.m;
    cache.n = c.n;
    cache.tree = tree;
    cache.tile = c.tile;
    cache.inner_block = c.inner_block;
    cache.priority_classes = c.priority_classes;
  }
  return *cache.qr;
}

template <typename T>
BenchOutcome run_fr4(const BenchCase& c) {
  if (!gpu::device_available()) throw NoDevice{"no CUDA device"};
  const Tree tree = parse_tree(c.tree);
  const std::vector<T> a = random_input<T>(c);
  const gpu::DeviceBuffer<T> d_a = upload(a);
  gpu::Fr4Factorization<T>& qr = plan_for<T>(c, tree);
  for (int w = 0; w < c.warmup; ++w) qr.factor(d_a.get(), c.m);
  // finish_factor: the watchdog's wait; throws on a failed run.
  BenchOutcome out = time_on_device(
      c.repeats, [&] { qr.launch_factor(d_a.get(), c.m, 0); }, [&] { qr.finish_factor(); });
  if (c.check) {
    if (c.repeats == 0) qr.factor(d_a.get(), c.m);
    record_accuracy(out, check_factorization(a.data(), c.m, c.n, c.m, qr.download()));
  }
  if (c.tile == 0) {
    out.chosen_tile = qr.tiles().tile;
    out.chosen_inner_block = qr.tiles().inner_block;
  }
  return out;
}

}  // namespace

BenchOutcome bench_fr4(const BenchCase& c) {
  return c.precision == "float" ? run_fr4<float>(c) : run_fr4<double>(c);
}

}  // namespace tiledqr::bench
