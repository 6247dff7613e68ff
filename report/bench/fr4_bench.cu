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
#include "fr4_batch.hpp"
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

// A stack (c.batch > 0): one Fr4Batch for all, planned outside the timing;
// a uniform stack goes in strided (no table), a mixed one by its table of
// addresses, sent once (the later calls send nothing: the same table).
template <typename T>
BenchOutcome run_fr4_batch(const BenchCase& c) {
  if (!gpu::device_available()) throw NoDevice{"no CUDA device"};
  if (c.tile != 0 && c.tile != 32) throw InputError("fr4 --batch runs tiles of 32 (or auto)");
  const Tree tree = parse_tree(c.tree);
  const std::vector<std::pair<int64_t, int64_t>> shapes = batch_shapes(c);
  std::vector<size_t> offsets;
  const std::vector<T> a = random_stack<T>(c, offsets);
  const gpu::DeviceBuffer<T> d_a = upload(a);
  std::vector<gpu::Fr4BatchMatrix> matrices;
  std::vector<const T*> pointers;
  std::vector<int64_t> lda;
  for (size_t b = 0; b < shapes.size(); ++b) {
    matrices.push_back({shapes[b].first, shapes[b].second, tree});
    pointers.push_back(d_a.get() + offsets[b]);
    lda.push_back(std::max<int64_t>(1, shapes[b].first));
  }
  Options options;
  options.tile = 32;
  gpu::Fr4Batch<T> batch(matrices, options);
  const auto launch = [&] {
    if (c.mixed) batch.launch_factor(pointers.data(), lda.data(), 0);
    else batch.launch_factor_strided(d_a.get(), lda.front(), int64_t(c.m * c.n), 0);
  };
  for (int w = 0; w < std::max(1, c.warmup); ++w) {
    launch();
    batch.finish_factor();
  }
  BenchOutcome out = time_on_device(c.repeats, launch, [&] { batch.finish_factor(); });
  if (c.check)
    for (const size_t b : checked_members(shapes.size()))
      record_worse(out, check_factorization(a.data() + offsets[b], shapes[b].first, shapes[b].second,
                                            shapes[b].first, batch.download(int64_t(b))));
  out.chosen_tile = 32;
  return out;
}

}  // namespace

BenchOutcome bench_fr4(const BenchCase& c) {
  if (c.batch > 0) return c.precision == "float" ? run_fr4_batch<float>(c) : run_fr4_batch<double>(c);
  return c.precision == "float" ? run_fr4<float>(c) : run_fr4<double>(c);
}

}  // namespace tiledqr::bench
