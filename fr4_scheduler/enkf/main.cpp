// fr4_enkf — the localised covariance product of the EnKF report ("ECE 408
// final report") on the GPU:
//   P_HT = [C ∘ (e eᵀ)] Hᵀ / (L − 1)
// C N×N symmetric (or general) Toeplitz, e N×L, H M×N sparse. Methods:
// tiled (FR4 task graph), fft (circulant embedding + cuFFT), dense (cuBLAS
// baseline), cpu (the reference), auto (tiled or fft by method_choice.hpp).
//
//   fr4_enkf --n 25000 --m 32 --l 10 --density 0.05 --method auto --json
//   fr4_enkf --input-c c.mtx --input-e e.mtx --input-h h.mtx --method fft --check
//
// Exit codes (docs/design.md §7): 0 ok, 2 bad usage or input, 3 --check failed,
// 4 no usable GPU or a CUDA failure.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include "cpu_reference.hpp"
#include "gpu/device.hpp"
#include "enkf_problem.hpp"
#include "errors.hpp"
#include "gpu_methods.hpp"
#include "matrix_market.hpp"
#include "enkf_options.hpp"
#include "output_file.hpp"
#include "program.hpp"
#include "run_methods.hpp"

using namespace tiledqr;
using namespace tiledqr::enkf;

namespace {

constexpr int64_t reference_limit = 20000;  // --check runs the CPU reference up to this N

struct Config {
  int64_t n = 10000;
  ProblemOptions problem;
  double tolerance = 1e-12;
  std::string method = "auto", output;
  InputFiles files;
  TimingOptions timing;
  bool check = false, json = false;
};

int run(const Config& config) {
  const ProblemOptions& problem = config.problem;
  const TimingOptions& timing = config.timing;
  if (problem.seed < 0) throw InputError("--seed must be >= 0, got " + std::to_string(problem.seed));
  if (timing.repeats < 1) throw InputError("--repeats must be >= 1, got " + std::to_string(timing.repeats));
  if (timing.warmup < 0) throw InputError("--warmup must be >= 0, got " + std::to_string(timing.warmup));
  if (!(config.tolerance > 0)) throw InputError("--tolerance must be > 0");
  const Method requested = parse_method(config.method);
  check_output_path("--output", config.output);  // refused before the problem is loaded
  const EnkfProblem p =
      load_problem(config.files, config.n, problem.m, problem.l, problem.density, uint64_t(problem.seed));
  const Method method = requested == Method::automatic ? automatic_method(p) : requested;

  std::unique_ptr<DeviceProblem> device;
  std::string device_name = "cpu";
  if (method != Method::cpu) {
    if (!gpu::device_available()) {
      std::cerr << "fr4_enkf: method " << method_name(method) << " needs a CUDA-capable GPU, none found\n";
      return exit_code::no_gpu;
    }
    device_name = gpu_description();
    device = std::make_unique<DeviceProblem>(p);
  }
  const MethodRun result = run_method(method, p, device.get(), timing.warmup, timing.repeats);
  const double seconds = median_of(result.seconds);

  double error = NAN;
  const bool checked = config.check && p.n <= reference_limit;
  if (checked) error = relative_error(result.result, method == Method::cpu ? result.result : enkf_product_cpu(p));
  if (!config.output.empty()) write_matrix_market(config.output, result.result.data(), p.n, p.m(), p.n);
  const bool failed = checked && !(error <= config.tolerance);

  if (config.json) {
    std::cout << "{\"workload\": \"enkf\", \"method\": \"" << method_name(method) << "\", \"requested\": \""
              << method_name(requested) << "\", \"n\": " << p.n << ", \"m\": " << p.m() << ", \"l\": " << p.l
              << ", \"density\": " << json_number(problem.density) << ", \"nnz\": " << p.h.nnz()
              << ", \"seed\": " << problem.seed << ", \"seconds_median\": " << json_number(seconds)
              << ", \"seconds_min\": " << json_number(min_of(result.seconds))
              << ", \"repeats\": " << result.seconds.size()
              << ", \"setup_seconds\": " << json_number(result.setup_seconds)
              << ", \"rel_error\": " << json_number(error) << ", \"check_passed\": "
              << (checked ? (failed ? "false" : "true") : "null") << ", \"device\": \"" << device_name << "\"}\n";
  } else {
    std::printf("fr4_enkf: N = %lld, M = %lld, L = %lld, nnz(H) = %lld, density %g, seed %lld\n",
                (long long)p.n, (long long)p.m(), (long long)p.l, (long long)p.h.nnz(), problem.density,
                (long long)problem.seed);
    std::printf("method %s%s on %s: %.6g s (median of %zu; setup %.3g s)\n", method_name(method),
                requested == Method::automatic ? " (auto)" : "", device_name.c_str(), seconds,
                result.seconds.size(), result.setup_seconds);
    if (checked)
      std::printf("relative error vs CPU reference: %.3e (tolerance %.1e): %s\n", error, config.tolerance,
                  failed ? "FAILED" : "ok");
    else if (config.check)
      std::printf("check skipped: the CPU reference runs only for N <= %lld\n", (long long)reference_limit);
  }
  return failed ? exit_code::check_failed : exit_code::ok;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"P_HT = [C o (e e^T)] H^T / (L - 1) on the GPU (EnKF localised covariance, tasks on the generic GPU scheduler)", "fr4_enkf"};
  app.add_option("--n", config.n, "state size N (default 10000)");
  add_problem_options(app, config.problem);
  app.add_option("--method", config.method, "auto, tiled, fft, dense or cpu (default auto)");
  app.add_option("--input-c", config.files.c, "C: Matrix Market array, N x 1 (symmetric) or N x 2 (column, row)");
  app.add_option("--input-e", config.files.e, "e: Matrix Market array, N x L");
  app.add_option("--input-h", config.files.h, "H: Matrix Market, M x N, coordinate or array");
  app.add_flag("--check", config.check, "compare with the CPU reference (N <= 20000); exit 3 above --tolerance");
  app.add_option("--tolerance", config.tolerance, "relative error allowed by --check (default 1e-12)");
  add_timing_options(app, config.timing);
  app.add_option("--output", config.output, "write P_HT (N x M) as Matrix Market");
  app.add_flag("--json", config.json, "print one JSON object");
  if (const int code = parse_command_line(app, argc, argv, "fr4_enkf"); code >= 0) return code;
  return run_reporting_errors("fr4_enkf", [&] { return run(config); });
}
