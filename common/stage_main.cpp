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
#include "errors.hpp"
#include "matrix_market.hpp"

namespace tiledqr {
namespace {

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

}  // namespace

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

void write_trace(const std::string& path, const std::vector<TaskRecord>& trace) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    if (!out) throw InputError("cannot write trace file '" + path + "'");
    out << "kind,k,i,j,piv,worker,start_ns,end_ns\n";
    for (const TaskRecord& r : trace)
      out << task_kind_name(r.task.kind) << ',' << r.task.k << ',' << r.task.i << ','
          << r.task.j << ',' << r.task.piv << ',' << r.worker << ',' << r.start_ns << ','
          << r.end_ns << '\n';
    if (!out) throw InputError("cannot write trace file '" + path + "'");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throw InputError("cannot write trace file '" + path + "'");
}

template <typename T>
void write_factors(const StageConfig& config, const Factorization<T>& f) {
  if (!config.output_r.empty()) {
    const DenseMatrix<T> r = f.r();
    write_matrix_market(config.output_r, r.data.data(), r.rows, r.cols, r.ld());
  }
  if (!config.output_q.empty()) {
    const DenseMatrix<T> q = f.thin_q();
    write_matrix_market(config.output_q, q.data.data(), q.rows, q.cols, q.ld());
  }
}

template void write_factors<float>(const StageConfig&, const Factorization<float>&);
template void write_factors<double>(const StageConfig&, const Factorization<double>&);
template DenseMatrix<float> random_matrix<float>(int64_t, int64_t, uint64_t);
template DenseMatrix<double> random_matrix<double>(int64_t, int64_t, uint64_t);
template DenseMatrix<float> convert<float>(const DenseMatrix<double>&);
template DenseMatrix<double> convert<double>(const DenseMatrix<double>&);
template void check_finite<float>(const DenseMatrix<float>&, const std::string&, bool);
template void check_finite<double>(const DenseMatrix<double>&, const std::string&, bool);

namespace {

template <typename T>
int run(const StageConfig& config, const StageDescription& stage,
        const FactorFunction<T>& factor_function) {
  DenseMatrix<T> a;
  std::string source;
  if (!config.input.empty()) {
    a = convert<T>(read_matrix_market(config.input));
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
    b = convert<T>(read_matrix_market(config.rhs));
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
  Factorization<T> f = factor_function(a.data.data(), a.rows, a.cols, a.ld(), options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Measured before the checks allocate Q: the input plus the factorisation.
  const double factor_peak_mib = peak_rss_mib();
  const double seconds = f.device_seconds > 0 ? f.device_seconds : wall;
  const double gflops = qr_flops(a.rows, a.cols) / seconds * 1e-9;
  const Residuals res = check_factorization(a.data.data(), a.rows, a.cols, a.ld(), f);
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
              << ",\"check\":" << (passed ? "\"pass\"" : "\"fail\"")
              << ",\"device\":" << json_string(stage.device) << "}" << std::endl;
  } else {
    std::printf("%s: %lld x %lld %s (%s), tile %d, inner block %d, backend %s, tree %s\n",
                stage.name.c_str(), static_cast<long long>(a.rows),
                static_cast<long long>(a.cols), precision, source.c_str(), options.tile,
                inner_block, backend.c_str(), tree_name(options.tree));
    if (stage.uses_threads) std::printf("  threads        %d\n", options.threads);
    std::printf("  time           %.6f s\n", seconds);
    std::printf("  GFLOP/s        %.3f\n", gflops);
    std::printf("  residual       %.4g   (|A-QR|_F / (|A|_F n eps))\n", res.residual);
    std::printf("  orthogonality  %.4g   (|I-Q'Q|_F / (n eps))\n", res.orthogonality);
  }
  if (config.check && !passed) {
    std::cerr << stage.name << ": check failed: residual " << res.residual << ", orthogonality "
              << res.orthogonality << " (tolerance " << config.tolerance << ")\n";
    return exit_code::check_failed;
  }
  write_factors(config, f);
  if (!config.output_x.empty()) write_matrix_market(config.output_x, x.data.data(), x.rows, x.cols, x.ld());
  if (!config.trace.empty()) write_trace(config.trace, f.trace);
  return exit_code::ok;
}

}  // namespace

int parse_stage_command_line(int argc, char** argv, const StageDescription& stage,
                             StageConfig& config, bool report,
                             const std::function<void(CLI::App&)>& extra) {
  CLI::App app{stage.summary, stage.name};
  const CLI::Validator signed_decimal = decimal_integer(true);
  const CLI::Validator unsigned_decimal = decimal_integer(false);
  auto* m_option = app.add_option("--m", config.m, "rows of the random matrix (default 2048)")
                       ->transform(signed_decimal);
  auto* n_option = app.add_option("--n", config.n, "columns of the random matrix (default 1024)")
                       ->transform(signed_decimal);
  auto* input_option = app.add_option("--input", config.input, "Matrix Market file to factor");
  input_option->excludes(m_option)->excludes(n_option);
  app.add_option("--tile", config.options.tile, "tile size b (default 32)")->transform(signed_decimal);
  auto* inner_block_option = app.add_option("--inner-block", config.options.inner_block,
                 "inner block ib of the lapack backend (default min(b, 32))")
      ->transform(signed_decimal);
  app.add_option("--precision", config.precision, "double or float")
      ->check(CLI::IsMember({"double", "float"}));
  app.add_option("--seed", config.seed, "seed of the random matrix (default 42)")
      ->transform(unsigned_decimal);
  app.add_option("--threads", config.options.threads, "worker threads (0: all hardware threads)")
      ->transform(signed_decimal);
  auto* tree_option = app.add_option("--tree", config.tree,
                                     "elimination tree: flat, binary, greedy or hierarchical (default: the stage's choice by shape)")
      ->check(CLI::IsMember({"flat", "binary", "greedy", "hierarchical"}));
  app.add_option("--domains", config.options.tree_domains,
                 "hierarchical tree: domains, tile row i in domain i mod domains (default 1)")
      ->transform(signed_decimal);
  app.add_option("--inner-tree", config.inner_tree, "hierarchical tree: flat or binary inside a domain")
      ->check(CLI::IsMember({"flat", "binary"}));
  auto* backend_option =
      app.add_option("--backend", config.backend, "tile kernels: reference or lapack (default lapack)")
      ->check(CLI::IsMember({"reference", "lapack"}));
  app.add_flag("--check", config.check, "exit 3 when a residual exceeds the tolerance");
  app.add_option("--tolerance", config.tolerance, "tolerance of --check (default 50)");
  app.add_option("--output-r", config.output_r, "write R (min(m,n) x n) as Matrix Market");
  app.add_option("--output-q", config.output_q, "write the thin Q (m x min(m,n)) as Matrix Market");
  auto* rhs_option = app.add_option("--rhs", config.rhs, "right-hand sides B (m x k), Matrix Market");
  app.add_option("--output-x", config.output_x, "write the least-squares solution X (n x k)")
      ->needs(rhs_option);
  app.add_option("--trace", config.trace, "write one CSV row per task");
  app.add_flag("--json", config.json, "print one JSON object instead of text");
  app.add_flag("--allow-nonfinite", config.allow_nonfinite,
               "factor inputs that contain NaN or Inf instead of rejecting them");
  if (extra) extra(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    if (!report) return exit_code::ok;
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (report)
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
    if (!config.rhs.empty() && config.output_x.empty())
      throw InputError("--rhs needs --output-x to say where X goes");
    if (!stage.own_kernels.empty() && (backend_option->count() > 0 || inner_block_option->count() > 0))
      throw InputError(stage.name + " runs its own tile kernels (" + stage.own_kernels +
                       "): --backend and --inner-block do not apply");
    if (config.options.tree_domains < 1)
      throw InputError("--domains must be >= 1, got " + std::to_string(config.options.tree_domains));
    config.options.backend = parse_backend(config.backend);
    config.options.tree = parse_tree(config.tree);
    config.options.inner_tree = parse_tree(config.inner_tree);
    config.tree_given = tree_option->count() > 0;
    config.options.trace = !config.trace.empty();
    if (stage.uses_threads && config.options.threads == 0)
      config.options.threads = int(std::max(1u, std::thread::hardware_concurrency()));
    if (!stage.uses_threads) config.options.threads = 1;
  } catch (const InputError& e) {
    if (report) std::cerr << stage.name << ": error: " << e.what() << "\n";
    return exit_code::bad_input;
  }
  return -1;
}

int stage_main(int argc, char** argv, const StageDescription& stage) {
  StageConfig config;
  const int parsed = parse_stage_command_line(argc, argv, stage, config, true);
  if (parsed >= 0) return parsed;
  try {
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
