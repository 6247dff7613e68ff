// The command-line options fr4_enkf and fr4_enkf_bench share: the random
// problem's M, L, density and seed (random_problem's arguments besides N)
// and the timed runs (run_method's warm-up and repeats).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace tiledqr::enkf {

struct ProblemOptions {
  int64_t m = 32, l = 10, seed = 42;
  double density = 0.05;
};

struct TimingOptions {
  int repeats = 3, warmup = 1;
};

inline void add_problem_options(CLI::App& app, ProblemOptions& problem) {
  app.add_option("--m", problem.m, "observations M, rows of H (default 32)");
  app.add_option("--l", problem.l, "ensemble members L >= 2 (default 10)");
  app.add_option("--density", problem.density, "fraction of nonzeros per row of H, in (0, 1] (default 0.05)");
  app.add_option("--seed", problem.seed, "seed of the random inputs (default 42)");
}

// The help states each program's own defaults, the values `timing` holds.
inline void add_timing_options(CLI::App& app, TimingOptions& timing) {
  app.add_option("--repeats", timing.repeats,
                 "timed runs, median reported (default " + std::to_string(timing.repeats) + ")");
  app.add_option("--warmup", timing.warmup, "untimed runs first (default " + std::to_string(timing.warmup) + ")");
}

}  // namespace tiledqr::enkf
