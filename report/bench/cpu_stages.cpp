// CPU stages for the benchmark driver: FR1, FR2 and LAPACK's dgeqrf with
// OpenBLAS (the CPU peer), each timed around the factorisation call only;
// fr2_reuse times FR2 factoring into the tiles of its previous run.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "bench_accuracy.hpp"
#include "bench_case.hpp"
#include "checks.hpp"
#include "cpu_stages.hpp"
#include "serial_executor.hpp"
#include "threaded_executor.hpp"

namespace tiledqr::bench {
namespace {

Options options_of(const BenchCase& c) {
  Options o;
  o.tile = c.tile;
  o.inner_block = c.inner_block;
  o.backend = parse_backend(c.backend);
  o.tree = parse_tree(c.tree);
  o.threads = c.threads;
  // The hierarchical and tsqr trees as the library's tile choice runs them:
  // one domain (a flat tree, or a row block) per thread (common/factorization/tile_choice.hpp).
  if (o.tree == Tree::hierarchical || o.tree == Tree::tsqr) o.tree_domains = std::max(1, c.threads);
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
    record_accuracy(out, check_factorization(a.data(), c.m, c.n, c.m, last));
  }
  return out;
}

// FR2 with its tile storage kept (Factorization::load): a first
// factorisation, untimed, makes the plan; further warm-ups and every timed
// run copy A into its tiles and factor them, as dgeqrf overwrites one array.
template <typename T>
BenchOutcome bench_reused(const BenchCase& c) {
  const std::vector<T> a = random_input<T>(c);
  const Options o = options_of(c);
  Factorization<T> f(a.data(), c.m, c.n, c.m, o);
  run_threaded(f, o.threads);
  for (int w = 1; w < c.warmup; ++w) {
    f.load(a.data(), c.m);
    run_threaded(f, o.threads);
  }
  BenchOutcome out;
  out.device = "cpu";
  for (int r = 0; r < c.repeats; ++r)
    out.seconds.push_back(seconds_of([&] {
      f.load(a.data(), c.m);
      run_threaded(f, o.threads);
    }));
  if (c.check) {
    record_accuracy(out, check_factorization(a.data(), c.m, c.n, c.m, f));
  }
  return out;
}

int geqrf(int m, int n, double* a, double* tau, double* work, int lwork) {
  return LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, a, m, tau, work, lwork);
}
int geqrf(int m, int n, float* a, float* tau, float* work, int lwork) {
  return LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, a, m, tau, work, lwork);
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
    record_accuracy(out, geqrf_residuals(a.data(), c.m, c.n, work_a, tau));
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

BenchOutcome bench_fr2_reuse(const BenchCase& c) {
  return c.precision == "float" ? bench_reused<float>(c) : bench_reused<double>(c);
}

BenchOutcome bench_lapack(const BenchCase& c) {
  return c.precision == "float" ? bench_geqrf<float>(c) : bench_geqrf<double>(c);
}

}  // namespace tiledqr::bench
