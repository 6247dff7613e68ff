// CUDA runtime, driver and cuSOLVER versions and the GPU's clocks as text, for --version and the
// benchmark CSV's provenance lines. Header-only, for GPU builds: include it only from code built
// with the CUDA toolkit.
#pragma once

#include <cuda_runtime.h>
#include <cusolver_common.h>

#include <string>

namespace tiledqr {

// A CUDA version number (1000 * major + 10 * minor) as "major.minor".
inline std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// "CUDA runtime 12.4, driver 12.6, cuSOLVER 11.6.1"; a part the system will not give is "unknown".
inline std::string cuda_library_versions() {
  int runtime = 0, driver = 0, major = 0, minor = 0, patch = 0;
  const bool have_runtime = cudaRuntimeGetVersion(&runtime) == cudaSuccess;
  const bool have_driver = cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0;
  const bool have_solver = cusolverGetProperty(MAJOR_VERSION, &major) == CUSOLVER_STATUS_SUCCESS &&
                           cusolverGetProperty(MINOR_VERSION, &minor) == CUSOLVER_STATUS_SUCCESS &&
                           cusolverGetProperty(PATCH_LEVEL, &patch) == CUSOLVER_STATUS_SUCCESS;
  return "CUDA runtime " + (have_runtime ? cuda_version_text(runtime) : std::string("unknown")) + ", driver " +
         (have_driver ? cuda_version_text(driver) : std::string("unknown")) + ", cuSOLVER " +
         (have_solver ? std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch)
                      : std::string("unknown"));
}

// "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, SM clock 1980 MHz, memory clock 2619 MHz" for the current
// device (the clocks are the device's peak ones, as cudaDeviceGetAttribute reports them), or
// "no GPU".
inline std::string gpu_clock_text() {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();  // clear the error so later calls do not see it
    return "no GPU";
  }
  int sm_khz = 0, memory_khz = 0;
  cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device);
  cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device);
  return std::string(prop.name) + ", sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs, SM clock " + std::to_string(sm_khz / 1000) +
         " MHz, memory clock " + std::to_string(memory_khz / 1000) + " MHz";
}

}  // namespace tiledqr
