// The command line every stage program shares (docs/design.md §7): parse, load or
// generate A, factor, check, write outputs, print text or JSON, and map
// errors to exit codes (0 ok, 2 bad input, 3 check failed, 4 no GPU,
// 5 stalled). A stage supplies only its factor functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "factorization.hpp"

namespace tiledqr {

template <typename T>
using FactorFunction =
    std::function<Factorization<T>(const T* a, int64_t m, int64_t n, int64_t lda, const Options&)>;

struct StageDescription {
  std::string name;         // program name, e.g. "fr1_serial"
  std::string summary;      // one line for --help
  std::string device;       // what runs the tasks, e.g. "cpu"; GPU stages fill in the GPU's name
  bool uses_threads = false;  // whether --threads means anything here
  // The stage's own tile kernels (e.g. "gpu-warp"), printed as its backend;
  // empty: the kernels are the --backend option's. A stage with its own
  // kernels rejects --backend and --inner-block.
  std::string own_kernels;
  // Called once the matrix's size is known and fits in host memory, before
  // it is made: throws (GpuError for a GPU stage) when an m x n
  // factorisation with elements of this many bytes cannot fit, so a request
  // too large for the device fails before any work.
  std::function<void(int64_t m, int64_t n, size_t element_bytes)> check_memory;
  // The tree used when --tree is not given; empty means flat (the seed's).
  std::function<Tree(int64_t m, int64_t n, int tile, int threads)> default_tree;
  // Extra lines of --version (a GPU stage's CUDA runtime, driver and cuSOLVER
  // versions); none when empty.
  std::function<std::string()> library_versions;
  FactorFunction<double> factor_double;
  FactorFunction<float> factor_float;
};

int stage_main(int argc, char** argv, const StageDescription& stage);

}  // namespace tiledqr
