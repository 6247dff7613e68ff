// What the Matrix Market parser, the parallel file reader and the writer
// share (matrix_market_parser.cpp, matrix_market_reader.cpp,
// matrix_market_writer.cpp): limits, a source of lines, threads joined on
// every path. Internal to them; matrix_market.hpp is the interface.
#pragma once

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "dense_matrix.hpp"

namespace tiledqr::matrix_market_detail {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline std::string shape(int64_t rows, int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

// A line may hold at most kMaxLineBytes: an entry needs well under a hundred,
// and without a limit a file with no line breaks (a binary file, /dev/zero)
// would be read into memory whole.
constexpr size_t kMaxLineBytes = size_t(1) << 20;
// The line-by-line reader reads a file in blocks this large (or the file's
// size, when smaller): few system calls, and still small beside any matrix
// worth the wait.
constexpr size_t kIoBlockBytes = size_t(1) << 22;
// Threads joined when this goes out of scope, an exception included.
struct JoinedThreads {
  std::vector<std::thread> threads;
  JoinedThreads() = default;
  JoinedThreads(const JoinedThreads&) = delete;
  JoinedThreads& operator=(const JoinedThreads&) = delete;
  ~JoinedThreads() {
    for (std::thread& t : threads)
      if (t.joinable()) t.join();
  }
};

constexpr uint64_t kUnknownSize = std::numeric_limits<uint64_t>::max();

// Input, one line at a time, from a string or from an open file. Reading a
// file this way means a huge or malformed file is never held in memory whole.
class LineSource {
 public:
  explicit LineSource(const std::string& text) : text_(&text) {}
  explicit LineSource(std::FILE* file) : file_(file) {}
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;

  // Returns the next line without its "\n" or "\r\n", or false at the end of
  // the input, on a read error (then read_error() is the errno value) and for
  // a line longer than kMaxLineBytes (then too_long() is set and
  // line_number() is that line's). The view stays valid until the next call
  // and is followed by its line break or by a NUL, so the C library's number
  // parsers stop at its end.
  bool next(std::string_view& line) {
    std::string_view raw;
    if (text_ != nullptr ? !next_from_text(raw) : !next_from_file(raw)) return false;
    if (!raw.empty() && raw.back() == '\n') raw.remove_suffix(1);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    ++line_number_;
    if (raw.size() > kMaxLineBytes) {
      too_long_ = true;
      return false;
    }
    line = raw;
    return true;
  }

  // 1-based number of the line last returned by next(); 0 before the first.
  int64_t line_number() const { return line_number_; }
  int read_error() const { return read_error_; }
  bool too_long() const { return too_long_; }
  bool from_file() const { return file_ != nullptr; }

  // The rest of a file, for the parallel reader; used instead of next(),
  // never mixed with it afterwards (line_number() then stays where next()
  // left it). take_buffered() gives the bytes already read but not yet
  // returned, once; read_raw() then reads straight into `out` and returns
  // how many bytes it got: fewer than `size` at the end of the file or on a
  // read error (then read_error() is set).
  std::string_view take_buffered() {
    const std::string_view rest(block_.get() + block_pos_, block_end_ - block_pos_);
    block_pos_ = block_end_;
    return rest;
  }
  // How many bytes of a regular file are left to read; kUnknownSize for
  // anything else (a pipe, a device, a string).
  uint64_t bytes_left_hint() const {
    struct stat info {};
    if (file_ == nullptr || ::fstat(fileno(file_), &info) != 0 || !S_ISREG(info.st_mode)) return kUnknownSize;
    const long at = std::ftell(file_);
    if (at < 0) return kUnknownSize;
    return info.st_size > at ? uint64_t(info.st_size - at) : 0;
  }
  size_t read_raw(char* out, size_t size) {
    size_t got = 0;
    while (got < size && read_error_ == 0) {
      errno = 0;
      const size_t n = std::fread(out + got, 1, size - got, file_);
      got += n;
      if (n == 0) {
        if (std::ferror(file_)) read_error_ = errno != 0 ? errno : EIO;
        break;
      }
    }
    return got;
  }

 private:
  bool next_from_text(std::string_view& raw) {
    if (pos_ >= text_->size()) return false;
    size_t end = text_->find('\n', pos_);
    end = (end == std::string::npos) ? text_->size() : end + 1;
    raw = std::string_view(*text_).substr(pos_, end - pos_);
    pos_ = end;
    return true;
  }

  // Reads up to and including the next '\n', but stops one byte past
  // kMaxLineBytes (next() then refuses the line). The file is read in blocks
  // of kIoBlockBytes; a line that lies whole in the block is returned in
  // place, one that straddles two blocks is put together in line_.
  bool next_from_file(std::string_view& raw) {
    line_.clear();
    while (line_.size() <= kMaxLineBytes) {
      if (block_pos_ == block_end_ && !fill_block()) {
        raw = line_;
        return !line_.empty() && read_error_ == 0;
      }
      const char* start = block_.get() + block_pos_;
      const size_t available = block_end_ - block_pos_;
      const void* newline = std::memchr(start, '\n', available);
      const size_t take = newline != nullptr ? size_t(static_cast<const char*>(newline) - start) + 1 : available;
      block_pos_ += take;
      if (newline != nullptr && line_.empty()) {
        raw = std::string_view(start, take);
        return true;
      }
      line_.append(start, std::min(take, kMaxLineBytes + 1 - line_.size()));
      if (newline != nullptr) break;
    }
    raw = line_;
    return true;
  }

  // Reads the next block; false at the end of the file or on an error (then
  // read_error_ is set).
  bool fill_block() {
    if (!block_) {
      // No larger than a regular file needs (a small file costs no large
      // allocation); not zeroed: fread fills it.
      const uint64_t left = bytes_left_hint();
      block_capacity_ = left >= kIoBlockBytes ? kIoBlockBytes : size_t(std::max<uint64_t>(left, 4096)) + 2;
      block_.reset(new char[block_capacity_]);
    }
    errno = 0;
    block_pos_ = 0;
    // One byte stays free so that a line ending the file without a line
    // break is still followed by a NUL in the block.
    block_end_ = std::fread(block_.get(), 1, block_capacity_ - 1, file_);
    block_[block_end_] = '\0';
    if (block_end_ == 0 && std::ferror(file_)) read_error_ = errno != 0 ? errno : EIO;
    return block_end_ > 0;
  }

  const std::string* text_ = nullptr;
  size_t pos_ = 0;
  std::FILE* file_ = nullptr;
  std::unique_ptr<char[]> block_;  // the file's bytes [block_pos_, block_end_) not yet returned
  size_t block_capacity_ = 0;
  size_t block_pos_ = 0;
  size_t block_end_ = 0;
  std::string line_;
  int64_t line_number_ = 0;
  int read_error_ = 0;
  bool too_long_ = false;
};

// Thrown by the parallel reader at anything but plain values, blank lines
// and comments: read_matrix_market then parses the file again line by line,
// which names the problem and its line.
struct NotPlainArray {};

// Parses the Matrix Market text `in` gives line by line (banner, size line,
// entries); `name` stands for the file in messages. With `parallel`, a
// general real array from a regular file goes to
// read_general_array_in_parallel. (matrix_market_parser.cpp)
DenseMatrix<double> parse_lines(LineSource& in, const std::string& name, bool parallel);

// Reads the values of a general real array file, rows x cols, the rest of
// `in` after the size line, into `a` (its storage reserved, empty), parsed by
// several threads. Throws NotPlainArray where the line-by-line parser would
// fail or name a line (too many or too few values included).
// (matrix_market_reader.cpp)
void read_general_array_in_parallel(LineSource& in, int64_t rows, int64_t cols, DenseMatrix<double>& a);

}  // namespace tiledqr::matrix_market_detail
