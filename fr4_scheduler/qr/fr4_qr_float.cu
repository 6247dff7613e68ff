// DeviceQr<float>.
#include "fr4_qr_impl.cuh"

namespace tiledqr::gpu {

template class DeviceQr<float>;

}  // namespace tiledqr::gpu
