// fr4_scheduler — FR4: the tiled QR as a task graph (any elimination tree)
// run by the generic GPU scheduler, with FR3's warp tile kernels. Tile 32
// only; --threads means nothing here; --backend and --inner-block are refused.
#include <cuda_runtime.h>

#include <string>

#include "cuda_check.hpp"
#include "cuda_versions.hpp"
#include "fr4_qr.hpp"
#include "nvtx_range.hpp"
#include "stage_main.hpp"

namespace {

template <typename T>
tiledqr::Factorization<T> factor_on_gpu(const T* a, int64_t m, int64_t n, int64_t lda,
                                        const tiledqr::Options& options) {
  using namespace tiledqr;
  if (options.tile != 32)
    throw InputError("fr4_scheduler runs tile 32 only (FR3's warp kernels: one lane per tile column); got --tile " +
                     std::to_string(options.tile));
  if (!fr4::gpu_available())
    throw GpuError("no usable CUDA device (fr4_scheduler runs its task graph on an NVIDIA GPU, sm_90)");
  gpu::DeviceBuffer<T> d_a(size_t(m) * size_t(n), "the matrix");
  {
    const NvtxRange upload("upload");
    gpu::check(cudaMemcpy2D(d_a.get(), size_t(m) * sizeof(T), a, size_t(lda) * sizeof(T), size_t(m) * sizeof(T),
                            size_t(n), cudaMemcpyHostToDevice),
               "copying A to the device");
  }
  fr4::QrOptions qr_options;
  qr_options.tree = options.tree;
  qr_options.trace = options.trace;
  fr4::DeviceQr<T> qr = [&] {
    const NvtxRange dag_build("DAG build");  // the plan: the tile DAG built and uploaded
    return fr4::DeviceQr<T>(m, n, qr_options);
  }();
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
    if (!tiledqr::fr4::gpu_available()) return;  // the factor call says so
    tiledqr::gpu::ensure_device_memory(
        double(m) * double(n) * double(element_bytes) + tiledqr::fr4::qr_device_bytes(m, n, element_bytes),
        "fr4_scheduler on a " + std::to_string(m) + " x " + std::to_string(n) + " matrix");
  };
  stage.device = tiledqr::fr4::gpu_name();
  stage.library_versions = tiledqr::cuda_library_versions;
  stage.factor_double = factor_on_gpu<double>;
  stage.factor_float = factor_on_gpu<float>;
  return tiledqr::stage_main(argc, argv, stage);
}
