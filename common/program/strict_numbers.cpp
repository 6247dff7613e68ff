// Strict parsing of numbers; see strict_numbers.hpp.
#include "strict_numbers.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "errors.hpp"

namespace tiledqr {
namespace {

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

// "" when `text` is an optional '-' then decimal digits, else the problem.
std::string integer_syntax(const std::string& text, bool negative_allowed) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::string digits = text.substr(negative ? 1 : 0);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
      (negative && !negative_allowed))
    return in_quotes(text) + " is not a decimal integer" + (negative_allowed ? "" : " >= 0");
  return "";
}

// "" when `text` is a decimal real number strtod reads whole and finite.
std::string real_syntax(const std::string& text, double& value) {
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos)
    return in_quotes(text) + " is not a decimal number";
  errno = 0;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return in_quotes(text) + " is not a decimal number";
  if (errno == ERANGE && std::isinf(value)) return in_quotes(text) + " is beyond the range of a double";
  return "";
}

}  // namespace

int64_t parse_integer(const std::string& text, const std::string& what, int64_t min, int64_t max) {
  const std::string problem = integer_syntax(text, true);
  if (!problem.empty()) throw InputError(what + ": " + problem);
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value < min || value > max)
    throw InputError(what + ": " + in_quotes(text) + " is out of range " + std::to_string(min) + " … " +
                     std::to_string(max));
  return value;
}

double parse_real(const std::string& text, const std::string& what, double min, bool min_excluded) {
  double value = 0;
  const std::string problem = real_syntax(text, value);
  if (!problem.empty()) throw InputError(what + ": " + problem);
  if (value < min || (min_excluded && value == min))
    throw InputError(what + ": " + in_quotes(text) + " must be " + (min_excluded ? "> " : ">= ") +
                     CLI::detail::to_string(min));
  return value;
}

// CLI11 2.1 converts integer options with strtoll/strtoull in base 0, so
// "010" would silently mean 8 and "0x10" 16, a value beyond 64 bits would be
// clamped to the largest one, and "-1" would wrap to 2^64 - 1 for a random seed.
// This transform lets through only decimal digits that fit in 64 bits and
// drops leading zeros so that CLI11 reads the rest as decimal.
CLI::Validator decimal_integer(bool negative_allowed) {
  auto check = [negative_allowed](std::string& text) -> std::string {
    const std::string problem = integer_syntax(text, negative_allowed);
    if (!problem.empty()) return problem;
    const bool negative = text[0] == '-';
    errno = 0;
    if (negative) static_cast<void>(std::strtoll(text.c_str(), nullptr, 10));
    else static_cast<void>(std::strtoull(text.c_str(), nullptr, 10));
    if (errno == ERANGE) return in_quotes(text) + " does not fit in 64 bits";
    const std::string digits = text.substr(negative ? 1 : 0);
    const size_t first_digit = std::min(digits.find_first_not_of('0'), digits.size() - 1);
    text = (negative ? "-" : "") + digits.substr(first_digit);
    return "";
  };
  return CLI::Validator(check, "");
}

CLI::Validator finite_real() {
  auto check = [](std::string& text) -> std::string {
    double value = 0;
    return real_syntax(text, value);
  };
  return CLI::Validator(check, "");
}

}  // namespace tiledqr
