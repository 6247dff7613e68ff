// Strict parsing of the numbers on a command line or in a CSV field: the
// whole text must be one decimal number in range, else an InputError names
// the option (or field) and the text. Shared by the stage programs and the
// benchmark driver, so "10x", "0x10", "010" (octal to strtol), "1e400" or
// "nan" mean the same thing everywhere: a refusal, or decimal 10.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace tiledqr {

// A decimal integer in [min, max]: an optional '-' and digits, nothing else
// (leading zeros are decimal). `what` names it in the message, e.g. "--tiles".
int64_t parse_integer(const std::string& text, const std::string& what, int64_t min, int64_t max);

// A finite real number in decimal notation (no hexadecimal, inf or nan) that
// is at least `min`, and above it when `min_excluded`.
double parse_real(const std::string& text, const std::string& what, double min, bool min_excluded);

// CLI11 transforms with the same rules, for options CLI11 converts itself:
// integers (negative ones only where `negative_allowed`; unsigned 64-bit
// values up to 2^64 - 1) and finite reals.
CLI::Validator decimal_integer(bool negative_allowed);
CLI::Validator finite_real();

}  // namespace tiledqr
