#include "stage_main.hpp"

#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <system_error>
#include <thread>

#include "checks.hpp"
#include "cpu_threads.hpp"
#include "errors.hpp"
#include "matrix_market.hpp"
#include "npy.hpp"
#include "nvtx_range.hpp"
#include "trace_json.hpp"
#include "version.hpp"

namespace tiledqr {
namespace {

// Without --check or --no-check, the residuals are computed while m·n² is at
// most this: the host check forms Q and Q'Q, O(m·n²) flops that cost about
// nine factorisations, so a large run would spend most of its time there.
constexpr double kDefaultCheckLimit = 17179869184.0;  // 2^34, e.g. 16384 x 1024

struct RunConfig {
  int64_t m = 2048;
  int64_t n = 1024;
  std::string input;
  std::string precision = "double";
  uint64_t seed = 42;
  Options options;
  std::string tree = "flat";
  std::string backend = "lapack";
  bool check = false;     // --check: always compute the residuals, exit 3 when they fail
  bool no_check = false;  // --no-check: never compute them
  double check_limit = kDefaultCheckLimit;
  double tolerance = 50;
  bool json = false;
  bool allow_nonfinite = false;
  bool tree_given = false;  // --tree on the command line; else the stage picks by shape
  std::string output_r, output_q, rhs, output_x, trace;
};

// CLI11 2.1 converts integer options with strtoll/strtoull in base 0, so
// "010" would silently mean 8 and "0x10" 16, a value beyond 64 bits would be
// clamped to the largest one, and "-1" would wrap to 2^64 - 1 for the seed.
// Sizes, counts and seeds are decimal: this transform lets through only an
// optional '-' (where `negative_allowed`) and digits that fit in 64 bits,
// and drops leading zeros so that CLI11 reads the rest as decimal.
CLI::Validator decimal_integer(bool negative_allowed) {
  auto check = [negative_allowed](std::string& text) -> std::string {
    const bool negative = !text.empty() && text[0] == '-';
    const std::string digits = text.substr(negative ? 1 : 0);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
        (negative && !negative_allowed))
      return "'" + text + "' is not a decimal integer" + (negative_allowed ? "" : " >= 0");
    errno = 0;
    if (negative) static_cast<void>(std::strtoll(text.c_str(), nullptr, 10));
    else static_cast<void>(std::strtoull(text.c_str(), nullptr, 10));
    if (errno == ERANGE) return "'" + text + "' does not fit in 64 bits";
    const size_t first_digit = std::min(digits.find_first_not_of('0'), digits.size() - 1);
    text = (negative ? "-" : "") + digits.substr(first_digit);
    return "";
  };
  return CLI::Validator(check, "");
}

// Peak resident memory of this process so far, in MiB.
double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  std::ostringstream out;
  out.precision(6);
  out << x;
  return out.str();
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

template <typename T>
DenseMatrix<T> random_matrix(int64_t m, int64_t n, uint64_t seed) {
  DenseMatrix<T> a(m, n);
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (T& x : a.data) x = T(uniform(engine));
  return a;
}

template <typename T>
DenseMatrix<T> convert(const DenseMatrix<double>& a) {
  DenseMatrix<T> out(a.rows, a.cols);
  for (size_t e = 0; e < a.data.size(); ++e) out.data[e] = T(a.data[e]);
  return out;
}

// Rejects NaN/Inf (unless allowed), naming the first position, 1-based.
template <typename T>
void check_finite(const DenseMatrix<T>& a, const std::string& what, bool allow) {
  if (allow) return;
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < a.rows; ++i)
      if (!std::isfinite(double(a(i, j))))
        throw InputError(what + " has a non-finite entry " + std::to_string(double(a(i, j))) +
                         " at (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                         "); use --allow-nonfinite to factor it anyway");
}

bool ends_with_json(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

// A path ending in .json gets the Chrome trace-event format (Perfetto), any
// other the CSV that the figures read.
void write_trace(const std::string& path, const std::vector<TaskRecord>& trace,
                 const StageDescription& stage) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    if (!out) throw InputError("cannot write trace file '" + path + "'");
    if (ends_with_json(path)) {
      write_chrome_trace(out, trace, stage.name, stage.device == "cpu" ? "worker" : "executor warp");
    } else {
      out << "kind,k,i,j,piv,worker,start_ns,end_ns\n";
      for (const TaskRecord& r : trace)
        out << task_kind_name(r.task.kind) << ',' << r.task.k << ',' << r.task.i << ','
            << r.task.j << ',' << r.task.piv << ',' << r.worker << ',' << r.start_ns << ','
            << r.end_ns << '\n';
    }
    if (!out) throw InputError("cannot write trace file '" + path + "'");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throw InputError("cannot write trace file '" + path + "'");
}

// Matrix files: .npy by its extension, Matrix Market otherwise.
DenseMatrix<double> read_matrix_file(const std::string& path) {
  return is_npy_path(path) ? read_npy(path) : read_matrix_market(path);
}

template <typename T>
void write_matrix_file(const std::string& path, const DenseMatrix<T>& a) {
  if (is_npy_path(path)) write_npy(path, a.data.data(), a.rows, a.cols, a.ld());
  else write_matrix_market(path, a.data.data(), a.rows, a.cols, a.ld());
}

// Why the residuals are not computed, or empty when they are.
std::string check_skipped_because(const RunConfig& config, int64_t m, int64_t n) {
  if (config.check) return "";
  if (config.no_check) return "--no-check";
  const double work = double(m) * double(n) * double(n);
  if (work <= config.check_limit) return "";
  char text[160];
  std::snprintf(text, sizeof text, "m*n^2 = %.3g is above --check-limit %.3g; --check forces it", work,
                config.check_limit);
  return text;
}

template <typename T>
int run(const RunConfig& config, const StageDescription& stage,
        const FactorFunction<T>& factor_function) {
  DenseMatrix<T> a;
  std::string source;
  if (!config.input.empty()) {
    {
      const NvtxRange range("read");
      a = convert<T>(read_matrix_file(config.input));
    }
    if (stage.check_memory) stage.check_memory(a.rows, a.cols, sizeof(T));
    if (a.rows < 1 || a.cols < 1)
      throw InputError(config.input + ": matrix is " + std::to_string(a.rows) + "x" +
                       std::to_string(a.cols) + "; need at least 1x1");
    check_finite(a, config.input, config.allow_nonfinite);
    source = config.input;
  } else {
    checked_elements({config.m, config.n}, sizeof(T), "the matrix");
    if (stage.check_memory) stage.check_memory(config.m, config.n, sizeof(T));
    a = random_matrix<T>(config.m, config.n, config.seed);
    source = "random, seed " + std::to_string(config.seed);
  }
  DenseMatrix<T> b;
  if (!config.rhs.empty()) {
    const NvtxRange range("read");
    b = convert<T>(read_matrix_file(config.rhs));
    if (b.rows != a.rows)
      throw InputError(config.rhs + ": right-hand side has " + std::to_string(b.rows) +
                       " rows, the matrix has " + std::to_string(a.rows));
    check_finite(b, config.rhs, config.allow_nonfinite);
    if (a.rows < a.cols) throw InputError("--rhs needs m >= n (least squares)");
  }

  Options options = config.options;
  const std::string backend = stage.own_kernels.empty() ? backend_name(options.backend) : stage.own_kernels;
  const int inner_block = stage.own_kernels.empty() ? options.effective_inner_block() : options.tile;
  if (!config.tree_given && stage.default_tree)
    options.tree = stage.default_tree(a.rows, a.cols, options.tile, options.threads);

  const auto start = std::chrono::steady_clock::now();
  Factorization<T> f = [&] {
    const NvtxRange range("factor");
    return factor_function(a.data.data(), a.rows, a.cols, a.ld(), options);
  }();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Measured before the checks allocate Q: the input plus the factorisation.
  const double factor_peak_mib = peak_rss_mib();
  const double seconds = f.device_seconds > 0 ? f.device_seconds : wall;
  const double gflops = qr_flops(a.rows, a.cols) / seconds * 1e-9;
  const std::string skipped = check_skipped_because(config, a.rows, a.cols);
  Residuals res{std::nan(""), std::nan("")};
  if (skipped.empty()) {
    const NvtxRange range("check");
    res = check_factorization(a.data.data(), a.rows, a.cols, a.ld(), f);
  }
  const bool passed = res.residual < config.tolerance && res.orthogonality < config.tolerance;

  DenseMatrix<T> x;
  if (!config.rhs.empty()) x = f.solve(b.data.data(), b.ld(), b.cols);

  const char* precision = sizeof(T) == 8 ? "double" : "float";
  if (config.json) {
    std::cout << "{\"stage\":" << json_string(stage.name) << ",\"m\":" << a.rows
              << ",\"n\":" << a.cols << ",\"tile\":" << options.tile
              << ",\"inner_block\":" << inner_block
              << ",\"precision\":\"" << precision << "\",\"backend\":\""
              << backend << "\",\"tree\":\""
              << tree_name(options.tree) << "\",\"threads\":" << options.threads
              << ",\"seed\":" << (config.input.empty() ? std::to_string(config.seed) : "null")
              << ",\"seconds\":" << json_number(seconds) << ",\"gflops\":" << json_number(gflops)
              << ",\"residual\":" << json_number(res.residual)
              << ",\"orthogonality\":" << json_number(res.orthogonality)
              << ",\"tolerance\":" << json_number(config.tolerance)
              << ",\"matrix_mib\":" << json_number(double(a.data.size() * sizeof(T)) / 1048576.0)
              << ",\"peak_rss_mib\":" << json_number(factor_peak_mib)
              << ",\"check\":" << (!skipped.empty() ? "\"skipped\"" : passed ? "\"pass\"" : "\"fail\"")
              << ",\"device\":" << json_string(stage.device) << "}" << std::endl;
  } else {
    std::printf("%s: %lld x %lld %s (%s), tile %d, inner block %d, backend %s, tree %s\n",
                stage.name.c_str(), static_cast<long long>(a.rows),
                static_cast<long long>(a.cols), precision, source.c_str(), options.tile,
                inner_block, backend.c_str(), tree_name(options.tree));
    if (stage.uses_threads) std::printf("  threads        %d\n", options.threads);
    std::printf("  time           %.6f s\n", seconds);
    std::printf("  GFLOP/s        %.3f\n", gflops);
    if (skipped.empty()) {
      std::printf("  residual       %.4g   (|A-QR|_F / (|A|_F n eps))\n", res.residual);
      std::printf("  orthogonality  %.4g   (|I-Q'Q|_F / (n eps))\n", res.orthogonality);
    } else {
      std::printf("  check          skipped (%s)\n", skipped.c_str());
    }
  }
  if (config.check && !passed) {
    std::cerr << stage.name << ": check failed: residual " << res.residual << ", orthogonality "
              << res.orthogonality << " (tolerance " << config.tolerance << ")\n";
    return exit_code::check_failed;
  }
  const NvtxRange write_range("write");
  if (!config.output_r.empty()) write_matrix_file(config.output_r, f.r());
  if (!config.output_q.empty()) write_matrix_file(config.output_q, f.thin_q());
  if (!config.output_x.empty()) write_matrix_file(config.output_x, x);
  if (!config.trace.empty()) write_trace(config.trace, f.trace, stage);
  return exit_code::ok;
}

}  // namespace

int stage_main(int argc, char** argv, const StageDescription& stage) {
  RunConfig config;
  CLI::App app{stage.summary, stage.name};
  const CLI::Validator signed_decimal = decimal_integer(true);
  const CLI::Validator unsigned_decimal = decimal_integer(false);
  auto* m_option = app.add_option("--m", config.m, "rows of the random matrix (default 2048)")
                       ->transform(signed_decimal);
  auto* n_option = app.add_option("--n", config.n, "columns of the random matrix (default 1024)")
                       ->transform(signed_decimal);
  auto* input_option = app.add_option("--input", config.input, "matrix to factor: .npy, else Matrix Market");
  input_option->excludes(m_option)->excludes(n_option);
  app.add_option("--tile", config.options.tile, "tile size b (default 32)")->transform(signed_decimal);
  auto* inner_block_option = app.add_option("--inner-block", config.options.inner_block,
                 "inner block ib of the lapack backend (default min(b, 32))")
      ->transform(signed_decimal);
  app.add_option("--precision", config.precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}));
  app.add_option("--seed", config.seed, "seed of the random matrix (default 42)")
      ->transform(unsigned_decimal);
  app.add_option("--threads", config.options.threads, "worker threads (0: every CPU this process may use)")
      ->transform(signed_decimal);
  auto* tree_option = app.add_option("--tree", config.tree,
                                     "elimination tree: flat, binary or greedy (default: the stage's choice by shape)")
      ->check(CLI::IsMember({"flat", "binary", "greedy"}));
  auto* backend_option =
      app.add_option("--backend", config.backend, "tile kernels: reference or lapack (default lapack)")
      ->check(CLI::IsMember({"reference", "lapack"}));
  auto* check_option = app.add_flag("--check", config.check,
                                    "always compute the residuals; exit 3 when one exceeds the tolerance");
  app.add_flag("--no-check", config.no_check,
               "skip the residuals (by default they are computed while m*n^2 <= --check-limit)")
      ->excludes(check_option);
  app.add_option("--check-limit", config.check_limit,
                 "largest m*n^2 whose residuals are computed without --check (default 2^34)");
  app.add_option("--tolerance", config.tolerance, "tolerance of --check (default 50)");
  app.add_option("--output-r", config.output_r, "write R (min(m,n) x n): .npy, else Matrix Market");
  app.add_option("--output-q", config.output_q, "write the thin Q (m x min(m,n)): .npy, else Matrix Market");
  auto* rhs_option = app.add_option("--rhs", config.rhs, "right-hand sides B (m x k): .npy, else Matrix Market");
  app.add_option("--output-x", config.output_x, "write the least-squares solution X (n x k)")
      ->needs(rhs_option);
  app.add_option("--trace", config.trace,
                 "write the tasks' timeline: Chrome trace-event JSON (Perfetto) for a .json path, else CSV");
  app.add_flag("--json", config.json, "print one JSON object instead of text");
  app.add_flag("--allow-nonfinite", config.allow_nonfinite,
               "factor inputs that contain NaN or Inf instead of rejecting them");
  app.set_version_flag("--version", [&stage] {
    return version_text(stage.name, stage.library_versions ? stage.library_versions() : std::string());
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << stage.name << ": " << e.what() << "\n"
              << "Run with --help for more information.\n";
    return exit_code::bad_input;
  }

  try {
    if (config.m < 1) throw InputError("--m must be >= 1, got " + std::to_string(config.m));
    if (config.n < 1) throw InputError("--n must be >= 1, got " + std::to_string(config.n));
    if (config.options.tile < 1)
      throw InputError("--tile must be >= 1, got " + std::to_string(config.options.tile));
    if (config.options.inner_block < 0)
      throw InputError("--inner-block must be >= 0, got " + std::to_string(config.options.inner_block));
    if (config.options.threads < 0)
      throw InputError("--threads must be >= 0, got " + std::to_string(config.options.threads));
    if (!(config.tolerance > 0)) throw InputError("--tolerance must be > 0");
    if (!(config.check_limit >= 0)) throw InputError("--check-limit must be >= 0");
    if (!config.rhs.empty() && config.output_x.empty())
      throw InputError("--rhs needs --output-x to say where X goes");
    if (!stage.own_kernels.empty() && (backend_option->count() > 0 || inner_block_option->count() > 0))
      throw InputError(stage.name + " runs its own tile kernels (" + stage.own_kernels +
                       "): --backend and --inner-block do not apply");
    config.options.backend = parse_backend(config.backend);
    config.options.tree = parse_tree(config.tree);
    config.tree_given = tree_option->count() > 0;
    config.options.trace = !config.trace.empty();
    if (stage.uses_threads && config.options.threads == 0)
      config.options.threads = available_cpus();
    if (!stage.uses_threads) config.options.threads = 1;
    if (config.precision == "float") return run<float>(config, stage, stage.factor_float);
    return run<double>(config, stage, stage.factor_double);
  } catch (const InputError& e) {
    std::cerr << stage.name << ": error: " << e.what() << "\n";
    return exit_code::bad_input;
  } catch (const GpuError& e) {
    std::cerr << stage.name << ": GPU error: " << e.what() << "\n";
    return exit_code::no_gpu;
  } catch (const StallError& e) {
    std::cerr << stage.name << ": stalled: " << e.what() << "\n";
    return exit_code::stalled;
  } catch (const std::bad_alloc&) {
    std::cerr << stage.name << ": error: out of host memory\n";
    return exit_code::bad_input;
  } catch (const std::system_error& e) {
    // Typically std::thread failing to start a worker (--threads beyond what
    // the system allows): like memory above, a request the machine refused.
    std::cerr << stage.name << ": error: the system refused a resource: " << e.what()
              << (stage.uses_threads ? " (try fewer --threads)" : "") << "\n";
    return exit_code::bad_input;
  }
}

}  // namespace tiledqr
