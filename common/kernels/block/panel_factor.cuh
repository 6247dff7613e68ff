// The panel of the block factor kinds (geqrt, tsqrt, ttqrt): one thread block
// factors an inner block of IB columns one Householder reflector at a time
// (LAPACK ?geqrt3 / ?tpqrt2 without the recursion), forms its compact-WY
// T_b, and updates the columns to the right with the block reflector
// (compact_wy_apply.cuh), two inner blocks' reflectors at a time where it
// can (factor_inner_block). Buttari, Langou, Kurzak, Dongarra, "A class of
// parallel tiled linear algebra algorithms for multicore architectures"
// (2009), §3: the tile kernels with inner blocking.
//
// Thread layout of a panel: warp w owns the NB / warps rows w·rows_per_warp …
// of the tile, lane c column c of the inner block (and c + 32 when IB = 64),
// in registers. Column j's reflector needs xᵀx and xᵀa_c for every column c
// over all rows: each thread sums its rows, the warps' partial sums meet in
// shared memory, and every thread adds them in the same order, so all get
// the same bits (the same branches, and R is the same from run to run).
// The pivot column x reaches the other lanes of a warp through shared
// memory: the lane that holds column j writes its rows once (zeros where the
// reflector does not reach), and every lane reads them back 16 bytes at a
// time where it needs them — not a shuffle and a mask a row, nor 32 more
// registers a thread kept across the column's barrier. In geqrt the pivot
// row moves the same way (its warp writes its columns to the staging
// buffer and reads row p back), and R's finished rows collect in shared
// memory: a row index known only at run time never indexes registers.
// One block barrier per column: the partial sums and the pivot row are
// double-buffered, and what a column finishes in shared memory is written
// after the next column's barrier, when nobody reads it any more. The same
// sums give, for the columns c < j already done, v_cᵀ v_j; once the inner
// block's columns are done, T_b comes from them: each half of the inner
// block row by row (a row of LAPACK's T(0:j, j) = −τ_j T(0:j, 0:j) Vᵀ v_j
// needs only its own row), the corner by two small products.
// A warp whose rows the reflector reaches entirely (the common case) takes
// no per-row masks. A zero column gives H = I (τ = 0); columns the direct
// formula cannot take (tiny, huge or non-finite entries, flagged in the
// partial sums so that every thread decides alike) go through the reference
// kernels::make_reflector, as the warp kernels do.
//
// The three kinds differ in the pivot row and in which rows of the body a
// reflector reaches ("part"):
//   geqrt  the pivot is the body's own row p = i + j; rows below it;
//   tsqrt  the pivot is row p of the triangle R on top; every body row;
//   ttqrt  as tsqrt, but the body is a triangle: rows 0 … p only (its strict
//          lower part holds another factor's V and is neither read nor written).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "compact_wy_apply.cuh"
#include "kernels/householder.hpp"
#include "kernels/warp/reflector.cuh"

namespace tiledqr::kernels::block {

enum class PanelKind { geqrt, tsqrt, ttqrt };

// Threads and shared memory of a factor kind of scalar T, tile NB, inner
// block IB: the update engine's block, and shared memory for the larger of
// the engine and the panel (they take turns in it).
template <typename T, int NB, int IB>
struct PanelLayout {
  static constexpr int threads = CompactWyLaunch<T, NB, IB>::threads;
  static constexpr int warps = threads / 32;
  static constexpr int rows_per_warp = NB / warps;
  // Inner blocks whose trailing updates go together (factor_inner_block).
  static constexpr int trailing_group = 2;
  static constexpr int cols_per_lane = IB > 32 ? IB / 32 : 1;
  static_assert(NB % warps == 0, "every warp owns the same number of rows");
  static_assert(IB == 16 || IB == 32 || IB == 64, "the panel takes IB = 16, 32 or 64");
  // Shared memory, in elements of T:
  static_assert(rows_per_warp % 2 == 0, "a thread's rows move in pairs");
  static constexpr int ld_panel = NB + 2;                  // the inner block (NB, IB), col-major
  static constexpr int panel_elements = ld_panel * IB;     // (columns 16-byte aligned)
  static constexpr int x_elements = NB;                    // the pivot column x, by tile row
  static constexpr int ld_partial = IB + 2;                // per warp: xᵀa_c (IB), xᵀx
  static constexpr int partial_elements = 2 * warps * ld_partial;  // two buffers, by column parity
  static constexpr int ld_small = IB + 1;                  // (IB, IB) col-major blocks
  static constexpr int top_elements = IB * ld_small;       // R's diagonal block (tsqrt, ttqrt)
  static constexpr int t_elements = IB * ld_small;         // T_b
  static constexpr int g_elements = IB * ld_small;         // G(l, j) = v_lᵀ v_j, l < j
  static constexpr int pivot_elements = 2 * IB;            // geqrt: the pivot row, two buffers
  static constexpr int tau_elements = IB;
  static constexpr int column_elements = NB + 2;           // the careful path: x, beta, τ
  static constexpr int corner_elements = (IB / 2) * (IB / 2);  // X = G_AB T_BB of T_b's corner
  static constexpr int flag_elements = (2 * warps * 4 + sizeof(T) - 1) / sizeof(T);  // ints, by parity
  static constexpr int elements = panel_elements + x_elements + partial_elements + top_elements + t_elements + g_elements +
                                  pivot_elements + tau_elements + column_elements + corner_elements +
                                  flag_elements;
  static constexpr std::size_t panel_bytes = std::size_t(elements) * sizeof(T);
  static constexpr std::size_t shared_bytes =
      panel_bytes > CompactWyLaunch<T, NB, IB>::shared_bytes ? panel_bytes
                                                              : CompactWyLaunch<T, NB, IB>::shared_bytes;
};

namespace panel_detail {

// N consecutive entries of shared memory (16-byte aligned for double, 8 for
// float) to registers and back, two a load or a store.
template <typename T>
using PairOf = std::conditional_t<sizeof(T) == 8, double2, float2>;

template <int N, typename T>
__device__ __forceinline__ void load_rows(const T* p, T (&out)[N]) {
#pragma unroll
  for (int s = 0; s < N / 2; ++s) {
    const PairOf<T> pair = reinterpret_cast<const PairOf<T>*>(p)[s];
    out[2 * s] = pair.x;
    out[2 * s + 1] = pair.y;
  }
}

template <int N, typename T>
__device__ __forceinline__ void store_rows(T* p, const T (&in)[N]) {
#pragma unroll
  for (int s = 0; s < N / 2; ++s) {
    PairOf<T> pair;
    pair.x = in[2 * s];
    pair.y = in[2 * s + 1];
    reinterpret_cast<PairOf<T>*>(p)[s] = pair;
  }
}

// x[0] + … + x[N − 1] added pairwise, neighbours first (N a power of two):
// log2 N additions deep.
template <int N, typename T>
__device__ __forceinline__ T pairwise_sum(T (&x)[N]) {
  static_assert(N > 0 && (N & (N - 1)) == 0, "a power of two");
#pragma unroll
  for (int width = 1; width < N; width *= 2)
#pragma unroll
    for (int e = 0; e + width < N; e += 2 * width) x[e] += x[e + width];
  return x[0];
}

// The update of the columns right of a panel, out of line: the three
// factor kinds share one copy of the engine.
template <typename T, int NB, int IB>
__device__ __noinline__ void trailing_update(ReflectorShape shape, CompactWy<T> a, T* shared) {
  apply_compact_wy_narrow<T, NB, IB>(shape, a, shared);
}

}  // namespace panel_detail

// Factors inner block b (columns i = b·IB … i + kb − 1) of a factor kind and
// applies it to the tile's columns i + kb … n − 1.
//   kind geqrt: body = the tile (m, n), col-major, ld_body; top unused.
//   kind tsqrt/ttqrt: top = R (n, n), col-major, ld_top (upper triangle in
//     and out, the strict lower part not touched); body = A2 (m, n), ld_body.
//   t (IB, k) col-major, ldt: T_b goes to columns i … i + kb − 1 (zeros
//     below each diagonal).
// Every thread of a block of PanelLayout::threads calls it.
template <typename T, int NB, int IB, PanelKind kind>
__device__ void factor_inner_block(int b, int m, int n, int k, T* top, int ld_top, T* body, int ld_body, T* t,
                                   int ldt, T* shared) {
  using namespace panel_detail;
  using L = PanelLayout<T, NB, IB>;
  constexpr int RPW = L::rows_per_warp, CPL = L::cols_per_lane, LDS = L::ld_small, LDP = L::ld_partial;
  constexpr ReflectorShape shape = kind == PanelKind::geqrt   ? ReflectorShape::unit_lower
                                   : kind == PanelKind::tsqrt ? ReflectorShape::full
                                                              : ReflectorShape::upper;
  constexpr bool geqrt_kind = kind == PanelKind::geqrt;
  constexpr unsigned all_rows = RPW == 32 ? 0xffffffffu : (1u << RPW) - 1u;
  T* panel = shared;
  T* xcol = panel + L::panel_elements;       // x(r) at r (zeros where column j's reflector does not reach)
  T* partial = xcol + L::x_elements;         // [parity][warp][LDP]
  T* tops = partial + L::partial_elements;   // R(i + r, i + c) at c·LDS + r (geqrt: R's finished rows)
  T* tmat = tops + L::top_elements;          // T_b(r, c) at c·LDS + r
  T* gmat = tmat + L::t_elements;            // G(l, j) at j·LDS + l
  T* pivot = gmat + L::g_elements;           // [parity][IB]
  T* taus = pivot + L::pivot_elements;
  T* column = taus + L::tau_elements;
  T* corner_x = column + L::column_elements;
  int* flag_words = reinterpret_cast<int*>(corner_x + L::corner_elements);  // [parity][warp]
  // Partial sums beyond these could overflow when added (or in w): the
  // column goes the careful way.
  const T dot_limit = RealLimits<T>::huge / T(4 * L::warps);
  const T entry_limit = RealLimits<T>::huge / T(4 * NB);

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int i = b * IB;
  const int kb = k - i < IB ? k - i : IB;
  const int row0 = warp * RPW;  // this thread's rows row0 … row0 + RPW − 1
  const int rows_here = m - row0;  // … of which those below m
  const unsigned in_matrix = rows_here <= 0 ? 0u : rows_here >= RPW ? all_rows : (1u << rows_here) - 1u;

  // Is body row r part of the triangle (ttqrt) — else never read nor written.
  auto in_triangle = [&](int r, int c) { return kind != PanelKind::ttqrt || r <= i + c; };

  // Stage the inner block's columns (coalesced, asynchronous: every copy in
  // flight at once; masked entries become zeros), then each thread's part.
  static_assert((NB * IB) % L::threads == 0, "the staging loop has a compile-time trip count");
  // Unrolled by two only, as the engine's copies (compact_wy_apply.cuh):
  // fully unrolled, the addresses spill (ptxas -v at NB = 256, IB = 32:
  // 836 bytes stored, 148 at two).
#pragma unroll 2
  for (int e = 0; e < NB * IB / L::threads; ++e) {
    const int idx = tid + e * L::threads, r = idx % NB, c = idx / NB;
    const bool valid = r < m && c < kb && in_triangle(r, c);
    copy_async<sizeof(T)>(panel + c * L::ld_panel + r, valid ? body + std::size_t(i + c) * ld_body + r : body,
                          valid);
  }
  if (!geqrt_kind)
    for (int idx = tid; idx < IB * IB; idx += L::threads) {
      const int r = idx % IB, c = idx / IB;
      const bool valid = r <= c && c < kb;
      copy_async<sizeof(T)>(tops + c * LDS + r, valid ? top + std::size_t(i + c) * ld_top + i + r : top, valid);
    }
  commit_async_copies();
  wait_async_copies<0>();
  __syncthreads();
  T vals[CPL][RPW];
#pragma unroll
  for (int u = 0; u < CPL; ++u) {
    if (lane + 32 * u < IB) {
      load_rows(panel + (lane + 32 * u) * L::ld_panel + row0, vals[u]);
    } else {
#pragma unroll
      for (int s = 0; s < RPW; ++s) vals[u][s] = T(0);
    }
  }
  T* const xw = xcol + row0;  // this warp's rows of x
  // tsqrt/ttqrt: warp 0's finished entries of R's row j − 1, written to
  // `tops` once nobody reads that row (after column j's barrier).
  T finished[CPL];
#pragma unroll
  for (int u = 0; u < CPL; ++u) finished[u] = T(0);

#pragma unroll 1
  for (int j = 0; j < kb; ++j) {
    const int p = i + j;  // the pivot row
    const int uj = j / 32, lj = j % 32;
    const int p_warp = p / RPW, p_slot = p % RPW;
    T* part_sums = partial + (j & 1) * L::warps * LDP;
    int* part_flags = flag_words + (j & 1) * L::warps;
    T* pivot_row = pivot + (j & 1) * IB;
    bool flag = false;  // a huge or non-finite value seen: the careful path
    // (a) geqrt: the pivot row's entries, from the warp that owns row p
    // (each lane writes its column's rows to the staging buffer, free until
    // the write-back, and reads row p again); tsqrt/ttqrt: warp 0 checks R's
    // row j (nobody changes it before (f)).
    if (geqrt_kind && warp == p_warp)
#pragma unroll
      for (int u = 0; u < CPL; ++u)
        if (lane + 32 * u < IB) {
          T* const own = panel + (lane + 32 * u) * L::ld_panel + row0;
          store_rows(own, vals[u]);
          const T a = own[p_slot];
          pivot_row[lane + 32 * u] = a;
          flag |= !(magnitude(a) <= entry_limit);
        }
    if (!geqrt_kind && warp == 0)
#pragma unroll
      for (int u = 0; u < CPL; ++u)
        if (lane + 32 * u < IB) flag |= !(magnitude(tops[(lane + 32 * u) * LDS + j]) <= entry_limit);
    // The rows column j's reflector reaches (bit s: row row0 + s), and its
    // entries there. `whole` (every row of the warp) is the same in the
    // whole warp and the common case: it takes no per-row masks.
    const int d = p - row0;
    unsigned part;
    if (kind == PanelKind::geqrt) part = d + 1 <= 0 ? all_rows : d + 1 >= RPW ? 0u : all_rows & ~((1u << (d + 1)) - 1u);
    else if (kind == PanelKind::tsqrt) part = all_rows;
    else part = d < 0 ? 0u : d + 1 >= RPW ? all_rows : (1u << (d + 1)) - 1u;
    part &= in_matrix;
    const bool whole = part == all_rows;
    // (b) x to shared memory, by the lane that holds column j; this thread's
    // sums: xᵀx and xᵀa_c for its columns, each in four interleaved partial
    // sums (a fixed order). Whether x has a nonzero entry (else H = I): a
    // nonzero xᵀx says so; only where it is zero (padding, or squares all
    // underflowed) are the entries looked at. The same in every lane.
    T squares = 0, dot[CPL];
    bool nonzero = false;
#pragma unroll
    for (int u = 0; u < CPL; ++u) dot[u] = 0;
    if (part != 0) {
      __syncwarp();  // every lane has read the previous column's x
      if (lane == lj) {
        auto publish = [&](const T(&column_j)[RPW]) {
          if (whole) {
            store_rows(xw, column_j);
          } else {
#pragma unroll
            for (int s = 0; s < RPW; ++s) xw[s] = part >> s & 1u ? column_j[s] : T(0);
          }
        };
        if (uj == 0) publish(vals[0]);
        else publish(vals[CPL - 1]);
      }
      __syncwarp();
      T x[RPW];
      load_rows(xw, x);
      T sq[4] = {0, 0, 0, 0}, dt[CPL][4];
#pragma unroll
      for (int u = 0; u < CPL; ++u) dt[u][0] = dt[u][1] = dt[u][2] = dt[u][3] = 0;
#pragma unroll
      for (int s = 0; s < RPW; ++s) {
        sq[s & 3] += x[s] * x[s];
#pragma unroll
        for (int u = 0; u < CPL; ++u) dt[u][s & 3] += x[s] * vals[u][s];
      }
      squares = (sq[0] + sq[1]) + (sq[2] + sq[3]);
#pragma unroll
      for (int u = 0; u < CPL; ++u) dot[u] = (dt[u][0] + dt[u][1]) + (dt[u][2] + dt[u][3]);
      nonzero = squares != T(0);
      if (!nonzero)
#pragma unroll
        for (int s = 0; s < RPW; ++s) nonzero |= x[s] != T(0);
    }
#pragma unroll
    for (int u = 0; u < CPL; ++u) {
      flag |= !(magnitude(dot[u]) <= dot_limit);
      if (lane + 32 * u < IB) part_sums[warp * LDP + lane + 32 * u] = dot[u];
    }
    flag = __any_sync(0xffffffffu, flag);
    if (lane == 0) {
      part_sums[warp * LDP + IB] = squares;
      part_flags[warp] = (flag ? 1 : 0) | (nonzero ? 2 : 0);
    }
    __syncthreads();  // (c) the partial sums and the pivot row are written

    // (d) the reflector, the same in every thread.
    // The warps' sums added pairwise (a fixed tree: log2(warps) additions
    // deep, not warps; the same order in every thread).
    int flags = 0;
    T sq_w[L::warps], dot_w[CPL][L::warps];
#pragma unroll
    for (int w = 0; w < L::warps; ++w) {
      sq_w[w] = part_sums[w * LDP + IB];
      flags |= part_flags[w];
#pragma unroll
      for (int u = 0; u < CPL; ++u) dot_w[u][w] = lane + 32 * u < IB ? part_sums[w * LDP + lane + 32 * u] : T(0);
    }
    squares = pairwise_sum(sq_w);
#pragma unroll
    for (int u = 0; u < CPL; ++u) dot[u] = pairwise_sum(dot_w[u]);
    flag = (flags & 1) != 0;
    const bool x_nonzero = (flags & 2) != 0;
    const T alpha = geqrt_kind ? pivot_row[j] : tops[j * LDS + j];
    T pivot_entry[CPL];  // the pivot row's entry in each of this thread's columns
#pragma unroll
    for (int u = 0; u < CPL; ++u) {
      const int c = lane + 32 * u < IB ? lane + 32 * u : IB - 1;
      pivot_entry[u] = geqrt_kind ? pivot_row[c] : tops[c * LDS + j];
    }
    // A zero x gives H = I (τ = 0), as make_reflector. Otherwise the direct
    // formula needs xᵀx ≥ a floor (so that no square underflowed by more
    // than ε·xᵀx); a smaller one and huge or non-finite entries go the
    // careful way. Every thread takes the same branch.
    gpu::WarpReflector<T> h;
    h.beta = alpha;
    bool direct = true;
    if (x_nonzero) {
      direct = !flag;
      if (direct) h = gpu::direct_reflector(alpha, squares, direct, NB);
    }

    if (!direct) {  // rare, and the same in every thread
      const int lo = geqrt_kind ? p + 1 : 0;
      if (lane == 0)
#pragma unroll
        for (int s = 0; s < RPW; ++s)
          if (part >> s & 1u) column[row0 + s - lo] = xw[s];
      __syncthreads();  // also: every thread has read the partial sums
      if (tid == 0) {
        const int hi = kind == PanelKind::ttqrt ? (p + 1 < m ? p + 1 : m) : m;
        T head = alpha;
        column[NB + 1] = make_reflector(hi - lo, head, column, 1);
        column[NB] = head;
      }
      __syncthreads();
      h.beta = column[NB];
      h.tau = column[NB + 1];
      h.scale = 1;
#pragma unroll
      for (int u = 0; u < CPL; ++u) dot[u] = 0;
      if (part != 0) {
        if (lane == 0)
#pragma unroll
          for (int s = 0; s < RPW; ++s) xw[s] = part >> s & 1u ? column[row0 + s - lo] : T(0);
        __syncwarp();
        T x[RPW];
        load_rows(xw, x);
#pragma unroll
        for (int s = 0; s < RPW; ++s)
#pragma unroll
          for (int u = 0; u < CPL; ++u) dot[u] += x[s] * vals[u][s];
      }
#pragma unroll
      for (int u = 0; u < CPL; ++u)
        if (lane + 32 * u < IB) part_sums[warp * LDP + lane + 32 * u] = dot[u];
      __syncthreads();
#pragma unroll
      for (int u = 0; u < CPL; ++u) {
        dot[u] = 0;
        for (int ww = 0; ww < L::warps; ++ww)
          if (lane + 32 * u < IB) dot[u] += part_sums[ww * LDP + lane + 32 * u];
      }
    }

    // (f) the updates. Column j becomes v_j (below its pivot) and beta;
    // the columns c > j take H_j; the columns c < j give v_cᵀ v_j to T_b.
    // tsqrt/ttqrt: warp 0 writes R's finished row j − 1 now that nobody
    // reads it; geqrt: the pivot row's warp writes R's row j (the pivot row
    // in registers is never read again: x is zero there from now on).
    if (!geqrt_kind && warp == 0 && j > 0)
#pragma unroll
      for (int u = 0; u < CPL; ++u) {
        const int c = lane + 32 * u;
        if (c >= j - 1 && c < kb) tops[c * LDS + j - 1] = finished[u];
      }
    T w[CPL];
#pragma unroll
    for (int u = 0; u < CPL; ++u) {
      const int c = lane + 32 * u;
      w[u] = (pivot_entry[u] + h.scale * dot[u]) * h.tau;
      if (c >= j && c < kb) {
        const T r_entry = c == j ? h.beta : h.tau != T(0) ? pivot_entry[u] - w[u] : pivot_entry[u];
        if (geqrt_kind && warp == p_warp) tops[c * LDS + j] = r_entry;
        finished[u] = r_entry;
      } else if (c < j && warp == 0) {
        // v_cᵀ v_j: v_j = [1 at row p; x·scale]; v_c's entry at row p is
        // the pivot row's (geqrt); in tsqrt/ttqrt the unit entries sit in
        // different rows of R.
        gmat[j * LDS + c] = (geqrt_kind ? pivot_entry[u] : T(0)) + h.scale * dot[u];
      }
    }
    if (part != 0) {  // x is zero outside `part`
      T x[RPW];
      load_rows(xw, x);
#pragma unroll
      for (int u = 0; u < CPL; ++u) {
        const int c = lane + 32 * u;
        if (c == j) {
          if (whole) {
#pragma unroll
            for (int s = 0; s < RPW; ++s) vals[u][s] = x[s] * h.scale;
          } else {
#pragma unroll
            for (int s = 0; s < RPW; ++s)
              if (part >> s & 1u) vals[u][s] = x[s] * h.scale;
          }
        } else if (c > j && c < kb && h.tau != T(0)) {
          const T w_scaled = w[u] * h.scale;
#pragma unroll
          for (int s = 0; s < RPW; ++s) vals[u][s] -= w_scaled * x[s];
        }
      }
    }
    if (tid == 0) taus[j] = h.tau;
  }

  // Write the inner block back: V and the pivot rows, R's block, T_b.
#pragma unroll
  for (int u = 0; u < CPL; ++u)
    if (lane + 32 * u < IB) store_rows(panel + (lane + 32 * u) * L::ld_panel + row0, vals[u]);
  __syncthreads();  // every column is done: R's last row, G and τ are final
  if (!geqrt_kind && warp == 0)
#pragma unroll
    for (int u = 0; u < CPL; ++u) {
      const int c = lane + 32 * u;
      if (c >= kb - 1 && c < kb) tops[c * LDS + kb - 1] = finished[u];
    }
  if (geqrt_kind)  // R's rows i … i + kb − 1, in place of their stale copies in registers
    for (int idx = tid; idx < IB * IB; idx += L::threads) {
      const int r = idx % IB, c = idx / IB;
      if (r <= c && c < kb) panel[c * L::ld_panel + i + r] = tops[c * LDS + r];
    }
  // T_b from τ and G = VᵀV in two halves (Schreiber and Van Loan, "A
  // storage-efficient WY representation for products of Householder
  // transformations"): with the reflectors split into A = 0 … H − 1 and
  // B = H … kb − 1,
  //   T = [T_AA  −T_AA G_AB T_BB; 0  T_BB],
  // where T_AA and T_BB are the T of each half alone. Each half's rows are
  // formed as LAPACK's ?larft forms them, row c by thread c
  // (T(c, j) = −τ_j Σ_{c ≤ l < j} T(c, l) G(l, j)), the two halves at once;
  // then the corner through X = G_AB T_BB, a product of small matrices.
  constexpr int H = IB / 2;
  if (tid < kb) {
    const int c = tid, end = c < H ? (kb < H ? kb : H) : kb;
    tmat[c * LDS + c] = taus[c];
    for (int j = c + 1; j < end; ++j) {
      T sum[4] = {0, 0, 0, 0};
      int l = c;
      for (; l + 3 < j; l += 4)
#pragma unroll
        for (int e = 0; e < 4; ++e) sum[e] += tmat[(l + e) * LDS + c] * gmat[j * LDS + l + e];
      for (; l < j; ++l) sum[0] += tmat[l * LDS + c] * gmat[j * LDS + l];
      const T dotted = (sum[0] + sum[1]) + (sum[2] + sum[3]);
      tmat[j * LDS + c] = taus[j] != T(0) ? -taus[j] * dotted : T(0);
    }
  }
  __syncthreads();
  if (kb > H) {
    const int corner = H * (kb - H);
    for (int e = tid; e < corner; e += L::threads) {  // X(l, j) = Σ_{H ≤ l' ≤ j} G(l, l') T(l', j)
      const int l = e % H, j = H + e / H;
      T sum = 0;
      for (int l2 = H; l2 <= j; ++l2) sum += gmat[l2 * LDS + l] * tmat[j * LDS + l2];
      corner_x[(j - H) * H + l] = sum;
    }
    __syncthreads();
    for (int e = tid; e < corner; e += L::threads) {  // T(c, j) = −Σ_{c ≤ l < H} T(c, l) X(l, j)
      const int c = e % H, j = H + e / H;
      T sum = 0;
      for (int l = c; l < H; ++l) sum += tmat[l * LDS + c] * corner_x[(j - H) * H + l];
      tmat[j * LDS + c] = -sum;
    }
    __syncthreads();
  }
  for (int idx = tid; idx < NB * IB; idx += L::threads) {
    const int r = idx % NB, c = idx / NB;
    if (r < m && c < kb && in_triangle(r, c)) body[std::size_t(i + c) * ld_body + r] = panel[c * L::ld_panel + r];
  }
  for (int idx = tid; idx < IB * IB; idx += L::threads) {
    const int r = idx % IB, c = idx / IB;
    if (c < kb) {
      t[std::size_t(i + c) * ldt + r] = r <= c ? tmat[c * LDS + r] : T(0);
      if (!geqrt_kind && r <= c) top[std::size_t(i + c) * ld_top + i + r] = tops[c * LDS + r];
    }
  }
  __syncthreads();  // V, R and T_b are in global memory; shared memory is free

  // The columns to the right take Q_bᵀ, inner blocks in groups of
  // PanelLayout::trailing_group: inside a group only the next inner block's
  // columns take the group's blocks so far; after its last block every
  // column past the group takes all of them in one call, so that the engine
  // moves those columns in and out once a group, not once an inner block.
  constexpr int G = L::trailing_group;
  const int right = i + kb;
  const int blocks = (k + IB - 1) / IB;
  const bool group_done = b % G == G - 1 || b + 1 == blocks;
  const int first = b - b % G;  // the group's first inner block
  const int i0 = first * IB;    // … and its first column
  if (right < n) {
    CompactWy<T> a{};
    // Inside a group: the next inner block's columns only (fewer than IB
    // when it is geqrt's last, of a tile with fewer rows than columns).
    a.n = group_done ? n - right : (k - right < IB ? k - right : IB);
    a.k = right;
    a.first_block = first;
    a.t = t;
    a.ldt = ldt;
    if (geqrt_kind) {
      a.m = m - i0;
      a.row_offset = i0;
      a.v = body + i0;
      a.ldv = ld_body;
      a.c = body + std::size_t(right) * ld_body + i0;
      a.ldc = ld_body;
    } else {
      // ttqrt: rows past the last reflector's reach are not changed.
      a.m = kind == PanelKind::ttqrt ? (right < m ? right : m) : m;
      a.row_offset = 0;
      a.v = body;
      a.ldv = ld_body;
      a.a1 = top + std::size_t(right) * ld_top;
      a.lda1 = ld_top;
      a.c = body + std::size_t(right) * ld_body;
      a.ldc = ld_body;
    }
    trailing_update<T, NB, IB>(shape, a, shared);
  }
  __syncthreads();  // the next inner block reads what the update wrote
}

// The whole factor kind: every inner block in turn; k = min(m, n) for
// geqrt, n for tsqrt and ttqrt.
template <typename T, int NB, int IB, PanelKind kind>
__device__ __forceinline__ void factor_blocks(int m, int n, T* top, int ld_top, T* body, int ld_body, T* t, int ldt,
                                              T* shared) {
  const int k = kind == PanelKind::geqrt ? (m < n ? m : n) : n;
  const int blocks = (k + IB - 1) / IB;
  for (int b = 0; b < blocks; ++b)
    factor_inner_block<T, NB, IB, kind>(b, m, n, k, top, ld_top, body, ld_body, t, ldt, shared);
}

// factor_blocks out of line, one function a kind, so that ptxas allocates
// each kind's registers alone.
template <typename T, int NB, int IB, PanelKind kind>
__device__ __noinline__ void factor_blocks_alone(int m, int n, T* top, int ld_top, T* body, int ld_body, T* t,
                                                 int ldt, T* shared) {
  factor_blocks<T, NB, IB, kind>(m, n, top, ld_top, body, ld_body, t, ldt, shared);
}

// One kind: out of line at tiles up to 128 (FR4 8192², tile 64, inner
// block 32: 47.3 ms against 48.2 with the three kinds inlined into one
// function; ptxas -v: 16 bytes of spill loads at inner block 16 there, none
// apart), inlined at 256 (262144 × 256: 10.62 ms against 10.75 out of line;
// an H200, report/data/fr4_tile64_h200.csv, runs b and a).
template <typename T, int NB, int IB, PanelKind kind>
__device__ __forceinline__ void factor_kind(int m, int n, T* top, int ld_top, T* body, int ld_body, T* t, int ldt,
                                            T* shared) {
  if constexpr (NB <= 128) factor_blocks_alone<T, NB, IB, kind>(m, n, top, ld_top, body, ld_body, t, ldt, shared);
  else factor_blocks<T, NB, IB, kind>(m, n, top, ld_top, body, ld_body, t, ldt, shared);
}

template <typename T, int NB, int IB>
__device__ void factor_tile(PanelKind kind, int m, int n, T* top, int ld_top, T* body, int ld_body, T* t,
                            int ldt, T* shared) {
  switch (kind) {
    case PanelKind::geqrt: factor_kind<T, NB, IB, PanelKind::geqrt>(m, n, top, ld_top, body, ld_body, t, ldt, shared); break;
    case PanelKind::tsqrt: factor_kind<T, NB, IB, PanelKind::tsqrt>(m, n, top, ld_top, body, ld_body, t, ldt, shared); break;
    case PanelKind::ttqrt: factor_kind<T, NB, IB, PanelKind::ttqrt>(m, n, top, ld_top, body, ld_body, t, ldt, shared); break;
  }
}

// One independent factor task (geqrt: top unused): the operands of
// factor_tile, device pointers.
template <typename T>
struct FactorTask {
  int m, n;
  T* top;
  int ld_top;
  T* body;
  int ld_body;
  T* t;
  int ldt;
};

// Block i factors tasks[i] with kind `kind`.
template <typename T, int NB, int IB>
__global__ void __launch_bounds__(PanelLayout<T, NB, IB>::threads, CompactWyLaunch<T, NB, IB>::blocks)
    factor_tasks_kernel(PanelKind kind, const FactorTask<T>* tasks) {
  extern __shared__ __align__(16) unsigned char factor_shared[];
  const FactorTask<T> task = tasks[blockIdx.x];
  factor_tile<T, NB, IB>(kind, task.m, task.n, task.top, task.ld_top, task.body, task.ld_body, task.t, task.ldt,
                         reinterpret_cast<T*>(factor_shared));
}

// Runs `count` factor tasks (device array) concurrently, one block each,
// raising the kernel's dynamic shared-memory limit first; the caller checks
// each task's sizes (m, n ≤ NB) beforehand. Returns the first error.
template <typename T, int NB, int IB>
cudaError_t launch_factor_tasks(PanelKind kind, const FactorTask<T>* tasks, int count, cudaStream_t stream) {
  using L = PanelLayout<T, NB, IB>;
  const cudaError_t status = cudaFuncSetAttribute(factor_tasks_kernel<T, NB, IB>,
                                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  static_cast<int>(L::shared_bytes));
  if (status != cudaSuccess || count == 0) return status;
  factor_tasks_kernel<T, NB, IB><<<count, L::threads, L::shared_bytes, stream>>>(kind, tasks);
  return cudaGetLastError();
}

}  // namespace tiledqr::kernels::block
