// The Matrix Market writer: `array real general`, each value in its shortest
// round-trip text (std::to_chars), formatted by every CPU one batch at a time
// while the previous batch is written.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "cpu_threads.hpp"
#include "errors.hpp"
#include "huge_pages.hpp"
#include "matrix_market.hpp"
#include "matrix_market_detail.hpp"
#include "output_file.hpp"

namespace tiledqr {
namespace {

using matrix_market_detail::JoinedThreads;
using matrix_market_detail::shape;

// Longest text format_value writes: 17 digits, sign, point, "e-308", newline.
constexpr size_t kMaxValueChars = 32;
// The writer's text buffer per thread, two of them: 65,536 values each.
constexpr size_t kFormatBytesPerThread = size_t(2) << 20;

// Writes `v` and a newline at `out` (room for kMaxValueChars) and returns the
// end. std::to_chars gives the shortest text that reads back to the same
// value of the same type ("0.1", not "0.10000000000000001"); a float's
// shortest text read as a double converts back to the same float. Infinities
// and NaN come out as "inf", "-inf" and "nan", which the reader accepts.
template <typename T>
char* format_value(char* out, T v) {
  const std::to_chars_result r = std::to_chars(out, out + kMaxValueChars - 1, v);
  *r.ptr = '\n';
  return r.ptr + 1;
}

template <typename T>
void check_shape(const std::string& name, const T* a, int64_t rows, int64_t cols, int64_t lda) {
  if (rows < 0 || cols < 0 || lda < std::max<int64_t>(1, rows)) {
    throw InputError(name + ": cannot write a " + shape(rows, cols) + " matrix with leading dimension " +
                     std::to_string(lda));
  }
  if (a == nullptr && rows > 0 && cols > 0) throw InputError(name + ": cannot write: no matrix data");
}

}  // namespace

template <typename T>
void write_matrix_market(OutputFile& out, const T* a, int64_t rows, int64_t cols, int64_t lda) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double only");
  check_shape(out.name(), a, rows, cols, lda);
  out.write("%%MatrixMarket matrix array real general\n" + std::to_string(rows) + " " + std::to_string(cols) + "\n");
  // The values in storage order, a batch at a time: each thread formats a
  // slice of the batch into a buffer of its own while this thread writes the
  // previous batch's buffers out, in order (two sets of buffers in turn).
  const size_t total = size_t(rows) * size_t(cols);
  const size_t threads = size_t(std::max(1, std::min(available_cpus(), 16)));
  const size_t slice = kFormatBytesPerThread / kMaxValueChars;  // values per thread and batch
  const size_t batch = slice * threads;
  std::unique_ptr<char[]> buffers[2][16];
  size_t used[2][16] = {};
  auto format_slice = [&](int set, size_t t, size_t first, size_t last) {
    if (!buffers[set][t]) {
      buffers[set][t].reset(new char[kFormatBytesPerThread]);
      advise_huge_pages(buffers[set][t].get(), kFormatBytesPerThread);
    }
    char* end = buffers[set][t].get();
    // Element `first` is (i, j) of the column-major storage.
    size_t i = size_t(first % size_t(rows)), j = size_t(first / size_t(rows));
    const T* column = a + j * size_t(lda);
    for (size_t k = first; k < last; ++k) {
      end = format_value(end, column[i]);
      if (++i == size_t(rows)) {
        i = 0;
        column += lda;
      }
    }
    used[set][t] = size_t(end - buffers[set][t].get());
  };
  auto write_set = [&](int set) {
    for (size_t t = 0; t < threads; ++t) {
      if (used[set][t] > 0) out.write(std::string_view(buffers[set][t].get(), used[set][t]));
      used[set][t] = 0;
    }
  };
  int set = 0;
  for (size_t start = 0; start < total; start += batch, set = 1 - set) {
    const size_t count = std::min(batch, total - start);
    JoinedThreads workers;
    for (size_t t = 0; t * slice < count; ++t)
      workers.threads.emplace_back(format_slice, set, t, start + t * slice, start + std::min(count, (t + 1) * slice));
    if (start > 0) write_set(1 - set);
  }
  write_set(1 - set);
}

template <typename T>
void write_matrix_market(const std::string& path, const T* a, int64_t rows, int64_t cols,
                         int64_t lda) {
  check_shape(path, a, rows, cols, lda);
  const OutputTarget target = check_output_path("", path);
  write_outputs({{target, [&](OutputFile& out) { write_matrix_market(out, a, rows, cols, lda); }}});
}

template void write_matrix_market<float>(OutputFile&, const float*, int64_t, int64_t, int64_t);
template void write_matrix_market<double>(OutputFile&, const double*, int64_t, int64_t, int64_t);
template void write_matrix_market<float>(const std::string&, const float*, int64_t, int64_t, int64_t);
template void write_matrix_market<double>(const std::string&, const double*, int64_t, int64_t, int64_t);

}  // namespace tiledqr
