// DeviceQr<double>, and the device queries of fr4_qr.hpp.
#include "fr4_qr_impl.cuh"

namespace tiledqr::fr4 {

bool gpu_available() { return gpu_count() > 0; }

std::string gpu_name() {
  if (!gpu_available()) return "none";
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
  return prop.name;
}

template class DeviceQr<double>;

}  // namespace tiledqr::fr4
