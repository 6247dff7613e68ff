// The task-graph QR's block kinds in double, tile 256 (fr4_block_runner.cuh).
#include "fr4_block_runner.cuh"

namespace tiledqr::gpu {

template std::unique_ptr<Fr4Runner<double>> make_block_runner<double, 256, 16>(int32_t, int32_t, const Options&);
template std::unique_ptr<Fr4Runner<double>> make_block_runner<double, 256, 32>(int32_t, int32_t, const Options&);

}  // namespace tiledqr::gpu
