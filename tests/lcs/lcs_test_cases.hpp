// Random LCS inputs for the tests of fr4_scheduler/lcs: a pair of
// sequences, drawn from the test program's printed seed (TILEDQR_TEST_SEED).
#pragma once

#include <random>
#include <string>

#include "lcs_sequence.hpp"
#include "test_support.hpp"

namespace tiledqr::lcs::testing {

struct SequencePair {
  std::string a, b;
  std::string label;  // sizes, alphabet and seeds, for SCOPED_TRACE
};

// a of length m and b of length n over `alphabet` symbols, with seeds from `engine`.
inline SequencePair random_pair(int64_t m, int64_t n, int alphabet, std::mt19937_64& engine) {
  const uint64_t seed = engine();
  SequencePair p{random_sequence(m, alphabet, seed), random_sequence(n, alphabet, seed + 1), ""};
  p.label = "M=" + std::to_string(m) + " N=" + std::to_string(n) + " alphabet=" + std::to_string(alphabet) +
            " seed=" + std::to_string(seed);
  return p;
}

}  // namespace tiledqr::lcs::testing
