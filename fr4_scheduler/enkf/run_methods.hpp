// What fr4_enkf and fr4_enkf_bench share: running one method on a problem
// (the CPU reference, or a GPU method prepared once and run repeatedly),
// the auto rule applied to a problem, and small statistics.
#pragma once

#include <memory>
#include <vector>

#include "device_problem.hpp"
#include "enkf_problem.hpp"
#include "method_choice.hpp"

namespace tiledqr::enkf {

struct MethodRun {
  Method method = Method::cpu;
  std::vector<double> seconds;  // the timed repeats
  double setup_seconds = 0;     // plan, graph, cuFFT plans, workspaces (GPU methods)
  std::vector<double> result;   // P_HT, (n, m) col-major
};

// The method `--method auto` picks for `p` (choose_method with H's union columns).
Method automatic_method(const EnkfProblem& p);

// Runs `method` (cpu, tiled, fft or dense; not automatic) warmup + repeats
// times; a GPU method needs `device`. When one untimed warm-up run takes
// longer than budget_seconds / repeats, fewer repeats are timed (at least
// one). Throws InputError (dense too large), GpuError.
MethodRun run_method(Method method, const EnkfProblem& p, const DeviceProblem* device, int warmup, int repeats,
                     double budget_seconds = 30);

double median_of(std::vector<double> values);
double min_of(const std::vector<double>& values);

}  // namespace tiledqr::enkf
