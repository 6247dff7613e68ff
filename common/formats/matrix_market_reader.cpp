// The Matrix Market file reader: a file opened and parsed, the values of a
// general real array file (the common large case) parsed by every CPU a
// block at a time while the next block is read. Anything unusual in them
// sends the file back to the line-by-line parser (matrix_market_parser.cpp),
// which names the problem and its line.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cpu_threads.hpp"
#include "errors.hpp"
#include "huge_pages.hpp"
#include "matrix_market.hpp"
#include "matrix_market_detail.hpp"

namespace tiledqr {
namespace matrix_market_detail {
namespace {

// The parallel reader reads this much text per thread at a time (about fifty
// thousand values), and at least kIoBlockBytes.
constexpr size_t kParseBytesPerThread = size_t(1) << 20;

// Parses `text` (whole lines of an array file's entries) into `values`:
// false at anything but a value between blanks, a blank line or a comment,
// or a line longer than kMaxLineBytes.
bool parse_plain_values(std::string_view text, std::vector<double>& values) {
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    if (eol == nullptr) eol = end;
    if (size_t(eol - p) > kMaxLineBytes) return false;
    const char* q = p;
    while (q < eol && is_space(*q)) ++q;
    if (q < eol && *q != '%') {
      double v = 0;
      const std::from_chars_result r = std::from_chars(q, eol, v);
      if (r.ec != std::errc() || r.ptr == q) return false;
      for (q = r.ptr; q < eol; ++q)
        if (!is_space(*q)) return false;
      values.push_back(v);
    }
    p = eol + 1;
  }
  return true;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

// The file goes through two buffers of a block each (kParseBytesPerThread
// per thread) and a part line: while the threads parse one, cut into equal
// pieces at line breaks, this thread reads the next block into the other,
// after the part line that the first ended with. Each piece's values go to
// a vector of its own, kept from block to block, and are appended to the
// matrix in file order.
void read_general_array_in_parallel(LineSource& in, int64_t rows, int64_t cols, DenseMatrix<double>& a) {
  const size_t expected = static_cast<size_t>(rows * cols);
  advise_huge_pages(a.data.data(), a.data.capacity() * sizeof(double));
  const size_t threads = size_t(std::max(1, std::min(available_cpus(), 16)));
  // At least kIoBlockBytes, so the bytes read with the header fit in it.
  const size_t block = std::max(kIoBlockBytes, kParseBytesPerThread * threads);
  // A block is read after at most a part line of kMaxLineBytes. The
  // buffers are made when first needed and no larger than the rest of a
  // regular file (with a byte to spare, to see its end): a small file
  // costs no large allocation.
  const uint64_t rest_of_file = in.bytes_left_hint();
  std::unique_ptr<char[]> buffers[2];
  size_t capacities[2] = {0, 0};
  auto make_room = [&](int b, size_t bytes) {
    if (capacities[b] >= bytes) return;
    buffers[b].reset(new char[bytes]);
    capacities[b] = bytes;
    advise_huge_pages(buffers[b].get(), bytes);
  };
  std::vector<std::vector<double>> parts(threads);
  std::vector<char> ok(threads);

  // Fills buffers[b] with `carry` and then up to `block` more bytes of the
  // file; returns the size and sets `last` when the file has no more.
  bool last = false;
  auto fill = [&](int b, std::string_view carry) {
    if (carry.size() > kMaxLineBytes) throw NotPlainArray{};  // a line too long
    make_room(b, carry.size() + block);
    if (!carry.empty()) std::memmove(buffers[b].get(), carry.data(), carry.size());
    const size_t got = in.read_raw(buffers[b].get() + carry.size(), block);
    last = got < block;
    return carry.size() + got;
  };
  // First the bytes that reading the header brought in (less than
  // kIoBlockBytes, so within one block), then the rest of the block.
  const std::string_view buffered = in.take_buffered();
  size_t first = block - buffered.size();
  if (rest_of_file < first) first = size_t(rest_of_file) + 1;
  make_room(0, buffered.size() + first);
  if (!buffered.empty()) std::memcpy(buffers[0].get(), buffered.data(), buffered.size());
  const size_t got = in.read_raw(buffers[0].get() + buffered.size(), first);
  last = got < first;
  int current = 0;
  size_t size = buffered.size() + got;
  for (;;) {
    const std::string_view text(buffers[current].get(), size);
    // Whole lines now; the part line after the last line break waits for
    // the next block unless the file has ended.
    size_t whole = size;
    if (!last) {
      const size_t eol = text.rfind('\n');
      whole = eol == std::string_view::npos ? 0 : eol + 1;
    }
    std::vector<std::string_view> pieces;
    std::string_view rest = text.substr(0, whole);
    for (size_t t = threads; t > 0 && !rest.empty(); --t) {
      size_t cut = t == 1 ? rest.size() : rest.size() / t;
      const size_t eol = rest.find('\n', cut);
      cut = eol == std::string_view::npos ? rest.size() : eol + 1;
      pieces.push_back(rest.substr(0, cut));
      rest.remove_prefix(cut);
    }
    const bool more = !last;
    size_t next_size = 0;
    {
      JoinedThreads workers;
      for (size_t t = 0; t < pieces.size(); ++t)
        workers.threads.emplace_back([&, t] {
          parts[t].clear();
          ok[t] = parse_plain_values(pieces[t], parts[t]);
        });
      if (more) next_size = fill(1 - current, text.substr(whole));
    }
    for (size_t t = 0; t < pieces.size(); ++t) {
      if (!ok[t] || a.data.size() + parts[t].size() > expected) throw NotPlainArray{};
      a.data.insert(a.data.end(), parts[t].begin(), parts[t].end());
    }
    if (!more) break;
    current = 1 - current;
    size = next_size;
  }
  if (in.read_error() != 0 || a.data.size() != expected) throw NotPlainArray{};
}

}  // namespace matrix_market_detail

using namespace matrix_market_detail;

DenseMatrix<double> read_matrix_market(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "r"));
  if (!file) throw InputError(path + ":1: cannot open: " + std::strerror(errno));
  try {
    LineSource in(file.get());
    return parse_lines(in, path, true);
  } catch (const NotPlainArray&) {
    // Something the fast path does not take: read again, line by line.
    std::rewind(file.get());
    LineSource in(file.get());
    return parse_lines(in, path, false);
  }
}

}  // namespace tiledqr
