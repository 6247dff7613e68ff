// Moving matrices between the column-major layout of the API and the tile
// layout the factorisation works in (docs/design.md §2, as common/factorization/tile_matrix.hpp:
// tile (i, j) at (i + j·p)·b·b, col-major, ld = b, zero padding; b = 32 for
// the warp kernels, 64 … 256 for the block kernels), plus the small fills
// the launches need. Grid-stride loops; any launch size works.
#pragma once

#include <algorithm>
#include <cstdint>


namespace tiledqr::gpu {

// Blocks of 256 threads for a grid-stride loop over `count` elements.
inline unsigned grid_for(int64_t count, int64_t max_blocks = 4096) {
  return unsigned(std::clamp<int64_t>((count + 255) / 256, 1, max_blocks));
}

// Element e of the tile layout (p tile rows of b): its row and column in the matrix.
__device__ __forceinline__ void tile_element_position(int64_t e, int32_t p, int32_t b, int64_t& row, int64_t& col) {
  const int64_t elements = int64_t(b) * b;
  const int64_t tile = e / elements;
  const int64_t within = e % elements;
  row = (tile % p) * b + within % b;
  col = (tile / p) * b + within / b;
}

// Entry (i, j) of the matrix in the tile layout (p tile rows of b).
__device__ __forceinline__ int64_t tile_offset(int64_t i, int64_t j, int32_t p, int32_t b) {
  return (i / b + (j / b) * p) * (int64_t(b) * b) + i % b + (j % b) * b;
}

// tiles (p·q tiles of b) ← A (m, n) col-major, lda ≥ m; padding set to zero.
template <typename T>
__global__ void colmajor_to_tiles_kernel(const T* a, int64_t lda, int64_t m, int64_t n, T* tiles,
                                         int32_t p, int32_t q, int32_t b) {
  const int64_t total = int64_t(p) * q * b * b;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    int64_t row, col;
    tile_element_position(e, p, b, row, col);
    tiles[e] = row < m && col < n ? a[row + col * lda] : T(0);
  }
}

// A (m, n) col-major, lda ≥ m ← the logical part of tiles (p tile rows of b, q ≥ ceil(n/b)).
template <typename T>
__global__ void tiles_to_colmajor_kernel(const T* tiles, int32_t p, int32_t q, int32_t b, int64_t m, int64_t n,
                                         T* a, int64_t lda) {
  const int64_t total = int64_t(p) * q * b * b;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    int64_t row, col;
    tile_element_position(e, p, b, row, col);
    if (row < m && col < n) a[row + col * lda] = tiles[e];
  }
}

// tiles (p·q tiles of b) ← the first k columns of the identity (m ≥ k rows).
template <typename T>
__global__ void identity_tiles_kernel(T* tiles, int32_t p, int32_t q, int32_t b, int64_t k) {
  const int64_t total = int64_t(p) * q * b * b;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    int64_t row, col;
    tile_element_position(e, p, b, row, col);
    tiles[e] = row == col && col < k ? T(1) : T(0);
  }
}

// R (k, n) col-major, ldr ≥ k ← the upper triangle of the tiles (p tile rows of b).
template <typename T>
__global__ void extract_r_kernel(const T* tiles, int32_t p, int32_t b, int64_t k, int64_t n, T* r, int64_t ldr) {
  const int64_t total = k * n;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % k, j = e / k;
    r[i + j * ldr] = i <= j ? tiles[tile_offset(i, j, p, b)] : T(0);
  }
}

// diagonal (k) ← R(i, i), i < k, from the tiles (p tile rows of b).
template <typename T>
__global__ void extract_diagonal_kernel(const T* tiles, int32_t p, int32_t b, int64_t k, T* diagonal) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < k; i += int64_t(gridDim.x) * blockDim.x)
    diagonal[i] = tiles[tile_offset(i, i, p, b)];
}

// words[0, count) ← value.
template <typename Word>
__global__ void fill_words_kernel(Word* words, int64_t count, Word value) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < count;
       e += int64_t(gridDim.x) * blockDim.x)
    words[e] = value;
}

}  // namespace tiledqr::gpu
