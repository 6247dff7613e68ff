// Which CUDA device the GPU stages use: device.hpp's queries.
#include "gpu/device.hpp"

#include <cuda_runtime.h>

#include "errors.hpp"
#include "gpu/cuda_check.hpp"

namespace tiledqr::gpu {

bool device_available() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" status
    return false;
  }
  return count > 0;
}

std::string device_name() {
  int count = 0;
  check(cudaGetDeviceCount(&count), "looking for a CUDA device");
  if (count == 0) throw GpuError("no CUDA device found");
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp props;
  check(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
  return props.name;
}

}  // namespace tiledqr::gpu
