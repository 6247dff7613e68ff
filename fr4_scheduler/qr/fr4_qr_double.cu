// Fr4Factorization<double> and Fr4Batch<double>.
#include "fr4_batch_impl.cuh"
#include "fr4_qr_impl.cuh"

namespace tiledqr::gpu {

template class Fr4Factorization<double>;
template class Fr4Batch<double>;

}  // namespace tiledqr::gpu
