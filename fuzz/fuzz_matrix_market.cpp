// libFuzzer target for the Matrix Market reader (issue 7). Every input is
// handed to tiledqr::parse_matrix_market; it must either return a matrix of
// the declared shape or throw InputError. A crash, a sanitizer report, a
// leak, any other exception or a wrong shape is a finding.
//
// Inputs whose size line declares more than kMaxElements elements are
// skipped: the reader would allocate them in full (it refuses only what
// exceeds physical memory), which is beyond the fuzzer's RSS limit and not
// a bug. Build and run it with scripts/fuzz-mtx.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "declared_size.hpp"
#include "errors.hpp"
#include "matrix_market.hpp"

namespace {
constexpr uint64_t kMaxElements = 10'000'000;  // 80 MB of doubles
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const uint64_t elements = tiledqr::fuzzing::declared_elements(text);
  if (elements > kMaxElements) return -1;  // -1: not added to the corpus
  try {
    const tiledqr::DenseMatrix<double> a = tiledqr::parse_matrix_market(text, "fuzz.mtx");
    // A matrix that was returned must be the one the size line declared.
    if (a.rows < 0 || a.cols < 0 || a.data.size() != static_cast<size_t>(a.rows * a.cols) ||
        static_cast<uint64_t>(a.rows * a.cols) != elements) {
      std::fprintf(stderr, "parse_matrix_market returned %lld x %lld with %zu values, declared %llu\n",
                   static_cast<long long>(a.rows), static_cast<long long>(a.cols), a.data.size(),
                   static_cast<unsigned long long>(elements));
      std::abort();
    }
  } catch (const tiledqr::InputError&) {
    // The expected outcome for malformed input.
  }
  return 0;
}
