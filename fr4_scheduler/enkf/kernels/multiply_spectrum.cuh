// FFT method, step 3: the convolution theorem's pointwise product,
//   z[s · bins + k] ← z[s · bins + k] · spectrum[k] · scale,
// for slots s < slots and bins k < bins = fft_n / 2 + 1 (real-to-complex
// half spectrum); scale = 1 / fft_n undoes cuFFT's unnormalised inverse.
#pragma once

#include <cufft.h>

#include <cstdint>

namespace tiledqr::enkf {

__global__ void multiply_spectrum(cufftDoubleComplex* __restrict__ z,
                                  const cufftDoubleComplex* __restrict__ spectrum, int64_t bins, int64_t slots,
                                  double scale) {
  const int64_t total = bins * slots;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const cufftDoubleComplex a = z[t];
    const cufftDoubleComplex b = spectrum[t % bins];
    z[t] = cufftDoubleComplex{(a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale};
  }
}

}  // namespace tiledqr::enkf
