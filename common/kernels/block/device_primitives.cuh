// The few instructions the block kernels are built from, as inline PTX: the
// FP64 tensor-core products m16n8k4, m16n8k8 and m16n8k16 (sm_90; two, four
// or eight m8n8k4 on sm_80), the asynchronous global → shared copy
// (cp.async) with its commit/wait, and on sm_90 the bulk copy of a
// contiguous run (cp.async.bulk) that counts its bytes on an mbarrier.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tiledqr::kernels::block {

// D (16, 8) += A (16, 4) · B (4, 8) on the FP64 tensor cores, one warp.
// With g = lane / 4 and q = lane % 4, each lane holds
//   a0 = A(g, q),  a1 = A(g + 8, q);
//   b0 = B(q, g);
//   d0 = D(g, 2q), d1 = D(g, 2q + 1), d2 = D(g + 8, 2q), d3 = D(g + 8, 2q + 1).
// Before sm_90 (no m16n8 .f64 shapes) the same product is two m8n8k4
// .f64 products, one for rows g and one for rows g + 8 (an m8n8k4 lane holds
// A(g, q), B(q, g) and D(g, 2q), D(g, 2q + 1): the same places).
__device__ __forceinline__ void mma_m16n8k4(double (&d)[4], double a0, double a1, double b0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  asm volatile(
      "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a0), "d"(b0));
  asm volatile(
      "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(d[2]), "+d"(d[3])
      : "d"(a1), "d"(b0));
#else
  asm volatile(
      "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 "
      "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a0), "d"(a1), "d"(b0));
#endif
}

// D (16, 8) += A (16, 8) · B (8, 8), one warp; with g and q as above,
//   a0 = A(g, q), a1 = A(g + 8, q), a2 = A(g, q + 4), a3 = A(g + 8, q + 4);
//   b0 = B(q, g), b1 = B(q + 4, g);  d as for m16n8k4.
// The callers pass the two k slots of a lane (q and q + 4) as pairs.
__device__ __forceinline__ void mma_m16n8k8(double (&d)[4], double a0, double a1, double a2, double a3,
                                            double b0, double b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  mma_m16n8k4(d, a0, a1, b0);  // k = q
  mma_m16n8k4(d, a2, a3, b1);  // k = q + 4
#else
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#endif
}

// D (16, 8) += A (16, 16) · B (16, 8), one warp: the largest FP64 product
// (twice the work of m16n8k8 per instruction). With g and q as above,
//   a[v0 + 2·v1] = A(g + 8·v0, q + 4·v1),  b[v] = B(q + 4·v, g),  d as above;
// its first half (a[0 … 3], b[0 … 1]) is an m16n8k8 over k = q, q + 4 and
// its second half the same over k = q + 8, q + 12.
__device__ __forceinline__ void mma_m16n8k16(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  mma_m16n8k8(d, a[0], a[1], a[2], a[3], b[0], b[1]);
  mma_m16n8k8(d, a[4], a[5], a[6], a[7], b[2], b[3]);
#else
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
        "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
}

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Copies `bytes` (4, 8 or 16) from global `src` to shared `dst` in the
// background; with `valid` false it writes zeros and reads nothing, so
// padding and masked entries cost no branch around the copy.
// With src_bytes < bytes only the first src_bytes are read and the rest of
// dst is zeroed.
template <int bytes>
__device__ __forceinline__ void copy_async(void* dst, const void* src, int src_bytes) {
  static_assert(bytes == 4 || bytes == 8 || bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(shared_address(dst)),
               "l"(src), "n"(bytes), "r"(src_bytes)
               : "memory");
}
template <int bytes>
__device__ __forceinline__ void copy_async(void* dst, const void* src, bool valid) {
  copy_async<bytes>(dst, src, valid ? bytes : 0);
}

// Copies `bytes` (4, 8 or 16) from global `src` to the shared-memory
// address `dst` (shared_address) in the background, all of them: the
// unmasked copy, with no size operand to compute.
template <int bytes>
__device__ __forceinline__ void copy_async_whole(uint32_t dst, const void* src) {
  static_assert(bytes == 4 || bytes == 8 || bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(bytes) : "memory");
}

// True when p and every column start p + j·ld (ld in elements of T) are
// 16-byte aligned.
template <typename T>
__device__ __forceinline__ bool columns_16_byte_aligned(const T* p, int ld) {
  return ((reinterpret_cast<uintptr_t>(p) | (uintptr_t(ld) * sizeof(T))) & 15) == 0;
}

__device__ __forceinline__ void commit_async_copies() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most `pending` committed groups of this thread are in flight.
template <int pending>
__device__ __forceinline__ void wait_async_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

// Bulk copies (sm_90): one thread copies a contiguous run of bytes from
// global to shared memory in the background, and the run's arrival is
// counted on an mbarrier in shared memory; the threads that read the run
// wait for the barrier's phase. Built only where the device code is for
// sm_90 or later (TILEDQR_BULK_COPIES); elsewhere the callers keep cp.async.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TILEDQR_BULK_COPIES 1
#else
#define TILEDQR_BULK_COPIES 0
#endif

// An mbarrier (8 bytes of shared memory, 8-byte aligned) that completes a
// phase when `count` threads have arrived and every expected byte landed.
__device__ __forceinline__ void barrier_init(uint64_t* barrier, int count) {
#if TILEDQR_BULK_COPIES
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)), "r"(count) : "memory");
#endif
}

// Makes the barriers initialised so far visible to the bulk copies (the
// async proxy); then a block barrier makes them visible to the threads.
__device__ __forceinline__ void fence_barrier_init() {
#if TILEDQR_BULK_COPIES
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

// The barrier's memory may be used otherwise once every thread is past it.
__device__ __forceinline__ void barrier_invalidate(uint64_t* barrier) {
#if TILEDQR_BULK_COPIES
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(shared_address(barrier)) : "memory");
#endif
}

// Orders this thread's earlier accesses (and those it has synchronised
// with: writes of shared memory by the block, of global memory by tasks it
// acquired) before its later bulk copies, which work through another proxy.
__device__ __forceinline__ void fence_async() {
#if TILEDQR_BULK_COPIES
  asm volatile("fence.proxy.async;\n" ::: "memory");
#endif
}

// This thread's arrival on `barrier`, announcing `bytes` more to land
// before the phase completes.
__device__ __forceinline__ void barrier_arrive_expect(uint64_t* barrier, uint32_t bytes) {
#if TILEDQR_BULK_COPIES
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
#endif
}

// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from
// global `src` to the shared-memory address `dst`, counted on `barrier`.
__device__ __forceinline__ void copy_bulk(uint32_t dst, const void* src, uint32_t bytes, uint64_t* barrier) {
#if TILEDQR_BULK_COPIES
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(shared_address(barrier))
               : "memory");
#endif
}

// Waits until the phase of `barrier` with parity `parity` (0 for its
// first, then alternating) has completed.
__device__ __forceinline__ void barrier_wait(uint64_t* barrier, uint32_t parity) {
#if TILEDQR_BULK_COPIES
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred complete;\nmbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
        "selp.u32 %0, 1, 0, complete;\n}\n"
        : "=r"(done)
        : "r"(shared_address(barrier)), "r"(parity)
        : "memory");
  } while (!done);
#endif
}

}  // namespace tiledqr::kernels::block
