// fr4_enkf_bench — the EnKF scaling sweep (report/data/enkf.csv): for each
// N, the same random problem (M, L, density, seed) run by every method
// where it is feasible — cpu for N <= --cpu-max, dense for N <= --dense-max
// (and while N² doubles fit in GPU memory), tiled for N <= --tiled-max,
// fft always. GPU times are CUDA events around a run on device-resident
// inputs (setup excluded, reported apart); median of the repeats after a
// warm-up. rel_error is against the CPU reference where it ran, else
// against the fft result (column `reference`). Rows are written as they
// are measured.
//   fr4_enkf_bench --out report/data/enkf.csv --commit $(git rev-parse --short HEAD)
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/device.hpp"
#include "enkf_problem.hpp"
#include "errors.hpp"
#include "gpu_methods.hpp"
#include "enkf_options.hpp"
#include "program.hpp"
#include "run_methods.hpp"

using namespace tiledqr;
using namespace tiledqr::enkf;

namespace {

struct Config {
  std::string out = "report/data/enkf.csv", commit = "unknown", methods = "cpu,dense,tiled,fft";
  std::vector<int64_t> sizes = {1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000};
  ProblemOptions problem;
  TimingOptions timing{5, 1};
  int64_t cpu_max = 20000, dense_max = 40000, tiled_max = 1000000;
  double budget = 5;
};

std::string utc_now() {
  char text[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::vector<Method> parse_methods(const std::string& list) {
  std::vector<Method> methods;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    const Method m = parse_method(name);
    if (m == Method::automatic) throw InputError("--methods lists concrete methods, not auto");
    methods.push_back(m);
  }
  return methods;
}

std::string field(double x, const char* format = "%.6g") {
  if (!std::isfinite(x)) return "";
  char text[32];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

int run(const Config& c, const std::string& command) {
  const ProblemOptions& problem = c.problem;
  const TimingOptions& timing = c.timing;
  if (timing.repeats < 1 || timing.warmup < 0) throw InputError("--repeats must be >= 1 and --warmup >= 0");
  for (int64_t n : c.sizes)
    if (n < 1) throw InputError("--sizes must all be >= 1");
  const std::vector<Method> methods = parse_methods(c.methods);
  if (!gpu::device_available()) {
    std::cerr << "fr4_enkf_bench: no CUDA-capable GPU\n";
    return exit_code::no_gpu;
  }
  std::ofstream csv(c.out);
  if (!csv) throw InputError(c.out + ": cannot open for writing");
  csv << "# fr4_enkf_bench: P_HT = [C o (e e^T)] H^T / (L - 1); C exponential covariance exp(-k/(N/16)), "
         "e standard normal, H random with round(density*N) nonzeros per row; GPU times are CUDA events around "
         "one run on device-resident inputs (setup_s apart), median of the repeats after a warm-up; cpu is one "
         "thread, wall clock\n";
  csv << "# command: " << command << "\n";
  csv << "# GPU " << gpu_description() << ", date " << utc_now() << ", commit " << c.commit << ", seed " << problem.seed
      << "\n";
  csv << "method,n,m,l,density,nnz,seconds_median,seconds_min,rel_error,reference,repeats,setup_s,auto_method\n";
  csv.flush();

  for (int64_t n : c.sizes) {
    const EnkfProblem p = random_problem(n, problem.m, problem.l, problem.density, uint64_t(problem.seed));
    const DeviceProblem device(p);
    const Method automatic = automatic_method(p);
    std::map<Method, std::vector<double>> results;
    std::vector<MethodRun> runs;
    for (Method method : methods) {
      if (method == Method::cpu && n > c.cpu_max) continue;
      if (method == Method::dense && (n > c.dense_max || !dense_fits(n, p.m()))) continue;
      if (method == Method::tiled && n > c.tiled_max) continue;
      std::cerr << "fr4_enkf_bench: N = " << n << ", " << method_name(method) << "\n";
      runs.push_back(run_method(method, p, &device, timing.warmup, timing.repeats, c.budget));
      results[method] = runs.back().result;
    }
    const bool have_cpu = results.count(Method::cpu) > 0;
    const bool have_fft = results.count(Method::fft) > 0;
    for (const MethodRun& r : runs) {
      double error = NAN;
      std::string reference;
      if (have_cpu && r.method != Method::cpu) error = relative_error(r.result, results[Method::cpu]), reference = "cpu";
      else if (!have_cpu && have_fft && r.method != Method::fft)
        error = relative_error(r.result, results[Method::fft]), reference = "fft";
      csv << method_name(r.method) << ',' << n << ',' << p.m() << ',' << p.l << ',' << problem.density << ','
          << p.h.nnz() << ',' << field(median_of(r.seconds), "%.6e") << ',' << field(min_of(r.seconds), "%.6e")
          << ',' << field(error, "%.3e") << ',' << reference << ',' << r.seconds.size() << ','
          << field(r.setup_seconds, "%.3e") << ',' << method_name(automatic) << "\n";
      std::cout << method_name(r.method) << " N=" << n << ": " << median_of(r.seconds) << " s"
                << (reference.empty() ? "" : ", rel error vs " + reference + " " + field(error, "%.3e")) << "\n";
    }
    csv.flush();
  }
  return exit_code::ok;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  CLI::App app{"EnKF scaling sweep: writes report/data/enkf.csv", "fr4_enkf_bench"};
  app.add_option("--out", config.out, "CSV to write (default report/data/enkf.csv)");
  app.add_option("--commit", config.commit, "commit hash recorded in the header");
  app.add_option("--sizes", config.sizes, "N values (default 1000 2500 ... 1000000)")->delimiter(',');
  app.add_option("--methods", config.methods, "comma list of cpu,dense,tiled,fft (default all)");
  add_problem_options(app, config.problem);
  add_timing_options(app, config.timing);
  app.add_option("--budget", config.budget, "seconds of timed runs per point at most (default 5; >= 1 run)");
  app.add_option("--cpu-max", config.cpu_max, "largest N for the CPU reference (default 20000)");
  app.add_option("--dense-max", config.dense_max, "largest N for the dense baseline (default 40000)");
  app.add_option("--tiled-max", config.tiled_max, "largest N for the tiled method (default 1000000)");
  if (const int code = parse_command_line(app, argc, argv, "fr4_enkf_bench"); code >= 0) return code;
  const std::string command = command_line("fr4_enkf_bench", argc, argv);
  return run_reporting_errors("fr4_enkf_bench", [&] { return run(config, command); });
}
