// DeviceQr<float>.
#include "fr4_qr_impl.cuh"

namespace tiledqr::fr4 {

template class DeviceQr<float>;

}  // namespace tiledqr::fr4
