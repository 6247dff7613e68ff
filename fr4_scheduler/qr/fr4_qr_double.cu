// Fr4Factorization<double>.
#include "fr4_qr_impl.cuh"

namespace tiledqr::gpu {

template class Fr4Factorization<double>;

}  // namespace tiledqr::gpu
