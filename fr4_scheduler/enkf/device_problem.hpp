// An EnkfProblem uploaded once for the GPU methods, with the output P_HT
// they write: the Toeplitz diagonals, e by columns and by rows, H in CSR
// (32-bit indices) plus each nonzero's row.
#pragma once

#include <cstdint>
#include <vector>

#include "enkf_problem.hpp"
#include "gpu_support.hpp"

namespace tiledqr::enkf {

class DeviceProblem {
 public:
  // Uploads `p` (validated by the caller); `p` must outlive this object.
  explicit DeviceProblem(const EnkfProblem& p);

  const EnkfProblem& host() const { return *host_; }
  int64_t n() const { return host_->n; }
  int64_t m() const { return host_->m(); }
  int64_t l() const { return host_->l; }
  int64_t nnz() const { return host_->h.nnz(); }

  const double* diagonals() const { return diagonals_.data(); }  // (2n − 1)
  const double* e() const { return e_.data(); }                  // (n, l) col-major, ld = n
  const double* e_rows() const { return e_rows_.data(); }        // (l, n) col-major: row i of e at i·l
  const int32_t* h_row_ptr() const { return h_row_ptr_.data(); } // (m + 1)
  const int32_t* h_col() const { return h_col_.data(); }         // (nnz)
  const int32_t* h_row() const { return h_row_.data(); }         // (nnz) row of each nonzero
  const double* h_value() const { return h_value_.data(); }      // (nnz)
  double* out() const { return out_.data(); }                    // (n, m) col-major, ld = n

  // P_HT as the last run left it.
  std::vector<double> download_out() const { return out_.download(); }

 private:
  const EnkfProblem* host_;
  DeviceArray<double> diagonals_, e_, e_rows_, h_value_, out_;
  DeviceArray<int32_t> h_row_ptr_, h_col_, h_row_;
};

}  // namespace tiledqr::enkf
