// fr3_gpu — FR3: tiled QR entirely on the GPU (seed 000 §II.D): a scheduler
// warp owns the task grid, one executor warp per SM runs the tile kernels.
// Tile 32 and the flat tree only; --threads means nothing here, and
// --backend / --inner-block are refused (the tile kernels are fr3_gpu/kernels',
// reported as backend "gpu-warp").
#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "cuda_versions.hpp"
#include "gpu_qr.hpp"
#include "nvtx_range.hpp"
#include "stage_main.hpp"

namespace {

template <typename T>
tiledqr::Factorization<T> factor_on_gpu(const T* a, int64_t m, int64_t n, int64_t lda,
                                        const tiledqr::Options& options) {
  using namespace tiledqr;
  if (options.tile != gpu::warp_tile_size)
    throw InputError("fr3_gpu runs tile " + std::to_string(gpu::warp_tile_size) +
                     " only (one warp lane per tile column); got --tile " + std::to_string(options.tile));
  if (options.tree != Tree::flat)
    throw InputError("fr3_gpu runs the seed's flat tree; the binary and greedy trees are fr4_scheduler's");
  if (!gpu::device_available()) throw GpuError("no usable CUDA device (fr3_gpu needs an NVIDIA GPU, sm_90)");
  gpu::DeviceBuffer<T> d_a(size_t(m) * size_t(n), "the matrix");
  {
    const NvtxRange upload("upload");
    gpu::check(cudaMemcpy2D(d_a.get(), size_t(m) * sizeof(T), a, size_t(lda) * sizeof(T), size_t(m) * sizeof(T),
                            size_t(n), cudaMemcpyHostToDevice),
               "copying A to the device");
  }
  gpu::GpuOptions gpu_options;
  gpu_options.trace = options.trace;
  const gpu::GpuFactorization<T> f = gpu::factor(d_a.get(), m, n, m, gpu_options);
  return f.download();  // carries device_seconds and the trace
}

}  // namespace

int main(int argc, char** argv) {
  tiledqr::StageDescription stage;
  stage.name = "fr3_gpu";
  stage.summary = "Tiled QR factorisation on the GPU (FR3: scheduler warp + executor warps, seed 000 II.D)";
  stage.own_kernels = "gpu-warp";
  stage.check_memory = [](int64_t m, int64_t n, size_t element_bytes) {
    if (!tiledqr::gpu::device_available()) return;  // the factor call says so
    tiledqr::gpu::ensure_device_memory(tiledqr::gpu::factor_device_bytes(m, n, element_bytes),
                                       "fr3_gpu on a " + std::to_string(m) + " x " + std::to_string(n) + " matrix");
  };
  stage.device = tiledqr::gpu::device_available() ? tiledqr::gpu::device_name() : "none";
  stage.library_versions = tiledqr::cuda_library_versions;
  stage.factor_double = factor_on_gpu<double>;
  stage.factor_float = factor_on_gpu<float>;
  return tiledqr::stage_main(argc, argv, stage);
}
