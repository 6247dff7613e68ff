// Which CUDA device the GPU stages use; no CUDA headers needed.
#pragma once

#include <string>

namespace tiledqr::gpu {

// Whether a CUDA device can be used (never throws).
bool device_available();
// "NVIDIA H100 80GB HBM3"; throws GpuError when there is no usable device.
std::string device_name();

}  // namespace tiledqr::gpu
