// fr4_lcs — the LCS workload ("Supernode transformation on GPGPUs") on FR4: the
// LCS length of two sequences by a wavefront of bit-parallel tiles on the
// generic GPU scheduler, with the CPU two-row DP and a per-diagonal GPU kernel
// as peers, a Hirschberg traceback, and a benchmark mode (--bench,
// lcs_bench.hpp).
//
//   fr4_lcs --m 65536 --n 65536 --seed 7 --method all --json
//   fr4_lcs --a x.fa --b y.fa --traceback lcs.txt --check
//   fr4_lcs --bench --out report/data/lcs.csv --commit $(git rev-parse --short HEAD)
//
// Exit codes (docs/design.md §7): 0 ok, 2 bad usage or input, 3 a check failed,
// 4 no usable GPU, 5 the FR4 watchdog ended a run.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "errors.hpp"
#include "lcs_bench.hpp"
#include "lcs_cpu.hpp"
#include "lcs_gpu.hpp"
#include "lcs_model.hpp"
#include "lcs_sequence.hpp"
#include "output_file.hpp"
#include "program.hpp"

namespace {

using namespace tiledqr;
using namespace tiledqr::lcs;

constexpr int64_t max_traceback_length = 100000;

struct Config {
  std::string a_path, b_path;
  int64_t m = 16384, n = 16384;
  int alphabet = 4;
  uint64_t seed = 1;
  std::string method = "fr4";
  int64_t tile_h = 2048, tile_w = 256;
  int repeats = 1;
  bool check = false, json = false;
  std::string traceback;
};

// Integer options are decimal: only an optional '-' and digits, which must
// fit in 64 bits (CLI11 would read "010" as octal and "0x10" as hex).
CLI::Validator decimal() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool negative = !text.empty() && text[0] == '-';
        const std::string digits = text.substr(negative ? 1 : 0);
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
          return "'" + text + "' is not a decimal integer";
        errno = 0;
        static_cast<void>(std::strtoll(text.c_str(), nullptr, 10));
        if (errno == ERANGE) return "'" + text + "' does not fit in 64 bits";
        const size_t first = std::min(digits.find_first_not_of('0'), digits.size() - 1);
        text = (negative ? "-" : "") + digits.substr(first);
        return "";
      },
      "");
}

struct MethodResult {
  std::string method;
  GpuRun run;
  TileShape tile{0, 0};
  int workers = 0;
};

// One warm-up when repeats > 1, then the median of `repeats` runs.
template <class Once>
GpuRun timed(int repeats, Once once) {
  if (repeats > 1) once();
  std::vector<GpuRun> runs;
  for (int r = 0; r < repeats; ++r) runs.push_back(once());
  std::sort(runs.begin(), runs.end(), [](const GpuRun& x, const GpuRun& y) { return x.seconds < y.seconds; });
  return runs[runs.size() / 2];
}

int run(const Config& config) {
  if (config.repeats < 1) throw InputError("--repeats must be >= 1, got " + std::to_string(config.repeats));
  if ((config.a_path.empty()) != (config.b_path.empty())) throw InputError("give both --a and --b, or neither");
  if (config.m < 0 || config.n < 0)
    throw InputError("--m and --n must be >= 0, got " + std::to_string(config.m) + " and " + std::to_string(config.n));
  check_output_path("--traceback", config.traceback);  // refused before any input is read
  std::string a, b, source;
  if (!config.a_path.empty()) {
    a = read_sequence_file(config.a_path);
    b = read_sequence_file(config.b_path);
    source = "files " + config.a_path + ", " + config.b_path;
  } else {
    a = random_sequence(config.m, config.alphabet, config.seed);
    b = random_sequence(config.n, config.alphabet, config.seed + 1);
    source = "random over " + std::to_string(config.alphabet) + " symbols, --seed " + std::to_string(config.seed) +
             " (b: seed + 1)";
  }
  const int64_t m = int64_t(a.size()), n = int64_t(b.size());
  if (!config.traceback.empty() && (m > max_traceback_length || n > max_traceback_length))
    throw InputError("--traceback is limited to sequences of at most " + std::to_string(max_traceback_length) +
                     " symbols (Hirschberg on the CPU); got " + std::to_string(m) + " and " + std::to_string(n));

  std::vector<std::string> methods;
  if (config.method == "all" || config.check) methods = {"cpu", "diagonal", "fr4"};
  else methods = {config.method};
  const bool needs_gpu = std::any_of(methods.begin(), methods.end(), [](const std::string& x) { return x != "cpu"; });
  std::string device;
  if (needs_gpu) {
    device = gpu_name();
    if (device.empty())
      throw GpuError("no usable CUDA device (use --method cpu for the CPU DP alone)");
  }
  const TileShape tile{config.tile_h, config.tile_w};
  if (std::find(methods.begin(), methods.end(), "fr4") != methods.end()) check_fr4_tile(tile);

  std::vector<MethodResult> results;
  std::vector<std::string> failures;
  for (const std::string& method : methods) {
    MethodResult r;
    r.method = method;
    if (method == "cpu") {
      r.run = timed(config.repeats, [&] {
        const auto start = std::chrono::steady_clock::now();
        const int64_t length = lcs_length_two_rows(a, b);
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        return GpuRun{length, elapsed.count()};
      });
    } else if (method == "diagonal") {
      DiagonalLcs diagonal(a, b);
      r.run = timed(config.repeats, [&] { return diagonal.run(); });
    } else {
      Fr4Lcs fr4(a, b, tile);
      r.run = timed(config.repeats, [&] { return fr4.run(); });
      r.tile = tile;
      r.workers = fr4.workers();
      if (config.check) {  // the exact boundaries: L(M, ·) and L(·, N)
        if (fr4.last_row() != lcs_last_row(a.data(), m, b.data(), n))
          failures.push_back("fr4: the last row L(M, j) differs from the CPU's");
        if (fr4.last_column() != lcs_last_row(b.data(), n, a.data(), m))
          failures.push_back("fr4: the last column L(i, N) differs from the CPU's");
      }
    }
    results.push_back(r);
  }
  const int64_t length = results.front().run.length;
  for (const MethodResult& r : results)
    if (r.run.length != length)
      failures.push_back(r.method + " gives " + std::to_string(r.run.length) + ", " + results.front().method +
                         " gives " + std::to_string(length));

  std::string traceback_note;
  if (!config.traceback.empty()) {
    const std::string common = lcs_traceback(a, b);
    if (int64_t(common.size()) != length || !is_subsequence(common, a) || !is_subsequence(common, b))
      failures.push_back("the traceback (" + std::to_string(common.size()) +
                         " symbols) is not a common subsequence of the reported length");
    write_text_output("--traceback", config.traceback, common + "\n");
    traceback_note = config.traceback;
  }

  const double cells = double(m) * double(n);
  if (config.json) {
    std::ostringstream out;
    out.precision(6);
    out << "{\"program\":\"fr4_lcs\",\"m\":" << m << ",\"n\":" << n << ",\"source\":" << json_string(source)
        << ",\"lcs_length\":" << length << ",\"device\":" << json_string(device) << ",\"methods\":[";
    for (size_t k = 0; k < results.size(); ++k) {
      const MethodResult& r = results[k];
      out << (k ? "," : "") << "{\"method\":\"" << r.method << "\",\"seconds\":" << r.run.seconds
          << ",\"gcups\":" << (r.run.seconds > 0 ? cells / r.run.seconds * 1e-9 : 0) << ",\"lcs_length\":" << r.run.length;
      if (r.method == "fr4")
        out << ",\"tile_h\":" << r.tile.rows << ",\"tile_w\":" << r.tile.cols << ",\"workers\":" << r.workers;
      out << "}";
    }
    out << "]";
    if (!traceback_note.empty()) out << ",\"traceback\":" << json_string(traceback_note);
    if (config.check || !failures.empty()) out << ",\"check\":\"" << (failures.empty() ? "passed" : "failed") << "\"";
    out << "}\n";
    std::cout << out.str();
  } else {
    std::printf("fr4_lcs: M = %lld, N = %lld, %s\n", static_cast<long long>(m), static_cast<long long>(n),
                source.c_str());
    for (const MethodResult& r : results) {
      std::printf("  %-8s length %lld  %.6g s  %.4g GCUPS", r.method.c_str(), static_cast<long long>(r.run.length),
                  r.run.seconds, r.run.seconds > 0 ? cells / r.run.seconds * 1e-9 : 0.0);
      if (r.method == "fr4")
        std::printf("  (tile %lld x %lld, %d workers on %s)", static_cast<long long>(r.tile.rows),
                    static_cast<long long>(r.tile.cols), r.workers, device.c_str());
      std::printf("\n");
    }
    std::printf("LCS length %lld\n", static_cast<long long>(length));
    if (!traceback_note.empty()) std::printf("traceback written to %s\n", traceback_note.c_str());
    if (config.check && failures.empty()) std::printf("check passed\n");
  }
  for (const std::string& f : failures) std::fprintf(stderr, "fr4_lcs: check failed: %s\n", f.c_str());
  return failures.empty() ? exit_code::ok : exit_code::check_failed;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  BenchConfig bench;
  bool bench_mode = false;
  CLI::App app{"LCS length of two sequences: a wavefront of bit-parallel tiles on the generic GPU task "
               "scheduler (method fr4), with CPU and per-diagonal GPU peers",
               "fr4_lcs"};
  const CLI::Validator integer = decimal();
  auto* a_option = app.add_option("--a", config.a_path, "first sequence: plain text or FASTA file");
  auto* b_option = app.add_option("--b", config.b_path, "second sequence: plain text or FASTA file");
  auto* m_option = app.add_option("--m", config.m, "length of random a (default 16384)")->transform(integer);
  auto* n_option = app.add_option("--n", config.n, "length of random b (default 16384)")->transform(integer);
  a_option->excludes(m_option)->excludes(n_option);
  b_option->excludes(m_option)->excludes(n_option);
  app.add_option("--alphabet", config.alphabet, "alphabet size of random sequences, 1 … 256 (default 4)")
      ->transform(integer);
  app.add_option("--seed", config.seed, "seed of random a; b uses seed + 1 (default 1)")->transform(integer);
  app.add_option("--method", config.method, "fr4 (default), diagonal, cpu or all")
      ->check(CLI::IsMember({"fr4", "diagonal", "cpu", "all"}));
  app.add_option("--tile-h", config.tile_h, "fr4 method: tile rows of a, a multiple of 64, 64 … 2048 (default 2048)")
      ->transform(integer);
  app.add_option("--tile-w", config.tile_w, "fr4 method: tile columns of b, a multiple of 32 (default 256)")
      ->transform(integer);
  app.add_option("--repeats", config.repeats, "timed runs (median; one warm-up first when > 1)")->transform(integer);
  app.add_flag("--check", config.check,
               "run all three methods, compare lengths and the fr4 method's boundary rows with the CPU; exit 3 on a mismatch");
  app.add_option("--traceback", config.traceback, "write one LCS to this file (sequences up to 100000 symbols)");
  app.add_flag("--json", config.json, "print one JSON object instead of text");
  app.add_flag("--bench", bench_mode, "benchmark mode: write the CSV of lcs_bench.hpp (options below)");
  app.add_option("--out", bench.out, "--bench: CSV file (default report/data/lcs.csv)");
  app.add_option("--commit", bench.commit, "--bench: commit hash for the CSV header");
  app.add_option("--sizes", bench.sizes, "--bench: square sizes M = N (default 4096,16384,65536)")
      ->delimiter(',')
      ->transform(integer);
  app.add_option("--tile-ws", bench.tile_widths, "--bench: tile widths of the sweep (default 32,64,…,8192)")
      ->delimiter(',')
      ->transform(integer);
  app.add_option("--cpu-max-cells", bench.cpu_max_cells, "--bench: skip the CPU DP above this M·N (default 5e9)");
  app.add_option("--diagonal-max-cells", bench.diagonal_max_cells,
                 "--bench: skip the per-diagonal baseline above this M·N (default 5e9)");
  if (const int code = parse_command_line(app, argc, argv, "fr4_lcs"); code >= 0) return code;

  return run_reporting_errors("fr4_lcs", [&] {
    if (config.alphabet < 1 || config.alphabet > 256)
      throw InputError("--alphabet must be 1 … 256, got " + std::to_string(config.alphabet));
    if (bench_mode) {
      bench.command = command_line("fr4_lcs", argc, argv);
      bench.tile_height = config.tile_h;
      bench.alphabet = config.alphabet;
      bench.seed = config.seed;
      bench.repeats = app.count("--repeats") > 0 ? config.repeats : 5;
      return run_bench(bench);
    }
    return run(config);
  });
}
