// Error types shared by every stage. Each maps to one exit code of the
// stage programs (docs/design.md §7), so a caller can tell bad input from a failed
// check from a missing GPU without parsing messages.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tiledqr {

// Bad usage or bad input data (exit 2). The message names the problem and,
// for files, the line.
struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

// No usable GPU, or a CUDA call failed (exit 4).
struct GpuError : std::runtime_error {
  explicit GpuError(const std::string& what) : std::runtime_error(what) {}
};

// A task graph stopped making progress and the watchdog ended it (exit 5).
struct StallError : std::runtime_error {
  explicit StallError(const std::string& what) : std::runtime_error(what) {}
};

// The computation ran but its result cannot be trusted (exit 3, as a failed
// check): R overflowed, or least squares met a rank-deficient matrix.
struct NumericalError : std::runtime_error {
  explicit NumericalError(const std::string& what) : std::runtime_error(what) {}
};

// Least squares on a matrix whose R has `rank` < `columns` diagonal entries
// above the threshold max(m, n)·ε·max|r_jj| (Factorization::solve).
struct RankDeficientError : NumericalError {
  RankDeficientError(const std::string& what, int64_t rank_, int64_t columns_)
      : NumericalError(what), rank(rank_), columns(columns_) {}
  int64_t rank;
  int64_t columns;
};

namespace exit_code {
constexpr int ok = 0;
constexpr int bad_input = 2;
constexpr int check_failed = 3;
constexpr int no_gpu = 4;
constexpr int stalled = 5;
}  // namespace exit_code

}  // namespace tiledqr
