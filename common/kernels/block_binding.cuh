// The block target's binding of a QR task to its kernel: the one place that
// maps (kind, k, i, j, piv) to a call of a kernel of kernels/block on tiles
// of nb, run by every thread of one thread block. FR4's QR task kinds use it
// for tiles of 64 and more.
#pragma once

#include <cstdint>

#include "kernels/block/ormqr.cuh"
#include "kernels/block/panel_factor.cuh"
#include "kernels/block/staged_layout.hpp"
#include "kernels/block/tsmqr.cuh"
#include "kernels/block/ttmqr.cuh"
#include "task.hpp"

namespace tiledqr::gpu {

// Where one run's tiles and T factors live (device memory). The factor
// kinds work on `a`; the update kinds change `c`: `a` itself while
// factoring, another matrix's tiles (p tile rows) when Q or Qᵀ is applied.
template <typename T>
struct BlockTaskData {
  T* a;        // p·q tiles (nb, nb), ld = nb, tile (i, j) at (i + j·p)·nb²: A, then V and R
  T* t_local;  // p·q blocks (ib, nb), ld = ib: T of geqrt on tile (i, k) at (i + k·p)·ib·nb
  T* t_merge;  // the same for the tsqrt/ttqrt merging tile (i, k)
  T* c;        // the tiles the update kinds change
  int32_t p;   // tile rows of a and of c
  // Optional (factorisation only): p·q staged copies of the tsqrt factors
  // (kernels::block::write_staged), tile (i, k) at (i + k·p)·staged_tile_elements.
  T* staged = nullptr;

  template <int NB>
  __device__ T* tile(T* base, int32_t i, int32_t j) const {
    return base + (i + int64_t(j) * p) * (int64_t(NB) * NB);
  }
  template <int NB, int IB>
  __device__ T* t_block(T* base, int32_t i, int32_t k) const {
    return base + (i + int64_t(k) * p) * (int64_t(IB) * NB);
  }
  template <int NB, int IB>
  __device__ T* staged_tile(int32_t i, int32_t k) const;
};

// The shared memory and threads a block task of tile NB, inner block IB
// needs (the larger of the factor kinds' and the update kinds'), and the
// blocks a multiprocessor is meant to hold (the kernels' register budget).
template <typename T, int NB, int IB>
struct BlockTaskShape {
  static constexpr int threads = kernels::block::PanelLayout<T, NB, IB>::threads;
  static constexpr int blocks_per_sm = kernels::block::CompactWyLaunch<T, NB, IB>::blocks;
  static constexpr std::size_t shared_bytes = kernels::block::PanelLayout<T, NB, IB>::shared_bytes;
  // Elements of one tile's staged copy of a tsqrt factor (BlockTaskData::
  // staged; 0: none), the size the host allocates (staged_layout.hpp).
  static constexpr std::size_t staged_tile_elements = kernels::block::staged_tile_elements(NB, IB, sizeof(T));
  static_assert(staged_tile_elements == 0 ||
                    (kernels::block::CompactWyLaunch<T, NB, IB>::tensor_cores &&
                     staged_tile_elements == std::size_t(NB / IB) * kernels::block::CompactWyLaunch<
                                                                        T, NB, IB>::MmaLayout::staged_block_elements),
                "staged copies are the engine stages' V_b and T_b, inner block after inner block");
};

template <typename T>
template <int NB, int IB>
__device__ T* BlockTaskData<T>::staged_tile(int32_t i, int32_t k) const {
  constexpr std::size_t elements = BlockTaskShape<T, NB, IB>::staged_tile_elements;
  return elements > 0 && staged != nullptr ? staged + (i + int64_t(k) * p) * int64_t(elements) : nullptr;
}

namespace block_binding_detail {

// Kept out of line so ptxas allocates registers for each kernel alone, not
// for one function holding them all and the caller's scheduler loop.
template <typename T, int NB, int IB>
__device__ __noinline__ void factor(kernels::block::PanelKind kind, T* top, T* body, T* t, T* shared) {
  kernels::block::factor_tile<T, NB, IB>(kind, NB, NB, top, NB, body, NB, t, IB, shared);
}

template <typename T, int NB, int IB>
__device__ __noinline__ void update(kernels::block::ReflectorShape shape, bool transpose,
                                    kernels::block::CompactWy<T> operands, T* shared) {
  kernels::block::apply_compact_wy<T, NB, IB>(shape, transpose, operands, shared);
}

// tsmqr's Qᵀ with the staged copy of its factor (operands.staged).
template <typename T, int NB, int IB>
__device__ __noinline__ void update_staged(kernels::block::CompactWy<T> operands, T* shared) {
  kernels::block::apply_compact_wy_staged<T, NB, IB>(kernels::block::ReflectorShape::full, operands, shared);
}

}  // namespace block_binding_detail

// Runs task `t` with the block kernels on tiles of NB (zero-padded, so every
// tile is NB × NB), every thread of a block of BlockTaskShape::threads
// together; `shared` is BlockTaskShape::shared_bytes of shared memory. The
// update kinds apply Qᵀ (factorisation, apply_qt) when `transpose`, else Q.
template <typename T, int NB, int IB>
__device__ void run_block_task(const Task& t, bool transpose, const BlockTaskData<T>& d, T* shared) {
  namespace kb = kernels::block;
  using namespace block_binding_detail;
  T* v = d.template tile<NB>(d.a, t.i, t.k);
  switch (t.kind) {
    case TaskKind::geqrt:
      factor<T, NB, IB>(kb::PanelKind::geqrt, nullptr, v, d.template t_block<NB, IB>(d.t_local, t.i, t.k), shared);
      break;
    case TaskKind::tsqrt:
    case TaskKind::ttqrt: {
      T* const tb = d.template t_block<NB, IB>(d.t_merge, t.i, t.k);
      factor<T, NB, IB>(t.kind == TaskKind::tsqrt ? kb::PanelKind::tsqrt : kb::PanelKind::ttqrt,
                        d.template tile<NB>(d.a, t.piv, t.k), v, tb, shared);
      if constexpr (BlockTaskShape<T, NB, IB>::staged_tile_elements > 0) {
        T* const staged = d.template staged_tile<NB, IB>(t.i, t.k);
        if (t.kind == TaskKind::tsqrt && staged != nullptr) {
          __syncthreads();  // V and T as the block's threads wrote them
          kb::write_staged<T, NB, IB>(v, NB, tb, IB, staged);
        }
      }
      break;
    }
    case TaskKind::ormqr:
      update<T, NB, IB>(kb::ReflectorShape::unit_lower, transpose,
                        kb::ormqr_operands<T>(NB, NB, NB, v, NB, d.template t_block<NB, IB>(d.t_local, t.i, t.k), IB,
                                              d.template tile<NB>(d.c, t.i, t.j), NB),
                        shared);
      break;
    case TaskKind::tsmqr: {
      kb::CompactWy<T> operands =
          kb::tsmqr_operands<T>(NB, NB, NB, v, NB, d.template t_block<NB, IB>(d.t_merge, t.i, t.k), IB,
                                d.template tile<NB>(d.c, t.piv, t.j), NB, d.template tile<NB>(d.c, t.i, t.j), NB);
      if constexpr (BlockTaskShape<T, NB, IB>::staged_tile_elements > 0) {
        operands.staged = d.template staged_tile<NB, IB>(t.i, t.k);
        if (transpose && operands.staged != nullptr) {
          update_staged<T, NB, IB>(operands, shared);
          break;
        }
      }
      update<T, NB, IB>(kb::ReflectorShape::full, transpose, operands, shared);
      break;
    }
    case TaskKind::ttmqr:
      update<T, NB, IB>(kb::ReflectorShape::upper, transpose,
                        kb::ttmqr_operands<T>(NB, NB, NB, v, NB, d.template t_block<NB, IB>(d.t_merge, t.i, t.k), IB,
                                              d.template tile<NB>(d.c, t.piv, t.j), NB,
                                              d.template tile<NB>(d.c, t.i, t.j), NB),
                        shared);
      break;
  }
}

}  // namespace tiledqr::gpu
