// The probe behind kernel_image.hpp: an empty kernel compiled like every
// other, and cudaFuncGetAttributes, which fails when the device can run
// neither a SASS image of this build nor JIT-compile its PTX.
#include "kernel_image.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "errors.hpp"

namespace tiledqr::gpu {

namespace {

__global__ void kernel_image_probe() {}

}  // namespace

const char* built_architectures() { return TILEDQR_CUDA_ARCHITECTURES; }

KernelImageCheck check_kernel_image() {
  KernelImageCheck result;
  int count = 0;
  const cudaError_t counted = cudaGetDeviceCount(&count);
  if (counted != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    result.no_device = true;
    result.message = std::string("no usable CUDA device (") +
                     (counted == cudaSuccess ? "none found" : cudaGetErrorString(counted)) + ")";
    return result;
  }
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    (void)cudaGetLastError();
    result.no_device = true;
    result.message = "the current CUDA device cannot be queried";
    return result;
  }
  cudaFuncAttributes attributes{};
  const cudaError_t probed = cudaFuncGetAttributes(&attributes, kernel_image_probe);
  if (probed == cudaSuccess) {
    result.ok = true;
    return result;
  }
  (void)cudaGetLastError();
  const std::string cc = std::to_string(prop.major) + std::to_string(prop.minor);
  result.message = "this tiledqr has GPU code for " + std::string(built_architectures()) + " only, but device " +
                   std::to_string(device) + " (" + prop.name + ") has compute capability " +
                   std::to_string(prop.major) + "." + std::to_string(prop.minor) + " (" +
                   cudaGetErrorString(probed) + "); rebuild with meson option -Dcuda-arch=" + cc +
                   " (or -Dcuda-arch=native on this machine)";
  return result;
}

void require_kernel_image() {
  const KernelImageCheck check = check_kernel_image();
  if (!check.ok) throw GpuError(check.message);
}

int start_up_architecture_check(const char* program) {
  const KernelImageCheck check = check_kernel_image();
  if (check.ok || check.no_device) return 0;
  std::fprintf(stderr, "%s: %s\n", program, check.message.c_str());
  return exit_code::no_gpu;
}

}  // namespace tiledqr::gpu
