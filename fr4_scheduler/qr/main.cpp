// fr4_scheduler — FR4: the tiled QR as a task graph (any elimination tree)
// run by the generic GPU scheduler, with FR3's warp tile kernels. Tile 32
// only; --threads means nothing here; --backend and --inner-block are refused.
#include <cuda_runtime.h>

#include <string>

#include "gpu/cuda_check.hpp"
#include "fr4_qr.hpp"
#include "stage_main.hpp"

namespace {

template <typename T>
tiledqr::Factorization<T> factor_on_gpu(const T* a, int64_t m, int64_t n, int64_t lda,
                                        const tiledqr::Options& options) {
  using namespace tiledqr;
  gpu::require_gpu_tile(options.tile, "fr4_scheduler");
  if (!gpu::device_available())
    throw GpuError("no usable CUDA device (fr4_scheduler runs its task graph on an NVIDIA GPU, sm_90)");
  const gpu::DeviceBuffer<T> d_a = gpu::upload_matrix(a, m, n, lda);
  gpu::QrOptions qr_options;
  qr_options.tree = options.tree;
  qr_options.trace = options.trace;
  gpu::DeviceQr<T> qr(m, n, qr_options);
  qr.factor(d_a.get(), m);
  return qr.download();  // carries device_seconds and the trace
}

}  // namespace

int main(int argc, char** argv) {
  tiledqr::StageDescription stage;
  stage.name = "fr4_scheduler";
  stage.summary = "Tiled QR factorisation as a task graph on the generic GPU scheduler (FR4; any tree)";
  stage.own_kernels = "gpu-warp";  // FR3's warp kernels
  // The column-major matrix, plus what DeviceQr needs (tiles, τ, the graph).
  stage.check_memory = [](int64_t m, int64_t n, size_t element_bytes) {
    if (!tiledqr::gpu::device_available()) return;  // the factor call says so
    tiledqr::gpu::ensure_device_memory(
        double(m) * double(n) * double(element_bytes) + tiledqr::gpu::qr_device_bytes(m, n, element_bytes),
        "fr4_scheduler on a " + std::to_string(m) + " x " + std::to_string(n) + " matrix");
  };
  stage.device = tiledqr::gpu::device_available() ? tiledqr::gpu::device_name() : "none";
  stage.factor_double = factor_on_gpu<double>;
  stage.factor_float = factor_on_gpu<float>;
  return tiledqr::stage_main(argc, argv, stage);
}
