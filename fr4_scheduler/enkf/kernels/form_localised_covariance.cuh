// Dense baseline, step 1: the localised covariance formed densely, tile by tile
// (the first CUDA version of the EnKF report ("ECE 408 final report")),
//   k[i + j · n] = C[i, j] · Σ_l e[i, l] e[j, l],
// k (n, n) col-major, ld = n. A block of 32 × 8 threads forms one 32 × 32
// tile; thread (x, y) takes row x and columns y, y + 8, y + 16, y + 24.
#pragma once

#include <cstdint>

namespace tiledqr::enkf {

constexpr int dense_tile = 32;
constexpr int dense_tile_rows_of_threads = 8;

__global__ void form_localised_covariance(const double* __restrict__ diagonals, const double* __restrict__ e,
                                          int64_t n, int32_t l, double* __restrict__ k) {
  const int64_t i = int64_t(blockIdx.x) * dense_tile + threadIdx.x;
  if (i >= n) return;
  for (int c = threadIdx.y; c < dense_tile; c += dense_tile_rows_of_threads) {
    const int64_t j = int64_t(blockIdx.y) * dense_tile + c;
    if (j >= n) break;
    double ensemble = 0;
    for (int32_t q = 0; q < l; ++q) ensemble += e[i + int64_t(q) * n] * e[j + int64_t(q) * n];
    k[i + j * n] = diagonals[n - 1 + i - j] * ensemble;
  }
}

}  // namespace tiledqr::enkf
