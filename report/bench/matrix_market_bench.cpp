// tiledqr_mtx_bench — seconds to write and to read back a random m x n double matrix as a
// Matrix Market array file, checking that the values survive bit for bit.
// The same-run peer is the disk: the file's bytes copied as they are (one read() of the whole
// file; one write() and fsync to a new file), so the ratio says how far from disk speed the text
// costs; the writer is also timed writing to /dev/null, the text without the disk. Wall and CPU seconds are both
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
#include <memory>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_threads.hpp"
#include "errors.hpp"
#include "matrix_market.hpp"
#include "program.hpp"
#include "strict_numbers.hpp"
#include "version.hpp"

namespace {

// The peer: `path`'s bytes read whole with one read() into a buffer of their
// size, then written to `copy` with one write() and pushed to the disk. The
// buffer is left unfilled (no zeroing pass) and asks for huge pages, as the
// reader does for its matrix: where 4 KiB page faults are slow (some virtual
// machines) they would otherwise cost more than the copy.
struct Bytes {
  std::unique_ptr<char[]> data;
  size_t size = 0;
};

Bytes read_bytes(const std::string& path) {
  Bytes bytes;
  const int fd = ::open(path.c_str(), O_RDONLY);
  struct stat info {};
  if (fd < 0 || ::fstat(fd, &info) != 0) return bytes;
  bytes.data.reset(new char[size_t(info.st_size)]);
#ifdef MADV_HUGEPAGE
  const uintptr_t huge = uintptr_t(2) << 20, start = reinterpret_cast<uintptr_t>(bytes.data.get());
  const uintptr_t first = (start + huge - 1) / huge * huge, last = (start + size_t(info.st_size)) / huge * huge;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
  while (bytes.size < size_t(info.st_size)) {  // one call unless the kernel returns less
    const ssize_t got = ::read(fd, bytes.data.get() + bytes.size, size_t(info.st_size) - bytes.size);
    if (got <= 0) break;
    bytes.size += size_t(got);
  }
  ::close(fd);
  return bytes;
}

void write_bytes(const std::string& path, const Bytes& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  for (size_t done = 0; done < bytes.size;) {
    const ssize_t put = ::write(fd, bytes.data.get() + done, bytes.size - done);
    if (put <= 0) break;
    done += size_t(put);
  }
  ::fsync(fd);
  ::close(fd);
}

// `text` as one CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  int64_t m = 2880, n = 2880;  // about 176 MB of text
  int repeats = 3;
  uint64_t seed = 42;
  std::string path = "/tmp/tiledqr_mtx_bench.mtx", out, code = "this build";
  const std::string program = "tiledqr_mtx_bench";
  CLI::App app{"Matrix Market write and read times", program};
  const CLI::Validator count = tiledqr::decimal_integer(false);
  app.add_option("--m", m, "rows (default 2880)")->transform(count)->check(CLI::Range(1, 1 << 20));
  app.add_option("--n", n, "columns (default 2880)")->transform(count)->check(CLI::Range(1, 1 << 20));
  app.add_option("--path", path, "file to write and read (removed at the end)");
  app.add_option("--repeats", repeats, "runs of each; the fastest is printed (default 3)")
      ->transform(count)
      ->check(CLI::Range(1, 1000));
  app.add_option("--seed", seed, "seed of the random values (default 42)")->transform(count);
  app.add_option("--out", out, "CSV file to append one row to");
  app.add_option("--code", code, "what reader and writer this binary has, for the CSV (default 'this build')");
  if (const int parsed = tiledqr::parse_command_line(app, argc, argv, program); parsed >= 0) return parsed;
  return tiledqr::run_reporting_errors(program, [&] {
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
    double format = 1e30, cpu_format = 1e30;
    bool exact = true;
    for (int r = 0; r < std::max(1, repeats); ++r) {
      tiledqr::DenseMatrix<double> back;
      // The text alone: written to /dev/null (no page cache, no fsync, no rename).
      timed(format, cpu_format, [&] { tiledqr::write_matrix_market("/dev/null", a.data(), m, n, m); });
      // A new file each time, as the peer's copy is: replacing the last one
      // would add freeing its blocks to the time.
      std::remove(path.c_str());
      timed(best_write, cpu_write, [&] { tiledqr::write_matrix_market(path, a.data(), m, n, m); });
      timed(best_read, cpu_read, [&] { back = tiledqr::read_matrix_market(path); });
      Bytes bytes;
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
    std::printf("peer (the bytes copied as they are): read %.3f s (cpu %.3f s), write with fsync %.3f s (cpu %.3f s); "
                "Matrix Market / peer: write %.2f, read %.2f\n",
                peer_read, peer_cpu_read, peer_write, peer_cpu_write, best_write / peer_write, best_read / peer_read);
    std::printf("the text alone (written to /dev/null): %.3f s (cpu %.3f s)\n", format, cpu_format);
    if (!out.empty()) {
      const bool fresh = !std::ifstream(out).good();
      std::ofstream csv(out, std::ios::app);
      if (fresh)
        csv << "# tiledqr_mtx_bench: Matrix Market write and read of a random double matrix, best of --repeats;"
               " peer: the same bytes copied (one read(); one write() and fsync) in the same run; format: the writer"
               " to /dev/null\n"
               "date,commit,code,cpus,m,n,file_mb,write_s,write_cpu_s,read_s,read_cpu_s,peer_write_s,peer_read_s,"
               "write_over_peer,read_over_peer,exact,peer_write_cpu_s,peer_read_cpu_s,format_s,format_cpu_s\n";
      char date[32];
      const std::time_t now = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
      char row[768];
      std::snprintf(row, sizeof row, "%s,%s,%s,%d,%lld,%lld,%.1f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%s,%.4f,%.4f,%.4f,%.4f\n", date,
                    tiledqr::build_commit(), csv_field(code).c_str(), tiledqr::available_cpus(), static_cast<long long>(m),
                    static_cast<long long>(n), double(info.st_size) / 1e6, best_write, cpu_write, best_read, cpu_read,
                    peer_write, peer_read, best_write / peer_write, best_read / peer_read, exact ? "yes" : "no",
                    peer_cpu_write, peer_cpu_read, format, cpu_format);
      csv << row;
      csv.close();
      if (!csv) throw tiledqr::InputError("writing " + out + " failed");
    }
    std::remove(path.c_str());
    return exact ? 0 : 1;
  });
}
