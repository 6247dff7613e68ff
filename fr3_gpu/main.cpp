// fr3_gpu — FR3: tiled QR entirely on the GPU ("Task-Based Scheduling
// Implementing Tiled Linear Algebra on GPUs", §II.D): a scheduler warp owns the
// task grid, one executor warp per SM runs the tile kernels. Tile 32 and the
// flat tree only; --threads means nothing here, and --backend / --inner-block
// are refused (the tile kernels are common/kernels/warp's, reported as backend
// "gpu-warp").
#include <cuda_runtime.h>

#include "cuda_versions.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu_qr.hpp"
#include "gpu/stage.hpp"
#include "gpu/tile_shape.hpp"
#include "stage_main.hpp"

namespace {

template <typename T>
tiledqr::Factorization<T> factor_on_gpu(const T* a, int64_t m, int64_t n, int64_t lda,
                                        const tiledqr::Options& options) {
  using namespace tiledqr;
  if (options.tree != Tree::flat)
    throw InputError("fr3_gpu runs the flat tree only; the binary and greedy trees are fr4_scheduler's");
  gpu::require_gpu_tile(options.tile, "fr3_gpu");
  const gpu::DeviceBuffer<T> d_a = gpu::stage_matrix_on_device(a, m, n, lda, "fr3_gpu needs an NVIDIA GPU, sm_90");
  const gpu::Fr3Factorization<T> f = gpu::fr3_factor(d_a.get(), m, n, m, options);
  return f.download();  // carries device_seconds and the trace
}

}  // namespace

int main(int argc, char** argv) {
  const auto device_bytes = [](int64_t m, int64_t n, size_t element_bytes, const tiledqr::Options&) {
    return tiledqr::gpu::factor_device_bytes(m, n, element_bytes);
  };
  return tiledqr::gpu::gpu_stage_main(
      argc, argv, "fr3_gpu", "Tiled QR factorisation on the GPU: a scheduler warp and executor warps", device_bytes,
      factor_on_gpu<double>, factor_on_gpu<float>);
}
