// tiledqr_mtx_bench — seconds to write and to read back a random m x n double matrix as a
// Matrix Market array file (issue 17 item 10), checking that the values survive bit for bit.
// Wall and CPU seconds are both printed: on a shared machine the CPU time is
// the steadier measure. Usage: tiledqr_mtx_bench [--m 2880] [--n 2880] [--repeats 3]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <random>
#include <ctime>
#include <sys/stat.h>

#include "matrix_market.hpp"

int main(int argc, char** argv) {
  int64_t m = 2880, n = 2880;  // about 176 MB of text
  int repeats = 3;
  uint64_t seed = 42;
  std::string path = "/tmp/tiledqr_mtx_bench.mtx";
  CLI::App app{"Matrix Market write and read times", "tiledqr_mtx_bench"};
  app.add_option("--m", m, "rows (default 2880)");
  app.add_option("--n", n, "columns (default 2880)");
  app.add_option("--path", path, "file to write and read (removed at the end)");
  app.add_option("--repeats", repeats, "runs of each; the fastest is printed (default 3)");
  app.add_option("--seed", seed, "seed of the random values (default 42)");
  CLI11_PARSE(app, argc, argv);

  // Values of every magnitude, as a matrix read from a user would have.
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-30, 30);
  std::vector<double> a(size_t(m) * size_t(n));
  for (double& x : a) x = std::ldexp(mantissa(engine), exponent(engine));

  // Wall and CPU seconds of one call.
  auto timed = [](double& wall, double& cpu, const auto& work) {
    timespec c0{}, c1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    const auto t0 = std::chrono::steady_clock::now();
    work();
    wall = std::min(wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    cpu = std::min(cpu, double(c1.tv_sec - c0.tv_sec) + 1e-9 * double(c1.tv_nsec - c0.tv_nsec));
  };
  double best_write = 1e30, best_read = 1e30, cpu_write = 1e30, cpu_read = 1e30;
  bool exact = true;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    tiledqr::DenseMatrix<double> back;
    timed(best_write, cpu_write, [&] { tiledqr::write_matrix_market(path, a.data(), m, n, m); });
    timed(best_read, cpu_read, [&] { back = tiledqr::read_matrix_market(path); });
    exact = exact && back.data.size() == a.size() &&
            std::memcmp(back.data.data(), a.data(), a.size() * sizeof(double)) == 0;
  }
  struct stat info {};
  stat(path.c_str(), &info);
  std::printf("seed %llu: %lld x %lld doubles, %.1f MB file: write %.3f s (cpu %.3f s), read %.3f s (cpu %.3f s), "
              "best of %d; %s\n",
              static_cast<unsigned long long>(seed), static_cast<long long>(m), static_cast<long long>(n),
              double(info.st_size) / 1e6, best_write, cpu_write, best_read, cpu_read, std::max(1, repeats),
              exact ? "read back bit for bit" : "VALUES DIFFER");
  std::remove(path.c_str());
  return exact ? 0 : 1;
}
