// libFuzzer target for the Matrix Market reader. Every input is
// handed to tiledqr::parse_matrix_market; it must either return a matrix of
// the declared shape or throw InputError. A crash, a sanitizer report, a
// leak, any other exception or a wrong shape is a finding. The input is also
// written to a temporary file and read with tiledqr::read_matrix_market,
// whose parallel path for array files must give the same values (NaN for
// NaN) or the same message: any difference is a finding too.
//
// Inputs whose size line declares more than kMaxElements elements are
// skipped: the reader would allocate them in full (it refuses only what
// exceeds physical memory), which is beyond the fuzzer's RSS limit and not
// a bug. Build and run it with scripts/fuzz-mtx.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include "declared_size.hpp"
#include "errors.hpp"
#include "matrix_market.hpp"

namespace {
constexpr uint64_t kMaxElements = 10'000'000;  // 80 MB of doubles

// The file every input is written to, made once and removed at exit.
char temporary_path[] = "/tmp/fuzz_matrix_market_XXXXXX";

const char* temporary_file() {
  static const bool made = [] {
    const int fd = mkstemp(temporary_path);
    if (fd < 0) std::abort();
    close(fd);
    std::atexit([] { unlink(temporary_path); });
    return true;
  }();
  (void)made;
  return temporary_path;
}

// What a reader made of an input: the matrix, or the message.
struct Outcome {
  tiledqr::DenseMatrix<double> a;
  std::string message;
};

template <typename Read>
Outcome outcome_of(const Read& read) {
  Outcome o;
  try {
    o.a = read();
  } catch (const tiledqr::InputError& e) {
    o.message = e.what();
  }
  return o;
}

bool same(const Outcome& x, const Outcome& y) {
  if (x.message != y.message || x.a.rows != y.a.rows || x.a.cols != y.a.cols || x.a.data.size() != y.a.data.size())
    return false;
  for (size_t k = 0; k < x.a.data.size(); ++k) {
    const double u = x.a.data[k], v = y.a.data[k];
    if (!(std::memcmp(&u, &v, sizeof u) == 0 || (u != u && v != v))) return false;
  }
  return true;
}
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const uint64_t elements = tiledqr::fuzzing::declared_elements(text);
  if (elements > kMaxElements) return -1;  // -1: not added to the corpus
  const std::string path = temporary_file();
  const Outcome from_text = outcome_of([&] { return tiledqr::parse_matrix_market(text, path); });
  if (from_text.message.empty()) {
    // A matrix that was returned must be the one the size line declared.
    const tiledqr::DenseMatrix<double>& a = from_text.a;
    if (a.rows < 0 || a.cols < 0 || a.data.size() != static_cast<size_t>(a.rows * a.cols) ||
        static_cast<uint64_t>(a.rows * a.cols) != elements) {
      std::fprintf(stderr, "parse_matrix_market returned %lld x %lld with %zu values, declared %llu\n",
                   static_cast<long long>(a.rows), static_cast<long long>(a.cols), a.data.size(),
                   static_cast<unsigned long long>(elements));
      std::abort();
    }
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr || std::fwrite(text.data(), 1, text.size(), file) != text.size() || std::fclose(file) != 0)
    std::abort();
  const Outcome from_file = outcome_of([&] { return tiledqr::read_matrix_market(path); });
  if (!same(from_text, from_file)) {
    std::fprintf(stderr, "read_matrix_market differs from parse_matrix_market:\n  file: %s\n  text: %s\n",
                 from_file.message.c_str(), from_text.message.c_str());
    std::abort();
  }
  return 0;
}
