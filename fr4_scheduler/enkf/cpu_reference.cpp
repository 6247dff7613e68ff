#include "cpu_reference.hpp"

namespace tiledqr::enkf {

std::vector<double> enkf_product_cpu(const EnkfProblem& p) {
  const int64_t n = p.n, l = p.l, m = p.m();
  // e by rows, (l, n) col-major: row i of e is contiguous for the inner products.
  std::vector<double> e_rows(static_cast<size_t>(n * l));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < l; ++k) e_rows[size_t(k + i * l)] = p.e[size_t(i + k * n)];
  const double scale = 1.0 / double(l - 1);
  std::vector<double> out(size_t(n * m), 0.0);
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      const double* ei = &e_rows[size_t(i * l)];
      double sum = 0;
      for (int64_t k = p.h.row_ptr[size_t(r)]; k < p.h.row_ptr[size_t(r) + 1]; ++k) {
        const int64_t j = p.h.col[size_t(k)];
        const double* ej = &e_rows[size_t(j * l)];
        double ensemble = 0;  // (e eᵀ)[i, j]
        for (int64_t q = 0; q < l; ++q) ensemble += ei[q] * ej[q];
        sum += p.c.at(i, j) * ensemble * p.h.value[size_t(k)];
      }
      out[size_t(i + r * n)] = sum * scale;
    }
  }
  return out;
}

}  // namespace tiledqr::enkf
