// The fr3_gpu program (docs/design.md §7): exit codes and output, with and without
// a GPU. The program's path is the first argument (meson passes it).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gpu_qr.hpp"

namespace {

std::string g_program;

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RunResult run(const std::string& args) {
  char pattern[] = "/tmp/tiledqr-fr3-cli-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string command =
      "'" + g_program + "' " + args + " > '" + dir + "/out' 2> '" + dir + "/err'";
  const int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir + "/out");
  r.err = slurp(dir + "/err");
  std::system(("rm -rf '" + dir + "'").c_str());
  return r;
}

// Pass rule: without a GPU, a run exits 4 and says why on stderr; with
// one, --check --json exits 0 and prints one JSON object with the stage,
// the GPU's name and passing residuals.
TEST(Fr3Cli, RunsOrSaysNoGpu) {
  const RunResult r = run("--m 300 --n 200 --check --json");
  if (!tiledqr::gpu::device_available()) {
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("no usable CUDA device"), std::string::npos) << r.err;
    return;
  }
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"stage\":\"fr3_gpu\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"check\":\"pass\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(tiledqr::gpu::device_name()), std::string::npos) << r.out;
}

// Pass rule: a tile other than 32 or a tree other than flat exits 2 with a
// message naming the option (before any GPU is needed).
TEST(Fr3Cli, RefusesOtherTilesAndTrees) {
  const RunResult tile = run("--m 100 --n 100 --tile 64");
  EXPECT_EQ(tile.exit_code, 2) << tile.err;
  EXPECT_NE(tile.err.find("tile"), std::string::npos) << tile.err;
  const RunResult tree = run("--m 100 --n 100 --tree binary");
  EXPECT_EQ(tree.exit_code, 2) << tree.err;
  EXPECT_NE(tree.err.find("tree"), std::string::npos) << tree.err;
}

// Pass rule: --backend and --inner-block (FR1/FR2's kernel choices) exit 2
// saying FR3 runs its own kernels; with a GPU, the JSON names them.
TEST(Fr3Cli, RefusesKernelOptionsAndNamesItsKernels) {
  for (const char* option : {"--backend reference", "--inner-block 8"}) {
    const RunResult r = run(std::string("--m 100 --n 100 ") + option);
    EXPECT_EQ(r.exit_code, 2) << option << ": " << r.err;
    EXPECT_NE(r.err.find("own tile kernels"), std::string::npos) << r.err;
  }
  if (!tiledqr::gpu::device_available()) return;
  const RunResult r = run("--m 64 --n 64 --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"backend\":\"gpu-warp\""), std::string::npos) << r.out;
}

// Pass rule: a matrix whose factorisation needs more device memory than the
// GPU has (the matrix alone 55% of it, its tiles as much again) exits 4
// before any work, naming the amounts needed and free — whatever the host
// has: the device is checked before the host's memory (whose shortfall
// would be exit 2, "of memory is available"), on any GPU size.
TEST(Fr3Cli, TooLargeForTheDeviceExits4) {
  if (!tiledqr::gpu::device_available()) GTEST_SKIP() << "needs a GPU";
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  const long long side = (long long)(std::sqrt(0.55 * double(total_bytes) / 8.0));
  const RunResult r = run("--m " + std::to_string(side) + " --n " + std::to_string(side));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("of device memory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("are free"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("of memory is available"), std::string::npos) << r.err;
}

// Pass rule: with a GPU, --trace writes a CSV with one row per task of
// the grid (the header plus Σ_{i,j} (min(i, j) + 1) rows).
TEST(Fr3Cli, TraceHasEveryTask) {
  if (!tiledqr::gpu::device_available()) GTEST_SKIP() << "needs a GPU";
  char pattern[] = "/tmp/tiledqr-fr3-trace-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const RunResult r = run("--m 96 --n 64 --trace " + dir + "/trace.csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir + "/trace.csv");
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  // The header and 8 tasks: p = 3, q = 2, cells run 1, 1, 1 (column 0) and 1, 2, 2 (column 1).
  EXPECT_EQ(lines, 1 + 8);
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: test_fr3_cli PATH_TO_fr3_gpu [gtest options]\n");
    return 2;
  }
  g_program = argv[1];
  return RUN_ALL_TESTS();
}
