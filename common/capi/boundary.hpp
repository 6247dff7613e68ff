// The C interface's boundary (include/tiledqr/tiledqr.h): every C entry point
// runs its body through guarded(), which turns each exception into a
// tiledqr_status and keeps its message for tiledqr_last_error(). Shared by
// libtiledqr and libtiledqr_gpu (the latter links the former for these).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "errors.hpp"
#include "factorization.hpp"
#include "tiledqr/tiledqr.h"

namespace tiledqr::capi {

// Records `message` as this thread's last error and returns `status`.
int fail(int status, const std::string& message);
// Clears this thread's last error (at the start of every C call).
void clear_error();
// Inside a catch block: the status of the exception in flight, recorded.
int status_of_current_exception();

// The Tree of a tiledqr_options.tree value; TILEDQR_TREE_AUTO gives
// `automatic`. InputError for any other value.
Tree tree_option(int tree, Tree automatic);

// InputError unless A (m, n), lda is a matrix: m, n >= 1, lda >= m, not NULL.
void check_shape(int64_t m, int64_t n, const void* a, int64_t lda, const char* name);

// A new handle owning `f` (libtiledqr_gpu hands over downloaded factors).
tiledqr_factors* make_factors(std::unique_ptr<Factorization<double>> f);
tiledqr_factors* make_factors(std::unique_ptr<Factorization<float>> f);

// A NaN or infinity would spread through every later tile unnoticed:
// InputError naming the first one in A (m, n), col-major, lda.
template <typename T>
void check_finite(const T* a, int64_t m, int64_t n, int64_t lda, const char* name) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i)
      if (!std::isfinite(a[i + j * lda]))
        throw InputError(std::string(name) + "(" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
                         ") is not finite");
}

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
