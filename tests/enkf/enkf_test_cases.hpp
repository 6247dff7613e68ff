// Inputs and a naive formula shared by the enkf tests: random problems with
// a general (non-symmetric) Toeplitz C, and P_HT from dense matrices.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "enkf_problem.hpp"

namespace tiledqr::enkf::testing {

// A random problem whose C is a general Toeplitz matrix with entries
// uniform in [-1, 1) (first row and column drawn apart), so no symmetry or
// decay hides an indexing mistake.
inline EnkfProblem general_problem(int64_t n, int64_t m, int64_t l, double density, uint64_t seed) {
  EnkfProblem p = random_problem(n, m, l, density, seed);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> column(static_cast<size_t>(n)), row(static_cast<size_t>(n));
  for (double& x : column) x = uniform(rng);
  for (double& x : row) x = uniform(rng);
  row[0] = column[0];
  p.c = general_toeplitz(column, row);
  return p;
}

// P_HT = [C ∘ (e eᵀ)] Hᵀ / (L − 1) with C, e eᵀ and H formed densely:
// the definition, O(N² (L + M)), for small N only. (n, m) col-major.
inline std::vector<double> naive_dense_product(const EnkfProblem& p) {
  const int64_t n = p.n, l = p.l, m = p.m();
  std::vector<double> k(static_cast<size_t>(n * n));  // C ∘ (e eᵀ), (n, n) col-major
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) {
      double ensemble = 0;
      for (int64_t q = 0; q < l; ++q) ensemble += p.e[size_t(i + q * n)] * p.e[size_t(j + q * n)];
      k[size_t(i + j * n)] = p.c.at(i, j) * ensemble;
    }
  const std::vector<double> h = csr_to_dense(p.h);  // (m, n) col-major
  std::vector<double> out(static_cast<size_t>(n * m), 0.0);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t j = 0; j < n; ++j) {
      const double hj = h[size_t(r + j * m)];
      if (hj == 0) continue;
      for (int64_t i = 0; i < n; ++i) out[size_t(i + r * n)] += k[size_t(i + j * n)] * hj;
    }
  for (double& x : out) x /= double(l - 1);
  return out;
}

}  // namespace tiledqr::enkf::testing
