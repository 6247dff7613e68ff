// The one-tile factorisation's kernels, one instance per tile, inner block
// and precision (fr4_one_tile.hpp): 8 warps for tiles of 64 (16 entries a
// thread) and for double tiles of 128 (64 entries in 255 registers, no
// spill), 16 for float tiles of 128 (32 entries a thread). On an H200
// (report/data/fr4_one_tile_kernel_h200.txt) a double tile of 128² took
// 129 µs on 8 warps against 136 on 16, a float one 98 on 16 against 105
// on 8 (inner block 32).

#include "fr4_one_tile.hpp"

#include <string>

#include "errors.hpp"
#include "gpu/cuda_check.hpp"
#include "kernels/block_registers/geqrt.cuh"

namespace tiledqr::gpu {

template <typename T>
void launch_one_tile_geqrt(const Fr4Tiles& tiles, int m, int n, const T* a, int64_t lda, T* tile, T* t,
                           cudaStream_t stream) {
  namespace br = kernels::block_registers;
  constexpr int tile128_warps = sizeof(T) == sizeof(double) ? 8 : 16;
  cudaError_t status = cudaErrorInvalidValue;
  switch (tiles.tile * 1000 + tiles.inner_block) {
    case 64016: status = br::launch_geqrt<T, 64, 16, 8>(m, n, a, lda, tile, t, stream); break;
    case 64032: status = br::launch_geqrt<T, 64, 32, 8>(m, n, a, lda, tile, t, stream); break;
    case 128016: status = br::launch_geqrt<T, 128, 16, tile128_warps>(m, n, a, lda, tile, t, stream); break;
    case 128032: status = br::launch_geqrt<T, 128, 32, tile128_warps>(m, n, a, lda, tile, t, stream); break;
    default:
      throw InputError("the one-tile factorisation runs tiles of 64 or 128 with inner blocks of 16 or 32; got "
                       "tile " + std::to_string(tiles.tile) + ", inner block " + std::to_string(tiles.inner_block));
  }
  check(status, "the one-tile geqrt kernel");
}

template void launch_one_tile_geqrt<float>(const Fr4Tiles&, int, int, const float*, int64_t, float*, float*,
                                           cudaStream_t);
template void launch_one_tile_geqrt<double>(const Fr4Tiles&, int, int, const double*, int64_t, double*, double*,
                                            cudaStream_t);

}  // namespace tiledqr::gpu
