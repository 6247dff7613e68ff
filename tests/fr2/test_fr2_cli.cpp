// Tests of the fr2_threaded program against fr1_serial (docs/design.md §7), run as
// child processes. Usage: test_fr2_cli FR1_SERIAL FR2_THREADED [gtest flags];
// meson passes both programs' paths.
//
// TILEDQR_TEST_BACKEND=reference makes every run use --backend reference
// (see scripts/tsan).

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_threads.hpp"
#include "task_grid.hpp"

namespace {

namespace fs = std::filesystem;

std::string fr1_program, fr2_program;

bool reference_only() {
  const char* env = std::getenv("TILEDQR_TEST_BACKEND");
  return env != nullptr && std::string(env) == "reference";
}

std::string backend_option(const std::string& wanted) {
  return " --backend " + (reference_only() ? std::string("reference") : wanted);
}

// A fresh directory per test, removed at the end.
class Fr2Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tiledqr_fr2_cli_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs `program args`, stdout and stderr to a file; returns the exit code
  // and leaves the output in output_.
  int run(const std::string& program, const std::string& args) {
    const std::string log = path("output.txt");
    const std::string command = "'" + program + "' " + args + " > '" + log + "' 2>&1";
    const int status = std::system(command.c_str());
    output_ = read(log);
    if (status == -1 || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
  }

  static std::string read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  fs::path dir_;
  std::string output_;
};

// Pass rule: fr2_threaded --threads 4 writes an --output-r byte-identical to
// fr1_serial's for the same seed and options, for every tree, both
// precisions and both backends, on ragged, wide and tall shapes.
TEST_F(Fr2Cli, OutputRMatchesSerial) {
  const std::vector<std::string> shapes = {"--m 300 --n 200", "--m 100 --n 250 --tile 16",
                                           "--m 97 --n 31 --tile 8 --inner-block 3"};
  int variant = 0;
  for (const std::string& shape : shapes) {
    for (const std::string tree : {"flat", "binary", "greedy"}) {
      for (const std::string precision : {"double", "float"}) {
        const std::string options = shape + " --seed 7 --tree " + tree + " --precision " +
                                    precision +
                                    backend_option(variant++ % 2 == 0 ? "lapack" : "reference");
        SCOPED_TRACE(options);
        ASSERT_EQ(run(fr1_program, options + " --output-r '" + path("r1.mtx") + "'"), 0) << output_;
        ASSERT_EQ(run(fr2_program, options + " --threads 4 --output-r '" + path("r2.mtx") + "'"), 0)
            << output_;
        const std::string r1 = read(path("r1.mtx")), r2 = read(path("r2.mtx"));
        EXPECT_FALSE(r1.empty());
        EXPECT_TRUE(r1 == r2) << "R files differ";
      }
    }
  }
}

// The number after "key": in a one-line JSON object.
double json_value(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

// Pass rule (the FR2 acceptance command): --m 3000 --n 1000 --threads 4
// --check --json exits 0 with both residuals < 50, reports 4 threads, and
// its --output-r is byte-identical to fr1_serial's.
TEST_F(Fr2Cli, AcceptanceCheckJson) {
  const std::string options = "--m 3000 --n 1000" + backend_option("lapack");
  ASSERT_EQ(run(fr2_program, options + " --threads 4 --check --json --output-r '" +
                                 path("r2.mtx") + "'"),
            0)
      << output_;
  EXPECT_NE(output_.find("\"check\":\"pass\""), std::string::npos) << output_;
  EXPECT_NE(output_.find("\"stage\":\"fr2_threaded\""), std::string::npos) << output_;
  EXPECT_EQ(json_value(output_, "threads"), 4) << output_;
  const double residual = json_value(output_, "residual");
  const double orthogonality = json_value(output_, "orthogonality");
  EXPECT_GE(residual, 0);
  EXPECT_LT(residual, 50);
  EXPECT_GE(orthogonality, 0);
  EXPECT_LT(orthogonality, 50);
  ASSERT_EQ(run(fr1_program, options + " --output-r '" + path("r1.mtx") + "'"), 0) << output_;
  EXPECT_TRUE(read(path("r1.mtx")) == read(path("r2.mtx"))) << "R files differ";
}

// Pass rule: --trace has a header and one row per task of the grid, each
// with a worker id in [0, threads) and start ≤ end. (Which workers run the
// tasks is up to the OS: on a loaded machine one worker may run them all.)
TEST_F(Fr2Cli, TraceRecordsWorkers) {
  const std::string trace = path("trace.csv");
  ASSERT_EQ(run(fr2_program, "--m 200 --n 100 --tile 16 --threads 3" + backend_option("lapack") +
                                 " --trace '" + trace + "'"),
            0)
      << output_;
  std::istringstream rows(read(trace));
  std::string line;
  ASSERT_TRUE(std::getline(rows, line));
  EXPECT_EQ(line, "kind,k,i,j,piv,worker,start_ns,end_ns");
  int64_t count = 0;
  while (std::getline(rows, line)) {
    ++count;
    std::vector<std::string> fields;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) fields.push_back(cell);
    ASSERT_EQ(fields.size(), 8u) << line;
    const int worker = std::stoi(fields[5]);
    EXPECT_GE(worker, 0);
    EXPECT_LT(worker, 3);
    EXPECT_LE(std::stoll(fields[6]), std::stoll(fields[7])) << line;
  }
  EXPECT_EQ(count, tiledqr::grid_task_count(13, 7));  // ceil(200/16) × ceil(100/16) tiles
}

// Pass rule: --tree tsqr on 3 threads passes --check, reports 3 row blocks
// (one a thread) and its fan-in in text and JSON, and writes the same R as
// fr1_serial with --domains 3 (the same row blocks) for both backends;
// --domains and --fan-in change the blocks and the fan-in; a fan-in below 2
// exits 2 naming --fan-in.
TEST_F(Fr2Cli, TsqrTree) {
  for (const std::string backend : {"lapack", "reference"}) {
    const std::string options = "--m 1001 --n 37 --seed 5 --tree tsqr" + backend_option(backend);
    ASSERT_EQ(run(fr2_program, options + " --threads 3 --check --output-r '" + path("r2.mtx") + "'"), 0) << output_;
    EXPECT_NE(output_.find("tree tsqr"), std::string::npos) << output_;
    EXPECT_NE(output_.find("row blocks     3 (fan-in 4)"), std::string::npos) << output_;
    ASSERT_EQ(run(fr1_program, options + " --domains 3 --output-r '" + path("r1.mtx") + "'"), 0) << output_;
    EXPECT_FALSE(read(path("r1.mtx")).empty());
    EXPECT_TRUE(read(path("r1.mtx")) == read(path("r2.mtx"))) << "R files differ";
  }
  ASSERT_EQ(run(fr2_program, "--m 500 --n 20 --tree tsqr --threads 2 --domains 7 --fan-in 3 --json --check"), 0)
      << output_;
  EXPECT_EQ(json_value(output_, "row_blocks"), 7) << output_;
  EXPECT_EQ(json_value(output_, "fan_in"), 3) << output_;
  EXPECT_NE(output_.find("\"check\":\"pass\""), std::string::npos) << output_;
  EXPECT_EQ(run(fr2_program, "--m 500 --n 20 --tree tsqr --fan-in 1"), 2);
  EXPECT_NE(output_.find("--fan-in"), std::string::npos) << output_;
}

// Pass rule: bad --threads values exit 2 with a message naming the option;
// the text output reports the thread count.
TEST_F(Fr2Cli, ThreadsOption) {
  EXPECT_EQ(run(fr2_program, "--m 10 --n 10 --threads -1"), 2);
  EXPECT_NE(output_.find("--threads"), std::string::npos) << output_;
  EXPECT_EQ(run(fr2_program, "--m 10 --n 10 --threads many"), 2);
  EXPECT_NE(output_.find("--threads"), std::string::npos) << output_;
  ASSERT_EQ(run(fr2_program, "--m 40 --n 30 --tile 8 --threads 3"), 0) << output_;
  EXPECT_NE(output_.find("threads        3"), std::string::npos) << output_;
}

// Pass rule: without --threads the program uses the CPUs of its affinity
// mask (inherited from this process): all of them, then one when the mask
// is cut to one CPU, whatever the machine's hardware thread count.
TEST_F(Fr2Cli, DefaultThreadsFollowAffinity) {
  ASSERT_EQ(run(fr2_program, "--m 40 --n 30 --tile 8 --json"), 0) << output_;
  EXPECT_EQ(json_value(output_, "threads"), tiledqr::available_cpus()) << output_;
  cpu_set_t mask, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  int first = 0;
  while (!CPU_ISSET(first, &mask)) ++first;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const int code = run(fr2_program, "--m 40 --n 30 --tile 8 --json");
  ASSERT_EQ(sched_setaffinity(0, sizeof mask, &mask), 0);
  ASSERT_EQ(code, 0) << output_;
  EXPECT_EQ(json_value(output_, "threads"), 1) << output_;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FR1_SERIAL FR2_THREADED [gtest flags]\n", argv[0]);
    return 2;
  }
  fr1_program = argv[1];
  fr2_program = argv[2];
  return RUN_ALL_TESTS();
}
