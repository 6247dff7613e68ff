// `fr4_lcs --bench`: the LCS benchmark. For each square size it times the CPU
// two-row DP, the per-diagonal GPU baseline and FR4 over a sweep of tile
// widths, calibrates the run-time model of "Supernode transformation on GPGPUs"
// (lcs_model.hpp) on the sweep's first and last widths, and writes measured and
// predicted times as CSV (comment lines start with '#'):
//   method,m,n,alphabet,tile_w,tile_h,seconds_median,gcups,predicted_seconds,
//   lcs_length,seconds_min,repeats,workers
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tiledqr::lcs {

struct BenchConfig {
  std::string out = "report/data/lcs.csv";
  std::string commit = "unknown";
  std::string command;  // the command line, for the CSV header
  std::vector<int64_t> sizes{4096, 16384, 65536};
  std::vector<int64_t> tile_widths{32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
  int64_t tile_height = 2048;
  int alphabet = 4;
  uint64_t seed = 1;
  int repeats = 5;                 // timed runs after one warm-up (fewer for the slow peers at big sizes)
  double cpu_max_cells = 5e9;      // skip the CPU DP above this M·N
  double diagonal_max_cells = 5e9;  // skip the per-diagonal baseline above this M·N
};

// Runs the benchmark; returns the exit code (3 when two methods disagree
// on an LCS length). Throws InputError / GpuError / StallError.
int run_bench(const BenchConfig& config);

}  // namespace tiledqr::lcs
