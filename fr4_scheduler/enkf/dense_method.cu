// The "dense" baseline: C ∘ (e eᵀ) formed tile by tile into N² doubles of
// GPU memory (kernels/form_localised_covariance.cuh), then
//   P_HT = K · Hᵀ / (L − 1)
// by cuBLAS dgemm with Hᵀ stored densely (N × M). The storage bounds N:
// about 40000 on an 80 GB GPU for the 12.8 GB of K.
#include <cublas_v2.h>
#include <cstdint>
#include <cuda_runtime.h>

#include "gpu_methods.hpp"
#include "kernels/form_localised_covariance.cuh"

namespace tiledqr::enkf {

namespace {

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw GpuError(std::string(what) + " failed: " + cublasGetStatusString(s));
}

class DenseMethod : public GpuMethod {
 public:
  explicit DenseMethod(const DeviceProblem& problem) : problem_(problem) {
    const int64_t n = problem.n(), m = problem.m();
    if (!dense_fits(n, m))
      throw InputError("dense: the " + std::to_string(n) + " x " + std::to_string(n) +
                       " matrix C o (e e^T) does not fit in free GPU memory");
    if (n > INT32_MAX || m > INT32_MAX) throw InputError("dense: sizes exceed cuBLAS's 32-bit dimensions");
    k_ = DeviceArray<double>(size_t(n) * size_t(n), "cudaMalloc (dense C o ee^T)");
    std::vector<double> h_dense(size_t(n * m), 0.0);  // Hᵀ, (n, m) col-major
    const CsrMatrix& h = problem.host().h;
    for (int64_t r = 0; r < m; ++r)
      for (int64_t z = h.row_ptr[size_t(r)]; z < h.row_ptr[size_t(r) + 1]; ++z)
        h_dense[size_t(h.col[size_t(z)] + r * n)] = h.value[size_t(z)];
    h_transposed_ = DeviceArray<double>(h_dense, "cudaMalloc (dense H^T)");
    check_cublas(cublasCreate(&handle_), "cublasCreate");
    alpha_ = 1.0 / double(problem.l() - 1);
  }
  ~DenseMethod() override {
    if (handle_ != nullptr) cublasDestroy(handle_);
  }

  void launch(cudaStream_t stream) override {
    const int64_t n = problem_.n(), m = problem_.m();
    const dim3 grid(unsigned((n + dense_tile - 1) / dense_tile), unsigned((n + dense_tile - 1) / dense_tile));
    const dim3 block(dense_tile, dense_tile_rows_of_threads);
    form_localised_covariance<<<grid, block, 0, stream>>>(problem_.diagonals(), problem_.e(), n,
                                                          int32_t(problem_.l()), k_.data());
    gpu::check(cudaGetLastError(), "form_localised_covariance launch");
    check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
    check_cublas(cublasDgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(n), &alpha_, k_.data(), int(n),
                             h_transposed_.data(), int(n), &beta_, problem_.out(), int(n)),
                 "cublasDgemm");
  }

  void finish(cudaStream_t stream) override {
    gpu::check(cudaStreamSynchronize(stream), "dense: cudaStreamSynchronize");
  }

 private:
  const DeviceProblem& problem_;
  DeviceArray<double> k_;              // (n, n) col-major: C ∘ (e eᵀ)
  DeviceArray<double> h_transposed_;   // (n, m) col-major: Hᵀ
  cublasHandle_t handle_ = nullptr;
  double alpha_ = 1.0;
  double beta_ = 0.0;
};

}  // namespace

bool dense_fits(int64_t n, int64_t m) {
  size_t free_bytes = 0, total_bytes = 0;
  gpu::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const double need = (double(n) * double(n) + double(n) * double(m)) * sizeof(double);
  return n <= 65535 * dense_tile && need <= 0.9 * double(free_bytes);
}

std::unique_ptr<GpuMethod> make_dense_method(const DeviceProblem& problem) {
  return std::make_unique<DenseMethod>(problem);
}

}  // namespace tiledqr::enkf
