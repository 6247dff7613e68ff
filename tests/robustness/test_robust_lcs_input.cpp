// The LCS workload's sequence reader: lines are capped
// at 1 MiB like the Matrix Market reader's, so a file without line breaks
// or an endless device is refused instead of being read whole. Runs the
// reader in process (it is host code), so the CPU-only robustness suite
// covers it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <chrono>
#include <string>

#include "child_process.hpp"
#include "errors.hpp"
#include "lcs_sequence.hpp"

namespace tiledqr {
namespace {

// The InputError message of reading `path`, or "" when it is read.
std::string read_error(const std::string& path, std::string* symbols = nullptr) {
  try {
    const std::string read = lcs::read_sequence_file(path);
    if (symbols != nullptr) *symbols = read;
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Pass rule: a line of 1 MiB + 1 bytes (plain text, or the second line of
// a FASTA file) is refused with "<path>:<line>: line is longer than
// 1048576 bytes"; a line of exactly 1 MiB is read whole; an endless device
// (a zero device made with mknod; skipped where mknod is not permitted) is
// refused in under 5 s.
TEST(RobustLcsInput, LinesLongerThan1MiBAreRefused) {
  ScratchDir dir;
  const std::string long_line(size_t(1) << 20, 'A');
  dir.write("long.txt", long_line + "C\n");
  dir.write("long.fa", ">record\n" + long_line + "G");
  dir.write("fits.txt", long_line + "\nCG\n");
  const std::string plain = (dir.path() / "long.txt").string(), fasta = (dir.path() / "long.fa").string();
  const std::string plain_error = read_error(plain);
  EXPECT_NE(plain_error.find(plain + ":1: line is longer than 1048576 bytes"), std::string::npos) << plain_error;
  const std::string fasta_error = read_error(fasta);
  EXPECT_NE(fasta_error.find(fasta + ":2: line is longer than 1048576 bytes"), std::string::npos) << fasta_error;
  std::string symbols;
  EXPECT_EQ(read_error((dir.path() / "fits.txt").string(), &symbols), "");
  EXPECT_EQ(symbols.size(), long_line.size() + 2);

  const std::string zero = (dir.path() / "zero").string();
  if (::mknod(zero.c_str(), S_IFCHR | 0444, makedev(1, 5)) != 0) GTEST_SKIP() << "mknod not permitted";
  const auto start = std::chrono::steady_clock::now();
  const std::string zero_error = read_error(zero);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(zero_error.find(zero + ":1: line is longer than"), std::string::npos) << zero_error;
  EXPECT_LT(seconds, 5.0);
}

}  // namespace
}  // namespace tiledqr
