// .npy reader and writer; see npy.hpp for what is supported. The header is parsed by a small
// recursive-descent reader of the one dict literal the format allows.
#include "npy.hpp"
#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "errors.hpp"
#include "size_check.hpp"

namespace tiledqr {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .npy code copies little-endian data as is");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
constexpr size_t kMaxHeaderBytes = size_t(1) << 20;  // numpy itself refuses headers beyond 10 kB

// What the header says about the array, and where its data starts.
struct NpyHeader {
  size_t element_bytes = 8;  // 8: '<f8', 4: '<f4'
  bool fortran_order = false;
  int64_t rows = 0;
  int64_t cols = 0;
  size_t data_offset = 0;
};

// The dict literal of the header: {'descr': ..., 'fortran_order': ..., 'shape': (...), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  void run(NpyHeader& h) {
    expect('{');
    bool seen_descr = false, seen_order = false, seen_shape = false;
    while (true) {
      skip_blanks();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        once(seen_descr, key);
        const std::string descr = string_literal();
        if (descr == "<f8") h.element_bytes = 8;
        else if (descr == "<f4") h.element_bytes = 4;
        else fail("dtype '" + printable(descr) + "' is not supported ('<f8' or '<f4': little-endian float64 or float32)");
      } else if (key == "fortran_order") {
        once(seen_order, key);
        h.fortran_order = boolean();
      } else if (key == "shape") {
        once(seen_shape, key);
        shape(h);
      } else {
        fail("unexpected key '" + printable(key) + "' in the header (only descr, fortran_order and shape)");
      }
      skip_blanks();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}' in the header dict");
    }
    ++pos_;  // '}'
    if (!seen_descr || !seen_order || !seen_shape)
      fail(std::string("the header lacks '") + (!seen_descr ? "descr" : !seen_order ? "fortran_order" : "shape") + "'");
    // Padding: spaces, then the '\n' that ends the header.
    while (pos_ + 1 < text_.size() && text_[pos_] == ' ') ++pos_;
    if (pos_ + 1 != text_.size() || text_[pos_] != '\n')
      fail("the header must end in spaces and one '\\n' after the dict");
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw InputError(name_ + ": " + problem); }

  static std::string printable(std::string_view s) {
    std::string out;
    for (const char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
    return out;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_blanks() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  void expect(char c) {
    skip_blanks();
    if (peek() != c) fail(std::string("expected '") + c + "' in the header");
    ++pos_;
  }
  void once(bool& seen, const std::string& key) {
    if (seen) fail("key '" + key + "' appears twice in the header");
    seen = true;
  }

  // A quoted string without escapes ('...' or "..."): the format's keys and dtypes need none.
  std::string string_literal() {
    skip_blanks();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string in the header");
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail("unterminated string in the header");
    const std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    if (value.find('\\') != std::string::npos) fail("escapes are not supported in header strings");
    pos_ = end + 1;
    return value;
  }

  bool boolean() {
    skip_blanks();
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("fortran_order must be True or False");
  }

  int64_t dimension() {
    skip_blanks();
    if (peek() < '0' || peek() > '9') fail("a shape entry must be a non-negative integer");
    int64_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      const int digit = peek() - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) fail("a shape entry does not fit in 64 bits");
      value = value * 10 + digit;
      ++pos_;
    }
    return value;
  }

  // (rows, cols), (rows,) for a column; () and three or more entries are refused.
  void shape(NpyHeader& h) {
    expect('(');
    std::vector<int64_t> dims;
    while (true) {
      skip_blanks();
      if (peek() == ')') break;
      dims.push_back(dimension());
      skip_blanks();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("expected ',' or ')' in the shape");
    }
    ++pos_;
    if (dims.empty() || dims.size() > 2)
      fail("a " + std::to_string(dims.size()) + "-d array is not a matrix (shape must have 1 or 2 entries)");
    h.rows = dims[0];
    h.cols = dims.size() == 2 ? dims[1] : 1;
  }

  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
};

uint32_t little_endian(const unsigned char* bytes, size_t count) {
  uint32_t value = 0;
  for (size_t k = count; k-- > 0;) value = value << 8 | bytes[k];
  return value;
}

// Reads the magic, version and header length from the first bytes; returns the bytes before the
// dict and sets `header_bytes` to the dict's length (padding and '\n' included).
size_t preamble(const unsigned char* bytes, size_t available, const std::string& name, size_t& header_bytes) {
  if (available < kMagicBytes + 2 || std::memcmp(bytes, kMagic, kMagicBytes) != 0)
    throw InputError(name + ": not a .npy file (no \\x93NUMPY magic)");
  const int major = bytes[6], minor = bytes[7];
  if ((major != 1 && major != 2) || minor != 0)
    throw InputError(name + ": .npy version " + std::to_string(major) + "." + std::to_string(minor) +
                     " is not supported (1.0 or 2.0)");
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (available < kMagicBytes + 2 + length_bytes) throw InputError(name + ": file ends inside the .npy preamble");
  header_bytes = little_endian(bytes + 8, length_bytes);
  if (header_bytes > kMaxHeaderBytes) throw InputError(name + ": .npy header longer than 1 MiB");
  return kMagicBytes + 2 + length_bytes;
}

NpyHeader parse_header(std::string_view text, size_t offset, const std::string& name) {
  NpyHeader h;
  HeaderParser(text, name).run(h);
  h.data_offset = offset + text.size();
  checked_elements({h.rows, h.cols}, sizeof(double), name + ": the matrix");
  return h;
}

size_t data_bytes(const NpyHeader& h) { return size_t(h.rows) * size_t(h.cols) * h.element_bytes; }

void check_data_length(const NpyHeader& h, uint64_t total, const std::string& name) {
  const uint64_t wanted = data_bytes(h);
  const uint64_t present = total - std::min<uint64_t>(total, h.data_offset);
  if (present < wanted)
    throw InputError(name + ": file ends after " + std::to_string(present) + " of the " + std::to_string(wanted) +
                     " data bytes the header declares");
  if (present > wanted)
    throw InputError(name + ": " + std::to_string(present - wanted) + " bytes after the data the header declares");
}

// Moves the raw array (C or Fortran order, f4 or f8) into a column-major double matrix.
DenseMatrix<double> to_matrix(const NpyHeader& h, const unsigned char* data) {
  DenseMatrix<double> a(h.rows, h.cols);
  const size_t count = size_t(h.rows) * size_t(h.cols);
  auto element = [&](size_t k) {
    if (h.element_bytes == 8) {
      double v;
      std::memcpy(&v, data + 8 * k, 8);
      return v;
    }
    float v;
    std::memcpy(&v, data + 4 * k, 4);
    return double(v);
  };
  if (h.fortran_order) {
    if (h.element_bytes == 8 && count > 0) std::memcpy(a.data.data(), data, 8 * count);
    else
      for (size_t k = 0; k < count; ++k) a.data[k] = element(k);
  } else {
    for (int64_t i = 0; i < h.rows; ++i)
      for (int64_t j = 0; j < h.cols; ++j) a(i, j) = element(size_t(i) * size_t(h.cols) + size_t(j));
  }
  return a;
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly `count` bytes at the current position; false at an early end of file.
bool read_fully(int fd, unsigned char* out, size_t count, const std::string& name) {
  while (count > 0) {
    const ssize_t got = ::read(fd, out, std::min<size_t>(count, size_t(1) << 30));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(name + ": cannot read: " + std::strerror(errno));
    if (got == 0) return false;
    out += got;
    count -= size_t(got);
  }
  return true;
}

}  // namespace

bool is_npy_path(const std::string& path) {
  if (path.size() < 4) return false;
  std::string tail = path.substr(path.size() - 4);
  for (char& c : tail) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return tail == ".npy";
}

DenseMatrix<double> parse_npy(const std::string& bytes, const std::string& name) {
  const auto* raw = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t header_bytes = 0;
  const size_t offset = preamble(raw, bytes.size(), name, header_bytes);
  if (bytes.size() < offset + header_bytes) throw InputError(name + ": file ends inside the .npy header");
  const NpyHeader h = parse_header(std::string_view(bytes).substr(offset, header_bytes), offset, name);
  check_data_length(h, bytes.size(), name);
  return to_matrix(h, raw + h.data_offset);
}

DenseMatrix<double> read_npy(const std::string& path) {
  const FdCloser file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) throw InputError(path + ": cannot read: " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) throw InputError(path + ": not a regular file");
  unsigned char start[12] = {};
  const size_t available = std::min<size_t>(sizeof start, size_t(info.st_size));
  if (!read_fully(file.fd, start, available, path)) throw InputError(path + ": file shrank while being read");
  size_t header_bytes = 0;
  const size_t offset = preamble(start, available, path, header_bytes);
  if (uint64_t(info.st_size) < offset + header_bytes) throw InputError(path + ": file ends inside the .npy header");
  std::string header(offset + header_bytes, '\0');
  std::memcpy(header.data(), start, available);
  if (!read_fully(file.fd, reinterpret_cast<unsigned char*>(header.data()) + available, header.size() - available, path))
    throw InputError(path + ": file shrank while being read");
  const NpyHeader h = parse_header(std::string_view(header).substr(offset), offset, path);
  check_data_length(h, uint64_t(info.st_size), path);
  // The common case, Fortran-ordered float64, goes straight into the matrix.
  if (h.fortran_order && h.element_bytes == 8) {
    DenseMatrix<double> a(h.rows, h.cols);
    if (!read_fully(file.fd, reinterpret_cast<unsigned char*>(a.data.data()), data_bytes(h), path))
      throw InputError(path + ": file shrank while being read");
    return a;
  }
  std::vector<unsigned char> data(data_bytes(h));
  if (!read_fully(file.fd, data.data(), data.size(), path)) throw InputError(path + ": file shrank while being read");
  return to_matrix(h, data.data());
}

template <typename T>
std::string format_npy(const T* a, int64_t rows, int64_t cols, int64_t lda) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double only");
  if (rows < 0 || cols < 0 || lda < std::max<int64_t>(1, rows))
    throw InputError("cannot write a " + std::to_string(rows) + " x " + std::to_string(cols) +
                     " matrix with leading dimension " + std::to_string(lda) + " as .npy");
  std::string dict = std::string("{'descr': '") + (sizeof(T) == 8 ? "<f8" : "<f4") +
                     "', 'fortran_order': True, 'shape': (" + std::to_string(rows) + ", " + std::to_string(cols) +
                     "), }";
  // Version 1.0 holds the header length in 2 bytes; a longer one needs 2.0's 4 bytes.
  const bool version2 = dict.size() + 64 > 65535;
  const size_t preamble_bytes = kMagicBytes + 2 + (version2 ? 4 : 2);
  const size_t padded = (preamble_bytes + dict.size() + 1 + 63) / 64 * 64 - preamble_bytes;
  dict.append(padded - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicBytes);
  out += char(version2 ? 2 : 1);
  out += '\0';
  for (size_t k = 0; k < (version2 ? 4u : 2u); ++k) out += char((dict.size() >> (8 * k)) & 0xff);
  out += dict;
  const size_t column_bytes = size_t(rows) * sizeof(T);
  out.reserve(out.size() + column_bytes * size_t(cols));
  for (int64_t j = 0; j < cols; ++j)
    out.append(reinterpret_cast<const char*>(a + j * lda), column_bytes);
  return out;
}

template <typename T>
void write_npy(const std::string& path, const T* a, int64_t rows, int64_t cols, int64_t lda) {
  if (a == nullptr && rows > 0 && cols > 0) throw InputError(path + ": cannot write: no matrix data");
  // Through a unique temporary renamed in once whole (output_file.hpp).
  const OutputTarget target = check_output_path("", path);
  write_outputs({{target, [&](OutputFile& out) { out.write(format_npy(a, rows, cols, lda)); }}});
}

template std::string format_npy<float>(const float*, int64_t, int64_t, int64_t);
template std::string format_npy<double>(const double*, int64_t, int64_t, int64_t);
template void write_npy<float>(const std::string&, const float*, int64_t, int64_t, int64_t);
template void write_npy<double>(const std::string&, const double*, int64_t, int64_t, int64_t);

}  // namespace tiledqr
