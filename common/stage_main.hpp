// The command line every stage program shares (DESIGN §4): parse, load or
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
  // The tree used when --tree is not given; empty means flat (the seed's).
  std::function<Tree(int64_t m, int64_t n, int tile, int threads)> default_tree;
  FactorFunction<double> factor_double;
  FactorFunction<float> factor_float;
};

int stage_main(int argc, char** argv, const StageDescription& stage);

}  // namespace tiledqr
