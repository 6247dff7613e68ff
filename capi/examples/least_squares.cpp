// least_squares.cpp — tiledqr's C interface from C++: the least-squares
// solution X of a random 400 x 120 system A X ≈ B (3 right-hand sides) with
// tiledqr_dgels, checked by the normal equations: the residual B − A X is
// orthogonal to A's columns, ‖Aᵀ(B − A X)‖_F ≤ 10·n·ε·‖A‖_F·(‖A‖_F·‖X‖_F + ‖B‖_F).
// Exits 1 when the check or the call fails.
// Build: c++ -std=c++17 least_squares.cpp $(pkg-config --cflags --libs tiledqr), or CMakeLists.txt here.
#include <tiledqr/tiledqr.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

namespace {

double frobenius(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v * v;
  return std::sqrt(sum);
}

}  // namespace

int main() {
  const int64_t m = 400, n = 120, nrhs = 3;
  const unsigned seed = 42;
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> a(size_t(m * n)), b(size_t(m * nrhs));  // column-major, ld = m
  for (double& v : a) v = uniform(engine);
  for (double& v : b) v = uniform(engine);

  // tiledqr_dgels leaves R in its A and X in the first n rows of its B.
  std::vector<double> r = a, solved = b;
  const int status = tiledqr_dgels(m, n, nrhs, r.data(), m, solved.data(), m, nullptr);
  if (status != TILEDQR_SUCCESS) {
    std::printf("tiledqr_dgels: %s: %s\n", tiledqr_strerror(status), tiledqr_last_error());
    return 1;
  }
  std::vector<double> x(size_t(n * nrhs));  // (n, nrhs), ld = n
  for (int64_t j = 0; j < nrhs; ++j)
    for (int64_t i = 0; i < n; ++i) x[size_t(i + j * n)] = solved[size_t(i + j * m)];

  // residual = B − A X, then normal = Aᵀ residual.
  std::vector<double> residual = b, normal(size_t(n * nrhs), 0.0);
  for (int64_t j = 0; j < nrhs; ++j)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < m; ++i) residual[size_t(i + j * m)] -= a[size_t(i + k * m)] * x[size_t(k + j * n)];
  for (int64_t j = 0; j < nrhs; ++j)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < m; ++i) normal[size_t(k + j * n)] += a[size_t(i + k * m)] * residual[size_t(i + j * m)];

  const double eps = std::numeric_limits<double>::epsilon();
  const double bound = 10.0 * double(n) * eps * frobenius(a) * (frobenius(a) * frobenius(x) + frobenius(b));
  std::printf("tiledqr %s: %lldx%lld, %lld right-hand sides (seed %u): |A^T (B - AX)|_F = %.2e, bound %.2e\n",
              tiledqr_version(), static_cast<long long>(m), static_cast<long long>(n),
              static_cast<long long>(nrhs), seed, frobenius(normal), bound);
  // The residual itself must not vanish: B is random, not in A's range.
  return frobenius(normal) <= bound && frobenius(residual) > 0.1 * frobenius(b) ? 0 : 1;
}
