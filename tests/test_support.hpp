// Helpers shared by the test programs: seeded random inputs (the seed is
// printed so a failure can be replayed with TILEDQR_TEST_SEED) and small
// dense-matrix utilities.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "dense_matrix.hpp"
#include "random_values.hpp"

namespace tiledqr::testing {

// The seed of this test program: TILEDQR_TEST_SEED if set, else a fixed one.
// Printed once, so every random input can be reproduced.
inline uint64_t test_seed() {
  static const uint64_t seed = [] {
    const char* text = std::getenv("TILEDQR_TEST_SEED");
    const uint64_t s = text ? std::strtoull(text, nullptr, 10) : 20261121u;
    std::printf("[ seed     ] TILEDQR_TEST_SEED=%llu\n", static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

// An engine for one test, seeded from the program seed and a salt.
inline std::mt19937_64 make_engine(uint64_t salt) { return std::mt19937_64(test_seed() * 1000003u + salt); }

// Uniform entries in [-1, 1): never zeros.
template <typename T>
DenseMatrix<T> random_matrix(int64_t m, int64_t n, std::mt19937_64& engine) {
  DenseMatrix<T> a(m, n);
  fill_uniform(a.data, engine);
  return a;
}

template <typename T>
bool all_finite(const std::vector<T>& values) {
  for (const T x : values)
    if (!std::isfinite(double(x))) return false;
  return true;
}

// The whole contents of a file ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A scratch directory under /tmp for one test, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    char pattern[] = "/tmp/tiledqr-test-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~ScratchDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  void write(const std::string& name, const std::string& text) const { std::ofstream(file(name)) << text; }

 private:
  std::string path_;
};

}  // namespace tiledqr::testing
