// Host phases (read, upload, DAG build, factor, check, write) as NVTX ranges, which Nsight Systems
// shows on the CPU timeline. Builds with CUDA define TILEDQR_NVTX and use the header-only NVTX 3
// that ships with the toolkit; CPU builds compile the same calls to nothing.
#pragma once

#if defined(TILEDQR_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace tiledqr {

// Pushes a range named `name` (a string literal: NVTX keeps no copy) on construction and pops it
// on destruction, so the range ends however the scope is left.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) {
#if defined(TILEDQR_NVTX)
    nvtxRangePushA(name);
#else
    static_cast<void>(name);
#endif
  }
  ~NvtxRange() {
#if defined(TILEDQR_NVTX)
    nvtxRangePop();
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace tiledqr
