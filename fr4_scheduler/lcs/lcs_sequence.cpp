#include "lcs_sequence.hpp"

#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "errors.hpp"

namespace tiledqr::lcs {
namespace {

// Longest line read, as in the Matrix Market reader: a file without line
// breaks (or /dev/zero) is refused instead of being read whole.
constexpr size_t max_line_bytes = size_t(1) << 20;

// The next line of `in` without its '\n'; false at the end of the file.
bool read_line(std::istream& in, std::string& line, const std::string& path, int64_t number) {
  line.clear();
  char c = 0;
  while (in.get(c) && c != '\n') {
    if (line.size() == max_line_bytes)
      throw InputError(path + ":" + std::to_string(number) + ": line is longer than " +
                       std::to_string(max_line_bytes) + " bytes");
    line += c;
  }
  return c == '\n' || !line.empty();
}

}  // namespace

std::string read_sequence_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read sequence file '" + path + "': " + std::strerror(errno));
  std::string symbols, line;
  for (int64_t number = 1; read_line(in, line, path, number); ++number) {
    if (!line.empty() && line[0] == '>') continue;  // FASTA header
    for (const char c : line)
      if (!std::isspace(static_cast<unsigned char>(c))) symbols += c;
    if (int64_t(symbols.size()) > max_length)
      throw InputError("sequence file '" + path + "' holds more than " + std::to_string(max_length) +
                       " symbols");
  }
  if (in.bad()) throw InputError("error while reading sequence file '" + path + "'");
  return symbols;
}

std::string alphabet_symbols(int alphabet) {
  if (alphabet < 1 || alphabet > 256)
    throw InputError("alphabet size must be 1 … 256, got " + std::to_string(alphabet));
  if (alphabet == 4) return "ACGT";
  std::string symbols(size_t(alphabet), '\0');
  for (int s = 0; s < alphabet; ++s) symbols[size_t(s)] = static_cast<char>(('A' + s) & 0xff);
  return symbols;
}

std::string random_sequence(int64_t length, int alphabet, uint64_t seed) {
  if (length < 0 || length > max_length)
    throw InputError("sequence length must be 0 … " + std::to_string(max_length) + ", got " +
                     std::to_string(length));
  const std::string symbols = alphabet_symbols(alphabet);
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int> pick(0, alphabet - 1);
  std::string out(size_t(length), '\0');
  for (char& c : out) c = symbols[size_t(pick(engine))];
  return out;
}

SymbolCodes encode_symbols(const std::string& a, const std::string& b) {
  std::array<bool, 256> in_a{};
  for (const char c : a) in_a[static_cast<unsigned char>(c)] = true;
  std::array<uint16_t, 256> code{};
  SymbolCodes out;
  for (int byte = 0; byte < 256; ++byte)
    if (in_a[size_t(byte)]) code[size_t(byte)] = static_cast<uint16_t>(out.symbols++);
  for (int byte = 0; byte < 256; ++byte)
    if (!in_a[size_t(byte)]) code[size_t(byte)] = static_cast<uint16_t>(out.symbols);
  out.a_codes.resize(a.size());
  out.b_codes.resize(b.size());
  for (size_t i = 0; i < a.size(); ++i) out.a_codes[i] = code[static_cast<unsigned char>(a[i])];
  for (size_t j = 0; j < b.size(); ++j) out.b_codes[j] = code[static_cast<unsigned char>(b[j])];
  return out;
}

}  // namespace tiledqr::lcs
