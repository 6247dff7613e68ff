// The engine of the block update kinds (ormqr, tsmqr, ttmqr) and of the
// factor kinds' trailing updates: one thread block applies the compact-WY
// block reflectors of a geqrt, tsqrt or ttqrt factor, inner block by inner
// block, as three matrix products (LAPACK ?gemqrt/?tpmqrt):
//   W = [A1_b +] V_bᵀ C,   W = T_bᵀ W (Qᵀ) or T_b W (Q),   [A1_b −= W,] C −= V_b W,
// on the FP64 tensor cores for both precisions. Buttari et
// al.'s DLARFB/DSSRFB as block reflectors; their one-reflector-at-a-time
// update (docs/design.md §2) is the same product.
//
// Double (tensor cores). Warp w owns 16 columns of C (and, for NB = 256,
// a slice of their rows) and keeps them in registers for the whole task,
// as the accumulator of Cᵀ(16, ·) −= Wᵀ(16, IB) · V_bᵀ(IB, ·). The other
// two products are written transposed too, Wᵀ = Cᵀ V_b and Wᵀ ← Wᵀ T_b, so
// that every operand a warp needs from another product is already in its
// registers: the sum over the inner dimension may run in any order, and
// each mma's k slots are assigned to rows (or columns) so that one
// product's accumulator holds the next one's operand. An accumulator is
// laid out as its B operand transposed, pair for pair, but not as its A
// operand (whose k pairs sit apart), so Cᵀ as the A operand of Wᵀ = Cᵀ V_b
// costs register copies (up to eight an mma). With several slices, whose
// partial W's meet in shared memory anyway, the engine forms W = V_bᵀ C
// instead: C's accumulators are its B operand untouched, V_bᵀ its A (two
// 16-byte reads of V_b a fragment), and W turns into Wᵀ on its way through
// shared memory. With one slice the copies are cheaper than that trip
// (report/data/block_kernels_ncu.txt). V_b, T_b and A1_b come through
// shared memory, copied asynchronously one inner block ahead
// (double-buffered when it fits).
//
// Float takes the same path: its operands are widened to double on the way
// in (C when loaded into registers; V_b, T_b and A1_b copied asynchronously
// as floats and widened in shared memory), the products run in FP64, and C
// and A1 are rounded to float once, when written back. FP64 tensor cores
// are faster here than FP32 FMAs (report/data/block_kernels_h200.csv) and the
// result is at least as accurate. The FMA path (SIMT) below stays as the
// measured alternative: each thread keeps an 8 × 8 (or 4 × 8) block of C in
// registers; W's sums over rows meet in a butterfly of shuffles, and V_b,
// T_b, W pass through shared memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "device_primitives.cuh"

namespace tiledqr::kernels::block {

// What V looks like: the full (m, k) V2 of tsqrt (tsmqr), the unit lower
// trapezoidal V of geqrt whose upper triangle holds R (ormqr), or the upper
// triangular V2 of ttqrt whose strict lower part holds another factor's V
// (ttmqr; LAPACK ?tpmqrt with l = k). Row r of column j of inner block b is
// on the diagonal when r + row_offset = b·IB + j (CompactWy).
enum class ReflectorShape { full, unit_lower, upper };

// One application of compact-WY block reflectors: C ← Qᵀ C or Q C with
// Q = I − V T Vᵀ taken inner block by inner block (device pointers):
//   m, n, k       rows of V and C (≤ NB), columns of C (≤ NB), reflectors;
//   first_block   inner blocks first_block … ⌈k/IB⌉ − 1 are applied (the
//                 panels of geqrt/tsqrt/ttqrt apply the one they just made);
//   row_offset    row r of V and C is row r + row_offset of the tile the
//                 reflectors were made in (geqrt's trailing update starts at
//                 the panel's diagonal row);
//   v  (m, k) col-major, ldv;  t (IB, k) col-major, ldt: the upper
//                 triangular T_b side by side (strict lower parts not read);
//   a1 (k, n) col-major, lda1: the tile on top (full and upper shapes only);
//   c  (m, n) col-major, ldc;
//   staged        optional (full V of NB rows, whole inner blocks): the same
//                 V and T as the engine's stages hold them, inner block b at
//                 b·MmaStageLayout::staged_block_elements (write_staged), so
//                 that a stage fills by one bulk copy with no transposition.
template <typename T>
struct CompactWy {
  int m, n, k;
  int first_block, row_offset;
  const T* v;
  int ldv;
  const T* t;
  int ldt;
  T* a1;
  int lda1;
  T* c;
  int ldc;
  const T* staged = nullptr;
};

// Which columns j of an inner block (its first column col0, kb columns)
// have row r of V stored: lo ≤ j < hi; `unit` is the column whose entry in
// row r is the unit diagonal (−1: none). Row r is on column j's diagonal
// when r + row_offset = col0 + j; rows r ≥ m have no entries. Two compares
// an entry, where testing the shape entry by entry cost several times the
// copy.
struct ReflectorRow {
  int lo, hi, unit;
};
__device__ __forceinline__ ReflectorRow reflector_row(ReflectorShape shape, int r, int m, int kb, int col0,
                                                      int row_offset) {
  const int d = r + row_offset - col0;  // the column whose diagonal row r is
  if (r >= m) return {0, 0, -1};
  if (shape == ReflectorShape::unit_lower) return {0, d < kb ? d : kb, d < kb ? d : -1};  // below the diagonal
  if (shape == ReflectorShape::upper) return {d > 0 ? d : 0, kb, -1};                      // on and above it
  return {0, kb, -1};
}

// How the tensor-core path spreads C over its warps: `warps` warps in
// `slices` row slices; warp w holds rows (w mod slices)·NB/slices … of 16
// columns, so `warps / slices` groups of 16 columns are done at once and the
// tile takes `passes` passes over its columns. One slice (NB ≤ 128): a warp
// holds whole columns and forms its part of W alone. Several slices (NB =
// 256, whose columns do not fit one warp's registers): the slices of a
// column group add their partial W's through shared memory.
// `part`: the columns of an inner block applied at once. An inner block
// of IB columns is the product of its parts' block reflectors, each with
// the diagonal block of T_b as its T (Schreiber and Van Loan, "A
// storage-efficient WY representation for products of Householder
// transformations"), so the engine may stage IB columns and form W a part
// at a time, in fewer registers. Whole inner blocks by default: at NB = 256
// parts of 16 ran at 24.1 TFLOP/s against 24.5 whole once the V copy stopped
// spilling, and spilled in float (report/data/block_kernels_ncu.txt); with
// the unmasked staging they are within 2 % (29.7 against 29.3,
// report/data/block_kernels_h200.csv), so the benchmark keeps measuring them.
// `update_k`: the k of the mma in C −= V_b W, 8 or 16 (two 8-column steps
// of W an instruction: half the mma instructions). Measured on an H200
// (report/data/block_kernels_h200_k16.csv): 16 within 1 % of 8 at tile 256
// (29.4 against 29.0 TFLOP/s at ib 32), 6 % slower at 128/32 (26.9 against
// 28.7), and in FR4's task kernel its eight-register operands spilled (ptxas
// -v, 256/16: 1004 bytes a thread against 64; FR4 16384², tile 256: 235 ms
// at ib 32 and 280 at ib 16, against 224 and 225 with 8 in other runs,
// report/data/fr4_engine_h200.csv), so 8; the benchmark keeps measuring 16.
// `staged_update_k`: the same for tsmqr's Qᵀ with staged copies (its own
// instance, without the staging loop's addresses): 16 spills less there
// (ptxas -v, 256/32: 28 bytes a thread against 48; float 8 against 12) and
// ran faster (FR4 16384², tile 256, the same machine: 190.8 against 195.2 ms
// in double, 189.5 against 192.0 in float; report/data/fr4_staged_h200.csv).
template <int NB>
struct MmaWarps {
  static constexpr int slices = NB <= 128 ? 1 : 2;
  static constexpr int warps = NB <= 128 ? NB / 16 : 8;
  static constexpr int part = 64;
  static constexpr int update_k = 8;
  static constexpr int staged_update_k = 16;
};

// Shared memory a block may take when `blocks` blocks share a
// multiprocessor (228 KB on sm_90, 1 KB of it reserved per block).
constexpr std::size_t shared_budget(int blocks) { return (228 * 1024) / std::size_t(blocks) - 1024; }

// Shared-memory layout of the tensor-core path. BLOCKS: the blocks a
// multiprocessor should hold (the kernels' launch bounds, and the stages
// shrink to let that many fit where they can). T: the operands' scalar; for
// float the asynchronous copies land in `raw_stages` float stages of the
// same element layout, widened into one double stage before each inner
// block's products.
template <int NB, int IB, int SLICES = MmaWarps<NB>::slices, int WARPS = MmaWarps<NB>::warps, int BLOCKS = 1,
          typename T = double>
struct MmaStageLayout {
  static_assert(std::is_same<T, double>::value || std::is_same<T, float>::value, "double or float operands");
  static constexpr bool widened = std::is_same<T, float>::value;
  static_assert(NB % 16 == 0 && NB >= 16 && NB <= 256, "NB must be a multiple of 16, at most 256");
  static_assert(IB % 16 == 0 && IB >= 16 && IB <= NB, "IB must be a multiple of 16, 16 ≤ IB ≤ NB");
  static constexpr int warps = WARPS;
  static constexpr int threads = 32 * warps;
  static constexpr int slices = SLICES;
  static constexpr int slice_rows = NB / SLICES;   // rows of C a warp holds
  static constexpr int groups = WARPS / SLICES;    // column groups of 16 at once
  static constexpr int pass_columns = 16 * groups;
  static constexpr int passes = NB / pass_columns;
  static_assert(WARPS % SLICES == 0 && slice_rows % 8 == 0 && NB % pass_columns == 0,
                "slices must split the rows in multiples of 8 and the warps evenly");
  static_assert(slice_rows * 16 / 32 <= 64, "C's part must fit a warp's registers (at most 64 per lane)");
  // V_b (NB, IB) row-major, ld = IB, 16-byte units XOR-swizzled (v_offset).
  static constexpr int v_elements = NB * IB;
  // T_b (IB, IB) row-major, ld = IB + 2: conflict-free for the Wᵀ T_b reads.
  static constexpr int ld_t = IB + 2;
  static constexpr int t_elements = IB * ld_t;
  // A1_b (IB, pass_columns) stored as its transpose, ld = IB + 8.
  static constexpr int ld_top = IB + 8;
  static constexpr int top_elements = pass_columns * ld_top;
  static constexpr int stage_elements = v_elements + t_elements + top_elements;
  // V_b and T_b as a stage holds them, one inner block of a staged copy
  // (CompactWy::staged), and the bulk copies' mbarriers (one a stage).
  static constexpr int staged_block_elements = v_elements + t_elements;
  static constexpr int barrier_bytes = 16;
  // Each warp's partial W (IB, 16), when the slices must add them.
  static constexpr int partial_elements = SLICES > 1 ? WARPS * 16 * IB : 0;
  static constexpr int blocks = BLOCKS;
  // Double stages (the products read these) and, for float, the float
  // stages the copies fill: two of a kind when they fit, so that the next
  // inner block's copy overlaps this one's products.
  static constexpr int stages =
      !widened && (2 * stage_elements + partial_elements) * 8 + barrier_bytes <= shared_budget(BLOCKS) ? 2 : 1;
  static constexpr int raw_stages =
      widened && (stage_elements + partial_elements) * 8 + 2 * stage_elements * 4 + barrier_bytes <=
                     shared_budget(BLOCKS)
          ? 2
      : widened ? 1
                : 0;
  static constexpr std::size_t raw_offset =  // bytes from the start to the first float stage
      (std::size_t(stages) * stage_elements + partial_elements) * sizeof(double);
  static constexpr std::size_t barrier_offset = raw_offset + std::size_t(raw_stages) * stage_elements * sizeof(float);
  static constexpr std::size_t shared_bytes = barrier_offset + barrier_bytes;
  static_assert(stage_elements % 4 == 0 && staged_block_elements % 4 == 0,
                "stages and staged blocks (double or float) must stay 16-byte aligned");
  static constexpr bool fits = shared_bytes <= 227 * 1024;  // one multiprocessor's shared memory
};

// Element (m, j) of V_b in its stage. The 16-byte unit j/2 of row m is XORed
// with a function of m's low bits, so both access patterns (a column of 8
// rows × 4 slots for Wᵀ = Cᵀ V_b, pairs along a row for C ᵀ −= Wᵀ V_bᵀ) hit
// 16 distinct banks per half-warp.
template <int IB>
__device__ __forceinline__ int v_offset(int m, int j) {
  const int swizzle = (((m >> 1) & 3) << 1) ^ ((m & 1) << 2);
  return m * IB + ((((j >> 1) ^ swizzle)) << 1) + (j & 1);
}

// Copies inner block b's V_b, T_b and A1_b (the pass's columns from
// column0) into `stage` (asynchronously; masked and padded entries become
// zeros, a unit diagonal a plain 1), in the operands' scalar T: a double
// stage, or for float a float stage that widen_stage turns into one.
// Consecutive threads copy consecutive rows of a column. Inlined: out of
// line (a call an inner block) it left fewer registers live beside C's
// accumulators (ptxas -v in FR4's task kernel, 256/32: 32 bytes spilled a
// thread against 80) yet FR4 ran slower (16384², tile 256, the same run:
// 231 against 224 ms in double, 252 against 233 in float;
// report/data/fr4_engine_h200.csv).
// With `v_and_t` false only A1_b is copied (V_b and T_b come by a bulk copy
// of a staged copy). `a1_whole`: the caller knows A1_b whole (a full inner
// block, every pass column inside the tile, columns 16-byte aligned), so
// A1_b takes 16-byte copies with no masks.
template <class L, int NB, int IB, typename T>
__device__ void stage_inner_block(ReflectorShape shape, T* stage, int b, int column0, const CompactWy<T>& a,
                                  bool v_and_t = true, bool a1_whole = false) {
  static_assert(L::threads % NB == 0 && L::threads % IB == 0 && (NB * IB) % L::threads == 0,
                "the copy loops have compile-time trip counts and per-thread rows");
  constexpr int bytes = sizeof(T);
  const int m = a.m, n = a.n, k = a.k, ldv = a.ldv, ldt = a.ldt, lda1 = a.lda1;
  const T *v = a.v, *t = a.t, *a1 = a.a1;
  const int tid = threadIdx.x;
  const int col0 = b * IB;
  const int kb = k - col0 < IB ? k - col0 : IB;
  T* vs = stage;
  T* ts = stage + L::v_elements;
  T* tops = ts + L::t_elements;
  if (v_and_t) {  // V_b(r, j): consecutive threads copy consecutive rows.
    constexpr int step = L::threads / NB;  // columns copied at once
    const int r = tid % NB, j0 = tid / NB;
    const int swizzle = (((r >> 1) & 3) << 1) ^ ((r & 1) << 2);
    const T* src = v + std::size_t(col0 + j0) * ldv + r;
    if (shape == ReflectorShape::full && m == NB && kb == IB) {
      // A whole inner block of a full V (tsmqr's, nearly every task): every
      // entry is stored, so the copies take no masks and no per-entry tests,
      // which otherwise cost several times the copy itself.
      const uint32_t row = shared_address(vs + r * IB);
      const unsigned char* from = reinterpret_cast<const unsigned char*>(src);
      const std::size_t stride = std::size_t(step) * ldv * bytes;
#pragma unroll 4
      for (int s = 0; s < IB / step; ++s) {
        const int j = j0 + step * s;
        copy_async_whole<bytes>(row + bytes * ((((j >> 1) ^ swizzle) << 1) + (j & 1)), from);  // v_offset(r, j)
        from += stride;
      }
    } else {
      // Unrolled by two only: unrolled fully, the copies' addresses stay
      // live beside C's accumulators and spill (ptxas -v: 172 bytes at NB =
      // 256, IB = 32; none at two).
      const ReflectorRow row = reflector_row(shape, r, m, kb, col0, a.row_offset);
#pragma unroll 2
      for (int s = 0; s < IB / step; ++s) {
        const int j = j0 + step * s;
        T* dst = vs + r * IB + ((((j >> 1) ^ swizzle)) << 1) + (j & 1);  // v_offset(r, j)
        if (j == row.unit) {
          *dst = T(1);
          continue;
        }
        const bool valid = j >= row.lo && j < row.hi;
        copy_async<bytes>(dst, valid ? src + std::size_t(step * s) * ldv : v, valid);
      }
    }
  }
  if (v_and_t) {  // T_b(i, j), upper triangle only.
    constexpr int step = L::threads / IB;
    const int i = tid % IB, j0 = tid / IB;
#pragma unroll
    for (int s = 0; s < (IB + step - 1) / step; ++s) {
      const int j = j0 + step * s;
      if (j < IB) {
        const bool valid = i <= j && j < kb;
        copy_async<bytes>(ts + i * L::ld_t + j, valid ? t + std::size_t(col0 + j) * ldt + i : t, valid);
      }
    }
  }
  if (a1_whole) {  // A1_b(j, column0 + c) → tops[c][j], 16 bytes (2 or 4 rows) a copy
    // The masked loops below spent ~500 instructions a warp and inner block
    // on 4 copies a thread (report/data/block_kernels_ncu.txt): addresses
    // and masks per copy. Here one address a thread, then constant strides.
    constexpr int per = 16 / bytes, units = IB / per, step = L::threads / units;
    static_assert(IB % per == 0 && L::threads % units == 0 && L::pass_columns % step == 0,
                  "the whole copy has a compile-time trip count");
    const int j = per * (tid % units), c0 = tid / units;
    const uint32_t to = shared_address(tops + c0 * L::ld_top + j);
    const unsigned char* from =
        reinterpret_cast<const unsigned char*>(a1 + std::size_t(column0 + c0) * lda1 + col0 + j);
    const std::size_t stride = std::size_t(step) * lda1 * bytes;
#pragma unroll
    for (int s = 0; s < L::pass_columns / step; ++s) {
      copy_async_whole<16>(to + s * step * L::ld_top * bytes, from);
      from += stride;
    }
  } else if (shape != ReflectorShape::unit_lower) {  // A1_b(j, column0 + c) → tops[c][j]
    if (bytes == 8 && columns_16_byte_aligned(a1, lda1)) {  // pairs of double rows, 16 bytes a copy
      constexpr int pairs = IB / 2, step = L::threads / pairs;
      const int j = 2 * (tid % pairs), c0 = tid / pairs;
#pragma unroll
      for (int s = 0; s < (L::pass_columns + step - 1) / step; ++s) {
        const int c = c0 + step * s, col = column0 + c;
        if (c < L::pass_columns) {
          const int rows = col < n ? (kb - j >= 2 ? 2 : (kb - j == 1 ? 1 : 0)) : 0;
          copy_async<16>(tops + c * L::ld_top + j, rows > 0 ? a1 + std::size_t(col) * lda1 + col0 + j : a1,
                         bytes * rows);
        }
      }
    } else {
      constexpr int step = L::threads / IB;
      const int j = tid % IB, c0 = tid / IB;
#pragma unroll
      for (int s = 0; s < (L::pass_columns + step - 1) / step; ++s) {
        const int c = c0 + step * s, col = column0 + c;
        if (c < L::pass_columns) {
          const bool valid = j < kb && col < n;
          copy_async<bytes>(tops + c * L::ld_top + j, valid ? a1 + std::size_t(col) * lda1 + col0 + j : a1, valid);
        }
      }
    }
  }
}

// The float stage `raw` widened into the double stage `stage` (same element
// layout), pairs of elements a thread at a time. Padding the copies never
// wrote is widened too and never read.
template <class L>
__device__ __forceinline__ void widen_stage(const float* raw, double* stage) {
  const float2* from = reinterpret_cast<const float2*>(raw);
  double2* to = reinterpret_cast<double2*>(stage);
  for (int e = threadIdx.x; e < L::stage_elements / 2; e += L::threads) {
    const float2 x = from[e];
    to[e] = make_double2(x.x, x.y);
  }
}

// The named barrier of `threads` threads numbered `id` (1 … 15; 0 is
// __syncthreads's).
__device__ __forceinline__ void group_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Two adjacent elements of a column as doubles, and back (rounded to T).
__device__ __forceinline__ void load_pair(const double* p, double& x, double& y) {
  const double2 pair = *reinterpret_cast<const double2*>(p);
  x = pair.x;
  y = pair.y;
}
__device__ __forceinline__ void load_pair(const float* p, double& x, double& y) {
  const float2 pair = *reinterpret_cast<const float2*>(p);
  x = pair.x;
  y = pair.y;
}
__device__ __forceinline__ void store_pair(double* p, double x, double y) {
  *reinterpret_cast<double2*>(p) = make_double2(x, y);
}
__device__ __forceinline__ void store_pair(float* p, double x, double y) {
  *reinterpret_cast<float2*>(p) = make_float2(static_cast<float>(x), static_cast<float>(y));
}

// True when p and every column start p + j·ld can be read in pairs of T.
template <typename T>
__device__ __forceinline__ bool columns_pair_aligned(const T* p, int ld) {
  return ((reinterpret_cast<uintptr_t>(p) | (uintptr_t(ld) * sizeof(T))) & (2 * sizeof(T) - 1)) == 0;
}

// Moves a warp's part of C (rows row0 + 8mt + 2q and + 1, columns n0 + g
// and + 8, as the accumulators ct hold them) from the tile into ct (zeros
// outside it), or with `store` back into the tile, rounded to T; `pairs`:
// columns that take pairs of T, and a full tile unless MASKED, where pairs
// outside the tile's m (even) rows and n columns are skipped.
template <bool store, bool MASKED = false, typename T, int m_tiles>
__device__ __forceinline__ void move_c(const CompactWy<T>& a, bool pairs, int row0, int n0,
                                       double (&ct)[m_tiles][4]) {
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  if (pairs) {
#pragma unroll
    for (int mt = 0; mt < m_tiles; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + 8 * mt + 2 * q, col = n0 + g + 8 * h;
        T* const p = a.c + std::size_t(col) * a.ldc + row;
        if (MASKED && !(row < a.m && col < a.n)) {
          if (!store) ct[mt][2 * h] = ct[mt][2 * h + 1] = 0.0;
          continue;
        }
        if (store) store_pair(p, ct[mt][2 * h], ct[mt][2 * h + 1]);
        else load_pair(p, ct[mt][2 * h], ct[mt][2 * h + 1]);
      }
    return;
  }
#pragma unroll
  for (int mt = 0; mt < m_tiles; ++mt)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row = row0 + 8 * mt + 2 * q + (r & 1), col = n0 + g + 8 * (r >> 1);
      const bool inside = row < a.m && col < a.n;
      T* const p = a.c + std::size_t(col) * a.ldc + row;
      if (store && inside) *p = static_cast<T>(ct[mt][r]);
      if (!store) ct[mt][r] = inside ? static_cast<double>(*p) : 0.0;
    }
}

// The tensor-core path (double products; T = double or float operands). C
// is A2 of tsmqr/ttmqr (with A1 on top) or the tile of ormqr (no A1);
// shared MmaStageLayout<NB, IB, SLICES, WARPS, BLOCKS, T>::shared_bytes,
// 16-byte aligned; a block of 32·WARPS threads.
// Preconditions (checked by the callers): m, n ≤ NB, k ≤ NB + row_offset.
// `transpose` is a template argument so that every register index below is
// a compile-time constant (a run-time one would move wt to local memory).
// Each m16n8k8 takes a lane's two k slots q and q + 4 as the pair e = 0, 1
// of adjacent rows (or columns) that the lane holds.
// STAGED: a.staged may be used (apply_compact_wy_staged); a separate
// instance, so that the other callers keep the registers it takes.
// NARROW: n may be well below NB (the panels' trailing updates, down to
// one inner block), so passes past column n are skipped: geqrt 256/32 759
// µs a task against 903, tsqrt 744 against 857 (report/data/
// block_kernels_h200_narrow.csv); the update kinds, whose n is NB in FR4, keep a
// compile-time pass count.
template <typename T, int NB, int IB, bool transpose, int SLICES = MmaWarps<NB>::slices,
          int WARPS = MmaWarps<NB>::warps, int BLOCKS = 1, int PART = MmaWarps<NB>::part,
          int UPDATE_K = MmaWarps<NB>::update_k, bool STAGED = false, bool NARROW = false>
__device__ void apply_compact_wy_mma(ReflectorShape shape, const CompactWy<T>& a, double* shared) {
  using L = MmaStageLayout<NB, IB, SLICES, WARPS, BLOCKS, T>;
  static_assert(L::fits, "the stages must fit one multiprocessor's shared memory");
  const int m = a.m, n = a.n, k = a.k, ldc = a.ldc, lda1 = a.lda1;
  T* const c = a.c;
  T* const a1 = a.a1;
  constexpr int m_tiles = L::slice_rows / 8;  // 8-row slices of this warp's part of C
  constexpr int PART_ = PART < IB ? PART : IB;  // columns of V_b applied at once
  static_assert(PART_ % 16 == 0 && IB % PART_ == 0, "parts of whole 16-column tiles that split the inner block");
  static_assert(UPDATE_K == 8 || UPDATE_K == 16, "C −= V_b W by m16n8k8 or m16n8k16");
  constexpr int parts = IB / PART_;
  constexpr int j_tiles = PART_ / 8;          // 8-column slices of W (one part's)
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, q = lane & 3;
  const int slice = warp % SLICES, group = warp / SLICES;
  const int row0 = slice * L::slice_rows;  // this warp's rows of C: row0 … row0 + slice_rows − 1
  const int blocks = (k + IB - 1) / IB - a.first_block;
  double* const partials = shared + L::stages * L::stage_elements;

  // v_offset rewritten as a per-lane base plus a compile-time offset. For
  // W = V_bᵀ C (several slices) the lane reads the pairs V_b(8mt + 2q + e,
  // 2g + {0, 1}) of a 16-column tile: the swizzle 2q ^ 4e flips the low
  // bits of g. For Wᵀ = Cᵀ V_b (one slice) it reads V_b(8mt + 2q + e,
  // g + 8jt): the same swizzle flips the low bits of g/2 and, through bit 2,
  // swaps odd and even jt. For Cᵀ −= Wᵀ V_bᵀ it reads the pair
  // V_b(g + 8mt, 8jt + 2q + {0, 1}). The slice's first row is a multiple of
  // 8, which keeps the swizzle.
  int a_base[2];     // [e]
  int w_base[2][2];  // [e][jt & 1]
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    const int sw = (2 * q) ^ (4 * e);
    a_base[e] = (row0 + 2 * q + e) * IB + 2 * (g ^ sw);
    const int base = (row0 + 2 * q + e) * IB + 2 * ((g >> 1) ^ (sw & 3)) + (g & 1);
    w_base[e][0] = base + 8 * (sw >> 2);
    w_base[e][1] = base - 8 * (sw >> 2);
  }
  int c_base[2];  // [jt & 1]
  {
    const int s = (((g >> 1) & 3) << 1) ^ ((g & 1) << 2);
    const int base = (row0 + g) * IB + 2 * (q ^ (s & 3));
    const int swap = 8 * (s >> 2);
    c_base[0] = base + swap;
    c_base[1] = base - swap;
  }
  // C's rows row0 + 8mt + 2q and + 1 are adjacent: accesses of a pair for
  // a full tile with aligned columns.
  // NARROW: any even m and n (the panels' trailing updates), pair by pair.
  const bool c_pairs = columns_pair_aligned(c, ldc) && (NARROW ? m % 2 == 0 : m == NB && n == NB);
  auto stage_of = [&](int s) { return shared + s * L::stage_elements; };
  // Where an inner block's copies land: a double stage, or a float stage.
  auto copy_stage = [&](int s) {
    unsigned char* const base = reinterpret_cast<unsigned char*>(shared);
    return reinterpret_cast<T*>(L::widened ? base + L::raw_offset + std::size_t(s) * L::stage_elements * sizeof(T)
                                           : base + std::size_t(s) * L::stage_elements * sizeof(double));
  };
  auto block_at = [&](int step) { return a.first_block + (transpose ? step : blocks - 1 - step); };

  // With a staged copy (CompactWy::staged) one thread fills a stage's V_b
  // and T_b by one bulk copy, counted on the stage's mbarrier, while every
  // thread copies A1_b as before (cp.async); `phases` bit s is the parity of
  // stage s's next phase.
  const bool bulk = STAGED && TILEDQR_BULK_COPIES && a.staged != nullptr && shape == ReflectorShape::full &&
                    m == NB && k % IB == 0;
  // Every inner block's A1_b whole in every pass (FR4's tsmqr on whole
  // tiles): unmasked copies and stores.
  const bool a1_whole = bulk && n == NB && columns_16_byte_aligned(a1, lda1);
  uint64_t* const barriers = reinterpret_cast<uint64_t*>(reinterpret_cast<unsigned char*>(shared) + L::barrier_offset);
  uint32_t phases = 0;
  auto stage = [&](int s, int b, int column0) {
    T* const to = copy_stage(s);
    if (bulk && threadIdx.x == 0) {
      constexpr uint32_t bytes = L::staged_block_elements * sizeof(T);
      barrier_arrive_expect(barriers + s, bytes);
      copy_bulk(shared_address(to), a.staged + std::size_t(b) * L::staged_block_elements, bytes, barriers + s);
    }
    stage_inner_block<L, NB, IB>(shape, to, b, column0, a, !bulk, a1_whole);
    commit_async_copies();
  };
  auto wait_stage = [&](int s) {
    wait_async_copies<0>();
    if (bulk) {
      barrier_wait(barriers + s, (phases >> s) & 1u);
      phases ^= 1u << s;
    }
  };
  if (bulk) {
    if (threadIdx.x == 0) {
      barrier_init(barriers, 1);
      barrier_init(barriers + 1, 1);
      fence_barrier_init();
    }
    fence_async();  // the block's earlier writes of the stages and the staged copy's writer come first
    __syncthreads();
  }

  // Passes over columns past n would only move zeros.
  const int passes = NARROW ? (n + L::pass_columns - 1) / L::pass_columns : L::passes;
#pragma unroll 1
  for (int pass = 0; pass < passes; ++pass) {
    const int column0 = pass * L::pass_columns;  // the pass's first column
    const int n0 = column0 + 16 * group;         // this warp's columns n0 … n0 + 15
    const int top_row = 16 * group;              // … and their rows in the staged A1_bᵀ

    // Cᵀ (16, slice_rows) of this warp: ct[mt][r] = C(row0 + 8mt + 2q + r%2, n0 + g + 8(r/2)).
    double ct[m_tiles][4];
    // One part's Wᵀ (16, PART_): wt[jt][r] = Wᵀ(g + 8(r/2), j0 + 8jt + 2q + r%2).
    double wt[j_tiles][4];

    if (blocks > 0) stage(0, block_at(0), column0);

    move_c<false, NARROW>(a, c_pairs, row0, n0, ct);

    for (int step = 0; step < blocks; ++step) {
      const int b = block_at(step);
      // The stage whose copies this step waits for, and the one filled for
      // the next step meanwhile. One block barrier a step with two stages:
      // past it every warp is done with the previous step, so its stage
      // (and the partial sums) may take the next inner block's copies —
      // no second barrier at the end of the step, and the warps drift
      // apart between barriers, one's products beside another's loads.
      const int copies = L::widened ? L::raw_stages : L::stages;
      const int s = copies == 2 ? step & 1 : 0;
      if (copies != 2 && step > 0) stage(0, b, column0);
      wait_stage(s);
      if (L::widened) {  // float: the products read the one double stage
        __syncthreads();
        widen_stage<L>(reinterpret_cast<const float*>(copy_stage(s)), stage_of(0));
      }
      __syncthreads();
      if (copies == 2 && step + 1 < blocks) stage(s ^ 1, block_at(step + 1), column0);
      const double* vs = stage_of(L::widened ? 0 : s);
      const double* ts = vs + L::v_elements;
      const double* tops = ts + L::t_elements;

      // The inner block's parts in the order their reflectors apply: first
      // to last for Qᵀ, last to first for Q. Part h is columns h·PART_ …
      // of V_b, the diagonal block of T_b there, and rows h·PART_ … of A1_b.
#pragma unroll 1
      for (int part_step = 0; part_step < parts; ++part_step) {
        const int h = transpose ? part_step : parts - 1 - part_step;
        const int j0 = h * PART_;      // the part's first column of V_b
        const int jt0 = j0 / 8;        // … as an 8-column tile (even: jt0 + jt has jt's parity)

        if constexpr (SLICES == 1) {
          // Wᵀ = Cᵀ V_b over this warp's rows: k slots q, q + 4 of step mt are
          // rows row0 + 8mt + 2q + {0, 1} of C.
#pragma unroll
          for (int jt = 0; jt < j_tiles; ++jt)
#pragma unroll
            for (int r = 0; r < 4; ++r) wt[jt][r] = 0.0;
#pragma unroll
          for (int mt = 0; mt < m_tiles; ++mt)
#pragma unroll
            for (int jt = 0; jt < j_tiles; ++jt) {
              const int offset = 8 * mt * IB + 8 * (jt0 + jt);
              mma_m16n8k8(wt[jt], ct[mt][0], ct[mt][2], ct[mt][1], ct[mt][3],
                          vs[w_base[0][jt & 1] + offset], vs[w_base[1][jt & 1] + offset]);
            }
        } else {
          // W = V_bᵀ C over this warp's rows, a 16-row tile jm of W (its
          // columns j0 + 16jm …) at a time: k slots q, q + 4 of step mt are
          // rows row0 + 8mt + 2q + {0, 1} of C, m rows g and g + 8 columns 2g
          // and 2g + 1 of the tile, n the warp's columns g (cn = 0) or g + 8:
          // wn[jm][cn][r] = W(j0 + 16jm + 2g + r/2, n0 + 8cn + 2q + r%2).
          constexpr int m16_tiles = PART_ / 16;
          double wn[m16_tiles][2][4];
#pragma unroll
          for (int jm = 0; jm < m16_tiles; ++jm)
#pragma unroll
            for (int r = 0; r < 8; ++r) wn[jm][r / 4][r % 4] = 0.0;
#pragma unroll
          for (int mt = 0; mt < m_tiles; ++mt)
#pragma unroll
            for (int jm = 0; jm < m16_tiles; ++jm) {
              const int offset = 8 * mt * IB + j0 + 16 * jm;
              const double2 lo = *reinterpret_cast<const double2*>(vs + a_base[0] + offset);
              const double2 hi = *reinterpret_cast<const double2*>(vs + a_base[1] + offset);
#pragma unroll
              for (int cn = 0; cn < 2; ++cn)
                mma_m16n8k8(wn[jm][cn], lo.x, lo.y, hi.x, hi.y, ct[mt][2 * cn], ct[mt][2 * cn + 1]);
            }

          // W to Wᵀ through shared memory, where the slices of a column group
          // add their parts, each in the same order, so every slice holds the
          // same Wᵀ to the bit; each part has its own region (no barrier
          // between parts). The lane writes pairs W(2g, 2g + 1; col) and reads
          // pairs Wᵀ(col; 2q, 2q + 1); W(j, col) is at col·PART_ + j, 16-byte
          // units XOR-swizzled by col as v_offset (both patterns conflict-free).
          double* const region = partials + h * WARPS * 16 * PART_;
          double* const mine = region + warp * 16 * PART_;
#pragma unroll
          for (int jm = 0; jm < m16_tiles; ++jm)
#pragma unroll
            for (int cn = 0; cn < 2; ++cn)
#pragma unroll
              for (int e = 0; e < 2; ++e)
                *reinterpret_cast<double2*>(mine + (8 * cn + 2 * q + e) * PART_ + 16 * jm +
                                            2 * (g ^ (2 * q) ^ (4 * e))) =
                    make_double2(wn[jm][cn][e], wn[jm][cn][2 + e]);
          group_barrier(1 + group, 32 * SLICES);
          const int sg = (((g >> 1) & 3) << 1) ^ ((g & 1) << 2);
#pragma unroll
          for (int jt = 0; jt < j_tiles; ++jt) {
            const int unit = (q ^ (sg & 3)) + 4 * ((jt & 1) ^ (sg >> 2)) + 8 * (jt >> 1);  // (4jt + q) ^ sg
#pragma unroll
            for (int h2 = 0; h2 < 2; ++h2) {
              double x = 0.0, y = 0.0;
#pragma unroll
              for (int other = 0; other < SLICES; ++other) {
                const double2 pair = *reinterpret_cast<const double2*>(
                    region + (group * SLICES + other) * 16 * PART_ + (g + 8 * h2) * PART_ + 2 * unit);
                x = other == 0 ? pair.x : x + pair.x;
                y = other == 0 ? pair.y : y + pair.y;
              }
              wt[jt][2 * h2] = x;
              wt[jt][2 * h2 + 1] = y;
            }
          }
        }

        // Wᵀ += A1_bᵀ (tsmqr, ttmqr).
        if (shape != ReflectorShape::unit_lower) {
#pragma unroll
          for (int jt = 0; jt < j_tiles; ++jt)
#pragma unroll
            for (int h2 = 0; h2 < 2; ++h2) {
              const double2 top = *reinterpret_cast<const double2*>(
                  tops + (top_row + g + 8 * h2) * L::ld_top + 8 * (jt0 + jt) + 2 * q);
              wt[jt][2 * h2] += top.x;
              wt[jt][2 * h2 + 1] += top.y;
            }
        }

        // Wᵀ ← Wᵀ T (Qᵀ) or Wᵀ Tᵀ (Q), T the part's diagonal block of T_b, in
        // place: column tile jt' of the product needs the tiles jt ≤ jt' (T
        // upper) or jt ≥ jt' (Tᵀ lower), so they are formed from the last
        // (first) tile on and each overwrites a tile no later one reads.
#pragma unroll
        for (int s2 = 0; s2 < j_tiles; ++s2) {
          const int out = transpose ? j_tiles - 1 - s2 : s2;
          double z[4] = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
          for (int jt = 0; jt < j_tiles; ++jt) {
            if (transpose ? jt > out : jt < out) continue;
            const int j = j0 + 8 * jt + 2 * q, jo = j0 + g + 8 * out;
            const double t0 = transpose ? ts[j * L::ld_t + jo] : ts[jo * L::ld_t + j];
            const double t1 = transpose ? ts[(j + 1) * L::ld_t + jo] : ts[jo * L::ld_t + j + 1];
            mma_m16n8k8(z, wt[jt][0], wt[jt][2], wt[jt][1], wt[jt][3], t0, t1);
          }
#pragma unroll
          for (int r = 0; r < 4; ++r) wt[out][r] = z[r];
        }

        // A1_b −= W (tsmqr, ttmqr; the first slice of each group):
        // A1(col0 + j, n0 + col) = A1_b(j, col) − Wᵀ(col, j). A later part
        // reads rows of A1_b no earlier part wrote.
        if (shape != ReflectorShape::unit_lower && slice == 0) {
          const int col0 = b * IB;
          const bool a1_pairs = columns_pair_aligned(a1, lda1);  // col0 + j is even
#pragma unroll
          for (int jt = 0; jt < j_tiles; ++jt)
#pragma unroll
            for (int h2 = 0; h2 < 2; ++h2) {
              const int j = 8 * (jt0 + jt) + 2 * q, col = n0 + g + 8 * h2;
              const double2 top =
                  *reinterpret_cast<const double2*>(tops + (top_row + g + 8 * h2) * L::ld_top + j);
              const double2 updated = make_double2(top.x - wt[jt][2 * h2], top.y - wt[jt][2 * h2 + 1]);
              T* p = a1 + std::size_t(col) * lda1 + col0 + j;
              if (a1_whole || (a1_pairs && col0 + j + 1 < k && col < n)) {
                store_pair(p, updated.x, updated.y);
              } else {
                if (col0 + j < k && col < n) p[0] = static_cast<T>(updated.x);
                if (col0 + j + 1 < k && col < n) p[1] = static_cast<T>(updated.y);
              }
            }
        }

        // Cᵀ −= Wᵀ V_bᵀ: k slots q, q + 4 of step jt are columns 8jt + 2q + {0, 1}
        // of W, one 16-byte read of V_b; with UPDATE_K = 16 an m16n8k16 takes
        // the steps jt and jt + 1 (j_tiles is even) as its two halves, Wᵀ
        // negated once into the eight registers of its A operand.
        if constexpr (UPDATE_K == 16) {
#pragma unroll
          for (int jt = 0; jt < j_tiles; jt += 2) {
            const int jg = jt0 + jt;  // even
            const double w[8] = {-wt[jt][0],     -wt[jt][2],     -wt[jt][1],     -wt[jt][3],
                                 -wt[jt + 1][0], -wt[jt + 1][2], -wt[jt + 1][1], -wt[jt + 1][3]};
#pragma unroll
            for (int mt = 0; mt < m_tiles; ++mt) {
              const double2 lo = *reinterpret_cast<const double2*>(vs + c_base[0] + 8 * mt * IB + 8 * jg);
              const double2 hi = *reinterpret_cast<const double2*>(vs + c_base[1] + 8 * mt * IB + 8 * (jg + 1));
              const double v[4] = {lo.x, lo.y, hi.x, hi.y};
              mma_m16n8k16(ct[mt], w, v);
            }
          }
        } else {
#pragma unroll
          for (int jt = 0; jt < j_tiles; ++jt) {
            const int jg = jt0 + jt;
            const double w0 = -wt[jt][0], w1 = -wt[jt][1], w2 = -wt[jt][2], w3 = -wt[jt][3];
#pragma unroll
            for (int mt = 0; mt < m_tiles; ++mt) {
              const double2 vb = *reinterpret_cast<const double2*>(vs + c_base[jt & 1] + 8 * mt * IB + 8 * jg);
              mma_m16n8k8(ct[mt], w0, w2, w1, w3, vb.x, vb.y);
            }
          }
        }
      }
      if (copies != 2) __syncthreads();  // the one stage is refilled next step
    }
    __syncthreads();  // the next pass (or the caller) refills the stages

    move_c<true, NARROW>(a, c_pairs, row0, n0, ct);
  }
  if (bulk) {  // every thread is past its last wait: the barriers' memory goes back to the caller
    if (threadIdx.x == 0) {
      barrier_invalidate(barriers);
      barrier_invalidate(barriers + 1);
    }
    __syncthreads();
  }
}

// The SIMT path's layout (float; any scalar): each thread holds a tm × tn
// block of C's current column chunk in registers, rows rt·tm … and columns
// ct·tn … of the chunk; the row_threads threads sharing columns are
// consecutive lanes of one warp, so the sum over rows in W = V_bᵀ C is a
// butterfly of shuffles. Shared memory: V_bᵀ (IB, NB) row-major, T_b (IB,
// IB) row-major with ld IB + 1, W and op(T_b) W (IB, chunk) row-major.
template <typename T, int NB, int IB>
struct SimtLayout {
  static_assert(NB % 16 == 0 && NB >= 64 && NB <= 256, "NB must be a multiple of 16 in 64 … 256");
  static_assert(IB % 8 == 0 && IB >= 8 && IB <= NB, "IB must be a multiple of 8, 8 ≤ IB ≤ NB");
  static constexpr int tm = NB >= 128 ? 8 : 4;  // rows of C per thread
  static constexpr int tn = 8;                  // columns of C per thread
  static constexpr int row_threads = NB / tm;
  static constexpr int threads = NB < 128 ? 128 : 256;
  static constexpr int blocks = 1;
  static constexpr int col_threads = threads / row_threads;
  static constexpr int chunk = col_threads * tn;  // columns per pass
  static constexpr int passes = NB / chunk;
  static_assert(row_threads <= 32 && 32 % row_threads == 0 && NB % chunk == 0,
                "a column's row threads must be lanes of one warp");
  static constexpr int group = 4;  // columns of W formed at once
  static_assert(IB % group == 0 && (group * tn) % row_threads == 0, "W's groups split evenly over the row threads");
  static constexpr int ld_t = IB + 1;
  static constexpr int v_elements = IB * NB;
  static constexpr int t_elements = IB * ld_t + (4 - IB * ld_t % 4) % 4;  // keeps W 16-byte aligned
  static constexpr int w_elements = IB * chunk;
  static constexpr std::size_t shared_bytes = sizeof(T) * std::size_t(v_elements + t_elements + 2 * w_elements);
};

namespace simt_detail {

// out[0 … N) = p[0 … N), 16 bytes a load: p 16-byte aligned, N·sizeof(T) a
// multiple of 16.
template <typename T, int N>
__device__ __forceinline__ void load_run(const T* p, T (&out)[N]) {
  constexpr int per = 16 / sizeof(T);
  static_assert(N % per == 0, "whole 16-byte units");
  using Unit = std::conditional_t<sizeof(T) == 4, float4, double2>;
#pragma unroll
  for (int i = 0; i < N / per; ++i) {
    const Unit x = reinterpret_cast<const Unit*>(p)[i];
    const T* parts = reinterpret_cast<const T*>(&x);
#pragma unroll
    for (int e = 0; e < per; ++e) out[per * i + e] = parts[e];
  }
}

// The sum of w over the lanes that differ in bits MASK, MASK/2, … 1, split
// among them: at each level a lane keeps one half of its values (the upper
// half when its bit is set) and adds the partner's copy of that half. At the
// end the lane holds the sums of its kept values, flat entries index …, in w[0 …).
// Templates keep every index a compile-time constant (w stays in registers).
template <int HALF, int MASK, typename T, int N>
__device__ __forceinline__ void butterfly(T (&w)[N], int lane, int& index) {
  if constexpr (MASK >= 1) {
    const bool upper = (lane & MASK) != 0;
#pragma unroll
    for (int i = 0; i < HALF; ++i) {
      const T low = w[i], high = w[i + HALF];
      const T send = upper ? low : high;
      const T keep = upper ? high : low;
      w[i] = keep + __shfl_xor_sync(0xffffffffu, send, MASK);
    }
    if (upper) index += HALF;
    butterfly<HALF / 2, MASK / 2>(w, lane, index);
  }
}

}  // namespace simt_detail

// The SIMT path: the same three products as the tensor-core path, with
// FMAs. Arguments as apply_compact_wy_mma; shared SimtLayout::shared_bytes,
// 16-byte aligned; a block of SimtLayout::threads threads.
template <typename T, int NB, int IB>
__device__ void apply_compact_wy_simt(ReflectorShape shape, bool transpose, const CompactWy<T>& a, T* shared) {
  using namespace simt_detail;
  using L = SimtLayout<T, NB, IB>;
  constexpr int TM = L::tm, TN = L::tn, RT = L::row_threads, G = L::group;
  constexpr int values = G * TN;                // W's partial sums a thread forms per group
  constexpr int kept = values / RT;             // … and holds after the butterfly
  const int m = a.m, n = a.n, k = a.k, ldv = a.ldv, ldt = a.ldt, lda1 = a.lda1, ldc = a.ldc;
  const T *v = a.v, *t = a.t;
  T* const a1 = a.a1;
  T* const c = a.c;
  T* vt = shared;                   // V_bᵀ (IB, NB): vt[j·NB + r] = V_b(r, j)
  T* ts = vt + L::v_elements;       // T_b (IB, IB): ts[i·ld_t + j] = T_b(i, j)
  T* ws = ts + L::t_elements;       // W (IB, chunk): ws[j·chunk + col]
  T* zs = ws + L::w_elements;       // op(T_b) W (IB, chunk)
  const int tid = threadIdx.x, lane = tid & 31;
  const int rt = lane % RT;                                // row thread: rows rt·TM …
  const int ct = (tid >> 5) * (32 / RT) + lane / RT;       // column thread: columns ct·TN … of the chunk
  const int blocks = (k + IB - 1) / IB - a.first_block;
  const bool has_top = shape != ReflectorShape::unit_lower;

  const int passes = (n + L::chunk - 1) / L::chunk;  // none past column n
#pragma unroll 1
  for (int pass = 0; pass < passes; ++pass) {
    const int column0 = pass * L::chunk;
    T acc[TM][TN];  // C(rt·TM + s, column0 + ct·TN + u)
#pragma unroll
    for (int u = 0; u < TN; ++u)
#pragma unroll
      for (int s = 0; s < TM; ++s) {
        const int row = rt * TM + s, col = column0 + ct * TN + u;
        acc[s][u] = row < m && col < n ? c[std::size_t(col) * ldc + row] : T(0);
      }

#pragma unroll 1
    for (int step = 0; step < blocks; ++step) {
      const int b = a.first_block + (transpose ? step : blocks - 1 - step);
      const int col0 = b * IB;
      const int kb = k - col0 < IB ? k - col0 : IB;
      for (int e = tid; e < NB * IB; e += L::threads) {
        const int r = e % NB, j = e / NB;
        const ReflectorRow row = reflector_row(shape, r, m, kb, col0, a.row_offset);
        vt[j * NB + r] = j == row.unit                ? T(1)
                         : j >= row.lo && j < row.hi ? v[std::size_t(col0 + j) * ldv + r]
                                                     : T(0);
      }
      for (int e = tid; e < IB * IB; e += L::threads) {
        const int i = e % IB, j = e / IB;
        ts[i * L::ld_t + j] = i <= j && j < kb ? t[std::size_t(col0 + j) * ldt + i] : T(0);
      }
      __syncthreads();

      // W = [A1_b +] V_bᵀ C, G columns of W at a time: this thread's rows,
      // then the butterfly over the RT row threads leaves `kept` sums here.
#pragma unroll 1
      for (int j0 = 0; j0 < IB; j0 += G) {
        T w[values];
#pragma unroll
        for (int i = 0; i < values; ++i) w[i] = T(0);
#pragma unroll
        for (int jj = 0; jj < G; ++jj) {
          T vr[TM];
          load_run(vt + (j0 + jj) * NB + rt * TM, vr);
#pragma unroll
          for (int s = 0; s < TM; ++s)
#pragma unroll
            for (int u = 0; u < TN; ++u) w[jj * TN + u] += vr[s] * acc[s][u];
        }
        int index = 0;  // where this lane's kept sums start in w's flat order
        butterfly<values / 2, RT / 2>(w, lane, index);
#pragma unroll
        for (int i = 0; i < kept; ++i) {
          const int f = index + i, j = j0 + f / TN, col = ct * TN + f % TN;
          T sum = w[i];
          if (has_top && j < kb && column0 + col < n) sum += a1[std::size_t(column0 + col) * lda1 + col0 + j];
          ws[j * L::chunk + col] = sum;
        }
      }
      __syncthreads();

      // Z = T_bᵀ W (Qᵀ) or T_b W (Q); A1_b −= Z.
      for (int e = tid; e < IB * L::chunk; e += L::threads) {
        const int j = e / L::chunk, col = e % L::chunk;
        T sum = T(0);
        if (transpose)
          for (int i = 0; i <= j; ++i) sum += ts[i * L::ld_t + j] * ws[i * L::chunk + col];
        else
          for (int i = j; i < IB; ++i) sum += ts[j * L::ld_t + i] * ws[i * L::chunk + col];
        zs[j * L::chunk + col] = sum;
        if (has_top && j < kb && column0 + col < n) a1[std::size_t(column0 + col) * lda1 + col0 + j] -= sum;
      }
      __syncthreads();

      // C −= V_b Z.
#pragma unroll 4
      for (int j = 0; j < IB; ++j) {
        T vr[TM], zr[TN];
        load_run(vt + j * NB + rt * TM, vr);
        load_run(zs + j * L::chunk + ct * TN, zr);
#pragma unroll
        for (int s = 0; s < TM; ++s)
#pragma unroll
          for (int u = 0; u < TN; ++u) acc[s][u] -= vr[s] * zr[u];
      }
      __syncthreads();  // V_b, T_b and W are refilled next step
    }

#pragma unroll
    for (int u = 0; u < TN; ++u)
#pragma unroll
      for (int s = 0; s < TM; ++s) {
        const int row = rt * TM + s, col = column0 + ct * TN + u;
        if (row < m && col < n) c[std::size_t(col) * ldc + row] = acc[s][u];
      }
  }
}

// The engine's path, block size and shared memory for operands of scalar
// T: the tensor cores wherever their stages fit a multiprocessor's shared
// memory (all but float tiles of 256 with inner blocks of 64, which take
// the FMA path).
template <typename T, int NB, int IB>
struct CompactWyLaunch {
  using MmaLayout = MmaStageLayout<NB, IB, MmaWarps<NB>::slices, MmaWarps<NB>::warps, 1, T>;
  static constexpr bool tensor_cores = MmaLayout::fits;
  using Layout = std::conditional_t<tensor_cores, MmaLayout, SimtLayout<T, NB, IB>>;
  static constexpr int threads = Layout::threads;
  static constexpr int blocks = Layout::blocks;  // blocks per multiprocessor the kernels are built for
  static constexpr std::size_t shared_bytes = Layout::shared_bytes;
};

// Writes the staged copy (CompactWy::staged) of a full V (NB, NB), col-major
// with ldv, and its T (IB, NB), col-major with ldt: inner block b's V_b(r,
// j) at v_offset(r, j) and T_b(i, j) at v_elements + i·ld_t + j (zeros below
// the diagonal), from b·staged_block_elements on: a stage's element layout,
// so that every task applying these reflectors fills a stage with one bulk
// copy where it would otherwise transpose V_b in every pass. Every thread of
// the block calls it once V and T are written (tsqrt's binding).
template <typename T, int NB, int IB>
__device__ void write_staged(const T* v, int ldv, const T* t, int ldt, T* staged) {
  using L = typename CompactWyLaunch<T, NB, IB>::MmaLayout;
  for (int e = threadIdx.x; e < NB * NB; e += blockDim.x) {
    const int r = e % NB, c = e / NB;
    staged[(c / IB) * L::staged_block_elements + v_offset<IB>(r, c % IB)] = v[std::size_t(c) * ldv + r];
  }
  for (int e = threadIdx.x; e < IB * NB; e += blockDim.x) {
    const int i = e % IB, c = e / IB, j = c % IB;
    staged[(c / IB) * L::staged_block_elements + L::v_elements + i * L::ld_t + j] =
        i <= j ? t[std::size_t(c) * ldt + i] : T(0);
  }
}

// Every update kind and panel of the block kernels applies its reflectors
// through this call. The shape is a run-time argument (a branch per inner
// block), so each (T, NB, IB) compiles the engine once per transpose rather
// than once per kind.
template <typename T, int NB, int IB>
__device__ __forceinline__ void apply_compact_wy(ReflectorShape shape, bool transpose, const CompactWy<T>& a,
                                                 T* shared) {
  if constexpr (CompactWyLaunch<T, NB, IB>::tensor_cores) {
    double* const stages = reinterpret_cast<double*>(shared);
    if (transpose) apply_compact_wy_mma<T, NB, IB, true>(shape, a, stages);
    else apply_compact_wy_mma<T, NB, IB, false>(shape, a, stages);
  } else {
    apply_compact_wy_simt<T, NB, IB>(shape, transpose, a, shared);
  }
}

// apply_compact_wy for Qᵀ on n ≤ NB columns, n often far below NB (a
// panel's trailing update): no pass over columns past n.
template <typename T, int NB, int IB>
__device__ __forceinline__ void apply_compact_wy_narrow(ReflectorShape shape, const CompactWy<T>& a, T* shared) {
  if constexpr (CompactWyLaunch<T, NB, IB>::tensor_cores) {
    apply_compact_wy_mma<T, NB, IB, true, MmaWarps<NB>::slices, MmaWarps<NB>::warps, 1, MmaWarps<NB>::part,
                         MmaWarps<NB>::update_k, false, true>(shape, a, reinterpret_cast<double*>(shared));
  } else {
    apply_compact_wy_simt<T, NB, IB>(shape, true, a, shared);
  }
}

// apply_compact_wy for Qᵀ with a staged copy of the factor (a.staged, full
// V): the stages' V_b and T_b come by bulk copies (sm_90; elsewhere, or
// without a staged copy, as apply_compact_wy).
template <typename T, int NB, int IB>
__device__ __forceinline__ void apply_compact_wy_staged(ReflectorShape shape, const CompactWy<T>& a, T* shared) {
  if constexpr (CompactWyLaunch<T, NB, IB>::tensor_cores) {
    // m16n8k16 spilled at inner blocks of 16 (ptxas -v, 256/16: 312 bytes a thread, none with m16n8k8).
    constexpr int update_k = IB >= 32 ? MmaWarps<NB>::staged_update_k : MmaWarps<NB>::update_k;
    apply_compact_wy_mma<T, NB, IB, true, MmaWarps<NB>::slices, MmaWarps<NB>::warps, 1, MmaWarps<NB>::part,
                         update_k, true>(shape, a, reinterpret_cast<double*>(shared));
  } else {
    apply_compact_wy_simt<T, NB, IB>(shape, true, a, shared);
  }
}

// Launches `kernel` with one block of `threads` threads and `shared` bytes
// of dynamic shared memory for each of `count` tasks (device array),
// raising the kernel's shared-memory limit first. Returns the first error.
template <typename T>
cudaError_t launch_block_each(void (*kernel)(ReflectorShape, bool, const CompactWy<T>*), int threads,
                              std::size_t shared, ReflectorShape shape, bool transpose, const CompactWy<T>* tasks,
                              int count, cudaStream_t stream) {
  const cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
  if (status != cudaSuccess || count == 0) return status;
  kernel<<<count, threads, shared, stream>>>(shape, transpose, tasks);
  return cudaGetLastError();
}

// Block i applies tasks[i] (one update kind's operands, shape `shape`);
// the test and benchmark programs run many at once this way. With `fma`,
// through the FMA path rather than the one the kinds take: the benchmark
// measures the two side by side, and the tests check both.
template <typename T, int NB, int IB, bool fma = false>
using UpdateTasksLayout = std::conditional_t<fma, SimtLayout<T, NB, IB>, CompactWyLaunch<T, NB, IB>>;

template <typename T, int NB, int IB, bool fma = false>
__global__ void __launch_bounds__(UpdateTasksLayout<T, NB, IB, fma>::threads, UpdateTasksLayout<T, NB, IB, fma>::blocks)
    update_tasks_kernel(ReflectorShape shape, bool transpose, const CompactWy<T>* tasks) {
  extern __shared__ __align__(16) unsigned char update_shared[];
  T* const shared = reinterpret_cast<T*>(update_shared);
  if constexpr (fma) apply_compact_wy_simt<T, NB, IB>(shape, transpose, tasks[blockIdx.x], shared);
  else apply_compact_wy<T, NB, IB>(shape, transpose, tasks[blockIdx.x], shared);
}

// Runs `count` tasks (device array) concurrently, one block each; the
// caller checks each task's sizes (m, n ≤ NB) beforehand.
template <typename T, int NB, int IB, bool fma = false>
cudaError_t launch_update_tasks(ReflectorShape shape, bool transpose, const CompactWy<T>* tasks, int count,
                                cudaStream_t stream) {
  using L = UpdateTasksLayout<T, NB, IB, fma>;
  return launch_block_each(update_tasks_kernel<T, NB, IB, fma>, L::threads, L::shared_bytes, shape, transpose, tasks,
                           count, stream);
}

// The tensor-core engine in a shape other than MmaWarps's, block i
// applying tasks[i]: the benchmark measures these shapes to choose
// MmaWarps's, and the tests check them.
template <int NB, int IB, int SLICES, int WARPS, int BLOCKS, int PART = MmaWarps<NB>::part,
          int UPDATE_K = MmaWarps<NB>::update_k>
__global__ void __launch_bounds__(32 * WARPS, BLOCKS)
    shaped_update_tasks_kernel(ReflectorShape shape, bool transpose, const CompactWy<double>* tasks) {
  extern __shared__ __align__(16) unsigned char shaped_shared[];
  double* const shared = reinterpret_cast<double*>(shaped_shared);
  if (transpose)
    apply_compact_wy_mma<double, NB, IB, true, SLICES, WARPS, BLOCKS, PART, UPDATE_K>(shape, tasks[blockIdx.x],
                                                                                      shared);
  else
    apply_compact_wy_mma<double, NB, IB, false, SLICES, WARPS, BLOCKS, PART, UPDATE_K>(shape, tasks[blockIdx.x],
                                                                                       shared);
}

template <int NB, int IB, int SLICES, int WARPS, int BLOCKS, int PART = MmaWarps<NB>::part,
          int UPDATE_K = MmaWarps<NB>::update_k>
cudaError_t launch_shaped_update_tasks(ReflectorShape shape, bool transpose, const CompactWy<double>* tasks,
                                       int count, cudaStream_t stream) {
  using L = MmaStageLayout<NB, IB, SLICES, WARPS, BLOCKS>;
  return launch_block_each(shaped_update_tasks_kernel<NB, IB, SLICES, WARPS, BLOCKS, PART, UPDATE_K>, L::threads,
                           L::shared_bytes, shape, transpose, tasks, count, stream);
}

}  // namespace tiledqr::kernels::block
