// back_substitution_kernel: X = R⁻¹ Y with the R of the factored tiles, a warp per right-hand side (LAPACK trtrs).
#pragma once

#include <cstdint>

#include "gpu/layout_kernels.cuh"

namespace tiledqr::gpu {

// back_substitution_kernel — X = R⁻¹ Y for the upper-triangular R (n, n) in
// the top of the factored tiles: x_i = (y_i − Σ_{l>i} R_il x_l) / R_ii,
// i = n−1 … 0 (Golub & Van Loan Algorithm 3.1.2, column by column).
//   tiles (p tile rows of b): R on and above the diagonal; R_ii ≠ 0 (checked by the caller);
//   y     (n, nrhs) col-major, ldy ≥ n;  x (n, nrhs) col-major, ldx ≥ n, out.
// One warp per right-hand side (block c); the lanes split each sum and
// add it up in a fixed order, so the result is reproducible.
template <typename T>
__global__ void __launch_bounds__(32) back_substitution_kernel(const T* tiles, int32_t p, int32_t b, int64_t n,
                                                               const T* y, int64_t ldy, T* x, int64_t ldx) {
  const int lane = int(threadIdx.x % 32);
  const T* y_column = y + blockIdx.x * ldy;
  T* x_column = x + blockIdx.x * ldx;
  auto r = [&](int64_t i, int64_t l) { return tiles[tile_offset(i, l, p, b)]; };
  for (int64_t i = n - 1; i >= 0; --i) {
    T partial = 0;
    for (int64_t l = i + 1 + lane; l < n; l += 32) partial += r(i, l) * x_column[l];
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) partial += __shfl_xor_sync(0xffffffffu, partial, offset);
    if (lane == 0) x_column[i] = (y_column[i] - partial) / r(i, i);
    __syncwarp();  // x_i is read by every lane in the next rows
  }
}

}  // namespace tiledqr::gpu
