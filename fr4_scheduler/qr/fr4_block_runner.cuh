// make_block_runner (fr4_runner.cuh): the task-graph QR on the block kinds of
// tile NB and inner block IB; fr4_block_runners_*.cu instantiate it.
#pragma once

#include "block_qr_kinds.cuh"
#include "fr4_runner.cuh"

namespace tiledqr::gpu {

template <typename T, int NB, int IB>
std::unique_ptr<Fr4Runner<T>> make_block_runner(int32_t p, int32_t q, const Options& options) {
  using Kinds = BlockQrKinds<T, NB, IB>;
  using Shape = typename Kinds::Shape;
  ExecOptions e;
  e.warps_per_block = Shape::threads / 32;  // a worker is a block of the kernels' size
  e.max_blocks = options.max_blocks;
  e.scratch_bytes_per_warp = int((Shape::shared_bytes / e.warps_per_block + 15) / 16 * 16);
  e.trace = options.trace;
  e.stall_timeout_seconds = options.watchdog_seconds;
  return std::make_unique<Fr4RunnerOf<T, Kinds, BlockQrRunParams<T>>>(p, q, options.tree, options.tree_domains,
                                                                   Team::block, options.priority_classes, e);
}

}  // namespace tiledqr::gpu
