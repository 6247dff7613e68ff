// The Matrix Market parser; see matrix_market.hpp for what is supported.
//
// A plain line-by-line parser: banner, then comments and blank lines, then
// the size line, then one entry per line (comments and blank lines may
// appear among the entries too). Every number goes through std::from_chars
// (strtoll or strtod for the rare forms it does not take) with a check that
// the whole field was used, so "1.5x" or "2 2.0" is an error rather than a
// silent truncation. A general real array file read from a regular file
// takes the parallel reader (matrix_market_reader.cpp) for its values.
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
#include <string>
#include <string_view>
#include <vector>

#include "errors.hpp"
#include "matrix_market.hpp"
#include "matrix_market_detail.hpp"

namespace tiledqr {
namespace matrix_market_detail {
namespace {

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

// ---------------------------------------------------------------------------
// Numbers. A field is a view into a NUL-terminated line and is followed by a
// blank or by the NUL; std::from_chars reads only the field, and strtoll and
// strtod never read past either end, so all parse in place. The end check
// rejects anything left over.
//
// std::from_chars takes the common forms in one pass; what it refuses or
// cannot classify (a leading '+', hexadecimal, overflow versus underflow)
// goes to the C library, so the accepted language is strtod's.

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

enum class Format { array, coordinate };
enum class Field { real, integer };
enum class Symmetry { general, symmetric, skew };

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
        read_general_array_in_parallel(in_, rows_, cols_, a);
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

  // values[k] where `word` is names[k] (any case); else fails with
  // "<what> '<word>' is not supported (<supported>)".
  template <typename E, size_t N>
  E keyword(std::string_view word, const char* what, const char* const (&names)[N], const E (&values)[N],
            const char* supported) const {
    const std::string lowered = lower(word);
    for (size_t k = 0; k < N; ++k)
      if (lowered == names[k]) return values[k];
    fail(std::string(what) + " " + quote(word) + " is not supported (" + supported + ")");
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
    const std::string field = lower(fields_[3]);

    if (object != "matrix") fail("object " + quote(fields_[1]) + " is not supported (matrix only)");

    format_ = keyword(fields_[2], "format", {"array", "coordinate"}, {Format::array, Format::coordinate},
                      "array or coordinate only");
    if (field == "pattern") fail("pattern matrices are not supported (real or integer only)");
    field_ = keyword(fields_[3], "field", {"real", "integer"}, {Field::real, Field::integer}, "real or integer only");
    symmetry_ = keyword(fields_[4], "symmetry", {"general", "symmetric", "skew-symmetric"},
                        {Symmetry::general, Symmetry::symmetric, Symmetry::skew},
                        "general, symmetric or skew-symmetric only");
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

}  // namespace

DenseMatrix<double> parse_lines(LineSource& in, const std::string& name, bool parallel) {
  return Parser(in, name, parallel).run();
}

}  // namespace matrix_market_detail

DenseMatrix<double> parse_matrix_market(const std::string& text, const std::string& name) {
  matrix_market_detail::LineSource in(text);
  return matrix_market_detail::parse_lines(in, name, false);
}

}  // namespace tiledqr
