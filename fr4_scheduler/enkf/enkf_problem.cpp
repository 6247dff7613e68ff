#include "enkf_problem.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "errors.hpp"
#include "matrix_market.hpp"

namespace tiledqr::enkf {

void validate(const EnkfProblem& p) {
  if (p.n < 1) throw InputError("N must be >= 1, got " + std::to_string(p.n));
  if (p.l < 2) throw InputError("L must be >= 2 (the product divides by L - 1), got " + std::to_string(p.l));
  if (p.m() < 1) throw InputError("M must be >= 1, got " + std::to_string(p.m()));
  if (p.n > (int64_t(1) << 30)) throw InputError("N must be at most 2^30, got " + std::to_string(p.n));
  if (p.c.n != p.n || p.c.diagonals.size() != size_t(2 * p.n - 1))
    throw InputError("C is " + std::to_string(p.c.n) + " x " + std::to_string(p.c.n) + ", N is " +
                     std::to_string(p.n));
  if (p.e.size() != size_t(p.n * p.l))
    throw InputError("e holds " + std::to_string(p.e.size()) + " values, N x L = " + std::to_string(p.n * p.l));
  if (p.h.cols != p.n)
    throw InputError("H has " + std::to_string(p.h.cols) + " columns, N is " + std::to_string(p.n));
  check_csr(p.h);
  for (double v : p.c.diagonals)
    if (!std::isfinite(v)) throw InputError("C has a non-finite entry");
  for (double v : p.e)
    if (!std::isfinite(v)) throw InputError("e has a non-finite entry");
  for (double v : p.h.value)
    if (!std::isfinite(v)) throw InputError("H has a non-finite entry");
}

namespace {

std::vector<double> exponential_covariance(int64_t n) {
  const double scale = std::max(1.0, double(n) / 16.0);
  std::vector<double> column(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) column[size_t(k)] = std::exp(-double(k) / scale);
  return column;
}

std::vector<double> standard_normal(int64_t count, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> v(static_cast<size_t>(count));
  for (double& x : v) x = normal(rng);
  return v;
}

void check_sizes(int64_t n, int64_t m, int64_t l, double density) {
  if (n < 1) throw InputError("--n must be >= 1, got " + std::to_string(n));
  if (m < 1) throw InputError("--m must be >= 1, got " + std::to_string(m));
  if (l < 2) throw InputError("--l must be >= 2 (the product divides by L - 1), got " + std::to_string(l));
  if (!(density > 0.0 && density <= 1.0))
    throw InputError("--density must lie in (0, 1], got " + std::to_string(density));
  if (n > (int64_t(1) << 30)) throw InputError("--n must be at most 2^30, got " + std::to_string(n));
  if (m > (int64_t(1) << 20)) throw InputError("--m must be at most 2^20, got " + std::to_string(m));
  if (l > 4096) throw InputError("--l must be at most 4096, got " + std::to_string(l));
}

}  // namespace

EnkfProblem random_problem(int64_t n, int64_t m, int64_t l, double density, uint64_t seed) {
  check_sizes(n, m, l, density);
  std::mt19937_64 rng(seed);
  EnkfProblem p;
  p.n = n;
  p.l = l;
  p.c = symmetric_toeplitz(exponential_covariance(n));
  p.e = standard_normal(n * l, rng);
  p.h = random_csr(m, n, density, rng);
  return p;
}

EnkfProblem load_problem(const InputFiles& files, int64_t n, int64_t m, int64_t l, double density,
                         uint64_t seed) {
  DenseMatrix<double> c_file, e_file;
  CsrMatrix h_file;
  if (!files.c.empty()) {
    c_file = read_matrix_market(files.c);
    if (c_file.cols != 1 && c_file.cols != 2)
      throw InputError(files.c + ": C must be N x 1 (first column) or N x 2 (first column, first row), got " +
                       std::to_string(c_file.rows) + " x " + std::to_string(c_file.cols));
    n = c_file.rows;
  }
  if (!files.e.empty()) {
    e_file = read_matrix_market(files.e);
    if (!files.c.empty() && e_file.rows != n)
      throw InputError(files.e + ": e has " + std::to_string(e_file.rows) + " rows, C is " +
                       std::to_string(n) + " x " + std::to_string(n));
    n = e_file.rows;
    l = e_file.cols;
  }
  if (!files.h.empty()) {
    h_file = read_csr_matrix_market(files.h);
    if ((!files.c.empty() || !files.e.empty()) && h_file.cols != n)
      throw InputError(files.h + ": H has " + std::to_string(h_file.cols) + " columns, N is " +
                       std::to_string(n));
    n = h_file.cols;
    m = h_file.rows;
  }
  EnkfProblem p = random_problem(n, m, l, density, seed);
  if (!files.c.empty()) {
    const std::vector<double> column(c_file.data.begin(), c_file.data.begin() + n);
    if (c_file.cols == 1) p.c = symmetric_toeplitz(column);
    else p.c = general_toeplitz(column, std::vector<double>(c_file.data.begin() + n, c_file.data.end()));
  }
  if (!files.e.empty()) p.e = e_file.data;
  if (!files.h.empty()) p.h = h_file;
  validate(p);
  return p;
}

double relative_error(const std::vector<double>& x, const std::vector<double>& reference) {
  if (x.size() != reference.size()) return INFINITY;
  double diff = 0, ref = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    diff += (x[k] - reference[k]) * (x[k] - reference[k]);
    ref += reference[k] * reference[k];
  }
  if (ref == 0) return diff == 0 ? 0.0 : INFINITY;
  return std::sqrt(diff / ref);
}

}  // namespace tiledqr::enkf
