// Tests of the fr4_lcs program (path in FR4_LCS): exit codes and messages
// for bad input (2), CPU runs and tracebacks (0), and with a GPU the
// --check of all three methods (0; 4 without a GPU).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lcs_cpu.hpp"
#include "lcs_gpu.hpp"
#include "lcs_sequence.hpp"

namespace {

struct Outcome {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs fr4_lcs with `args`; the exit code (-1 when it did not exit normally,
// e.g. a crash).
Outcome run_lcs(const std::string& args) {
  const char* program = std::getenv("FR4_LCS");
  if (program == nullptr) ADD_FAILURE() << "FR4_LCS is not set";
  const std::string log = ::testing::TempDir() + "fr4_lcs_cli.log";
  const std::string command = std::string(program ? program : "fr4_lcs") + " " + args + " > " + log + " 2>&1";
  const int status = std::system(command.c_str());
  Outcome out;
  out.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  out.output = text.str();
  return out;
}

void expect_bad_input(const std::string& args, const std::string& message) {
  const Outcome o = run_lcs(args);
  EXPECT_EQ(o.code, 2) << args << "\n" << o.output;
  EXPECT_NE(o.output.find(message), std::string::npos) << args << "\n" << o.output;
}

// Pass rule: each bad input exits 2 with a message that names the problem.
TEST(LcsCli, BadInputExitsTwo) {
  expect_bad_input("--m -5 --method cpu", "--m and --n must be >= 0");
  expect_bad_input("--m abc", "not a decimal integer");
  expect_bad_input("--m 0x10", "not a decimal integer");
  expect_bad_input("--alphabet 0 --method cpu", "--alphabet must be 1");
  expect_bad_input("--alphabet 300 --method cpu", "--alphabet must be 1");
  expect_bad_input("--a /nonexistent/a.fa --b /nonexistent/b.fa --method cpu", "cannot read sequence file");
  expect_bad_input("--a /nonexistent/a.fa --method cpu", "give both --a and --b");
  expect_bad_input("--m 200000 --n 10 --method cpu --traceback out.txt", "--traceback is limited");
  expect_bad_input("--method magic", "magic");
  expect_bad_input("--repeats 0 --method cpu", "--repeats must be >= 1");
  expect_bad_input("--no-such-option", "no-such-option");
}

// Pass rule: a CPU run prints the two-row DP's length; a traceback file
// holds a common subsequence of that length; FASTA input works.
TEST(LcsCli, CpuRunAndTraceback) {
  using namespace tiledqr::lcs;
  const std::string a = random_sequence(1500, 4, 5), b = random_sequence(1200, 4, 6);
  const int64_t length = lcs_length_two_rows(a, b);
  const Outcome o = run_lcs("--m 1500 --n 1200 --seed 5 --method cpu --json");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("\"lcs_length\":" + std::to_string(length)), std::string::npos) << o.output;

  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "lcs_a.fa") << ">a\n" << a.substr(0, 700) << "\n" << a.substr(700) << "\n";
  std::ofstream(dir + "lcs_b.txt") << b << "\n";
  const Outcome f = run_lcs("--a " + dir + "lcs_a.fa --b " + dir + "lcs_b.txt --method cpu --traceback " + dir +
                            "lcs_common.txt");
  EXPECT_EQ(f.code, 0) << f.output;
  EXPECT_NE(f.output.find("LCS length " + std::to_string(length)), std::string::npos) << f.output;
  std::string common;
  std::ifstream(dir + "lcs_common.txt") >> common;
  EXPECT_EQ(int64_t(common.size()), length);
  EXPECT_TRUE(is_subsequence(common, a) && is_subsequence(common, b));
}

// Pass rule: with a GPU, --check (all methods, FR4's boundaries) exits 0;
// without one, a GPU method exits 4.
TEST(LcsCli, CheckAllMethods) {
  const bool gpu = !tiledqr::lcs::gpu_name().empty();
  const Outcome o = run_lcs("--m 3000 --n 2000 --tile-w 64 --check --traceback " + ::testing::TempDir() + "lcs_t.txt");
  EXPECT_EQ(o.code, gpu ? 0 : 4) << o.output;
  if (gpu) {
    EXPECT_NE(o.output.find("check passed"), std::string::npos) << o.output;
  }
  const Outcome tile = run_lcs("--m 100 --n 100 --tile-h 100");
  EXPECT_EQ(tile.code, gpu ? 2 : 4) << tile.output;
}

}  // namespace
