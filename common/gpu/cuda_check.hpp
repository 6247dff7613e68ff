// The one CUDA error check of the whole tree: every CUDA runtime call and
// kernel launch goes through check(), so a failure becomes tiledqr::GpuError
// carrying CUDA's own text and no error is silent (docs/design.md §6); with
// the device-memory check, checked allocation, the owning device buffer and
// the upload of a host matrix.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "errors.hpp"
#include "size_check.hpp"

namespace tiledqr::gpu {

// "cudaErrorIllegalAddress (an illegal memory access was encountered)".
inline std::string error_text(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
}

inline void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // reported here: a later check_launch must not see it again
  throw GpuError(std::string(what) + ": " + error_text(status));
}

// After a kernel launch: the launch's own error (bad configuration, no
// kernel image for this GPU, ...).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// Throws GpuError when `bytes` of device memory are not free now, giving
// the amount needed and the amounts free and installed: a request larger
// than the GPU fails up front with a clear message (exit 4 in the CLIs).
inline void ensure_device_memory(double bytes, const std::string& what) {
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (bytes <= double(free_bytes)) return;
  throw GpuError(what + " needs " + format_bytes(bytes) + " of device memory; " + format_bytes(double(free_bytes)) +
                 " of " + format_bytes(double(total_bytes)) + " are free");
}

// cudaMalloc of `count` elements of T (null when count is 0). A request
// the device cannot hold throws GpuError with the amounts needed and free;
// any other failure, CUDA's text. The caller frees it with cudaFree.
template <typename T>
T* device_allocate(size_t count, const std::string& what) {
  if (count == 0) return nullptr;
  const double bytes = double(count) * double(sizeof(T));
  ensure_device_memory(bytes, what);
  T* data = nullptr;
  const cudaError_t status = cudaMalloc(reinterpret_cast<void**>(&data), count * sizeof(T));
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: clear it, say how much was asked
    ensure_device_memory(bytes, what);  // free memory shrank since: reports the amounts
  }
  check(status, what.c_str());
  return data;
}

// Owns one device allocation of `count` elements of T (none when count is 0).
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count, const char* what) : data_(device_allocate<T>(count, what)), count_(count) {}
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

// A (m, n), col-major on the host with lda ≥ m, in a new device buffer
// (col-major, ld = m).
template <typename T>
DeviceBuffer<T> upload_matrix(const T* a, int64_t m, int64_t n, int64_t lda) {
  DeviceBuffer<T> d_a(size_t(m) * size_t(n), "the matrix");
  check(cudaMemcpy2D(d_a.get(), size_t(m) * sizeof(T), a, size_t(lda) * sizeof(T), size_t(m) * sizeof(T), size_t(n),
                     cudaMemcpyHostToDevice),
        "copying A to the device");
  return d_a;
}

}  // namespace tiledqr::gpu
