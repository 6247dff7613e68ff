// The inputs of the EnKF product P_HT = [C ∘ (e eᵀ)] Hᵀ / (L − 1) (the EnKF
// report, "ECE 408 final report"): the localisation C (N×N Toeplitz), the
// ensemble anomalies e (N×L), the observation operator H (M×N sparse), and
// the problem's helpers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csr_matrix.hpp"
#include "toeplitz.hpp"

namespace tiledqr::enkf {

struct EnkfProblem {
  int64_t n = 0;          // state size N
  int64_t l = 0;          // ensemble members L (≥ 2: the product divides by L − 1)
  Toeplitz c;             // (n, n) as 2n − 1 diagonals
  std::vector<double> e;  // (n, l) col-major, ld = n
  CsrMatrix h;            // (m, n)

  int64_t m() const { return h.rows; }
};

// Throws InputError naming the problem: a size below 1, L < 2, C, e or H
// not N wide, a malformed H, a non-finite entry.
void validate(const EnkfProblem& p);

// A random problem: C the exponential covariance c[k] = exp(−k / ℓ),
// ℓ = max(1, N / 16) (symmetric, positive definite); e standard normal; H
// from random_csr. The same seed gives the same problem on every machine
// that has the same <random> engine (mt19937_64 is specified exactly; the
// distributions follow libstdc++).
EnkfProblem random_problem(int64_t n, int64_t m, int64_t l, double density, uint64_t seed);

// Where files are given they replace the random parts, and fix the sizes:
// C from --input-c (N×1: symmetric first column; N×2: first column, first
// row), e from --input-e (N×L array), H from --input-h (M×N, coordinate or
// array). Parts not given are random with the sizes the files imply, else
// n, m, l. Throws InputError for unreadable files and mismatched sizes.
struct InputFiles {
  std::string c, e, h;
};
EnkfProblem load_problem(const InputFiles& files, int64_t n, int64_t m, int64_t l, double density,
                         uint64_t seed);

// ‖x − reference‖_F / ‖reference‖_F (0 when both are zero).
double relative_error(const std::vector<double>& x, const std::vector<double>& reference);

}  // namespace tiledqr::enkf
