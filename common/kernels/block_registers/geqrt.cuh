// Block geqrt in registers (LAPACK ?geqrt on one tile of NB ≤ 128): one
// thread block factors a whole tile that its threads hold in registers,
// one column at a time, and forms LAPACK's T for each inner block of IB
// columns. A matrix that is one tile (m, n ≤ NB) is factored by this one
// kernel: no task graph, no layout pass, one read and one write of A.
//
// Layout of the (NB, NB) tile over W warps (32·W threads): lane = 16·h + r
// of warp w holds rows r + 16·s (s < NB/16) of the columns
// w + W·(h + 2·k) (k < NB/(2W)): the half-warps own interleaved columns,
// the 16 lanes of a half-warp split each column's rows. The columns
// [G·k, G·(k + 1)), G = 2W, are step group k: one register slot k of every
// half-warp. Group k reads and writes only the row slots s ≥ G·k/16 (rows
// above are finished), so with the groups unrolled at compile time every
// register index is a constant and the finished rows and columns cost no
// instruction.
//
// Step j (the paper "Task-Based Scheduling Implementing Tiled Linear
// Algebra on GPUs" Algorithm 3, the reflector of reflector.cuh): the
// half-warp owning column j forms its reflector from the column in its
// registers (sums over 16 lanes by xor shuffles: every lane adds the same
// two operands at each level, so all get the same bits) and publishes
// v_j = [0; 1; x·scale] and τ_j in shared memory (rotating buffers); every
// half-warp then forms v_jᵀ a for each of its live columns a (16-lane sums
// again) and updates a ← a − τ_j (v_jᵀ a) v_j. The owner of column j + 1
// updates that column first and publishes the next reflector before its
// other columns (run_group), so one barrier a step suffices.
// For the columns c < j of j's inner block the same sum is v_cᵀ v_j, kept
// for T: LAPACK's ?larft recurrence T(0:i, i) = −τ_i T(0:i, 0:i) Vᵀ v_i,
// run at the end by one warp an inner block (lane = row of T).
//
// Reflectors: fast_direct_reflector (reflector.cuh) when the direct formula
// is safe, else the half-warp's first lane runs the reference
// kernels::make_reflector on the column in shared memory (zero, tiny or
// huge columns: LAPACK's scaling and τ = 0 for a zero tail).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/householder.hpp"
#include "kernels/warp/reflector.cuh"

namespace tiledqr::kernels::block_registers {

// How a step's reflector reaches the other warps (run_group): a block
// barrier a step that every warp waits at (what the library runs), or
// named barriers that the reflector's owner only arrives at, so that it
// updates its other columns while the next reflector is formed. The named
// variant gives the same bits and took a tile of 128² in double 113 µs
// against 129 on an H200 (8 warps, inner block 32;
// report/data/fr4_one_tile_kernel_h200.txt), but
// compute-sanitizer's racecheck reports the reuse of the v buffers under
// it (a read at the start of a step against the write of a later
// reflector, with three buffers as with two), which the ordering argued
// in run_group does not explain and small kernels of the same barrier
// pattern do not show; it stays a measured variant until that is settled.
enum class Barriers { block, named };

// The thread layout of a tile of NB with inner block IB on W warps.
template <int NB, int IB, int W>
struct GeqrtShape {
  static constexpr int threads = 32 * W;
  static constexpr int group = 2 * W;       // columns a step group (one slot of every half-warp)
  static constexpr int row_slots = NB / 16;  // rows a thread holds in each of its columns
  static constexpr int column_slots = NB / group;
  static_assert(NB % group == 0 && group % 16 == 0, "the tile must be whole step groups of 16-row slots");
  static_assert(IB == 16 || IB == 32 || IB == 64, "inner blocks of 16, 32 or 64 columns");
  static_assert(NB % IB == 0 && NB / IB <= W, "one warp an inner block forms T");
  static_assert(W >= 2, "consecutive columns belong to different warps");
  // Shared memory, in elements of T: the published v (up to three
  // buffers), τ, and v_cᵀ v_j for each column j and the earlier columns c
  // of its inner block.
  static constexpr int v_offset = 0, tau_offset = 3 * NB, dots_offset = 4 * NB;
  static constexpr int shared_elements = 4 * NB + NB * IB;
};

namespace detail {

// The sum of x over the 16 lanes of the caller's half-warp, the same bits in each.
template <typename T>
__device__ __forceinline__ T half_warp_sum(T x, unsigned mask) {
#pragma unroll
  for (int offset = 8; offset >= 1; offset >>= 1) x += __shfl_xor_sync(mask, x, offset, 16);
  return x;
}

template <typename T, int NB, int IB, int W, Barriers B>
class RegisterTile {
 public:
  using Shape = GeqrtShape<NB, IB, W>;
  static constexpr int G = Shape::group, S = Shape::row_slots, K = Shape::column_slots;

  __device__ RegisterTile(T* shared)
      : v_(shared + Shape::v_offset), tau_(shared + Shape::tau_offset), dots_(shared + Shape::dots_offset),
        warp_(int(threadIdx.x) >> 5), half_((int(threadIdx.x) >> 4) & 1), r_(int(threadIdx.x) & 15) {}

  __device__ int row(int s) const { return r_ + 16 * s; }
  __device__ int column(int k) const { return warp_ + W * (half_ + 2 * k); }

  // A (m, n), col-major, lda ≥ m: the tile's entries, zeros outside A.
  __device__ void load(int m, int n, const T* a, int64_t lda) {
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
      for (int s = 0; s < S; ++s) {
        const int i = row(s), c = column(k);
        own_[k][s] = i < m && c < n ? a[int64_t(c) * lda + i] : T(0);
      }
  }

  // The tile (NB, NB), ld = NB: R on and above the diagonal, V below.
  __device__ void store(T* tile) const {
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
      for (int s = 0; s < S; ++s) tile[column(k) * NB + row(s)] = own_[k][s];
  }

  // The factorisation's steps 0 … steps − 1; τ_j = 0 for the later columns.
  __device__ void factor(int steps) {
    for (int j = int(threadIdx.x); j < NB; j += Shape::threads)
      if (j >= steps) tau_[j] = T(0);
    if (steps > 0 && warp_ == 0 && half_ == 0) form<0>(0);
    __syncthreads();
    run_group<0>(steps);
    __syncthreads();  // τ and the dots complete for T
  }

  // T (IB, NB), ld = IB: T_b of each inner block side by side (LAPACK's
  // ?geqrt layout), zeros below each diagonal and in the columns of τ = 0.
  __device__ void form_t(T* t) const {
    if (warp_ >= NB / IB) return;
    const int first = warp_ * IB, lane = int(threadIdx.x) & 31;
#pragma unroll
    for (int part = 0; part < (IB + 31) / 32; ++part) {
      const int i_row = lane + 32 * part;  // the row of T_b this lane forms
      if (i_row >= IB) continue;
      T row_t[IB];
#pragma unroll
      for (int i = 0; i < IB; ++i) {
        const T tau_i = tau_[first + i];
        const T* dots = dots_ + (first + i) * IB;  // v_cᵀ v_i, c = first + l, l < i
        T sums[4] = {T(0), T(0), T(0), T(0)};
#pragma unroll
        for (int l = 0; l < i; ++l) sums[l % 4] += row_t[l] * dots[l];
        const T sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
        row_t[i] = i_row < i && tau_i != T(0) ? -tau_i * sum : i_row == i ? tau_i : T(0);
      }
#pragma unroll
      for (int i = 0; i < IB; ++i) t[(first + i) * IB + i_row] = row_t[i];
    }
  }

 private:
  // Step group Q: its columns' steps, then the next group's. At step j
  // every warp applies reflector j; the owner of column j + 1 (another warp:
  // consecutive columns belong to consecutive warps) applies it to that
  // column first, forms and publishes reflector j + 1, and only then
  // updates its other columns. With Barriers::block every warp waits at a
  // __syncthreads when step j + 1 starts. With Barriers::named the owner
  // of j + 1 arrives at named barrier B_j (ids 1 and 2 in turn) without
  // waiting and every other warp waits there, so the owner's other columns
  // overlap the next step; v_j's buffer is next written (v_j+3, three
  // buffers in turn) by the owner of j + 3, which waits at B_j and B_j+1,
  // and every warp that read v_j (into registers, when step j starts) waits
  // at one of them afterwards — the owner of j + 1, which only arrives at
  // B_j, at B_j+1.
  template <int Q>
  __device__ void run_group(int steps) {
    constexpr int first = G * Q;
    constexpr int s0 = first / 16;
    if (first >= steps) return;
    for (int step = 0; step < G; ++step) {
      const int j = first + step;
      if (j >= steps) break;
      if constexpr (B == Barriers::block) {
        if (j > 0) __syncthreads();
      } else {
        if (j > 0 && warp_ != step % W) named_sync(barrier_id(j - 1));
        else __syncwarp();  // the owner's half-warp wrote v_j (j = 0: the prologue's __syncthreads)
      }
      T v[S];
#pragma unroll
      for (int s = s0; s < S; ++s) v[s] = v_[buffer(j) + row(s)];
      const T tau = tau_[j];
      const int block_first = j - j % IB;
      apply_slots<Q, first_dot_slot<Q>, Q + 1>(j, block_first, tau, v);
      const int next = j + 1;
      if (next < steps && step + 1 < G && warp_ == (step + 1) % W) {
        if (half_ == (step + 1) / W) form<Q>(next);
        __syncwarp();
        named_arrive(barrier_id(j));
        apply_slots<Q, Q + 1, K>(j, block_first, tau, v);
      } else {
        apply_slots<Q, Q + 1, K>(j, block_first, tau, v);
        if constexpr (Q + 1 < K)
          if (next < steps && step + 1 == G && warp_ == 0) {
            if (half_ == 0) form<Q + 1>(next);
            __syncwarp();
            named_arrive(barrier_id(j));
          }
      }
    }
    if constexpr (Q + 1 < K) run_group<Q + 1>(steps);
  }

  // Where v_j is published: two buffers in turn under block barriers (v_j
  // is read when step j starts and v_j+2 written after the next step's
  // barrier), three under named ones (run_group).
  static constexpr int buffers = B == Barriers::block ? 2 : 3;
  __device__ static int buffer(int j) { return (j % buffers) * NB; }

  // B_j's hardware barrier (0 is __syncthreads'): B_j and B_j+2 may share
  // one, since no warp reaches B_j+2 before B_j completes: the owner of
  // j + 3 arrives there after waiting at B_j+1 for v_j+2, the others wait
  // at B_j+1 first, and B_j+1 completes only once every warp has passed B_j.
  __device__ static int barrier_id(int j) { return 1 + (j & 1); }
  __device__ static void named_sync(int id) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(Shape::threads) : "memory");
  }
  __device__ static void named_arrive(int id) {
    if constexpr (B == Barriers::named) asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(Shape::threads) : "memory");
  }

  // The first slot whose columns may share an inner block with group Q's.
  template <int Q>
  static constexpr int first_dot_slot = (G * Q / IB) * IB / G;

  // Whether the caller's half-warp owns the column `offset` into a group.
  __device__ bool owns(int offset) const { return warp_ == offset % W && half_ == offset / W; }

  // Reflector j applied to slots [First, Last) in group Q: the columns after
  // j are updated; those before j in its inner block give their v_cᵀ v_j.
  template <int Q, int First, int Last>
  __device__ void apply_slots(int j, int block_first, T tau, const T (&v)[S]) {
    constexpr int s0 = G * Q / 16;
#pragma unroll
    for (int k = First; k < Last; ++k) {
      T sums[2] = {T(0), T(0)};
#pragma unroll
      for (int s = s0; s < S; ++s) sums[s % 2] += own_[k][s] * v[s];
      const T dot = half_warp_sum(sums[0] + sums[1], 0xffffffffu);
      const int c = column(k);
      if (k > Q || c > j) {
        const T w = tau * dot;
#pragma unroll
        for (int s = s0; s < S; ++s) own_[k][s] -= w * v[s];
      } else if (c < j && c >= block_first && r_ == 0) {
        dots_[j * IB + (c - block_first)] = dot;
      }
    }
  }

  // The reflector of column j, held in slot Q by the calling half-warp:
  // the column becomes [R(0:j, j); v's tail], v_j and τ_j are published.
  template <int Q>
  __device__ void form(int j) {
    constexpr int s0 = G * Q / 16;
    const unsigned mask = 0xffffu << (16 * half_);
    T squares[2] = {T(0), T(0)}, mine = T(0);
#pragma unroll
    for (int s = s0; s < S; ++s) {
      const T x = own_[Q][s];
      if (row(s) > j) squares[s % 2] += x * x;
      if (row(s) == j) mine = x;
    }
    const T alpha = __shfl_sync(mask, mine, j & 15, 16);
    const T sum = half_warp_sum(squares[0] + squares[1], mask);
    bool direct = false;
    const gpu::WarpReflector<T> h = gpu::fast_direct_reflector(alpha, sum, direct, NB);
    T* const v = v_ + buffer(j);
    T tau = h.tau, beta = h.beta;
    if (direct) {
#pragma unroll
      for (int s = s0; s < S; ++s) {
        const int i = row(s);
        const T x = own_[Q][s];
        const T vi = i > j ? x * h.scale : T(i == j ? 1 : 0);
        v[i] = vi;
        if (i >= j) own_[Q][s] = i > j ? vi : beta;
      }
    } else {
      // The reference reflector on the column's tail in shared memory.
#pragma unroll
      for (int s = s0; s < S; ++s) v[row(s)] = own_[Q][s];
      __syncwarp(mask);
      if (r_ == 0) {
        beta = alpha;
        tau = make_reflector(NB - 1 - j, beta, v + j + 1, 1);
      }
      __syncwarp(mask);  // the first lane's v visible to the half-warp
      tau = __shfl_sync(mask, tau, 0, 16);
      beta = __shfl_sync(mask, beta, 0, 16);
#pragma unroll
      for (int s = s0; s < S; ++s) {
        const int i = row(s);
        if (i > j) own_[Q][s] = v[i];
        if (i == j) own_[Q][s] = beta;
        if (i <= j) v[i] = T(i == j ? 1 : 0);
      }
    }
    if (r_ == 0) tau_[j] = tau;
  }

  T own_[K][S];
  T* v_;
  T* tau_;
  T* dots_;
  int warp_, half_, r_;
};

}  // namespace detail

// A (m, n), col-major, lda ≥ m, 1 ≤ m, n ≤ NB, is not changed; out:
//   tile   (NB, NB), ld = NB: the zero-padded tile factored as LAPACK's
//          ?geqrt leaves it (R on and above the diagonal, V below, unit
//          diagonal implicit; zeros outside A's rows and columns);
//   t      (IB, NB), ld = IB: T of each inner block, zeros below the
//          diagonals and in the columns past min(m, n);
//   shared GeqrtShape<NB, IB, W>::shared_elements of T, 16-byte aligned;
// every thread of a block of GeqrtShape<NB, IB, W>::threads calls it.
template <typename T, int NB, int IB, int W, Barriers B = Barriers::block>
__device__ void geqrt(int m, int n, const T* a, int64_t lda, T* tile, T* t, T* shared) {
  detail::RegisterTile<T, NB, IB, W, B> registers(shared);
  registers.load(m, n, a, lda);
  registers.factor(m < n ? m : n);
  registers.store(tile);
  registers.form_t(t);
}

template <typename T, int NB, int IB, int W, Barriers B>
__global__ void __launch_bounds__(32 * W, 1) geqrt_kernel(int m, int n, const T* a, int64_t lda, T* tile, T* t) {
  extern __shared__ __align__(16) unsigned char geqrt_shared[];
  geqrt<T, NB, IB, W, B>(m, n, a, lda, tile, t, reinterpret_cast<T*>(geqrt_shared));
}

// geqrt by one block of GeqrtShape<NB, IB, W>::threads on `stream`; returns
// the launch's status (the shared-memory size is raised past 48 KiB where
// needed, once).
template <typename T, int NB, int IB, int W, Barriers B = Barriers::block>
cudaError_t launch_geqrt(int m, int n, const T* a, int64_t lda, T* tile, T* t, cudaStream_t stream) {
  using Shape = GeqrtShape<NB, IB, W>;
  constexpr int bytes = int(Shape::shared_elements * sizeof(T));
  static const cudaError_t configured =
      cudaFuncSetAttribute(geqrt_kernel<T, NB, IB, W, B>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (configured != cudaSuccess) return configured;
  geqrt_kernel<T, NB, IB, W, B><<<1, Shape::threads, bytes, stream>>>(m, n, a, lda, tile, t);
  return cudaGetLastError();
}

}  // namespace tiledqr::kernels::block_registers
