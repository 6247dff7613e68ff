// Matrix Market reader and writer; see matrix_market.hpp for what is supported.
//
// The reader is a plain line-by-line parser: banner, then comments and blank
// lines, then the size line, then one entry per line (comments and blank lines
// may appear among the entries too). Every number goes through std::from_chars
// (strtoll or strtod for the rare forms it does not take) with a check that
// the whole field was used, so "1.5x" or "2 2.0" is an error rather than a
// silent truncation. Values are printed by std::to_chars in their shortest
// round-trip form.
//
// Large files take a faster path, parsed and formatted by every CPU: the
// values of a general real array file are parsed a block at a time while the
// next block is read (anything unusual in them sends the file back to the
// line-by-line parser, which names the problem and its line), and the writer
// formats one batch of values while the previous one is written.

#include "matrix_market.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "cpu_threads.hpp"
#include "errors.hpp"
#include "huge_pages.hpp"

namespace tiledqr {
namespace {

// ---------------------------------------------------------------------------
// Small text helpers

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Splits `line` at runs of blanks. The views point into `line`.
void split_fields(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && is_space(line[pos])) ++pos;
    const size_t start = pos;
    while (pos < line.size() && !is_space(line[pos])) ++pos;
    if (pos > start) fields.push_back(line.substr(start, pos - start));
  }
}

std::string lower(std::string_view word) {
  std::string out(word);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Quotes input text for a message. Input may be arbitrary bytes (the parser is
// fuzzed), so the quote is cut short and unprintable bytes are replaced.
std::string quote(std::string_view text) {
  constexpr size_t max_shown = 40;
  std::string out = "'";
  for (size_t k = 0; k < text.size() && k < max_shown; ++k) {
    const unsigned char c = static_cast<unsigned char>(text[k]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (text.size() > max_shown) out += "...";
  return out + "'";
}

std::string gib(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

std::string shape(int64_t rows, int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

// ---------------------------------------------------------------------------
// Numbers. A field is a view into a NUL-terminated line and is followed by a
// blank or by the NUL; std::from_chars reads only the field, and strtoll and
// strtod never read past either end, so all parse in place. The end check
// rejects anything left over.
//
// std::from_chars takes the common forms in one pass; what it refuses or
// cannot classify (a leading '+', hexadecimal, overflow versus underflow)
// goes to the C library, so the accepted language is strtod's, as before.

enum class Number { ok, not_a_number, out_of_range };

Number to_int64_strtoll(std::string_view field, int64_t& value);
Number to_double_strtod(std::string_view field, double& value);

Number to_int64(std::string_view field, int64_t& value) {
  const char* end = field.data() + field.size();
  const std::from_chars_result r = std::from_chars(field.data(), end, value);
  if (r.ec == std::errc() && r.ptr == end && !field.empty()) return Number::ok;
  return to_int64_strtoll(field, value);
}

Number to_double(std::string_view field, double& value) {
  const char* end = field.data() + field.size();
  const std::from_chars_result r = std::from_chars(field.data(), end, value);
  if (r.ec == std::errc() && r.ptr == end && !field.empty()) return Number::ok;
  return to_double_strtod(field, value);
}

Number to_int64_strtoll(std::string_view field, int64_t& value) {
  const char* begin = field.data();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(begin, &end, 10);
  if (field.empty() || end != begin + field.size()) return Number::not_a_number;
  if (errno == ERANGE) return Number::out_of_range;
  value = static_cast<int64_t>(v);
  return Number::ok;
}

// Accepts everything strtod does, "nan" and "inf" included. Underflow to zero
// or to a subnormal is fine; only overflow (+-HUGE_VAL with ERANGE) is refused.
Number to_double_strtod(std::string_view field, double& value) {
  const char* begin = field.data();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (field.empty() || end != begin + field.size()) return Number::not_a_number;
  if (errno == ERANGE && std::fabs(v) == HUGE_VAL) return Number::out_of_range;
  value = v;
  return Number::ok;
}

// n*(n+1)/2, the size of a lower triangle with its diagonal. Halving the even
// factor first keeps it from overflowing whenever n*n fits.
int64_t lower_triangle_size(int64_t n) { return n % 2 == 0 ? n / 2 * (n + 1) : (n + 1) / 2 * n; }

// Bytes of physical memory, or 0 when the system will not say.
uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

// ---------------------------------------------------------------------------
// Input, one line at a time, from a string or from an open file. Reading a
// file this way means a huge or malformed file is never held in memory whole.
// A line may hold at most kMaxLineBytes: an entry needs well under a hundred,
// and without a limit a file with no line breaks (a binary file, /dev/zero)
// would be read into memory whole after all.

constexpr size_t kMaxLineBytes = size_t(1) << 20;
// The line-by-line reader reads a file in blocks this large (or the file's
// size, when smaller): few system calls, and still small beside any matrix
// worth the wait.
constexpr size_t kIoBlockBytes = size_t(1) << 22;
// The parallel reader reads this much text per thread at a time (about fifty
// thousand values), and at least kIoBlockBytes.
constexpr size_t kParseBytesPerThread = size_t(1) << 20;

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

// ---------------------------------------------------------------------------
// The parser

enum class Format { array, coordinate };
enum class Field { real, integer };
enum class Symmetry { general, symmetric, skew };

// Thrown by the parallel reader at anything but plain values, blank lines
// and comments: read_matrix_market then parses the file again line by line,
// which names the problem and its line.
struct NotPlainArray {};

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

class Parser {
 public:
  Parser(LineSource& in, const std::string& name, bool parallel = false)
      : in_(in), name_(name), parallel_(parallel) {}

  DenseMatrix<double> run() {
    read_banner();
    read_size_line();
    check_size();  // before the matrix is allocated
    DenseMatrix<double> a;
    if (format_ == Format::array && symmetry_ == Symmetry::general) {
      // Every element comes from the file, in storage order: no zero fill.
      a.rows = rows_;
      a.cols = cols_;
      a.data.reserve(static_cast<size_t>(rows_ * cols_));
      // Only a regular file can be read again when the parallel path gives up.
      if (in_.from_file() && in_.bytes_left_hint() != kUnknownSize && parallel_ && field_ == Field::real)
        read_general_array_in_parallel(a);
      else read_array(a);
    } else if (format_ == Format::array) {
      a = DenseMatrix<double>(rows_, cols_);
      read_array(a);
    } else {
      a = DenseMatrix<double>(rows_, cols_);
      read_coordinate(a);
    }
    return a;
  }

 private:
  [[noreturn]] void fail_at(int64_t line, const std::string& problem) const {
    throw InputError(name_ + ":" + std::to_string(line) + ": " + problem);
  }
  // Blames the line last read, or line 1 when nothing has been read yet.
  [[noreturn]] void fail(const std::string& problem) const {
    fail_at(std::max<int64_t>(1, in_.line_number()), problem);
  }

  // Reads the next line into fields_; false at the end of the input.
  bool next_line() {
    std::string_view line;
    if (!in_.next(line)) {
      if (in_.too_long()) {
        fail_at(in_.line_number(), "line is longer than " + std::to_string(kMaxLineBytes) + " bytes");
      }
      if (in_.read_error() != 0) {
        fail_at(in_.line_number() + 1, std::string("cannot read: ") + std::strerror(in_.read_error()));
      }
      return false;
    }
    split_fields(line, fields_);
    return true;
  }

  // Like next_line, but skips blank lines and '%' comments.
  bool next_content_line() {
    while (next_line()) {
      if (!fields_.empty() && fields_[0][0] != '%') return true;
    }
    return false;
  }

  void read_banner() {
    if (!next_line()) fail_at(1, "file is empty");
    if (fields_.empty() || lower(fields_[0]) != "%%matrixmarket") {
      fail("first line must be a '%%MatrixMarket' banner");
    }
    if (fields_.size() != 5) {
      fail("the banner must give object, format, field and symmetry after %%MatrixMarket (found " +
           std::to_string(fields_.size() - 1) + " words)");
    }
    const std::string object = lower(fields_[1]);
    const std::string format = lower(fields_[2]);
    const std::string field = lower(fields_[3]);
    const std::string symmetry = lower(fields_[4]);

    if (object != "matrix") fail("object " + quote(fields_[1]) + " is not supported (matrix only)");

    if (format == "array") {
      format_ = Format::array;
    } else if (format == "coordinate") {
      format_ = Format::coordinate;
    } else {
      fail("format " + quote(fields_[2]) + " is not supported (array or coordinate only)");
    }

    if (field == "real") {
      field_ = Field::real;
    } else if (field == "integer") {
      field_ = Field::integer;
    } else if (field == "pattern") {
      fail("pattern matrices are not supported (real or integer only)");
    } else {
      fail("field " + quote(fields_[3]) + " is not supported (real or integer only)");
    }

    if (symmetry == "general") {
      symmetry_ = Symmetry::general;
    } else if (symmetry == "symmetric") {
      symmetry_ = Symmetry::symmetric;
    } else if (symmetry == "skew-symmetric") {
      symmetry_ = Symmetry::skew;
    } else {
      fail("symmetry " + quote(fields_[4]) +
           " is not supported (general, symmetric or skew-symmetric only)");
    }
  }

  void read_size_line() {
    const bool coordinate = format_ == Format::coordinate;
    if (!next_content_line()) fail("end of file before the size line");
    const size_t wanted = coordinate ? 3 : 2;
    if (fields_.size() != wanted) {
      fail(std::string("the size line must hold ") +
           (coordinate ? "3 integers (rows, columns, entries)" : "2 integers (rows, columns)") +
           ", found " + std::to_string(fields_.size()) + " fields");
    }
    int64_t values[3] = {0, 0, 0};
    for (size_t k = 0; k < wanted; ++k) {
      switch (to_int64(fields_[k], values[k])) {
        case Number::ok:
          break;
        case Number::not_a_number:
          fail("size line: expected an integer, found " + quote(fields_[k]));
        case Number::out_of_range:
          fail("size line: " + quote(fields_[k]) + " does not fit in a 64-bit integer");
      }
      if (values[k] < 0) fail("size line: negative number " + std::to_string(values[k]));
    }
    rows_ = values[0];
    cols_ = values[1];
    declared_entries_ = values[2];
  }

  // Refuses sizes that cannot be stored, before anything is allocated.
  void check_size() {
    if (symmetry_ != Symmetry::general && rows_ != cols_) {
      fail(std::string(symmetry_ == Symmetry::skew ? "a skew-symmetric" : "a symmetric") +
           " matrix must be square, found " + shape(rows_, cols_));
    }
    if (cols_ != 0 && rows_ > std::numeric_limits<int64_t>::max() / cols_) {
      fail("a " + shape(rows_, cols_) + " matrix has more elements than a 64-bit count can hold");
    }
    const int64_t elements = rows_ * cols_;
    const uint64_t memory = physical_memory_bytes();
    if (memory != 0 && static_cast<uint64_t>(elements) > memory / sizeof(double)) {
      fail("a " + shape(rows_, cols_) + " matrix needs " +
           gib(static_cast<double>(elements) * sizeof(double)) + ", more than the " +
           gib(static_cast<double>(memory)) + " of physical memory");
    }
    // Symmetric files store at most the lower triangle, diagonal included.
    const int64_t positions = symmetry_ == Symmetry::general ? elements : lower_triangle_size(rows_);
    if (format_ == Format::coordinate && declared_entries_ > positions) {
      fail("the size line declares " + std::to_string(declared_entries_) + " entries, but a " +
           shape(rows_, cols_) + " file of this symmetry has only " + std::to_string(positions) +
           " positions");
    }
  }

  double read_value(std::string_view text) {
    if (field_ == Field::integer) {
      int64_t v = 0;
      switch (to_int64(text, v)) {
        case Number::ok:
          return static_cast<double>(v);
        case Number::not_a_number:
          fail("expected an integer value, found " + quote(text));
        case Number::out_of_range:
          fail("integer value " + quote(text) + " does not fit in 64 bits");
      }
    }
    double v = 0;
    switch (to_double(text, v)) {
      case Number::ok:
        break;
      case Number::not_a_number:
        fail("expected a number, found " + quote(text));
      case Number::out_of_range:
        fail("value " + quote(text) + " overflows double");
    }
    return v;
  }

  // A 1-based coordinate index in 1..bound.
  int64_t read_index(std::string_view text, const char* what, int64_t bound) {
    int64_t v = 0;
    switch (to_int64(text, v)) {
      case Number::ok:
        break;
      case Number::not_a_number:
        fail(std::string("expected an integer ") + what + " index, found " + quote(text));
      case Number::out_of_range:
        fail(std::string(what) + " index " + quote(text) + " is out of range 1.." + std::to_string(bound));
    }
    if (v < 1 || v > bound) {
      fail(std::string(what) + " index " + std::to_string(v) + " is out of range 1.." + std::to_string(bound));
    }
    return v;
  }

  void check_all_entries_found(int64_t expected, int64_t found) const {
    if (found < expected) {
      fail("expected " + std::to_string(expected) + " entries, found " + std::to_string(found));
    }
  }

  void fail_too_many(int64_t expected) const {
    fail("more entries than the " + std::to_string(expected) + " the size line declares");
  }

  // Array files list values column by column: the whole matrix for general,
  // the lower triangle for symmetric, the strictly lower triangle for
  // skew-symmetric (whose diagonal is zero and not stored).
  void read_array(DenseMatrix<double>& a) {
    const int64_t n = rows_;
    int64_t expected = rows_ * cols_;
    if (symmetry_ == Symmetry::symmetric) expected = lower_triangle_size(n);
    if (symmetry_ == Symmetry::skew) expected = n == 0 ? 0 : lower_triangle_size(n - 1);

    const int64_t diagonal_offset = symmetry_ == Symmetry::skew ? 1 : 0;
    int64_t found = 0;
    int64_t i = diagonal_offset;  // next position, for the symmetric kinds
    int64_t j = 0;
    while (next_content_line()) {
      if (found == expected) fail_too_many(expected);
      if (fields_.size() > 1) fail("unexpected text " + quote(fields_[1]) + " after the value");
      const double v = read_value(fields_[0]);
      if (symmetry_ == Symmetry::general) {
        a.data.push_back(v);
      } else {
        a(i, j) = v;
        a(j, i) = symmetry_ == Symmetry::skew ? -v : v;
        if (++i == n) {
          ++j;
          i = j + diagonal_offset;
        }
      }
      ++found;
    }
    check_all_entries_found(expected, found);
  }

  // Coordinate files list "row column value" with 1-based indices, in any
  // order. Symmetric kinds may give only entries on or below the diagonal.
  void read_coordinate(DenseMatrix<double>& a) {
    // One bit per element to catch an entry given twice; an eighth of a
    // percent of the matrix itself.
    std::vector<bool> seen(static_cast<size_t>(rows_ * cols_), false);
    int64_t found = 0;
    while (next_content_line()) {
      if (found == declared_entries_) fail_too_many(declared_entries_);
      if (fields_.size() < 3) {
        fail("an entry needs row, column and value, found only " + std::to_string(fields_.size()) +
             (fields_.size() == 1 ? " field" : " fields"));
      }
      if (fields_.size() > 3) fail("unexpected text " + quote(fields_[3]) + " after the entry");
      const int64_t i = read_index(fields_[0], "row", rows_);
      const int64_t j = read_index(fields_[1], "column", cols_);
      const double v = read_value(fields_[2]);
      const std::string where = "entry (" + std::to_string(i) + ", " + std::to_string(j) + ")";
      if (symmetry_ != Symmetry::general && j > i) {
        fail(where + " is above the diagonal; a symmetric file stores only the lower triangle");
      }
      if (symmetry_ == Symmetry::skew && i == j && v != 0.0) {
        fail(where + " is on the diagonal, which must be zero in a skew-symmetric matrix");
      }
      const size_t k = static_cast<size_t>((i - 1) + (j - 1) * rows_);
      if (seen[k]) fail(where + " is given twice");
      seen[k] = true;

      a(i - 1, j - 1) = v;
      if (symmetry_ == Symmetry::symmetric) a(j - 1, i - 1) = v;
      if (symmetry_ == Symmetry::skew && i != j) a(j - 1, i - 1) = -v;
      ++found;
    }
    check_all_entries_found(declared_entries_, found);
  }

  // read_array for a general real array file, its text parsed by several
  // threads. Throws NotPlainArray where read_array would fail or name a line
  // (too many or too few values included).
  //
  // The file goes through two buffers of a block each (kParseBytesPerThread
  // per thread) and a part line: while the threads parse one, cut into equal
  // pieces at line breaks, this thread reads the next block into the other,
  // after the part line that the first ended with. Each piece's values go to
  // a vector of its own, kept from block to block, and are appended to the
  // matrix in file order.
  void read_general_array_in_parallel(DenseMatrix<double>& a) {
    const size_t expected = static_cast<size_t>(rows_ * cols_);
    advise_huge_pages(a.data.data(), a.data.capacity() * sizeof(double));
    const size_t threads = size_t(std::max(1, std::min(available_cpus(), 16)));
    // At least kIoBlockBytes, so the bytes read with the header fit in it.
    const size_t block = std::max(kIoBlockBytes, kParseBytesPerThread * threads);
    // A block is read after at most a part line of kMaxLineBytes. The
    // buffers are made when first needed and no larger than the rest of a
    // regular file (with a byte to spare, to see its end): a small file
    // costs no large allocation.
    const uint64_t rest_of_file = in_.bytes_left_hint();
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
      const size_t got = in_.read_raw(buffers[b].get() + carry.size(), block);
      last = got < block;
      return carry.size() + got;
    };
    // First the bytes that reading the header brought in (less than
    // kIoBlockBytes, so within one block), then the rest of the block.
    const std::string_view buffered = in_.take_buffered();
    size_t first = block - buffered.size();
    if (rest_of_file < first) first = size_t(rest_of_file) + 1;
    make_room(0, buffered.size() + first);
    if (!buffered.empty()) std::memcpy(buffers[0].get(), buffered.data(), buffered.size());
    const size_t got = in_.read_raw(buffers[0].get() + buffered.size(), first);
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
    if (in_.read_error() != 0 || a.data.size() != expected) throw NotPlainArray{};
  }

  LineSource& in_;
  const std::string& name_;
  const bool parallel_;  // whether read_general_array_in_parallel may be used
  std::vector<std::string_view> fields_;  // of the line last read
  Format format_ = Format::array;
  Field field_ = Field::real;
  Symmetry symmetry_ = Symmetry::general;
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  int64_t declared_entries_ = 0;  // coordinate only
};

// ---------------------------------------------------------------------------
// Writer helpers

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

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

// ---------------------------------------------------------------------------
// Public functions

DenseMatrix<double> read_matrix_market(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "r"));
  if (!file) throw InputError(path + ":1: cannot open: " + std::strerror(errno));
  try {
    LineSource in(file.get());
    return Parser(in, path, true).run();
  } catch (const NotPlainArray&) {
    // Something the fast path does not take: read again, line by line.
    std::rewind(file.get());
    LineSource in(file.get());
    return Parser(in, path).run();
  }
}

DenseMatrix<double> parse_matrix_market(const std::string& text, const std::string& name) {
  LineSource in(text);
  return Parser(in, name).run();
}

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
