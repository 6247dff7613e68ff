// The task-graph QR's block kinds in float, tile 256 (fr4_block_runner.cuh).
#include "fr4_block_runner.cuh"

namespace tiledqr::gpu {

template std::unique_ptr<Fr4Runner<float>> make_block_runner<float, 256, 16>(int32_t, int32_t, const Options&);
template std::unique_ptr<Fr4Runner<float>> make_block_runner<float, 256, 32>(int32_t, int32_t, const Options&);

}  // namespace tiledqr::gpu
