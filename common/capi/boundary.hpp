// The C interface's boundary (include/tiledqr/tiledqr.h): every C entry point
// runs its body through guarded(), which turns each exception into a
// tiledqr_status and keeps its message for tiledqr_last_error(). Shared by
// libtiledqr and libtiledqr_gpu (the latter links the former for these).
#pragma once

#include <string>

#include "tiledqr/tiledqr.h"

namespace tiledqr::capi {

// Records `message` as this thread's last error and returns `status`.
int fail(int status, const std::string& message);
// Clears this thread's last error (at the start of every C call).
void clear_error();
// Inside a catch block: the status of the exception in flight, recorded.
int status_of_current_exception();

template <typename Body>
int guarded(Body&& body) noexcept {
  try {
    clear_error();
    return body();
  } catch (...) {
    return status_of_current_exception();
  }
}

}  // namespace tiledqr::capi
