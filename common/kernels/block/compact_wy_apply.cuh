// The engine of the block update kinds (tsmqr, ormqr): one thread block
// applies the compact-WY block reflectors of a tsqrt or geqrt factor, inner
// block by inner block, as three matrix products (LAPACK ?tpmqrt/?gemqrt):
//   W = [A1_b +] V_bᵀ C,   W = T_bᵀ W (Qᵀ) or T_b W (Q),   [A1_b −= W,] C −= V_b W,
// on the FP64 tensor cores for double and with FP32 FMA for float.
// Seed 000's DSSRFB/DLARFB as block reflectors; its Algorithm 3 is the same
// update one reflector at a time.
//
// Double (tensor cores). The block has NB/16 warps; warp w owns the columns
// n0 = 16w … n0 + 15 of C and keeps C(:, those columns) in registers for the
// whole task, as the accumulator of C ᵀ(16, NB) −= Wᵀ(16, IB) · V_bᵀ(IB, NB).
// The other two products are written transposed too, Wᵀ = Cᵀ V_b and
// Wᵀ ← Wᵀ T_b, so that every operand a warp needs from another product is
// already in its registers in the right place: the sum over the inner
// dimension may run in any order, and each mma's k slots are assigned to rows
// (or columns) so that the accumulator layout of one product is the operand
// layout of the next. Only V_b, T_b and A1_b come through shared memory,
// copied asynchronously one inner block ahead (double-buffered when it fits).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "device_primitives.cuh"

namespace tiledqr::kernels::block {

// What V looks like: the full (m, k) V2 of tsqrt (tsmqr), or the unit lower
// trapezoidal V of geqrt whose upper triangle holds R (ormqr).
enum class ReflectorShape { full, unit_lower };

// Shared-memory layout of one inner block for the tensor-core path.
template <int NB, int IB>
struct MmaStageLayout {
  static_assert(NB % 16 == 0 && NB >= 16 && NB <= 128,
                "the register-resident C needs NB a multiple of 16, at most 128");
  static_assert(IB % 16 == 0 && IB >= 16 && IB <= NB, "IB must be a multiple of 16, 16 ≤ IB ≤ NB");
  static constexpr int warps = NB / 16;
  static constexpr int threads = 32 * warps;
  // V_b (NB, IB) row-major, ld = IB, 16-byte units XOR-swizzled (v_offset).
  static constexpr int v_elements = NB * IB;
  // T_b (IB, IB) row-major, ld = IB + 2: conflict-free for the Wᵀ T_b reads.
  static constexpr int ld_t = IB + 2;
  static constexpr int t_elements = IB * ld_t;
  // A1_b (IB, NB) stored as its transpose (NB, IB), ld = IB + 8.
  static constexpr int ld_top = IB + 8;
  static constexpr int top_elements = NB * ld_top;
  static constexpr int stage_elements = v_elements + t_elements + top_elements;
  static constexpr int stages = 2 * stage_elements * 8 <= 220 * 1024 ? 2 : 1;
  static constexpr std::size_t shared_bytes = std::size_t(stages) * stage_elements * sizeof(double);
  static_assert(stage_elements % 2 == 0, "stages must stay 16-byte aligned");
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

// Copies inner block b's V_b, T_b and A1_b into `stage` (asynchronously;
// masked and padded entries become zeros, geqrt's unit diagonal a plain 1).
// Trip counts are compile-time: the block has 2·NB threads.
//   v  (m, k) col-major, ldv;  t (ib, k) col-major, ldt;  a1 (k, n) col-major, lda1.
template <int NB, int IB, ReflectorShape shape>
__device__ void stage_inner_block(double* stage, int b, int m, int n, int k, const double* v, int ldv,
                                  const double* t, int ldt, const double* a1, int lda1) {
  using L = MmaStageLayout<NB, IB>;
  static_assert(L::threads == 2 * NB && L::threads % IB == 0 && (IB * IB) % L::threads == 0,
                "the copy loops assume 2·NB threads, a multiple of IB");
  const int tid = threadIdx.x;
  const int col0 = b * IB;
  const int kb = k - col0 < IB ? k - col0 : IB;
  double* vs = stage;
  double* ts = stage + L::v_elements;
  double* tops = ts + L::t_elements;
  {  // V_b(r, j): consecutive threads copy consecutive rows.
    const int r = tid % NB, j0 = tid / NB;
    const int swizzle = (((r >> 1) & 3) << 1) ^ ((r & 1) << 2);
    double* row = vs + r * IB + j0;
    const double* src = v + std::size_t(col0 + j0) * ldv + r;
#pragma unroll
    for (int s = 0; s < IB / 2; ++s) {
      const int j = j0 + 2 * s;  // v_offset(r, j) = r·IB + 2·(s ^ swizzle) + j0
      double* dst = row + 2 * (s ^ swizzle);
      bool valid = r < m && j < kb;
      if (shape == ReflectorShape::unit_lower) {
        if (valid && r == col0 + j) {
          *dst = 1.0;
          continue;
        }
        valid = valid && r > col0 + j;
      }
      copy_async<8>(dst, valid ? src + std::size_t(2 * s) * ldv : v, valid);
    }
  }
  {  // T_b(i, j), upper triangle only.
    const int i = tid % IB, j0 = tid / IB;
#pragma unroll
    for (int s = 0; s < IB * IB / L::threads; ++s) {
      const int j = j0 + s * (L::threads / IB);
      const bool valid = i <= j && j < kb;
      copy_async<8>(ts + i * L::ld_t + j, valid ? t + std::size_t(col0 + j) * ldt + i : t, valid);
    }
  }
  if (shape == ReflectorShape::full) {  // A1_b(j, c) → tops[c][j]
    if (columns_16_byte_aligned(a1, lda1)) {  // pairs of rows, 16 bytes a copy
      constexpr int pairs = IB / 2;
      const int j = 2 * (tid % pairs), c0 = tid / pairs;
#pragma unroll
      for (int s = 0; s < IB / 4; ++s) {
        const int c = c0 + s * (L::threads / pairs);
        const int rows = c < n ? (kb - j >= 2 ? 2 : (kb - j == 1 ? 1 : 0)) : 0;
        copy_async<16>(tops + c * L::ld_top + j, rows > 0 ? a1 + std::size_t(c) * lda1 + col0 + j : a1,
                       8 * rows);
      }
    } else {
      const int j = tid % IB, c0 = tid / IB;
#pragma unroll
      for (int s = 0; s < IB / 2; ++s) {
        const int c = c0 + s * (L::threads / IB);
        const bool valid = j < kb && c < n;
        copy_async<8>(tops + c * L::ld_top + j, valid ? a1 + std::size_t(c) * lda1 + col0 + j : a1, valid);
      }
    }
  }
}

// The tensor-core path (double). C is A2 of tsmqr (with A1 on top) or the
// tile of ormqr (no A1).
//   v  (m, k) col-major, ldv: V2 (full) or geqrt's V (unit_lower, m ≥ k);
//   t  (ib, k) col-major, ldt: the upper triangular T_b side by side;
//   a1 (k, n) col-major, lda1 (full only, else unused);
//   c  (m, n) col-major, ldc;
//   shared MmaStageLayout<NB, IB>::shared_bytes, 16-byte aligned.
// Preconditions (checked by the launchers): m, n, k ≤ NB; ib = IB.
// `transpose` is a template argument so that every register index below is
// a compile-time constant (a run-time one would move wt to local memory).
// Each m16n8k8 takes a lane's two k slots q and q + 4 as the pair e = 0, 1
// of adjacent rows (or columns) that the lane holds.
template <int NB, int IB, ReflectorShape shape, bool transpose>
__device__ void apply_compact_wy_mma(int m, int n, int k, const double* v, int ldv,
                                     const double* t, int ldt, double* a1, int lda1, double* c,
                                     int ldc, double* shared) {
  using L = MmaStageLayout<NB, IB>;
  constexpr int m_tiles = NB / 8;  // 8-row slices of C
  constexpr int j_tiles = IB / 8;  // 8-column slices of W
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2, q = lane & 3;
  const int n0 = 16 * (threadIdx.x >> 5);
  const int blocks = (k + IB - 1) / IB;

  // v_offset rewritten as a per-lane base plus a compile-time offset. For
  // Wᵀ = Cᵀ V_b the lane reads V_b(8mt + 2q + e, g + 8jt): the swizzle
  // s = 2q ^ 4e flips the low bits of g/2 and, through bit 2, swaps odd and
  // even jt; for Cᵀ −= Wᵀ V_bᵀ it reads the pair V_b(g + 8mt, 8jt + 2q + {0, 1}).
  int w_base[2][2];  // [e][jt & 1]
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    const int s = (2 * q) ^ (4 * e);
    const int base = (2 * q + e) * IB + 2 * ((g >> 1) ^ (s & 3)) + (g & 1);
    const int swap = 8 * (s >> 2);
    w_base[e][0] = base + swap;
    w_base[e][1] = base - swap;
  }
  int c_base[2];  // [jt & 1]
  {
    const int s = (((g >> 1) & 3) << 1) ^ ((g & 1) << 2);
    const int base = g * IB + 2 * (q ^ (s & 3));
    const int swap = 8 * (s >> 2);
    c_base[0] = base + swap;
    c_base[1] = base - swap;
  }

  // Cᵀ (16, NB) of this warp: ct[mt][r] = C(8mt + 2q + r%2, n0 + g + 8(r/2)).
  double ct[m_tiles][4];
  // Wᵀ (16, IB): wt[jt][r] = Wᵀ(g + 8(r/2), 8jt + 2q + r%2).
  double wt[j_tiles][4];

  auto stage_of = [&](int s) { return shared + s * L::stage_elements; };
  auto block_at = [&](int step) { return transpose ? step : blocks - 1 - step; };
  if (blocks > 0)
    stage_inner_block<NB, IB, shape>(stage_of(0), block_at(0), m, n, k, v, ldv, t, ldt, a1, lda1);
  commit_async_copies();

  // C's rows 8mt + 2q and 8mt + 2q + 1 are adjacent: 16-byte accesses for a
  // full tile with aligned columns.
  const bool c_pairs = columns_16_byte_aligned(c, ldc) && m == NB && n == NB;
  if (c_pairs) {
#pragma unroll
    for (int mt = 0; mt < m_tiles; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const double2 pair = *reinterpret_cast<const double2*>(
            c + std::size_t(n0 + g + 8 * h) * ldc + 8 * mt + 2 * q);
        ct[mt][2 * h] = pair.x;
        ct[mt][2 * h + 1] = pair.y;
      }
  } else {
#pragma unroll
    for (int mt = 0; mt < m_tiles; ++mt)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int row = 8 * mt + 2 * q + (r & 1), col = n0 + g + 8 * (r >> 1);
        ct[mt][r] = row < m && col < n ? c[std::size_t(col) * ldc + row] : 0.0;
      }
  }

  for (int step = 0; step < blocks; ++step) {
    const int b = block_at(step);
    const int s = L::stages == 2 ? step & 1 : 0;
    if (L::stages == 2) {
      if (step + 1 < blocks)
        stage_inner_block<NB, IB, shape>(stage_of(s ^ 1), block_at(step + 1), m, n, k, v, ldv, t,
                                         ldt, a1, lda1);
      commit_async_copies();
      wait_async_copies<1>();
    } else {
      if (step > 0) {
        stage_inner_block<NB, IB, shape>(stage_of(0), b, m, n, k, v, ldv, t, ldt, a1, lda1);
        commit_async_copies();
      }
      wait_async_copies<0>();
    }
    __syncthreads();
    const double* vs = stage_of(s);
    const double* ts = vs + L::v_elements;
    const double* tops = ts + L::t_elements;

    // Wᵀ = Cᵀ V_b: k slots q, q + 4 of step mt are rows 8mt + 2q + {0, 1} of C.
#pragma unroll
    for (int jt = 0; jt < j_tiles; ++jt)
#pragma unroll
      for (int r = 0; r < 4; ++r) wt[jt][r] = 0.0;
#pragma unroll
    for (int mt = 0; mt < m_tiles; ++mt)
#pragma unroll
      for (int jt = 0; jt < j_tiles; ++jt) {
        const int offset = 8 * mt * IB + 8 * jt;
        mma_m16n8k8(wt[jt], ct[mt][0], ct[mt][2], ct[mt][1], ct[mt][3],
                    vs[w_base[0][jt & 1] + offset], vs[w_base[1][jt & 1] + offset]);
      }

    // Wᵀ += A1_bᵀ (tsmqr).
    if (shape == ReflectorShape::full) {
#pragma unroll
      for (int jt = 0; jt < j_tiles; ++jt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const double2 top = *reinterpret_cast<const double2*>(
              tops + (n0 + g + 8 * h) * L::ld_top + 8 * jt + 2 * q);
          wt[jt][2 * h] += top.x;
          wt[jt][2 * h + 1] += top.y;
        }
    }

    // Wᵀ ← Wᵀ T_b (Qᵀ) or Wᵀ T_bᵀ (Q), in place: column tile jt' of the
    // product needs the tiles jt ≤ jt' (T_b upper) or jt ≥ jt' (T_bᵀ lower),
    // so they are formed from the last (first) tile on and each overwrites a
    // tile no later one reads.
#pragma unroll
    for (int s2 = 0; s2 < j_tiles; ++s2) {
      const int out = transpose ? j_tiles - 1 - s2 : s2;
      double z[4] = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
      for (int jt = 0; jt < j_tiles; ++jt) {
        if (transpose ? jt > out : jt < out) continue;
        const int j = 8 * jt + 2 * q, jo = g + 8 * out;
        const double t0 = transpose ? ts[j * L::ld_t + jo] : ts[jo * L::ld_t + j];
        const double t1 = transpose ? ts[(j + 1) * L::ld_t + jo] : ts[jo * L::ld_t + j + 1];
        mma_m16n8k8(z, wt[jt][0], wt[jt][2], wt[jt][1], wt[jt][3], t0, t1);
      }
#pragma unroll
      for (int r = 0; r < 4; ++r) wt[out][r] = z[r];
    }

    // A1_b −= W (tsmqr): A1(col0 + j, n0 + col) = A1_b(j, col) − Wᵀ(col, j).
    if (shape == ReflectorShape::full) {
      const int col0 = b * IB;
      const bool a1_pairs = columns_16_byte_aligned(a1, lda1);  // col0 + j is even
#pragma unroll
      for (int jt = 0; jt < j_tiles; ++jt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int j = 8 * jt + 2 * q, col = n0 + g + 8 * h;
          const double2 top = *reinterpret_cast<const double2*>(tops + col * L::ld_top + j);
          const double2 updated = make_double2(top.x - wt[jt][2 * h], top.y - wt[jt][2 * h + 1]);
          double* p = a1 + std::size_t(col) * lda1 + col0 + j;
          if (a1_pairs && col0 + j + 1 < k && col < n) {
            *reinterpret_cast<double2*>(p) = updated;
          } else {
            if (col0 + j < k && col < n) p[0] = updated.x;
            if (col0 + j + 1 < k && col < n) p[1] = updated.y;
          }
        }
    }

    // Cᵀ −= Wᵀ V_bᵀ: k slots q, q + 4 of step jt are columns 8jt + 2q + {0, 1}
    // of W, one 16-byte read of V_b.
#pragma unroll
    for (int jt = 0; jt < j_tiles; ++jt) {
      const double w0 = -wt[jt][0], w1 = -wt[jt][1], w2 = -wt[jt][2], w3 = -wt[jt][3];
#pragma unroll
      for (int mt = 0; mt < m_tiles; ++mt) {
        const double2 vb =
            *reinterpret_cast<const double2*>(vs + c_base[jt & 1] + 8 * mt * IB + 8 * jt);
        mma_m16n8k8(ct[mt], w0, w2, w1, w3, vb.x, vb.y);
      }
    }
    __syncthreads();  // the stage is refilled next step
  }

  if (c_pairs) {
#pragma unroll
    for (int mt = 0; mt < m_tiles; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        *reinterpret_cast<double2*>(c + std::size_t(n0 + g + 8 * h) * ldc + 8 * mt + 2 * q) =
            make_double2(ct[mt][2 * h], ct[mt][2 * h + 1]);
  } else {
#pragma unroll
    for (int mt = 0; mt < m_tiles; ++mt)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int row = 8 * mt + 2 * q + (r & 1), col = n0 + g + 8 * (r >> 1);
        if (row < m && col < n) c[std::size_t(col) * ldc + row] = ct[mt][r];
      }
  }
}

// Shared-memory layout of the FMA path: C (NB, NB) col-major ld NB + 1,
// V_b stored transposed (IB, NB) ld NB + 1, T_b (IB, IB), W and T_b-applied W
// (IB, NB) each.
template <typename T, int NB, int IB>
struct FmaLayout {
  static_assert(NB % 16 == 0 && NB >= 16 && NB <= 256, "NB must be a multiple of 16, at most 256");
  static_assert(IB % 8 == 0 && IB >= 8 && IB <= NB, "IB must be a multiple of 8, 8 ≤ IB ≤ NB");
  static constexpr int threads = NB < 128 ? 128 : 256;
  static constexpr int ld = NB + 1;
  static constexpr int c_elements = NB * ld;
  static constexpr int v_elements = IB * ld;
  static constexpr int t_elements = IB * IB;
  static constexpr int w_elements = IB * NB;
  static constexpr std::size_t shared_bytes =
      sizeof(T) * std::size_t(c_elements + v_elements + t_elements + 2 * w_elements);
};

// The FMA path (float; also compiles for double as a cross-check): the same
// three products, C kept in shared memory, one output entry per thread and
// step. Arguments as apply_compact_wy_mma; shared FmaLayout::shared_bytes.
template <typename T, int NB, int IB, ReflectorShape shape>
__device__ void apply_compact_wy_fma(bool transpose, int m, int n, int k, const T* v, int ldv,
                                     const T* t, int ldt, T* a1, int lda1, T* c, int ldc,
                                     T* shared) {
  using L = FmaLayout<T, NB, IB>;
  T* cs = shared;               // C (NB, NB), ld
  T* vs = cs + L::c_elements;   // V_bᵀ (IB, NB), ld: vs[j * ld + r] = V_b(r, j)
  T* ts = vs + L::v_elements;   // T_b (IB, IB), row-major
  T* ws = ts + L::t_elements;   // W (IB, NB), col-major ld IB
  T* zs = ws + L::w_elements;   // op(T_b) W (IB, NB), col-major ld IB
  const int blocks = (k + IB - 1) / IB;
  for (int idx = threadIdx.x; idx < NB * NB; idx += L::threads) {
    const int r = idx % NB, col = idx / NB;
    cs[col * L::ld + r] = r < m && col < n ? c[std::size_t(col) * ldc + r] : T(0);
  }
  for (int step = 0; step < blocks; ++step) {
    const int b = transpose ? step : blocks - 1 - step;
    const int col0 = b * IB;
    const int kb = k - col0 < IB ? k - col0 : IB;
    for (int idx = threadIdx.x; idx < NB * IB; idx += L::threads) {
      const int r = idx % NB, j = idx / NB;
      T value = 0;
      if (r < m && j < kb) {
        const T stored = v[std::size_t(col0 + j) * ldv + r];
        if (shape == ReflectorShape::full) value = stored;
        else value = r == col0 + j ? T(1) : (r > col0 + j ? stored : T(0));
      }
      vs[j * L::ld + r] = value;
    }
    for (int idx = threadIdx.x; idx < IB * IB; idx += L::threads) {
      const int i = idx % IB, j = idx / IB;
      ts[i * IB + j] = i <= j && j < kb ? t[std::size_t(col0 + j) * ldt + i] : T(0);
    }
    __syncthreads();
    // W = [A1_b +] V_bᵀ C.
    for (int idx = threadIdx.x; idx < IB * NB; idx += L::threads) {
      const int j = idx % IB, col = idx / IB;
      T sum = 0;
      if (shape == ReflectorShape::full && j < kb && col < n)
        sum = a1[std::size_t(col) * lda1 + col0 + j];
      for (int r = 0; r < NB; ++r) sum += vs[j * L::ld + r] * cs[col * L::ld + r];
      ws[col * IB + j] = sum;
    }
    __syncthreads();
    // Z = T_bᵀ W (Qᵀ) or T_b W (Q); A1_b −= Z.
    for (int idx = threadIdx.x; idx < IB * NB; idx += L::threads) {
      const int j = idx % IB, col = idx / IB;
      T sum = 0;
      if (transpose)
        for (int i = 0; i <= j; ++i) sum += ts[i * IB + j] * ws[col * IB + i];
      else
        for (int i = j; i < IB; ++i) sum += ts[j * IB + i] * ws[col * IB + i];
      zs[col * IB + j] = sum;
      if (shape == ReflectorShape::full && j < kb && col < n)
        a1[std::size_t(col) * lda1 + col0 + j] -= sum;
    }
    __syncthreads();
    // C −= V_b Z.
    for (int idx = threadIdx.x; idx < NB * NB; idx += L::threads) {
      const int r = idx % NB, col = idx / NB;
      T sum = cs[col * L::ld + r];
      for (int j = 0; j < IB; ++j) sum -= vs[j * L::ld + r] * zs[col * IB + j];
      cs[col * L::ld + r] = sum;
    }
    __syncthreads();
  }
  for (int idx = threadIdx.x; idx < NB * NB; idx += L::threads) {
    const int r = idx % NB, col = idx / NB;
    if (r < m && col < n) c[std::size_t(col) * ldc + r] = cs[col * L::ld + r];
  }
}

// Which path a scalar type takes, and its block size and shared memory.
template <typename T, int NB, int IB>
struct CompactWyLaunch {
  static constexpr bool tensor_cores = std::is_same<T, double>::value;
  using Layout = std::conditional_t<tensor_cores, MmaStageLayout<NB, IB>, FmaLayout<T, NB, IB>>;
  static constexpr int threads = Layout::threads;
  static constexpr std::size_t shared_bytes = Layout::shared_bytes;
};

// Launches `kernel` (one of the *_tasks_kernel below) on `count` blocks of
// the path's size, raising its dynamic shared-memory limit first. Returns
// the first error.
template <typename T, int NB, int IB, typename Task>
cudaError_t launch_compact_wy_tasks(void (*kernel)(bool, const Task*), bool transpose, const Task* tasks,
                                    int count, cudaStream_t stream) {
  using Launch = CompactWyLaunch<T, NB, IB>;
  const cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  static_cast<int>(Launch::shared_bytes));
  if (status != cudaSuccess || count == 0) return status;
  kernel<<<count, Launch::threads, Launch::shared_bytes, stream>>>(transpose, tasks);
  return cudaGetLastError();
}

}  // namespace tiledqr::kernels::block
