// FFT method, step 5: with y_s = C x_s in the first n entries of each slot,
//   P_HT[i, m] = scale · Σ_l e[i, l] · y[((m − m_first) · L + l) · fft_n + i],
// for i < n and m ∈ [m_first, m_first + m_count); scale = 1 / (L − 1).
// One thread per (i, m); consecutive threads take consecutive i (coalesced).
#pragma once

#include <cstdint>

namespace tiledqr::enkf {

__global__ void gather_weighted_sum(const double* __restrict__ y, const double* __restrict__ e, int64_t n,
                                    int32_t l, int64_t fft_n, int32_t m_first, int32_t m_count, double scale,
                                    double* __restrict__ out) {
  const int64_t total = n * m_count;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = t % n;
    const int64_t mm = t / n;
    double sum = 0;
    for (int32_t q = 0; q < l; ++q) sum += e[i + int64_t(q) * n] * y[(mm * l + q) * fft_n + i];
    out[i + (m_first + mm) * n] = sum * scale;
  }
}

}  // namespace tiledqr::enkf
