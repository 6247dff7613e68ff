// CUDA helpers of the enkf workload: the GPU's description and an owning
// device array. CUDA calls are checked with gpu::check (common/gpu/cuda_check.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "gpu/cuda_check.hpp"

namespace tiledqr::enkf {

// "NVIDIA H100 80GB HBM3 (132 SMs)" for the current device.
std::string gpu_description();

// Device memory for `count` values of T, freed on destruction.
//   DeviceArray<double> d(n, "e");  d.upload(host);  … d.download()
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(size_t count, const char* what) : data_(gpu::device_allocate<T>(count, what)), count_(count) {}
  explicit DeviceArray(const std::vector<T>& host, const char* what) : DeviceArray(host.size(), what) {
    upload(host);
  }
  ~DeviceArray() {
    if (data_ != nullptr) cudaFree(data_);  // nothing to report from a destructor
  }
  DeviceArray(DeviceArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  void upload(const std::vector<T>& host) {
    if (host.size() != count_) throw GpuError("DeviceArray::upload: size mismatch");
    if (count_ > 0)
      gpu::check(cudaMemcpy(data_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0)
      gpu::check(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost),
                 "cudaMemcpy (download)");
    return host;
  }

  T* data() const { return data_; }
  size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace tiledqr::enkf
