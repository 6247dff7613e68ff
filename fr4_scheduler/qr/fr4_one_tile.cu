// The one-tile factorisation's kernels, one instance per tile, inner block
// and precision (fr4_one_tile.hpp): 16 warps for tiles of 128 (32 entries a
// thread), 8 for tiles of 64 (16 entries a thread).
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
  cudaError_t status = cudaErrorInvalidValue;
  switch (tiles.tile * 1000 + tiles.inner_block) {
    case 64016: status = br::launch_geqrt<T, 64, 16, 8>(m, n, a, lda, tile, t, stream); break;
    case 64032: status = br::launch_geqrt<T, 64, 32, 8>(m, n, a, lda, tile, t, stream); break;
    case 128016: status = br::launch_geqrt<T, 128, 16, 16>(m, n, a, lda, tile, t, stream); break;
    case 128032: status = br::launch_geqrt<T, 128, 32, 16>(m, n, a, lda, tile, t, stream); break;
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
