// Input sequences of the LCS workload ("Supernode transformation on GPGPUs"):
// read from a file (plain text or FASTA) or drawn at random, and the dense
// symbol codes the GPU kernels index their match tables with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tiledqr::lcs {

// Longest sequence accepted, so every index and DP value fits in int32_t.
constexpr int64_t max_length = int64_t(1) << 30;

// The symbols of `path`: every byte except whitespace, with lines that start
// with '>' (FASTA headers) skipped, so a multi-record FASTA file gives its
// records concatenated. Throws InputError when the file cannot be read,
// holds more than max_length symbols or a line longer than 1 MiB
// ("<path>:<line>: line is longer than 1048576 bytes").
//   std::string a = read_sequence_file("chr1.fa");
std::string read_sequence_file(const std::string& path);

// `length` symbols drawn uniformly from the first `alphabet` symbols of
// alphabet_symbols(alphabet), by a std::mt19937_64 seeded with `seed`.
// Throws InputError for length < 0 or > max_length, alphabet < 1 or > 256.
std::string random_sequence(int64_t length, int alphabet, uint64_t seed);

// The symbols random_sequence draws from: "ACGT" for 4, else 'A', 'B', …
// (then the following bytes) for up to 256 symbols.
std::string alphabet_symbols(int alphabet);

// Dense codes for the GPU: a's distinct bytes are numbered 0 … symbols − 1
// in byte order; a byte of b that a lacks gets code `symbols`, whose match
// row is empty.
struct SymbolCodes {
  int symbols = 0;                // distinct bytes of a (≤ 256)
  std::vector<uint16_t> a_codes;  // (|a|)
  std::vector<uint16_t> b_codes;  // (|b|), each ≤ symbols
};
SymbolCodes encode_symbols(const std::string& a, const std::string& b);

}  // namespace tiledqr::lcs
