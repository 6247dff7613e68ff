// What every warp tile kernel shares: the tile size, the shared-memory
// workspace a calling warp lends them, and moving a (32, 32) tile between
// global memory and the lanes' registers (the paper "Task-Based Scheduling Implementing Tiled Linear Algebra on GPUs" §II.D item 2: tile size
// 32, one lane per column of the tile).
//
// Contract of every kernel in this folder: the 32 lanes of one warp call it
// together, each with its lane index (threadIdx.x % 32), the same tile
// pointers and the same `shared` workspace of warp_shared_elements elements
// of T (32·33 + 32·32: 8.1 KiB for float, 16.3 KiB for double; 16-byte
// aligned), which no other warp touches meanwhile. Nothing is assumed about
// blockDim; only __syncwarp() synchronises. Tiles are (32, 32) col-major
// with ld = 32, in global memory.
#pragma once

#include "gpu/tile_shape.hpp"
#include "host_device.hpp"

namespace tiledqr::gpu {

constexpr int warp_tile = tile_shape.rows;   // b: rows and columns of a tile
constexpr int64_t tile_elements = tile_shape.elements();
constexpr int staged_ld = warp_tile + 1;     // ld of a tile staged in shared memory (no bank conflicts)
constexpr int staged_elements = warp_tile * staged_ld;
constexpr int scratch_elements = warp_tile;  // a few scalars the lanes exchange
// Shared-memory workspace of one warp, in elements of T: two staged tiles
// (32, 33) and a scratch area (the apply kernels keep V, (32, 32), in the
// second tile's place).
constexpr int warp_shared_elements = 2 * staged_elements + scratch_elements;

// Which entries of a tile a copy keeps (entry (r, c): row r, column c).
enum class TilePart {
  full,        // every entry
  upper,       // r ≤ c; the others read as zero / are left alone
  unit_lower,  // r > c as stored, 1 on the diagonal, 0 above: the V of geqrt
};

TILEDQR_HOST_DEVICE inline bool in_part(TilePart part, int r, int c) {
  return part == TilePart::full || (part == TilePart::upper ? r <= c : r > c);
}

// Lane c receives column c of `tile` (32, 32), ld = 32, in col[0..31].
// Coalesced: the warp reads the tile row by row into `stage` (32, 33).
template <typename T>
__device__ __forceinline__ void load_tile_columns(const T* tile, T* stage, int lane,
                                                  T (&col)[warp_tile]) {
#pragma unroll
  for (int c = 0; c < warp_tile; ++c) stage[lane + c * staged_ld] = tile[lane + c * warp_tile];
  __syncwarp();
#pragma unroll
  for (int r = 0; r < warp_tile; ++r) col[r] = stage[r + lane * staged_ld];
  __syncwarp();
}

// Writes lane c's col[0..31] as column c of `tile` (32, 32), ld = 32; with
// TilePart::upper only the entries r ≤ c (the rest of the tile may hold
// reflectors that other tasks read meanwhile).
template <typename T>
__device__ __forceinline__ void store_tile_columns(T* tile, T* stage, int lane,
                                                   const T (&col)[warp_tile], TilePart part) {
#pragma unroll
  for (int r = 0; r < warp_tile; ++r) stage[r + lane * staged_ld] = col[r];
  __syncwarp();
#pragma unroll
  for (int c = 0; c < warp_tile; ++c)
    if (in_part(part, lane, c)) tile[lane + c * warp_tile] = stage[lane + c * staged_ld];
  __syncwarp();
}

// Copies `tile` (32, 32), ld = 32, into shared (32, ld_shared) with the
// entries outside `part` replaced (zero; 1 on the diagonal for unit_lower).
// The caller synchronises (__syncwarp) before reading it across lanes.
template <typename T>
__device__ __forceinline__ void stage_tile(const T* tile, T* shared, int ld_shared, int lane,
                                           TilePart part) {
#pragma unroll
  for (int c = 0; c < warp_tile; ++c) {
    T value = tile[lane + c * warp_tile];
    if (!in_part(part, lane, c)) value = (part == TilePart::unit_lower && lane == c) ? T(1) : T(0);
    shared[lane + c * ld_shared] = value;
  }
}

// 16 bytes of T: the unit of the shared-memory copies below.
template <typename T>
struct Chunk;
template <>
struct Chunk<double> {
  using type = double2;
  static constexpr int width = 2;
  __device__ static double get(const double2& v, int t) { return t == 0 ? v.x : v.y; }
  __device__ static double2 make(const double* e) { return {e[0], e[1]}; }
};
template <>
struct Chunk<float> {
  using type = float4;
  static constexpr int width = 4;
  __device__ static float get(const float4& v, int t) { return t == 0 ? v.x : t == 1 ? v.y : t == 2 ? v.z : v.w; }
  __device__ static float4 make(const float* e) { return {e[0], e[1], e[2], e[3]}; }
};

// buffer[s] = values[s] for the whole 16-byte chunks that hold s in
// [first, N) (entries below `first` in the first chunk are written too and
// mean nothing). `buffer` is 16-byte aligned; `first` a constant once unrolled.
template <typename T, int N>
__device__ __forceinline__ void publish_column(T* buffer, const T (&values)[N], int first) {
  using C = Chunk<T>;
  static_assert(N % C::width == 0);
#pragma unroll
  for (int c = 0; c < N / C::width; ++c)
    if ((c + 1) * C::width > first)
      reinterpret_cast<typename C::type*>(buffer)[c] = C::make(&values[c * C::width]);
}

// values[s] = buffer[s] for s in [first, N), 0 below (16-byte broadcast loads).
template <typename T, int N>
__device__ __forceinline__ void read_published(const T* buffer, int first, T (&values)[N]) {
  using C = Chunk<T>;
#pragma unroll
  for (int c = 0; c < N / C::width; ++c) {
    if ((c + 1) * C::width <= first) {
#pragma unroll
      for (int t = 0; t < C::width; ++t) values[c * C::width + t] = 0;
      continue;
    }
    const typename C::type chunk = reinterpret_cast<const typename C::type*>(buffer)[c];
#pragma unroll
    for (int t = 0; t < C::width; ++t) values[c * C::width + t] = c * C::width + t >= first ? C::get(chunk, t) : T(0);
  }
}

// xᵀx, or xᵀy, over s in [first, N), in eight interleaved partial sums
// chosen by the entry's index modulo 8: a fixed order, so results are
// bit-reproducible, and chains of dependent additions a quarter as long.
template <typename T, int N>
__device__ __forceinline__ T column_dot(const T (&x)[N], const T (&y)[N], int first) {
  T partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
  for (int s = 0; s < N; ++s)
    if (s >= first) partial[s & 7] += x[s] * y[s];
  return ((partial[0] + partial[1]) + (partial[2] + partial[3])) +
         ((partial[4] + partial[5]) + (partial[6] + partial[7]));
}

// Writes the entries of `part` of shared (32, ld_shared) back to `tile`
// (32, 32), ld = 32, coalesced; the other entries of `tile` are not written.
template <typename T>
__device__ __forceinline__ void unstage_tile(T* tile, const T* shared, int ld_shared, int lane,
                                             TilePart part) {
#pragma unroll
  for (int c = 0; c < warp_tile; ++c)
    if (in_part(part, lane, c)) tile[lane + c * warp_tile] = shared[lane + c * ld_shared];
}

// The lanes' copy of a τ array: lane l holds tau[l]; any lane gets τ_l by
// broadcast_from_lane(my_tau, l).
template <typename T>
__device__ __forceinline__ T broadcast_from_lane(T value, int source_lane) {
  return __shfl_sync(0xffffffffu, value, source_lane);
}

}  // namespace tiledqr::gpu
