#include "run_methods.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "cpu_reference.hpp"
#include "gpu_methods.hpp"
#include "tiled_plan.hpp"

namespace tiledqr::enkf {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Repeats that fit in the budget, judged from one run of `one_run` seconds.
int affordable_repeats(int repeats, double one_run, double budget_seconds) {
  if (one_run <= 0) return repeats;
  return std::max(1, std::min(repeats, int(budget_seconds / one_run)));
}

}  // namespace

Method automatic_method(const EnkfProblem& p) {
  return choose_method(p.n, p.m(), p.l, union_column_count(p.h));
}

MethodRun run_method(Method method, const EnkfProblem& p, const DeviceProblem* device, int warmup, int repeats,
                     double budget_seconds) {
  MethodRun run;
  run.method = method;
  if (method == Method::cpu) {
    auto start = std::chrono::steady_clock::now();
    run.result = enkf_product_cpu(p);  // the first run is timed too: the reference is slow
    run.seconds.push_back(seconds_since(start));
    const int more = affordable_repeats(repeats, run.seconds[0], budget_seconds) - 1;
    for (int r = 0; r < more; ++r) {
      start = std::chrono::steady_clock::now();
      run.result = enkf_product_cpu(p);
      run.seconds.push_back(seconds_since(start));
    }
    return run;
  }
  if (device == nullptr) throw GpuError(std::string(method_name(method)) + " needs a GPU");
  const auto setup = std::chrono::steady_clock::now();
  std::unique_ptr<GpuMethod> gpu = make_gpu_method(method, *device);
  run.setup_seconds = seconds_since(setup);
  std::vector<double> warm = time_gpu_method(*gpu, 0, std::max(1, warmup));
  const int timed = affordable_repeats(repeats, warm.back(), budget_seconds);
  run.seconds = time_gpu_method(*gpu, 0, timed);
  run.result = device->download_out();
  return run;
}

double median_of(std::vector<double> values) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const size_t h = values.size() / 2;
  return values.size() % 2 ? values[h] : 0.5 * (values[h - 1] + values[h]);
}

double min_of(const std::vector<double>& values) {
  return values.empty() ? NAN : *std::min_element(values.begin(), values.end());
}

}  // namespace tiledqr::enkf
