// CPU stages for the benchmark driver: FR1, FR2 and LAPACK's dgeqrf with
// OpenBLAS (the CPU peer), each timed around the factorisation call only.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "bench_case.hpp"
#include "checks.hpp"
#include "cpu_stages.hpp"
#include "serial_executor.hpp"
#include "threaded_executor.hpp"

namespace tiledqr::bench {
namespace {

template <typename T>
std::vector<T> random_input(const BenchCase& c) {
  std::vector<T> a(checked_elements({c.m, c.n}, sizeof(T), "benchmark matrix"));
  std::mt19937_64 engine(c.seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (T& x : a) x = T(uniform(engine));
  return a;
}

Options options_of(const BenchCase& c) {
  Options o;
  o.tile = c.tile;
  o.inner_block = c.inner_block;
  o.backend = parse_backend(c.backend);
  o.tree = parse_tree(c.tree);
  o.threads = c.threads;
  return o;
}

template <typename Run>
double seconds_of(Run&& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <typename T>
BenchOutcome bench_tiled(const BenchCase& c, bool threaded) {
  const std::vector<T> a = random_input<T>(c);
  const Options o = options_of(c);
  auto run = [&] {
    return threaded ? factor_threaded(a.data(), c.m, c.n, c.m, o) : factor(a.data(), c.m, c.n, c.m, o);
  };
  for (int w = 0; w < c.warmup; ++w) run();
  BenchOutcome out;
  out.device = "cpu";
  Factorization<T> last;
  for (int r = 0; r < c.repeats; ++r) {
    Factorization<T> f;
    out.seconds.push_back(seconds_of([&] { f = run(); }));
    last = std::move(f);  // frees the previous run's tiles after the clock stopped
  }
  if (c.check) {
    const Residuals res = check_factorization(a.data(), c.m, c.n, c.m, last);
    out.residual = res.residual;
    out.orthogonality = res.orthogonality;
  }
  return out;
}

int geqrf(int m, int n, double* a, double* tau, double* work, int lwork) {
  return LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, a, m, tau, work, lwork);
}
int geqrf(int m, int n, float* a, float* tau, float* work, int lwork) {
  return LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, a, m, tau, work, lwork);
}
int orgqr(int m, int k, double* a, const double* tau) {
  return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, k, k, a, m, tau);
}
int orgqr(int m, int k, float* a, const float* tau) {
  return LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, k, k, a, m, tau);
}

template <typename T>
BenchOutcome bench_geqrf(const BenchCase& c) {
  const std::vector<T> a = random_input<T>(c);
  const int m = int(c.m), n = int(c.n), k = std::min(m, n);
  std::vector<T> work_a(a.size());
  std::vector<T> tau(static_cast<size_t>(k));
  T query = 0;
  geqrf(m, n, work_a.data(), tau.data(), &query, -1);
  std::vector<T> work(size_t(query) + 1);
  openblas_set_num_threads(c.threads);
  BenchOutcome out;
  out.device = "cpu";
  for (int r = -c.warmup; r < c.repeats; ++r) {
    std::copy(a.begin(), a.end(), work_a.begin());
    const double s = seconds_of([&] {
      if (geqrf(m, n, work_a.data(), tau.data(), work.data(), int(work.size())) != 0)
        throw std::runtime_error("geqrf failed");
    });
    if (r >= 0) out.seconds.push_back(s);
  }
  openblas_set_num_threads(1);
  if (c.check) {
    std::vector<T> r(size_t(k) * n, T(0));
    for (int j = 0; j < n; ++j)
      for (int i = 0; i <= std::min(j, k - 1); ++i) r[size_t(i) + size_t(j) * k] = work_a[size_t(i) + size_t(j) * m];
    std::vector<T> q(work_a.begin(), work_a.begin() + ptrdiff_t(m) * k);
    orgqr(m, k, q.data(), tau.data());
    const Residuals res = residuals_of_explicit_qr(a.data(), c.m, c.n, q.data(), r.data());
    out.residual = res.residual;
    out.orthogonality = res.orthogonality;
  }
  return out;
}

}  // namespace

BenchOutcome bench_fr1(const BenchCase& c) {
  return c.precision == "float" ? bench_tiled<float>(c, false) : bench_tiled<double>(c, false);
}

BenchOutcome bench_fr2(const BenchCase& c) {
  return c.precision == "float" ? bench_tiled<float>(c, true) : bench_tiled<double>(c, true);
}

BenchOutcome bench_lapack(const BenchCase& c) {
  return c.precision == "float" ? bench_geqrf<float>(c) : bench_geqrf<double>(c);
}

}  // namespace tiledqr::bench
