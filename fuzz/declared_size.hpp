// How many elements a Matrix Market text declares on its size line, read the
// way common/formats/matrix_market_parser.cpp reads it (line 1 is the banner; then the first
// line whose first blank-separated field does not start with '%'; its first
// two fields as base-10 integers). The fuzzer and the in-test mutation run
// use it to skip inputs whose matrix would be allocated at full size: the
// reader accepts anything up to the machine's physical memory, far beyond
// the fuzzer's RSS limit.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tiledqr::fuzzing {

// The product rows·cols of the size line, saturated at UINT64_MAX; 0 when
// the text has no size line the reader would accept (it then never
// allocates the matrix).
inline uint64_t declared_elements(std::string_view text) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  size_t start = text.find('\n');  // skip the banner
  while (start != std::string_view::npos && start < text.size()) {
    ++start;
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    // The first two fields of the line.
    std::string_view fields[2];
    int found = 0;
    size_t pos = 0;
    while (found < 2 && pos < line.size()) {
      while (pos < line.size() && blank(line[pos])) ++pos;
      const size_t field_start = pos;
      while (pos < line.size() && !blank(line[pos])) ++pos;
      if (pos > field_start) fields[found++] = line.substr(field_start, pos - field_start);
    }
    if (found == 0 || fields[0][0] == '%') {  // blank line or comment
      start = end;
      continue;
    }
    if (found < 2) return 0;
    uint64_t product = 1;
    for (const std::string_view field : fields) {
      const std::string copy(field);  // strtoll needs a terminated string
      char* stop = nullptr;
      errno = 0;
      const long long value = std::strtoll(copy.c_str(), &stop, 10);
      if (stop != copy.c_str() + copy.size() || value < 0) return 0;  // the reader refuses it
      if (errno == ERANGE) return UINT64_MAX;
      const uint64_t factor = static_cast<uint64_t>(value);
      if (factor != 0 && product > UINT64_MAX / factor) return UINT64_MAX;
      product *= factor;
    }
    return product;
  }
  return 0;
}

}  // namespace tiledqr::fuzzing
