// tiledqr_kernel_bench — how one tile kernel call's cost changes when T
// threads make such calls at once, each on its own tiles (what FR2's
// workers do). For each routine: microseconds per call on each thread
// count (the least of three trials) and the slow-down against the first
// count. Routines: the BLAS calls inside LAPACK's tile routines (trmm,
// trmv, gemm transpose-no and no-transpose), LAPACK's tile routines
// themselves (?geqrt, ?gemqrt, ?tpqrt, ?tpmqrt, and the ?geqr2/?geqrt2
// panel factorisations) and this project's lapack backend
// (common/lapack_kernels). Double precision, tile b, inner block ib.
//
// --setup MxN adds the serial set-up every factorisation starts with: the
// Factorization constructor (copy into tiles, T arrays) for that shape.
//
//   tiledqr_kernel_bench [--tile 64] [--inner-block 32] [--threads 1,16] [--seconds 0.3]
//                        [--setup 262144x64]
#include <CLI/CLI.hpp>
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "errors.hpp"
#include "factorization.hpp"
#include "kernels/lapack/lapack_kernels.hpp"
#include "program.hpp"
#include "random_values.hpp"
#include "strict_numbers.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// One thread's tiles: A and C (b, b), B (b, b), T (ib, b), pristine copies
// of A and B to restart factorisations from, reflectors of tpqrt with l = 0
// and l = b for the tpmqrt calls (v_tp, t_tp), and LAPACK's work space.
struct Tiles {
  int b, ib;
  std::vector<double> a, a0, b_tile, b0, c, t, work;
  std::vector<double> v_tp[2], t_tp[2];
  Tiles(int tile, int inner, uint64_t seed) : b(tile), ib(inner) {
    std::mt19937_64 engine(seed);
    a0 = tiledqr::random_values<double>(size_t(b) * b, engine);
    b0 = tiledqr::random_values<double>(size_t(b) * b, engine);
    c = tiledqr::random_values<double>(size_t(b) * b, engine);
    a = a0;
    b_tile = b0;
    t.assign(size_t(ib) * b, 0.0);
    work.assign(size_t(ib) * b * 4, 0.0);
    // Reflectors for the apply routines: A factored by geqrt, [R; B] by tpqrt.
    LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, b, b, ib, a.data(), b, t.data(), ib, work.data());
    for (const int l : {0, 1}) {
      std::vector<double> r = a;
      v_tp[l] = b0;
      t_tp[l].assign(size_t(ib) * b, 0.0);
      LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, b, b, l * b, ib, r.data(), b, v_tp[l].data(), b,
                          t_tp[l].data(), ib, work.data());
    }
  }
  // Fresh inputs for a factorisation.
  void restart() {
    std::copy(a0.begin(), a0.end(), a.begin());
    std::copy(b0.begin(), b0.end(), b_tile.begin());
  }
};

struct Routine {
  std::string name;
  std::function<void(Tiles&)> call;
};

std::vector<Routine> routines() {
  using namespace tiledqr;
  std::vector<Routine> r;
  // The BLAS calls inside LAPACK's routines, on the shapes they have here.
  r.push_back({"blas dtrmm ib x b (larfb)", [](Tiles& x) {
                 cblas_dtrmm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, x.ib,
                             x.b, 1.0, x.t.data(), x.ib, x.c.data(), x.b);
               }});
  r.push_back({"blas dtrmv ib (larft)", [](Tiles& x) {
                 cblas_dtrmv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, x.ib, x.t.data(),
                             x.ib, x.c.data(), 1);
               }});
  r.push_back({"blas dgemm TN ib x b x b", [](Tiles& x) {
                 cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, x.ib, x.b, x.b, 1.0,
                             x.a.data(), x.b, x.c.data(), x.b, 0.0, x.work.data(), x.ib);
               }});
  r.push_back({"blas dgemm NN ib x b x b", [](Tiles& x) {
                 cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, x.ib, x.b, x.b, 1.0,
                             x.a.data(), x.ib, x.c.data(), x.b, 0.0, x.work.data(), x.ib);
               }});
  // LAPACK's tile routines (what the lapack backend called before).
  r.push_back({"lapack dgeqrt", [](Tiles& x) {
                 x.restart();
                 LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, x.b, x.b, x.ib, x.a.data(), x.b, x.t.data(),
                                     x.ib, x.work.data());
               }});
  r.push_back({"lapack dgeqr2 (b x ib panel)", [](Tiles& x) {
                 x.restart();
                 LAPACKE_dgeqr2_work(LAPACK_COL_MAJOR, x.b, x.ib, x.a.data(), x.b, x.work.data(),
                                     x.work.data() + x.b);
               }});
  r.push_back({"lapack dgeqrt2 (b x ib panel)", [](Tiles& x) {
                 x.restart();
                 LAPACKE_dgeqrt2_work(LAPACK_COL_MAJOR, x.b, x.ib, x.a.data(), x.b, x.t.data(),
                                      x.ib);
               }});
  r.push_back({"lapack dgemqrt", [](Tiles& x) {
                 LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, 'L', 'T', x.b, x.b, x.b, x.ib, x.a.data(),
                                      x.b, x.t.data(), x.ib, x.c.data(), x.b, x.work.data());
               }});
  for (const int l : {0, 1}) {
    const std::string tag = l ? " l=b" : " l=0";
    r.push_back({"lapack dtpqrt" + tag, [l](Tiles& x) {
                   x.restart();
                   LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, x.b, x.b, l * x.b, x.ib, x.a.data(), x.b,
                                       x.b_tile.data(), x.b, x.t.data(), x.ib, x.work.data());
                 }});
    r.push_back({"lapack dtpmqrt" + tag, [l](Tiles& x) {
                   LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', 'T', x.b, x.b, x.b, l * x.b, x.ib,
                                        x.v_tp[l].data(), x.b, x.t_tp[l].data(), x.ib, x.c.data(),
                                        x.b, x.b_tile.data(), x.b, x.work.data());
                 }});
  }
  // This project's lapack backend.
  r.push_back({"ours geqrt", [](Tiles& x) {
                 x.restart();
                 lapack_kernels::geqrt(x.b, x.b, x.ib, x.a.data(), x.b, x.t.data(), x.ib);
               }});
  r.push_back({"ours gemqrt", [](Tiles& x) {
                 lapack_kernels::gemqrt(true, x.b, x.b, x.b, x.ib, x.a.data(), x.b, x.t.data(),
                                        x.ib, x.c.data(), x.b);
               }});
  for (const int l : {0, 1}) {
    const std::string tag = l ? " l=b" : " l=0";
    r.push_back({"ours tpqrt" + tag, [l](Tiles& x) {
                   x.restart();
                   lapack_kernels::tpqrt(x.b, x.b, l * x.b, x.ib, x.a.data(), x.b, x.b_tile.data(),
                                         x.b, x.t.data(), x.ib);
                 }});
    r.push_back({"ours tpmqrt" + tag, [l](Tiles& x) {
                   lapack_kernels::tpmqrt(true, x.b, x.b, x.b, l * x.b, x.ib, x.v_tp[l].data(),
                                          x.b, x.t_tp[l].data(), x.ib, x.c.data(), x.b,
                                          x.b_tile.data(), x.b);
                 }});
  }
  r.push_back({"copy of the inputs (in every factorisation above)", [](Tiles& x) { x.restart(); }});
  return r;
}

// Seconds for `calls` calls on each of `threads` threads started together.
double run(const Routine& routine, int threads, int calls, int b, int ib) {
  std::vector<Tiles> tiles;
  for (int w = 0; w < threads; ++w) tiles.emplace_back(b, ib, 1000 + w);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      routine.call(tiles[size_t(w)]);  // warm this thread's buffers
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < calls; ++i) routine.call(tiles[size_t(w)]);
    });
  while (ready.load() < threads) std::this_thread::yield();
  const auto start = Clock::now();
  go.store(true);
  for (std::thread& t : pool) t.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string program = "tiledqr_kernel_bench";
  CLI::App app{"per-call cost of tile kernels with T concurrent threads", program};
  int b = 64, ib = 32;
  std::vector<int> counts = {1, 16};
  double seconds = 0.3;
  std::string setup;
  const CLI::Validator count = tiledqr::decimal_integer(false);
  app.add_option("--tile", b, "tile size b (default 64)")->transform(count)->check(CLI::Range(1, 4096));
  app.add_option("--inner-block", ib, "inner block ib, at most b (default 32)")
      ->transform(count)
      ->check(CLI::Range(1, 4096));
  app.add_option("--threads", counts, "thread counts (comma list; default 1,16)")
      ->delimiter(',')
      ->transform(count)
      ->check(CLI::Range(1, 4096));
  app.add_option("--seconds", seconds, "time per trial on 1 thread (default 0.3; the least of 3 trials counts)")
      ->transform(tiledqr::finite_real())
      ->check(CLI::Range(0.001, 3600.0));
  app.add_option("--setup", setup, "also time the Factorization constructor for this MxN (binary tree)");
  if (const int code = tiledqr::parse_command_line(app, argc, argv, program); code >= 0) return code;
  return tiledqr::run_reporting_errors(program, [&] {
    if (ib > b) throw tiledqr::InputError("--inner-block (" + std::to_string(ib) + ") must be at most --tile (" +
                                          std::to_string(b) + ")");
    int64_t m = 0, n = 0;
    if (!setup.empty()) {
      const size_t x = setup.find('x');
      if (x == std::string::npos) throw tiledqr::InputError("--setup: '" + setup + "' is not MxN");
      m = tiledqr::parse_integer(setup.substr(0, x), "--setup's M", 1, int64_t(1) << 31);
      n = tiledqr::parse_integer(setup.substr(x + 1), "--setup's N", 1, int64_t(1) << 31);
    }

    openblas_set_num_threads(1);
    std::printf("OpenBLAS %s, core %s; tile %d, ib %d\n", openblas_get_config(), openblas_get_corename(),
                b, ib);
    std::printf("%-52s", "us per call (slow-down vs 1 thread)");
    for (const int t : counts) std::printf("  %10s T=%-3d", "", t);
    std::printf("\n");
    for (const Routine& routine : routines()) {
      // Calls per thread: about `seconds` on one thread.
      int calls = 1;
      for (;;) {
        const double s = run(routine, 1, calls, b, ib);
        if (s > seconds / 4 || calls > (1 << 24)) {
          calls = std::max(1, int(double(calls) * seconds / s));
          break;
        }
        calls *= 4;
      }
      std::printf("%-52s", routine.name.c_str());
      double single = 0;
      for (const int t : counts) {
        double best = run(routine, t, calls, b, ib);  // the least of three trials
        for (int trial = 1; trial < 3; ++trial) best = std::min(best, run(routine, t, calls, b, ib));
        const double us = best / calls * 1e6;
        if (single == 0) single = us;
        std::printf("  %9.2f (%5.1fx)", us, us / single);
      }
      std::printf("\n");
      std::fflush(stdout);
    }
    if (!setup.empty()) {
      std::vector<double> a(size_t(m) * size_t(n), 0.5);
      tiledqr::Options o;
      o.tile = b;
      o.inner_block = ib;
      o.tree = tiledqr::Tree::binary;
      for (int r = 0; r < 3; ++r) {
        const auto start = Clock::now();
        tiledqr::Factorization<double> f(a.data(), m, n, m, o);
        const double s = std::chrono::duration<double>(Clock::now() - start).count();
        std::printf("setup %lldx%lld (tiles %.0f MB, T %.0f MB): %.1f ms\n", static_cast<long long>(m),
                    static_cast<long long>(n), double(f.tiles.data.size()) * 8 / 1048576,
                    double(f.t_local.size() + f.t_merge.size()) * 8 / 1048576, s * 1e3);
      }
    }
    return 0;
  });
}
