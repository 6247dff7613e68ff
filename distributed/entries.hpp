// Where a rank's entries of A come from: each rank visits the entries of
// the columns it holds, from the Matrix Market file every rank reads or
// from the seeded random stream, drawn exactly as the common generator
// draws it (random_matrix in stage_main.hpp), so every rank's tiles hold
// the values FR1 factors.
#pragma once

#include <cstdint>
#include <functional>
#include <random>

#include "dense_matrix.hpp"

namespace tiledqr::distributed {

using ColumnFilter = std::function<bool(int64_t c)>;
using EntryVisitor = std::function<void(int64_t r, int64_t c, double x)>;
// Visits (r, c, A(r, c)) column by column for every column `wanted` keeps.
using EntrySource = std::function<void(const ColumnFilter& wanted, const EntryVisitor& visit)>;

// The seeded random m×n matrix: one engine draw per entry in column-major
// order (uniform_real_distribution<double> over a 64-bit engine takes one
// draw), so columns not wanted are skipped with discard().
inline EntrySource random_entries(int64_t m, int64_t n, uint64_t seed) {
  return [=](const ColumnFilter& wanted, const EntryVisitor& visit) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (int64_t c = 0; c < n; ++c) {
      if (!wanted(c)) {
        engine.discard(static_cast<unsigned long long>(m));
        continue;
      }
      for (int64_t r = 0; r < m; ++r) visit(r, c, uniform(engine));
    }
  };
}

// The entries of a matrix held in memory.
template <typename T>
EntrySource matrix_entries(const DenseMatrix<T>& a) {
  return [&a](const ColumnFilter& wanted, const EntryVisitor& visit) {
    for (int64_t c = 0; c < a.cols; ++c)
      if (wanted(c))
        for (int64_t r = 0; r < a.rows; ++r) visit(r, c, double(a(r, c)));
  };
}

}  // namespace tiledqr::distributed
