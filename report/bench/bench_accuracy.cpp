// geqrf_residuals (bench_accuracy.hpp): Q by LAPACK's ?orgqr, R from the upper triangle.
#include "bench_accuracy.hpp"

#include <lapacke.h>

#include <algorithm>
#include <stdexcept>

namespace tiledqr::bench {

namespace {

int orgqr(int m, int k, double* a, const double* tau) { return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, k, k, a, m, tau); }
int orgqr(int m, int k, float* a, const float* tau) { return LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, k, k, a, m, tau); }

}  // namespace

template <typename T>
Residuals geqrf_residuals(const T* a, int64_t m, int64_t n, const std::vector<T>& factored, const std::vector<T>& tau) {
  const int64_t k = std::min(m, n);
  std::vector<T> r(size_t(k) * size_t(n), T(0));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= std::min(j, k - 1); ++i) r[size_t(i + j * k)] = factored[size_t(i + j * m)];
  std::vector<T> q(factored.begin(), factored.begin() + std::ptrdiff_t(m * k));
  if (orgqr(int(m), int(k), q.data(), tau.data()) != 0) throw std::runtime_error("?orgqr of the geqrf result failed");
  return residuals_of_explicit_qr(a, m, n, q.data(), r.data());
}

template Residuals geqrf_residuals<double>(const double*, int64_t, int64_t, const std::vector<double>&,
                                           const std::vector<double>&);
template Residuals geqrf_residuals<float>(const float*, int64_t, int64_t, const std::vector<float>&,
                                          const std::vector<float>&);

}  // namespace tiledqr::bench
