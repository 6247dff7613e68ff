// What every stage of the benchmark driver does with accuracy: record a
// Residuals in its outcome, and measure a LAPACK-style geqrf result (the
// LAPACK and cuSOLVER peers) by forming Q with ?orgqr.
#pragma once

#include <cstdint>
#include <vector>

#include "bench_case.hpp"
#include "checks.hpp"

namespace tiledqr::bench {

inline void record_accuracy(BenchOutcome& out, const Residuals& r) {
  out.residual = r.residual;
  out.orthogonality = r.orthogonality;
}

// Residual and orthogonality of A (m, n), col-major, ld = m, against its
// geqrf: `factored` (m, n), ld = m, R on and above the diagonal, reflectors
// below; `tau` (min(m, n)). Throws std::runtime_error when ?orgqr fails.
template <typename T>
Residuals geqrf_residuals(const T* a, int64_t m, int64_t n, const std::vector<T>& factored, const std::vector<T>& tau);

}  // namespace tiledqr::bench
