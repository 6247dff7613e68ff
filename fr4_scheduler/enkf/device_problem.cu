#include <cuda_runtime.h>

#include <limits>

#include "device_problem.hpp"

namespace tiledqr::enkf {

namespace {

std::vector<int32_t> narrow(const std::vector<int64_t>& wide) {
  std::vector<int32_t> out(wide.size());
  for (size_t k = 0; k < wide.size(); ++k) {
    if (wide[k] > std::numeric_limits<int32_t>::max()) throw InputError("H has more than 2^31 - 1 nonzeros");
    out[k] = static_cast<int32_t>(wide[k]);
  }
  return out;
}

}  // namespace

DeviceProblem::DeviceProblem(const EnkfProblem& p) : host_(&p) {
  const int64_t n = p.n, l = p.l, m = p.m();
  std::vector<double> e_rows(static_cast<size_t>(n * l));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < l; ++k) e_rows[size_t(k + i * l)] = p.e[size_t(i + k * n)];
  std::vector<int32_t> h_row(static_cast<size_t>(p.h.nnz()));
  for (int64_t r = 0; r < m; ++r)
    for (int64_t k = p.h.row_ptr[size_t(r)]; k < p.h.row_ptr[size_t(r) + 1]; ++k) h_row[size_t(k)] = int32_t(r);

  diagonals_ = DeviceArray<double>(p.c.diagonals, "cudaMalloc (Toeplitz diagonals)");
  e_ = DeviceArray<double>(p.e, "cudaMalloc (e)");
  e_rows_ = DeviceArray<double>(e_rows, "cudaMalloc (e by rows)");
  h_value_ = DeviceArray<double>(p.h.value, "cudaMalloc (H values)");
  h_row_ptr_ = DeviceArray<int32_t>(narrow(p.h.row_ptr), "cudaMalloc (H row pointers)");
  h_col_ = DeviceArray<int32_t>(p.h.col, "cudaMalloc (H columns)");
  h_row_ = DeviceArray<int32_t>(h_row, "cudaMalloc (H rows)");
  out_ = DeviceArray<double>(size_t(n * m), "cudaMalloc (P_HT)");
  gpu::check(cudaMemset(out_.data(), 0, out_.size() * sizeof(double)), "cudaMemset (P_HT)");
}

}  // namespace tiledqr::enkf
