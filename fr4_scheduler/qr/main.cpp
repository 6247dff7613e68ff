// fr4_scheduler — the tiled QR as a task graph (any elimination tree) run by
// the generic GPU scheduler: tile 32 on the warp kernels (common/kernels/warp),
// tiles of 64, 128 and 256 on the block kernels (common/kernels/block, the
// FP64 tensor cores for double). --tile auto (the default) chooses the tile,
// inner block and tree for the shape; --threads means nothing here and
// --backend is refused (the kernels are the stage's own).
#include <cuda_runtime.h>

#include <string>

#include "fr4_qr.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/stage.hpp"
#include "nvtx_range.hpp"
#include "qr_graph.hpp"
#include "size_check.hpp"
#include "stage_main.hpp"
#include "taskgraph/executor_params.hpp"

namespace {

template <typename T>
tiledqr::Factorization<T> factor_on_gpu(const T* a, int64_t m, int64_t n, int64_t lda,
                                        const tiledqr::Options& options) {
  using namespace tiledqr;
  const gpu::DeviceBuffer<T> d_a =
      gpu::stage_matrix_on_device(a, m, n, lda, "fr4_scheduler runs its task graph on an NVIDIA GPU, sm_90");
  gpu::Fr4Factorization<T> qr = [&] {
    const NvtxRange dag_build("DAG build");  // the plan: the tile DAG built and uploaded
    return gpu::Fr4Factorization<T>(m, n, options);
  }();
  qr.factor(d_a.get(), m);
  return qr.download();  // carries device_seconds and the trace
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tiledqr;
  // The tiles for the shape (--tile auto) or those asked for, checked.
  const auto choose_tiles = [](int64_t m, int64_t n, const Options& options, bool single_precision) {
    const gpu::Fr4Tiles t = gpu::fr4_tiles(m, n, single_precision, options);
    const char* kernels = t.tile == 32                                ? "gpu-warp"
                          : gpu::fr4_one_tile(m, n, t, options) ? "gpu-one-tile-registers"
                                                                : "gpu-block";
    return StageDescription::Tiles{t.tile, t.inner_block, kernels};
  };
  // The device holds the column-major matrix, plus what Fr4Factorization
  // allocates (tiles, T factors, the graph) for the tiles and tree chosen.
  const auto device_bytes = [](int64_t m, int64_t n, size_t element_bytes, const Options& options) {
    return double(m) * double(n) * double(element_bytes) +
           (element_bytes == sizeof(float) ? gpu::Fr4Factorization<float>::device_bytes(m, n, options)
                                           : gpu::Fr4Factorization<double>::device_bytes(m, n, options));
  };
  // The host builds the graph from the closed form (predecessor counts,
  // priorities, the upload's chunk buffers) and, with --trace, keeps a
  // trace event and two task records (the trace, its copy in the result) a task.
  const auto host_schedule_bytes = [](int64_t m, int64_t n, const Options& options) {
    const int32_t p = tile_count(m, options.tile), q = tile_count(n, options.tile);
    const int32_t domains = gpu::fr4_domains(m, options.tile, options);
    const double tasks = double(gpu::qr_graph_shape(p, q, options.tree, domains).num_tasks);
    const double trace = options.trace ? tasks * double(sizeof(taskgraph::TraceEvent) + 2 * sizeof(TaskRecord)) : 0;
    return double(gpu::qr_graph_host_bytes(p, q, options.tree, domains, 1 << 16,
                                           gpu::fr4_priority_classes(m, n, options.tile, options))) +
           trace;
  };
  return gpu::gpu_stage_main(argc, argv, "fr4_scheduler",
                             "Tiled QR factorisation as a task graph on the generic GPU scheduler (any tree)",
                             device_bytes, factor_on_gpu<double>, factor_on_gpu<float>, [&](StageDescription& stage) {
                               stage.choose_tiles = choose_tiles;
                               stage.uses_tree_domains = true;  // the hierarchical tree's (flat inside)
                               stage.chooses_domains = true;
                               stage.host_schedule_bytes = host_schedule_bytes;
                               stage.default_tree = [](int64_t m, int64_t n, int, int) {
                                 return gpu::fr4_tree_choice(m, n, false);
                               };
                             });
}
