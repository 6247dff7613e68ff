// The "fft" method (beyond the EnKF report, "ECE 408 final report"):
// C ∘ (e eᵀ) = Σ_l diag(e_l) C diag(e_l), so column m of the product is
//   P_HT[:, m] = Σ_l e_l ∘ (C (e_l ∘ h_m)) / (L − 1),
// L·M Toeplitz products. Each is a cyclic convolution after embedding C in
// a circulant of order fft_n ≥ 2N − 1 (fft_size), done with batched
// real-to-complex cuFFT transforms: O(L · M · N log N) work in all. Rows of
// H are taken in batches of m_per_batch (all L members each) so that the
// transform buffers fit in a quarter of the free GPU memory (8 GiB at most).
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <climits>
#include <utility>

#include "gpu_methods.hpp"
#include "kernels/gather_weighted_sum.cuh"
#include "kernels/multiply_spectrum.cuh"
#include "kernels/scatter_weighted_h.cuh"

namespace tiledqr::enkf {

namespace {

const char* cufft_text(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "cuFFT error";
  }
}

void check_cufft(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS)
    throw GpuError(std::string(what) + " failed: " + cufft_text(r) + " (" + std::to_string(int(r)) + ")");
}

// A cuFFT plan of `batch` transforms of length fft_n, destroyed with it.
class FftPlan {
 public:
  FftPlan() = default;
  FftPlan(int fft_n, cufftType type, int batch) {
    check_cufft(cufftCreate(&handle_), "cufftCreate");
    made_ = true;
    int length = fft_n;
    size_t work = 0;
    // Null embeddings: the basic layout, fft_n reals or fft_n/2 + 1 complex per transform.
    check_cufft(cufftMakePlanMany(handle_, 1, &length, nullptr, 1, 0, nullptr, 1, 0, type, batch, &work),
                "cufftMakePlanMany");
  }
  ~FftPlan() {
    if (made_) cufftDestroy(handle_);
  }
  FftPlan(FftPlan&& other) noexcept : handle_(other.handle_), made_(std::exchange(other.made_, false)) {}
  FftPlan& operator=(FftPlan&& other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(made_, other.made_);
    return *this;
  }
  cufftHandle get() const { return handle_; }
  bool made() const { return made_; }

 private:
  cufftHandle handle_ = 0;
  bool made_ = false;
};

// Blocks of 256 threads for a grid-stride loop over `total` items.
unsigned grid_for(int64_t total) {
  return unsigned(std::max<int64_t>(1, std::min<int64_t>((total + 255) / 256, 16384)));
}

class FftMethod : public GpuMethod {
 public:
  explicit FftMethod(const DeviceProblem& problem)
      : problem_(problem), fft_n_(fft_size(problem.n())), bins_(fft_n_ / 2 + 1) {
    if (fft_n_ > INT_MAX) throw InputError("fft: N is too large for a 32-bit cuFFT length");
    const int64_t n = problem.n(), l = problem.l(), m = problem.m();
    // The circulant's first column: C's first column, zeros, C's first row reversed.
    std::vector<double> circulant(size_t(fft_n_), 0.0);
    const std::vector<double>& diagonals = problem.host().c.diagonals;
    for (int64_t k = 0; k < n; ++k) circulant[size_t(k)] = diagonals[size_t(n - 1 + k)];
    for (int64_t k = 1; k < n; ++k) circulant[size_t(fft_n_ - k)] = diagonals[size_t(n - 1 - k)];
    circulant_ = DeviceArray<double>(circulant, "cudaMalloc (circulant)");
    spectrum_ = DeviceArray<cufftDoubleComplex>(size_t(bins_), "cudaMalloc (circulant spectrum)");

    size_t free_bytes = 0, total_bytes = 0;
    gpu::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    const int64_t budget = std::min<int64_t>(int64_t(free_bytes / 4), int64_t(8) << 30);
    const int64_t slot_bytes = fft_n_ * int64_t(sizeof(double)) + bins_ * int64_t(sizeof(cufftDoubleComplex));
    m_per_batch_ = std::max<int64_t>(1, std::min<int64_t>(m, budget / (slot_bytes * l)));
    const int64_t slots = m_per_batch_ * l;
    x_ = DeviceArray<double>(size_t(slots * fft_n_), "cudaMalloc (fft vectors)");
    z_ = DeviceArray<cufftDoubleComplex>(size_t(slots * bins_), "cudaMalloc (fft spectra)");

    circulant_plan_ = FftPlan(int(fft_n_), CUFFT_D2Z, 1);
    forward_ = FftPlan(int(fft_n_), CUFFT_D2Z, int(slots));
    inverse_ = FftPlan(int(fft_n_), CUFFT_Z2D, int(slots));
    const int64_t rest = m % m_per_batch_;
    if (rest != 0) {
      forward_rest_ = FftPlan(int(fft_n_), CUFFT_D2Z, int(rest * l));
      inverse_rest_ = FftPlan(int(fft_n_), CUFFT_Z2D, int(rest * l));
    }
  }

  void launch(cudaStream_t stream) override {
    const int64_t n = problem_.n(), l = problem_.l(), m = problem_.m();
    for (const FftPlan* plan : {&circulant_plan_, &forward_, &inverse_, &forward_rest_, &inverse_rest_})
      if (plan->made()) check_cufft(cufftSetStream(plan->get(), stream), "cufftSetStream");
    check_cufft(cufftExecD2Z(circulant_plan_.get(), circulant_.data(), spectrum_.data()),
                "cufftExecD2Z (circulant)");
    const std::vector<int64_t>& row_ptr = problem_.host().h.row_ptr;
    for (int64_t m_first = 0; m_first < m; m_first += m_per_batch_) {
      const int64_t count = std::min(m_per_batch_, m - m_first);
      const int64_t slots = count * l;
      const bool full = count == m_per_batch_;
      gpu::check(cudaMemsetAsync(x_.data(), 0, size_t(slots * fft_n_) * sizeof(double), stream),
                 "cudaMemsetAsync (fft vectors)");
      const int64_t nz_begin = row_ptr[size_t(m_first)];
      const int64_t nz_count = row_ptr[size_t(m_first + count)] - nz_begin;
      if (nz_count > 0) {
        scatter_weighted_h<<<grid_for(nz_count * l), 256, 0, stream>>>(
            problem_.h_row(), problem_.h_col(), problem_.h_value(), nz_begin, nz_count, int32_t(m_first),
            problem_.e(), n, int32_t(l), fft_n_, x_.data());
        gpu::check(cudaGetLastError(), "scatter_weighted_h launch");
      }
      check_cufft(cufftExecD2Z(full ? forward_.get() : forward_rest_.get(), x_.data(), z_.data()),
                  "cufftExecD2Z (batch)");
      multiply_spectrum<<<grid_for(slots * bins_), 256, 0, stream>>>(z_.data(), spectrum_.data(), bins_, slots,
                                                                       1.0 / double(fft_n_));
      gpu::check(cudaGetLastError(), "multiply_spectrum launch");
      check_cufft(cufftExecZ2D(full ? inverse_.get() : inverse_rest_.get(), z_.data(), x_.data()),
                  "cufftExecZ2D (batch)");
      gather_weighted_sum<<<grid_for(n * count), 256, 0, stream>>>(x_.data(), problem_.e(), n, int32_t(l), fft_n_,
                                                                    int32_t(m_first), int32_t(count),
                                                                    1.0 / double(l - 1), problem_.out());
      gpu::check(cudaGetLastError(), "gather_weighted_sum launch");
    }
  }

  void finish(cudaStream_t stream) override { gpu::check(cudaStreamSynchronize(stream), "fft: cudaStreamSynchronize"); }

 private:
  const DeviceProblem& problem_;
  int64_t fft_n_;
  int64_t bins_;
  int64_t m_per_batch_ = 1;
  DeviceArray<double> circulant_;
  DeviceArray<cufftDoubleComplex> spectrum_;
  DeviceArray<double> x_;               // (slots, fft_n): the vectors, then C times them
  DeviceArray<cufftDoubleComplex> z_;   // (slots, bins): their spectra
  FftPlan circulant_plan_, forward_, inverse_, forward_rest_, inverse_rest_;
};

}  // namespace

std::unique_ptr<GpuMethod> make_fft_method(const DeviceProblem& problem) {
  return std::make_unique<FftMethod>(problem);
}

}  // namespace tiledqr::enkf
