// The tiled QR's task kinds on the FR4 scheduler for tiles of 64 and more
// (docs/design.md §8): every kind is a block kind (Team::block), run by the
// block binding (common/kernels/block_binding.cuh) on tiles of NB with inner
// block IB — the tensor-core kernels for double, the FMA ones for float.
#pragma once

#include <cstdint>

#include "kernels/block_binding.cuh"
#include "qr_kinds.cuh"

namespace tiledqr::gpu {

// One run's data: the block binding's tiles and T factors (device memory).
template <typename T>
using BlockQrRunParams = gpu::BlockTaskData<T>;

template <typename T, int NB, int IB>
struct BlockQrKinds {
  using Shape = BlockTaskShape<T, NB, IB>;
  static constexpr bool block_only = true;
  static constexpr int block_threads = Shape::threads;
  static constexpr int blocks_per_sm = Shape::blocks_per_sm;
  // Elements of a tile's staged copy of a tsqrt factor (the runner allocates
  // p·q of them for a factorisation; BlockTaskData::staged).
  static constexpr std::size_t staged_tile_elements = Shape::staged_tile_elements;
  template <class Ctx>
  __device__ static void run(int kind, const TaskArgs& args, Ctx& ctx) {
    const QrTaskArgs a = args.as<QrTaskArgs>();
    (void)kind;  // the same as a.task.kind
    gpu::run_block_task<T, NB, IB>(a.task, a.transpose != 0, params_of<BlockQrRunParams<T>>(ctx), scratch_of<T>(ctx));
  }
};

}  // namespace tiledqr::gpu
