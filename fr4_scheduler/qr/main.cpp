// fr4_scheduler — FR4: the tiled QR as a task graph (any elimination tree)
// run by the generic GPU scheduler, with the warp kernels of common/kernels/warp. Tile 32
// only; --threads means nothing here; --backend and --inner-block are refused.
#include <cuda_runtime.h>

#include <string>

#include "gpu/cuda_check.hpp"
#include "fr4_qr.hpp"
#include "qr_graph.hpp"
#include "size_check.hpp"
#include "taskgraph/executor_params.hpp"
#include "nvtx_range.hpp"
#include "gpu/stage.hpp"
#include "stage_main.hpp"

namespace {

// What DeviceQr is asked for: the tree, and a trace when --trace is given.
tiledqr::gpu::QrOptions qr_options_of(const tiledqr::Options& options) {
  tiledqr::gpu::QrOptions out;
  out.tree = options.tree;
  out.trace = options.trace;
  return out;
}

template <typename T>
tiledqr::Factorization<T> factor_on_gpu(const T* a, int64_t m, int64_t n, int64_t lda,
                                        const tiledqr::Options& options) {
  using namespace tiledqr;
  const gpu::DeviceBuffer<T> d_a = gpu::stage_matrix_on_device(
      a, m, n, lda, options.tile, "fr4_scheduler", "fr4_scheduler runs its task graph on an NVIDIA GPU, sm_90");
  gpu::DeviceQr<T> qr = [&] {
    const NvtxRange dag_build("DAG build");  // the plan: the tile DAG built and uploaded
    return gpu::DeviceQr<T>(m, n, qr_options_of(options));
  }();
  qr.factor(d_a.get(), m);
  return qr.download();  // carries device_seconds and the trace
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tiledqr;
  // The device holds the column-major matrix, plus what DeviceQr allocates (tiles, τ, the graph).
  const auto device_bytes = [](int64_t m, int64_t n, size_t element_bytes, const Options& options) {
    const gpu::QrOptions qr = qr_options_of(options);
    return double(m) * double(n) * double(element_bytes) +
           (element_bytes == sizeof(float) ? gpu::DeviceQr<float>::device_bytes(m, n, qr)
                                           : gpu::DeviceQr<double>::device_bytes(m, n, qr));
  };
  // The host builds the graph from the closed form (predecessor counts,
  // priorities, the upload's chunk buffers) and, with --trace, keeps a
  // trace event and two task records (the trace, its copy in the result) a task.
  const auto host_schedule_bytes = [](int64_t m, int64_t n, const Options& options) {
    const int32_t p = tile_count(m, gpu::tile_shape.rows), q = tile_count(n, gpu::tile_shape.rows);
    const double tasks = double(gpu::qr_graph_shape(p, q, options.tree).num_tasks);
    const double trace = options.trace ? tasks * double(sizeof(taskgraph::TraceEvent) + 2 * sizeof(TaskRecord)) : 0;
    return double(gpu::qr_graph_host_bytes(p, q, options.tree)) + trace;
  };
  return gpu::gpu_stage_main(
      argc, argv, "fr4_scheduler", "Tiled QR factorisation as a task graph on the generic GPU scheduler (FR4; any tree)",
      device_bytes, factor_on_gpu<double>, factor_on_gpu<float>, host_schedule_bytes);
}
