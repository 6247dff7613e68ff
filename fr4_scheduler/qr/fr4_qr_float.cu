// Fr4Factorization<float> and Fr4Batch<float>.
#include "fr4_batch_impl.cuh"
#include "fr4_qr_impl.cuh"

namespace tiledqr::gpu {

template class Fr4Factorization<float>;
template class Fr4Batch<float>;

}  // namespace tiledqr::gpu
