// A Toeplitz matrix kept as its 2N − 1 diagonals, never as N² entries
// (the EnKF report, "ECE 408 final report", Optimization 1):
// C[i][j] = diagonals[N − 1 + i − j], so diagonals[N − 1 + k] is the first
// column's entry k and diagonals[N − 1 − k] the first row's entry k. A
// symmetric Toeplitz matrix (a stationary covariance, the EnKF's
// localisation C) is given by its first column alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "errors.hpp"

namespace tiledqr::enkf {

struct Toeplitz {
  int64_t n = 0;
  std::vector<double> diagonals;  // (2n − 1): C[i][j] = diagonals[n − 1 + i − j]

  double at(int64_t i, int64_t j) const { return diagonals[size_t(n - 1 + i - j)]; }
};

// The symmetric Toeplitz matrix whose first column (and row) is `column`.
//   Toeplitz c = symmetric_toeplitz({4, 2, 1});   // [[4 2 1] [2 4 2] [1 2 4]]
inline Toeplitz symmetric_toeplitz(const std::vector<double>& column) {
  if (column.empty()) throw InputError("a Toeplitz matrix needs at least one entry");
  Toeplitz c;
  c.n = static_cast<int64_t>(column.size());
  c.diagonals.resize(size_t(2 * c.n - 1));
  for (int64_t k = 0; k < c.n; ++k) {
    c.diagonals[size_t(c.n - 1 + k)] = column[size_t(k)];
    c.diagonals[size_t(c.n - 1 - k)] = column[size_t(k)];
  }
  return c;
}

// The general Toeplitz matrix with first column `column` and first row
// `row`; both have N entries and share the corner: column[0] == row[0].
//   Toeplitz c = general_toeplitz({1, 2, 3}, {1, 5, 6});   // [[1 5 6] [2 1 5] [3 2 1]]
inline Toeplitz general_toeplitz(const std::vector<double>& column, const std::vector<double>& row) {
  if (column.empty()) throw InputError("a Toeplitz matrix needs at least one entry");
  if (row.size() != column.size())
    throw InputError("Toeplitz first row has " + std::to_string(row.size()) + " entries, first column " +
                     std::to_string(column.size()));
  if (row[0] != column[0]) throw InputError("Toeplitz first row and first column differ at the corner");
  Toeplitz c = symmetric_toeplitz(column);
  for (int64_t k = 1; k < c.n; ++k) c.diagonals[size_t(c.n - 1 - k)] = row[size_t(k)];
  return c;
}

}  // namespace tiledqr::enkf
