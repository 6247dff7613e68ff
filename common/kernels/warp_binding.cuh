// The warp target's binding of a QR task to its kernel: the one place that
// maps (kind, k, i, j, piv) to a call of a kernel of kernels/warp, used by
// FR3's executors and by FR4's QR task kinds.
#pragma once

#include <cstdint>

#include "kernels/warp/geqrt.cuh"
#include "kernels/warp/ormqr.cuh"
#include "kernels/warp/tile.cuh"
#include "kernels/warp/tsmqr.cuh"
#include "kernels/warp/tsqrt.cuh"
#include "task.hpp"

namespace tiledqr::gpu {

// Where one run's tiles live (device memory). The factor kinds work on `a`;
// the update kinds change `c`: `a` itself while factoring, another
// matrix's tiles (p tile rows) when Q or Qᵀ is applied to it.
template <typename T>
struct WarpTaskData {
  T* a;          // p·q tiles of (32, 32), ld = 32, tile (i, j) at (i + j·p)·1024: A, then V and R
  T* tau_local;  // (p·q·32): τ of geqrt on tile (i, k) at (i + k·p)·32
  T* tau_merge;  // (p·q·32): τ of tsqrt/ttqrt merging tile (i, k), same place
  T* c;          // the tiles the update kinds change
  int32_t p;     // tile rows of a and of c

  __device__ T* tile(T* base, int32_t i, int32_t j) const { return base + (i + int64_t(j) * p) * tile_elements; }
  __device__ T* tau(T* base, int32_t i, int32_t k) const { return base + (i + int64_t(k) * p) * warp_tile; }
};

// How the kernels are called: inlined into the caller, or each behind a
// call of its own, so ptxas allocates registers per kernel instead of for
// one function holding every unrolled kernel and the caller's loop.
enum class WarpCall { inlined, separate };
// Which kinds a caller runs: the flat tree's four, or all six.
enum class WarpKinds { flat_tree, all_trees };

namespace binding_detail {

template <typename Kernel, typename... A>
__device__ __noinline__ void call_apart(Kernel kernel, A... a) {
  kernel(a...);
}

template <WarpCall call, typename Kernel, typename... A>
__device__ __forceinline__ void call_kernel(Kernel kernel, A... a) {
  if constexpr (call == WarpCall::separate) call_apart(kernel, a...);
  else kernel(a...);
}

}  // namespace binding_detail

// Runs task `t` with the warp kernels, all 32 lanes together; `shared` is
// the warp's workspace (warp_shared_elements of T). The update kinds apply
// Qᵀ (factorisation, apply_qt) when `transpose`, else Q.
template <WarpCall call, WarpKinds kinds, typename T>
__device__ void run_warp_task(const Task& t, bool transpose, const WarpTaskData<T>& d, T* shared, int lane) {
  using namespace binding_detail;
  T* v = d.tile(d.a, t.i, t.k);
  switch (t.kind) {
    case TaskKind::geqrt:
      call_kernel<call>([](auto... a) { warp_geqrt(a...); }, v, d.tau(d.tau_local, t.i, t.k), shared, lane);
      break;
    case TaskKind::ormqr:
      call_kernel<call>([](auto... a) { warp_ormqr(a...); }, transpose, v, d.tau(d.tau_local, t.i, t.k),
                        d.tile(d.c, t.i, t.j), shared, lane);
      break;
    case TaskKind::tsqrt:
      call_kernel<call>([](auto... a) { warp_tsqrt(a...); }, d.tile(d.a, t.piv, t.k), v,
                        d.tau(d.tau_merge, t.i, t.k), shared, lane);
      break;
    case TaskKind::tsmqr:
      call_kernel<call>([](auto... a) { warp_tsmqr(a...); }, transpose, v, d.tau(d.tau_merge, t.i, t.k),
                        d.tile(d.c, t.piv, t.j), d.tile(d.c, t.i, t.j), shared, lane);
      break;
    case TaskKind::ttqrt:
      if constexpr (kinds == WarpKinds::all_trees)
        call_kernel<call>([](auto... a) { warp_ttqrt(a...); }, d.tile(d.a, t.piv, t.k), v,
                          d.tau(d.tau_merge, t.i, t.k), shared, lane);
      break;
    case TaskKind::ttmqr:
      if constexpr (kinds == WarpKinds::all_trees)
        call_kernel<call>([](auto... a) { warp_ttmqr(a...); }, transpose, v, d.tau(d.tau_merge, t.i, t.k),
                          d.tile(d.c, t.piv, t.j), d.tile(d.c, t.i, t.j), shared, lane);
      break;
  }
}

}  // namespace tiledqr::gpu
