// tiledqr_mtx_bench — seconds to write and to read back a random m x n double matrix as a
// Matrix Market array file (issue 17 item 10), checking that the values survive bit for bit.
// The same-run peer is the disk: the file's bytes copied as they are (read whole, written with
// fsync), so the ratio says how far from disk speed the text costs. Wall and CPU seconds are both
// printed: on a shared machine the CPU time is the steadier measure. With --out, one CSV row is
// appended (header first when the file is new).
// Usage: tiledqr_mtx_bench [--m 2880] [--n 2880] [--repeats 3] [--out report/data/matrix_market_io.csv]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <random>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_threads.hpp"
#include "matrix_market.hpp"
#include "version.hpp"

namespace {

// The peer: `path`'s bytes read whole, then written to `copy` and pushed to the disk.
std::string read_bytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  struct stat info {};
  if (fd < 0 || ::fstat(fd, &info) != 0) return "";
  std::string bytes(size_t(info.st_size), '\0');
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got <= 0) break;
    done += size_t(got);
  }
  ::close(fd);
  return bytes;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put <= 0) break;
    done += size_t(put);
  }
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t m = 2880, n = 2880;  // about 176 MB of text
  int repeats = 3;
  uint64_t seed = 42;
  std::string path = "/tmp/tiledqr_mtx_bench.mtx", out, code = "this build";
  CLI::App app{"Matrix Market write and read times", "tiledqr_mtx_bench"};
  app.add_option("--m", m, "rows (default 2880)");
  app.add_option("--n", n, "columns (default 2880)");
  app.add_option("--path", path, "file to write and read (removed at the end)");
  app.add_option("--repeats", repeats, "runs of each; the fastest is printed (default 3)");
  app.add_option("--seed", seed, "seed of the random values (default 42)");
  app.add_option("--out", out, "CSV file to append one row to");
  app.add_option("--code", code, "what reader and writer this binary has, for the CSV (default 'this build')");
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
  double peer_write = 1e30, peer_read = 1e30, peer_cpu_write = 1e30, peer_cpu_read = 1e30;
  bool exact = true;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    tiledqr::DenseMatrix<double> back;
    timed(best_write, cpu_write, [&] { tiledqr::write_matrix_market(path, a.data(), m, n, m); });
    timed(best_read, cpu_read, [&] { back = tiledqr::read_matrix_market(path); });
    std::string bytes;
    timed(peer_read, peer_cpu_read, [&] { bytes = read_bytes(path); });
    timed(peer_write, peer_cpu_write, [&] { write_bytes(path + ".copy", bytes); });
    std::remove((path + ".copy").c_str());
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
  std::printf("peer (the bytes copied as they are): read %.3f s, write with fsync %.3f s; "
              "Matrix Market / peer: write %.2f, read %.2f\n",
              peer_read, peer_write, best_write / peer_write, best_read / peer_read);
  if (!out.empty()) {
    const bool fresh = !std::ifstream(out).good();
    std::ofstream csv(out, std::ios::app);
    if (fresh)
      csv << "# tiledqr_mtx_bench: Matrix Market write and read of a random double matrix, best of --repeats;"
             " peer: the same bytes copied (read whole; written with fsync) in the same run\n"
             "date,commit,code,cpus,m,n,file_mb,write_s,write_cpu_s,read_s,read_cpu_s,peer_write_s,peer_read_s,"
             "write_over_peer,read_over_peer,exact\n";
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    char row[512];
    std::snprintf(row, sizeof row, "%s,%s,%s,%d,%lld,%lld,%.1f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%s\n", date,
                  tiledqr::build_commit(), code.c_str(), tiledqr::available_cpus(), static_cast<long long>(m),
                  static_cast<long long>(n), double(info.st_size) / 1e6, best_write, cpu_write, best_read, cpu_read,
                  peer_write, peer_read, best_write / peer_write, best_read / peer_read, exact ? "yes" : "no");
    csv << row;
  }
  std::remove(path.c_str());
  return exact ? 0 : 1;
}
