// Fr4Factorization<float>.
#include "fr4_qr_impl.cuh"

namespace tiledqr::gpu {

template class Fr4Factorization<float>;

}  // namespace tiledqr::gpu
