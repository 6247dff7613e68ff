// fr4_scheduler — FR4: the tiled QR as a task graph (any elimination tree)
// run by the generic GPU scheduler, with the warp kernels of common/kernels/warp. Tile 32
// only; --threads means nothing here; --backend and --inner-block are refused.
#include <cuda_runtime.h>

#include <string>

#include "gpu/cuda_check.hpp"
#include "fr4_qr.hpp"
#include "nvtx_range.hpp"
#include "gpu/stage.hpp"
#include "stage_main.hpp"

namespace {

template <typename T>
tiledqr::Factorization<T> factor_on_gpu(const T* a, int64_t m, int64_t n, int64_t lda,
                                        const tiledqr::Options& options) {
  using namespace tiledqr;
  const gpu::DeviceBuffer<T> d_a = gpu::stage_matrix_on_device(
      a, m, n, lda, options.tile, "fr4_scheduler", "fr4_scheduler runs its task graph on an NVIDIA GPU, sm_90");
  gpu::Fr4Factorization<T> qr = [&] {
    const NvtxRange dag_build("DAG build");  // the plan: the tile DAG built and uploaded
    return gpu::Fr4Factorization<T>(m, n, options);
  }();
  qr.factor(d_a.get(), m);
  return qr.download();  // carries device_seconds and the trace
}

}  // namespace

int main(int argc, char** argv) {
  // The device holds the column-major matrix, plus what Fr4Factorization needs (tiles, τ, the graph).
  const auto device_bytes = [](int64_t m, int64_t n, size_t element_bytes) {
    return double(m) * double(n) * double(element_bytes) + tiledqr::gpu::qr_device_bytes(m, n, element_bytes);
  };
  return tiledqr::gpu::gpu_stage_main(
      argc, argv, "fr4_scheduler", "Tiled QR factorisation as a task graph on the generic GPU scheduler (FR4; any tree)",
      device_bytes, factor_on_gpu<double>, factor_on_gpu<float>);
}
