// Every CUDA runtime call and kernel launch of the GPU stages goes through
// check(): a failure becomes tiledqr::GpuError carrying CUDA's own text, so
// no error is silent (DESIGN §3).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "errors.hpp"

namespace tiledqr::gpu {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw GpuError(std::string(what) + ": " + cudaGetErrorName(status) + " (" +
                   cudaGetErrorString(status) + ")");
}

// After a kernel launch: the launch's own error (bad configuration, no
// kernel image for this GPU, ...).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// Owns one device allocation of `count` elements of T (none when count is 0).
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count, const char* what) : count_(count) {
    if (count > 0) check(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)), what);
  }
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : data_(other.data_), count_(other.count_) {
    other.data_ = nullptr;
    other.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      if (data_) cudaFree(data_);
      data_ = other.data_;
      count_ = other.count_;
      other.data_ = nullptr;
      other.count_ = 0;
    }
    return *this;
  }
  T* get() const { return data_; }
  size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace tiledqr::gpu
