// What the GPU stage programs (fr3_gpu, fr4_scheduler) do alike: the start-up
// architecture check, and in their stage description the kernels' name, the
// device, and the up-front check that the device can hold a problem.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu/kernel_image.hpp"
#include "gpu/tile_shape.hpp"
#include "cuda_versions.hpp"
#include "nvtx_range.hpp"
#include "stage_main.hpp"

namespace tiledqr::gpu {

// `device_bytes(m, n, element_bytes, options)`: what the program needs on
// the device for an m x n factorisation with these options.
template <typename DeviceBytes>
StageDescription gpu_stage(const std::string& name, const std::string& summary, DeviceBytes device_bytes) {
  StageDescription stage;
  stage.name = name;
  stage.summary = summary;
  stage.own_kernels = "gpu-warp";  // common/kernels/warp
  stage.uses_tree_domains = false;  // the GPU DAGs are built with one domain
  stage.check_memory = [name, device_bytes](int64_t m, int64_t n, size_t element_bytes, const Options& options) {
    if (!device_available()) return;  // the factor call says so
    ensure_device_memory(device_bytes(m, n, element_bytes, options),
                         name + " on a " + std::to_string(m) + " x " + std::to_string(n) + " matrix");
  };
  stage.device = device_available() ? device_name() : "none";
  stage.library_versions = cuda_library_versions;
  return stage;
}

// A GPU stage program's main: the architecture check, then stage_main with
// the stage's factor function for each precision; `customize` may set the
// rest of the description (a stage that chooses its tiles or trees).
template <typename DeviceBytes>
int gpu_stage_main(int argc, char** argv, const std::string& name, const std::string& summary,
                   DeviceBytes device_bytes, FactorFunction<double> factor_double,
                   FactorFunction<float> factor_float,
                   const std::function<void(StageDescription&)>& customize = {}) {
  if (const int code = start_up_architecture_check(name.c_str())) return code;
  StageDescription stage = gpu_stage(name, summary, device_bytes);
  stage.factor_double = std::move(factor_double);
  stage.factor_float = std::move(factor_float);
  if (customize) customize(stage);
  return stage_main(argc, argv, stage);
}

// A (m, n), col-major on the host with lda ≥ m, on the device, after the
// check every GPU stage makes first: a usable device (else GpuError "no
// usable CUDA device (<needs>)").
template <typename T>
DeviceBuffer<T> stage_matrix_on_device(const T* a, int64_t m, int64_t n, int64_t lda, const std::string& needs) {
  if (!device_available()) throw GpuError("no usable CUDA device (" + needs + ")");
  const NvtxRange upload("upload");
  return upload_matrix(a, m, n, lda);
}

}  // namespace tiledqr::gpu
