// DeviceQr<double>.
#include "fr4_qr_impl.cuh"

namespace tiledqr::gpu {

template class DeviceQr<double>;

}  // namespace tiledqr::gpu
