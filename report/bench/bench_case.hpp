// The benchmark driver's view of a stage: one case in, timings and
// accuracy out. The driver (bench_main.cpp) owns repeats, CSV rows,
// progress and resume; each stage contributes one function.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "random_values.hpp"
#include "size_check.hpp"

namespace tiledqr::bench {

struct BenchCase {
  std::string stage;              // fr1, fr2, fr3, fr4, lapack, cusolver, ...
  std::string tree = "flat";      // flat, binary, greedy
  std::string backend = "lapack"; // CPU stages: reference or lapack
  std::string precision = "double";
  int64_t m = 0;
  int64_t n = 0;
  int tile = 32;
  int inner_block = 0;            // CPU lapack backend: ib (0: min(tile, 32))
  int threads = 1;                // CPU stages: workers / OpenBLAS threads
  int executors_per_sm = 1;       // FR3
  double double_task_weight = 1;  // FR3: round-robin weight of tsqrt/tsmqr (the library default)
  int priority_classes = 0;       // FR4: ready-queue classes, 1 … 4 (0: the library's choice)
  int warmup = 1;
  int repeats = 5;
  uint64_t seed = 42;
  bool check = true;              // compute residual and orthogonality (of the last run)
  // A stack of `batch` matrices (0: one matrix): FR4 factors them as one
  // task graph, cuSOLVER one after another, cuBLAS by its batched geqrf.
  // Each is m × n, or with `mixed` a square of a size drawn from 16 … m.
  int64_t batch = 0;
  bool mixed = false;
};

// The shapes of a case's matrices: one, `batch` of m × n, or `batch`
// squares of sizes uniform in [min(16, m), m] drawn from the case's seed.
inline std::vector<std::pair<int64_t, int64_t>> batch_shapes(const BenchCase& c) {
  if (c.batch == 0) return {{c.m, c.n}};
  if (!c.mixed) return std::vector<std::pair<int64_t, int64_t>>(size_t(c.batch), {c.m, c.n});
  std::mt19937_64 engine(c.seed + 1);
  std::uniform_int_distribution<int64_t> size(std::min<int64_t>(16, c.m), c.m);
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t b = 0; b < c.batch; ++b) {
    const int64_t s = size(engine);
    out.emplace_back(s, s);
  }
  return out;
}

// c with one set of the tiling knobs: tile, inner block, tree and threads.
inline BenchCase with_tiling(BenchCase c, int tile, int inner_block, const std::string& tree, int threads) {
  c.tile = tile;
  c.inner_block = inner_block;
  c.tree = tree;
  c.threads = threads;
  return c;
}

struct BenchOutcome {
  std::vector<double> seconds;  // one per timed repeat
  double residual = std::numeric_limits<double>::quiet_NaN();
  double orthogonality = std::numeric_limits<double>::quiet_NaN();
  std::string device;           // "cpu" or the GPU's name
  // The tile and inner block a stage chose for tile 0 ("auto"); the CSV
  // records them in place of the 0.
  int chosen_tile = 0, chosen_inner_block = 0;
};

// The driver's matrix: uniform in [-1, 1) from mt19937_64(seed), as every stage draws it.
template <typename T>
std::vector<T> random_input(const BenchCase& c) {
  std::vector<T> a(checked_elements({c.m, c.n}, sizeof(T), "benchmark matrix"));
  std::mt19937_64 engine(c.seed);
  fill_uniform(a, engine);
  return a;
}

// Raised by a GPU stage when no GPU is present: the driver skips the case.
struct NoDevice {
  std::string why;
};

// GPU stages, defined in the .cu files of report/bench when CUDA is built.
// Each times its factorisation with CUDA events on a matrix already in
// device memory (as cuSOLVER is timed), warm-ups excluded.
BenchOutcome bench_fr3(const BenchCase& c);
BenchOutcome bench_fr4(const BenchCase& c);
BenchOutcome bench_cusolver(const BenchCase& c);
// cuBLAS's batched geqrf on a stack (c.batch > 0, one shape).
BenchOutcome bench_cublas(const BenchCase& c);

}  // namespace tiledqr::bench
