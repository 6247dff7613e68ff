// FFT method, step 1: the zero-padded vectors x_s = e_l ∘ h_m of one batch,
//   x[s · fft_n + j] = e[j, l] · H[m, j],   s = (m − m_first) · L + l,
// for the nonzeros z ∈ [nz_begin, nz_begin + nz_count) of H's rows
// [m_first, …) (CSR order). x is zero beforehand; no two threads write one
// word (a CSR row holds each column once). One thread per (nonzero, l).
#pragma once

#include <cstdint>

namespace tiledqr::enkf {

__global__ void scatter_weighted_h(const int32_t* __restrict__ h_row, const int32_t* __restrict__ h_col,
                                   const double* __restrict__ h_value, int64_t nz_begin, int64_t nz_count,
                                   int32_t m_first, const double* __restrict__ e, int64_t n, int32_t l,
                                   int64_t fft_n, double* __restrict__ x) {
  const int64_t total = nz_count * l;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t z = nz_begin + t / l;
    const int32_t q = int32_t(t % l);
    const int64_t j = h_col[z];
    const int64_t slot = int64_t(h_row[z] - m_first) * l + q;
    x[slot * fft_n + j] = e[j + int64_t(q) * n] * h_value[z];
  }
}

}  // namespace tiledqr::enkf
