// The observation operator H of the EnKF product: an M×N sparse matrix in
// CSR (compressed sparse row) form, as the EnKF report ("ECE 408 final
// report", Optimization 3) stores it, with a Matrix Market reader that never
// densifies a `coordinate` file.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tiledqr::enkf {

// Row r's nonzeros are col[row_ptr[r] .. row_ptr[r+1]) with their values;
// columns strictly increase within a row (no duplicates, no explicit zeros
// are required, but explicit zeros are allowed).
struct CsrMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int64_t> row_ptr;  // (rows + 1)
  std::vector<int32_t> col;      // (nnz)
  std::vector<double> value;     // (nnz)

  int64_t nnz() const { return static_cast<int64_t>(col.size()); }
  // Entry (r, c), zero where none is stored (binary search in the row).
  double at(int64_t r, int64_t c) const;
};

// One stored entry, 0-based.
struct Triplet {
  int64_t row;
  int64_t col;
  double value;
};

// The CSR matrix of `entries`: duplicates summed, columns sorted per row.
// Throws InputError for an index outside rows × cols.
CsrMatrix csr_from_triplets(int64_t rows, int64_t cols, std::vector<Triplet> entries);

// The nonzeros of the rows × cols column-major matrix `a` (leading dimension lda).
CsrMatrix csr_from_dense(const double* a, int64_t rows, int64_t cols, int64_t lda);

// The dense rows × cols column-major copy (ld = rows), for tests and peers.
std::vector<double> csr_to_dense(const CsrMatrix& h);

// Throws InputError unless `h` is well formed: row_ptr monotone from 0 to
// nnz, columns in range and strictly increasing per row, nnz < 2^31.
void check_csr(const CsrMatrix& h);

// A random rows × cols matrix with round(density · cols) nonzeros per row
// (at least one), at distinct uniform columns, values uniform in [0.1, 1)
// (interpolation weights of an observation operator).
CsrMatrix random_csr(int64_t rows, int64_t cols, double density, std::mt19937_64& rng);

// Reads a Matrix Market file as CSR: `coordinate` (real, integer or pattern;
// general or symmetric) entry by entry, `array` through the common reader.
// Throws InputError "<path>:<line>: <problem>" for malformed content and
// for a file that cannot be read.
CsrMatrix read_csr_matrix_market(const std::string& path);
// The same from the file's text; `name` stands for the path in messages.
CsrMatrix parse_csr_matrix_market(const std::string& text, const std::string& name);

}  // namespace tiledqr::enkf
