// The seed of a test's random inputs: TILEDQR_TEST_SEED if set, else a fixed
// default; printed, so a failure can be replayed.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace tiledqr::taskgraph::testing {

inline uint64_t test_seed(const std::string& test_name) {
  uint64_t seed = 20261121;
  if (const char* text = std::getenv("TILEDQR_TEST_SEED")) seed = std::strtoull(text, nullptr, 10);
  std::cout << "[ seed     ] " << test_name << ": " << seed << " (set TILEDQR_TEST_SEED to replay)\n";
  return seed;
}

}  // namespace tiledqr::taskgraph::testing
