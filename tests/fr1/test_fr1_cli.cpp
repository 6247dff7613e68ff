// The fr1_serial program: exit codes, messages and output files (docs/design.md §7).
// The program's path is the first argument (meson passes it).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "matrix_market.hpp"
#include "npy.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

std::string g_program;

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

using testing::ScratchDir;
using testing::slurp;

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

RunResult run(const ScratchDir& dir, const std::string& args) {
  RunResult r;
  const std::string command = "'" + g_program + "' " + args + " > '" + dir.file("stdout") +
                              "' 2> '" + dir.file("stderr") + "'";
  const int status = std::system(command.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir.file("stdout"));
  r.err = slurp(dir.file("stderr"));
  return r;
}

// Pass rule: bad arguments exit 2 with a message naming the problem.
TEST(Fr1CliErrors, BadArgumentsExit2) {
  ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--bogus", "bogus"},
      {"--m 0 --n 5", "--m must be >= 1"},
      {"--m 5 --n -3", "--n must be >= 1"},
      {"--m 10 --n 10 --tile 0", "--tile"},
      {"--m 10 --n 10 --precision half", "precision"},
      {"--m 10 --n 10 --backend magic", "backend"},
      {"--m 10 --n 10 --tree oak", "tree"},
      {"--m 3000000000 --n 3000000000", "GiB"},
      {"--input " + dir.file("missing.mtx"), "cannot open"},
  };
  for (const auto& [args, needle] : cases) {
    const RunResult r = run(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << " stderr: " << r.err;
  }
}

// Pass rule: a malformed Matrix Market file exits 2 naming the file and
// line; a file with NaN or Inf exits 2 naming the entry; no output file is
// written in either case.
TEST(Fr1CliErrors, BadFilesExit2AndWriteNothing) {
  ScratchDir dir;
  dir.write("bad.mtx", "%%MatrixMarket matrix array real general\n2 2\n1.0\n2.0\nthree\n4.0\n");
  dir.write("nan.mtx", "%%MatrixMarket matrix array real general\n2 2\n1.0\n2.0\nnan\n4.0\n");
  dir.write("inf.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 inf\n");
  RunResult r = run(dir, "--input " + dir.file("bad.mtx") + " --output-r " + dir.file("r.mtx"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.mtx:5:"), std::string::npos) << r.err;
  r = run(dir, "--input " + dir.file("nan.mtx") + " --output-r " + dir.file("r.mtx"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("non-finite"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(1, 2)"), std::string::npos) << r.err;
  r = run(dir, "--input " + dir.file("inf.mtx") + " --output-q " + dir.file("q.mtx"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("(2, 2)"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(dir.file("r.mtx")));
  EXPECT_FALSE(exists(dir.file("q.mtx")));
}

// Pass rule: a check that fails exits 3 and writes no output (a tolerance
// far below any rounding error makes it fail).
TEST(Fr1CliErrors, FailedCheckExit3) {
  ScratchDir dir;
  const RunResult r = run(dir, "--m 50 --n 40 --check --tolerance 1e-30 --output-r " + dir.file("r.mtx"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("check failed"), std::string::npos);
  EXPECT_FALSE(exists(dir.file("r.mtx")));
}

// Pass rule: --input with --output-r/--output-q writes R (min(m,n)×n, upper
// triangular) and Q (m×min(m,n)) with ‖A − QR‖_F/‖A‖_F < 1e-13.
TEST(Fr1CliOutputs, WritesRAndQThatReproduceA) {
  ScratchDir dir;
  std::mt19937_64 engine = testing::make_engine(1100);
  for (const auto& [m, n] : std::vector<std::pair<int64_t, int64_t>>{{57, 31}, {20, 45}}) {
    const DenseMatrix<double> a = testing::random_matrix<double>(m, n, engine);
    write_matrix_market(dir.file("a.mtx"), a.data.data(), m, n, m);
    const RunResult r = run(dir, "--input " + dir.file("a.mtx") + " --tile 8 --output-r " +
                                     dir.file("r.mtx") + " --output-q " + dir.file("q.mtx"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const DenseMatrix<double> rr = read_matrix_market(dir.file("r.mtx"));
    const DenseMatrix<double> q = read_matrix_market(dir.file("q.mtx"));
    const int64_t k = std::min(m, n);
    ASSERT_EQ(rr.rows, k);
    ASSERT_EQ(rr.cols, n);
    ASSERT_EQ(q.rows, m);
    ASSERT_EQ(q.cols, k);
    double diff = 0, norm = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        double qr = 0;
        for (int64_t l = 0; l < k; ++l) qr += q(i, l) * rr(l, j);
        diff += (a(i, j) - qr) * (a(i, j) - qr);
        norm += a(i, j) * a(i, j);
      }
    EXPECT_LT(std::sqrt(diff / norm), 1e-13);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = j + 1; i < k; ++i) EXPECT_EQ(rr(i, j), 0.0);
  }
}

// Pass rule: --rhs/--output-x writes the least-squares X (n×k) whose
// residual is orthogonal to A's columns: ‖Aᵀ(AX − B)‖ < 1e-10.
TEST(Fr1CliOutputs, SolvesLeastSquares) {
  ScratchDir dir;
  std::mt19937_64 engine = testing::make_engine(1101);
  const int64_t m = 60, n = 20;
  const DenseMatrix<double> a = testing::random_matrix<double>(m, n, engine);
  const DenseMatrix<double> b = testing::random_matrix<double>(m, 2, engine);
  write_matrix_market(dir.file("a.mtx"), a.data.data(), m, n, m);
  write_matrix_market(dir.file("b.mtx"), b.data.data(), m, 2, m);
  const RunResult r = run(dir, "--input " + dir.file("a.mtx") + " --rhs " + dir.file("b.mtx") +
                                   " --output-x " + dir.file("x.mtx"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const DenseMatrix<double> x = read_matrix_market(dir.file("x.mtx"));
  ASSERT_EQ(x.rows, n);
  ASSERT_EQ(x.cols, 2);
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t j = 0; j < n; ++j) {
      double g = 0;
      for (int64_t i = 0; i < m; ++i) {
        double ax = 0;
        for (int64_t l = 0; l < n; ++l) ax += a(i, l) * x(l, c);
        g += a(i, j) * (ax - b(i, c));
      }
      EXPECT_LT(std::fabs(g), 1e-10);
    }
}

// Pass rule: --check --json prints one JSON object with both residuals
// below 50 and "check":"pass", exit 0; --trace writes a header and one row
// per task.
TEST(Fr1CliOutputs, JsonAndTrace) {
  ScratchDir dir;
  const RunResult r = run(dir, "--m 200 --n 150 --tile 32 --check --json --trace " + dir.file("t.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.front(), '{');
  for (const char* key : {"\"stage\":\"fr1_serial\"", "\"m\":200", "\"n\":150", "\"residual\":",
                          "\"orthogonality\":", "\"gflops\":", "\"check\":\"pass\""})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  const std::string trace = slurp(dir.file("t.csv"));
  EXPECT_EQ(trace.rfind("kind,k,i,j,piv,worker,start_ns,end_ns\n", 0), 0u);
  // 7×5 tiles: Σ_j Σ_i (min(i,j)+1) = 7 + 13 + 18 + 22 + 25 = 85 tasks, plus the header.
  EXPECT_EQ(std::count(trace.begin(), trace.end(), '\n'), 86);
}

// Pass rule: --version prints the program, the project version and a
// commit line that is not empty, exit 0.
TEST(Fr1CliOptions, VersionNamesTheCommit) {
  ScratchDir dir;
  const RunResult r = run(dir, "--version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("fr1_serial (tiledqr) ", 0), 0u) << r.out;
  const size_t commit = r.out.find("\ncommit   ");
  ASSERT_NE(commit, std::string::npos) << r.out;
  EXPECT_GT(r.out.find('\n', commit + 1), commit + 10) << r.out;
  EXPECT_NE(r.out.find("OpenBLAS"), std::string::npos) << r.out;
}

// Pass rule: the residuals are computed by default on a small matrix; with
// --no-check, or above --check-limit, they are not and the output says why
// (JSON: null residuals, "check":"skipped"); --check with --no-check is
// refused (exit 2).
TEST(Fr1CliOptions, CheckSkippedOnlyWhenAskedOrLarge) {
  ScratchDir dir;
  RunResult r = run(dir, "--m 60 --n 40");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("residual "), std::string::npos) << r.out;
  r = run(dir, "--m 60 --n 40 --no-check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("residual "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check          skipped (--no-check)"), std::string::npos) << r.out;
  r = run(dir, "--m 60 --n 40 --check-limit 95999 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"residual\":null"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"check\":\"skipped\""), std::string::npos) << r.out;
  r = run(dir, "--m 60 --n 40 --check-limit 96000 --json");  // m·n² = 96000
  EXPECT_NE(r.out.find("\"check\":\"pass\""), std::string::npos) << r.out;
  r = run(dir, "--m 60 --n 40 --check-limit 10");
  EXPECT_NE(r.out.find("above --check-limit"), std::string::npos) << r.out;
  r = run(dir, "--m 60 --n 40 --check-limit 10 --check --tolerance 1e-30");
  EXPECT_EQ(r.exit_code, 3) << "--check forces the check";
  r = run(dir, "--m 60 --n 40 --check --no-check");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
}

// Pass rule: a .npy input factors to the same R as the same matrix in Matrix
// Market (bit for bit), .npy outputs hold R and Q, and a malformed .npy
// exits 2 naming the file, writing nothing.
TEST(Fr1CliOptions, NpyInputAndOutputs) {
  ScratchDir dir;
  std::mt19937_64 engine = testing::make_engine(1102);
  const int64_t m = 45, n = 30;
  const DenseMatrix<double> a = testing::random_matrix<double>(m, n, engine);
  write_matrix_market(dir.file("a.mtx"), a.data.data(), m, n, m);
  write_npy(dir.file("a.npy"), a.data.data(), m, n, m);
  RunResult r = run(dir, "--input " + dir.file("a.mtx") + " --tile 8 --output-r " + dir.file("r.mtx"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run(dir, "--input " + dir.file("a.npy") + " --tile 8 --output-r " + dir.file("r.npy") + " --output-q " +
                   dir.file("q.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const DenseMatrix<double> r_mtx = read_matrix_market(dir.file("r.mtx"));
  const DenseMatrix<double> r_npy = read_npy(dir.file("r.npy"));
  ASSERT_EQ(r_npy.rows, n);
  ASSERT_EQ(r_npy.cols, n);
  EXPECT_EQ(r_npy.data, r_mtx.data);
  EXPECT_EQ(read_npy(dir.file("q.npy")).rows, m);
  dir.write("bad.npy", "\x93NUMPY\x01\x00\x10\x00{'descr': '<i4'}\n");
  r = run(dir, "--input " + dir.file("bad.npy") + " --output-r " + dir.file("r2.npy"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.npy"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(dir.file("r2.npy")));
}

// Pass rule: --trace t.json writes a Chrome trace-event file: the object's
// opening, a track named "worker 0" (FR1 has one worker) and one complete
// event per task (85 for 7×5 tiles, as in the CSV).
TEST(Fr1CliOptions, TraceAsChromeJson) {
  ScratchDir dir;
  const RunResult r = run(dir, "--m 200 --n 150 --tile 32 --trace " + dir.file("t.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string trace = slurp(dir.file("t.json"));
  EXPECT_EQ(trace.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  EXPECT_NE(trace.find("\"args\":{\"name\":\"worker 0\"}"), std::string::npos);
  size_t events = 0;
  for (size_t at = trace.find("\"ph\":\"X\""); at != std::string::npos; at = trace.find("\"ph\":\"X\"", at + 1)) ++events;
  EXPECT_EQ(events, 85u);
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <path to fr1_serial>\n", argv[0]);
    return 1;
  }
  tiledqr::g_program = argv[1];
  return RUN_ALL_TESTS();
}
