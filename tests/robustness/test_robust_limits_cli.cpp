// Limits through the stage programs: memory
// limits (`ulimit -v` set in the child with setrlimit) and the tile clamp,
// FR1's --check on tall-skinny shapes, rank-deficient least squares, entries
// near the overflow threshold and float underflow. Each case runs
// fr1_serial or fr2_threaded as a child process in a scratch folder, under a
// deadline: a run that hangs is killed and fails the test.
//
// Arguments: the paths of fr1_serial and fr2_threaded (meson passes them).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string g_fr1, g_fr2;

struct Outcome {
  bool exited = false;   // false: killed by a signal, or by the deadline
  bool timed_out = false;
  int code = -1;
  double seconds = 0;
  std::string out, err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `program args...` in `dir` with stdout/stderr captured, an address
// space limit of `address_space_bytes` (0: none), killed after `deadline_s`.
Outcome run(const fs::path& dir, const std::string& program, const std::vector<std::string>& args,
            double deadline_s, uint64_t address_space_bytes = 0) {
  const fs::path out_path = dir / ".stdout", err_path = dir / ".stderr";
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    if (!freopen(out_path.c_str(), "w", stdout) || !freopen(err_path.c_str(), "w", stderr) ||
        chdir(dir.c_str()) != 0)
      _exit(127);
    if (address_space_bytes > 0) {
      const rlimit limit{address_space_bytes, address_space_bytes};
      if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(126);
    }
    std::vector<char*> argv{const_cast<char*>(program.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  Outcome o;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (done == child) break;
    if (done < 0) return o;
    if (o.seconds > deadline_s) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      o.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  o.exited = !o.timed_out && WIFEXITED(status);
  o.code = o.exited ? WEXITSTATUS(status) : -1;
  o.out = slurp(out_path);
  o.err = slurp(err_path);
  return o;
}

class Scratch {
 public:
  Scratch() {
    char pattern[] = "/tmp/tiledqr-limits-XXXXXX";
    if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  // A dense Matrix Market file of `rows` x `cols` from column-major `values`.
  void write_matrix(const std::string& name, int64_t rows, int64_t cols, const std::vector<double>& values) const {
    std::ofstream out(path_ / name);
    out << "%%MatrixMarket matrix array real general\n" << rows << ' ' << cols << '\n';
    out.precision(17);
    for (const double v : values) out << v << '\n';
  }

 private:
  fs::path path_;
};

std::string describe(const Outcome& o) {
  return "exit " + std::to_string(o.code) + (o.timed_out ? " (killed at the deadline)" : "") +
         ", stderr: " + o.err.substr(0, 600);
}

constexpr uint64_t kMiB = 1024 * 1024;

// Item 10. Pass rule: under an address-space limit of 300 MiB, which the
// program and OpenBLAS's buffers alone exceed, fr1_serial and fr2_threaded
// on a 10 x 10 matrix exit 2 within 30 s saying what they need and the
// limit (`ulimit -v`), instead of hanging in OpenBLAS's allocation retries.
TEST(RobustLimits, AddressSpaceLimitRefusedNotHung) {
  Scratch dir;
  for (const std::string* program : {&g_fr1, &g_fr2}) {
    const Outcome o = run(dir.path(), *program, {"--m", "10", "--n", "10"}, 30, 300 * kMiB);
    EXPECT_TRUE(o.exited && o.code == 2) << *program << ": " << describe(o);
    EXPECT_NE(o.err.find("ulimit -v"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("needs about"), std::string::npos) << o.err;
  }
}

// Item 10. Pass rule: with a 2 GiB address-space limit, an 8000 x 8000
// factorisation (one copy of A is 0.48 GiB, the run's peak about six) is
// refused within 30 s with exit 2, its need by part (tiles, T factors,
// check) and the limit; the one-copy estimate of before let it start.
TEST(RobustLimits, PeakNotOneCopyIsChecked) {
  Scratch dir;
  const Outcome o = run(dir.path(), g_fr1, {"--m", "8000", "--n", "8000"}, 30, 2048 * kMiB);
  EXPECT_TRUE(o.exited && o.code == 2) << describe(o);
  EXPECT_LT(o.seconds, 30);
  for (const char* part : {"tiles", "T factors", "check and outputs", "ulimit -v"})
    EXPECT_NE(o.err.find(part), std::string::npos) << part << " not in: " << o.err;
}

// Item 10. Pass rule: --tile 20000 on a 10 x 10 matrix runs with tile 10
// (clamped to the matrix) and exits 0 within 30 s; before, it made a
// 20000² tile (3.2 GB) and ran for minutes.
TEST(RobustLimits, TileLargerThanMatrixIsClamped) {
  Scratch dir;
  const Outcome o = run(dir.path(), g_fr1, {"--m", "10", "--n", "10", "--tile", "20000", "--check"}, 30);
  EXPECT_TRUE(o.exited && o.code == 0) << describe(o);
  EXPECT_NE(o.out.find("tile 10,"), std::string::npos) << o.out;
}

// Item 12. Pass rule: FR1's flat tree passes its own --check (exit 0) on
// 100000 x 1, 1000000 x 1 and 1000000 x 8; before, 100000 x 1 reported
// residual 87 against a bound of 50 that did not grow with m.
TEST(RobustLimits, Fr1FlatTreeTallSkinnyPassesCheck) {
  Scratch dir;
  for (const auto& shape : {std::pair<const char*, const char*>{"100000", "1"}, {"1000000", "1"}, {"1000000", "8"}}) {
    const Outcome o = run(dir.path(), g_fr1, {"--m", shape.first, "--n", shape.second, "--check"}, 240);
    EXPECT_TRUE(o.exited && o.code == 0) << shape.first << " x " << shape.second << ": " << describe(o) << o.out;
  }
}

// Item 13. Pass rule: least squares with a 200 x 6 A whose columns 5 and 6
// are combinations of columns 1-3 exits 3 with "matrix is rank deficient
// (numerical rank 4 < 6)" and writes no X; the same A with column 5 and 6
// replaced by independent ones solves (exit 0, X written).
TEST(RobustLimits, RankDeficientLeastSquaresExit3) {
  Scratch dir;
  std::mt19937_64 engine(14013);
  std::printf("seed 14013\n");
  std::uniform_real_distribution<double> uniform(-1, 1);
  const int64_t m = 200, n = 6;
  std::vector<double> a, full(static_cast<size_t>(m * n)), rhs(static_cast<size_t>(m));
  for (double& x : full) x = uniform(engine);
  for (double& x : rhs) x = uniform(engine);
  a = full;
  for (int64_t i = 0; i < m; ++i) {
    a[size_t(i + 4 * m)] = a[size_t(i)] - 2 * a[size_t(i + 2 * m)];
    a[size_t(i + 5 * m)] = 0.5 * a[size_t(i + m)] + a[size_t(i + 2 * m)];
  }
  dir.write_matrix("a.mtx", m, n, a);
  dir.write_matrix("full.mtx", m, n, full);
  dir.write_matrix("b.mtx", m, 1, rhs);
  for (const std::string* program : {&g_fr1, &g_fr2}) {
    const Outcome bad = run(dir.path(), *program,
                            {"--input", "a.mtx", "--rhs", "b.mtx", "--output-x", "x.mtx", "--tile", "4"}, 60);
    EXPECT_TRUE(bad.exited && bad.code == 3) << describe(bad);
    EXPECT_NE(bad.err.find("matrix is rank deficient (numerical rank 4 < 6)"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(dir.path() / "x.mtx"));
    const Outcome good = run(dir.path(), *program,
                             {"--input", "full.mtx", "--rhs", "b.mtx", "--output-x", "x.mtx", "--tile", "4"}, 60);
    EXPECT_TRUE(good.exited && good.code == 0) << describe(good);
    EXPECT_TRUE(fs::exists(dir.path() / "x.mtx"));
    fs::remove(dir.path() / "x.mtx");
  }
}

// Item 14. Pass rule: a 16 x 8 A of entries ±3e307 (column norms 1.2e308,
// finite) factors with tile 4 on every tree and backend to an R with no
// Inf or NaN, passing --check (exit 0); before, the tiled merges overflowed
// and wrote Inf and NaN into R with exit 0. A 64 x 2 A of entries 1e308,
// whose first column's norm is 8e308, exits 3 naming R's entry (1, 1) and
// writes no R.
TEST(RobustLimits, NearOverflowEntriesGiveFiniteR) {
  Scratch dir;
  std::mt19937_64 engine(14014);
  std::printf("seed 14014\n");
  std::vector<double> big(16 * 8);
  for (double& x : big) x = (engine() % 2 ? 3e307 : -3e307) * (1 - 0.01 * double(engine() % 10));
  dir.write_matrix("big.mtx", 16, 8, big);
  for (const char* tree : {"flat", "binary"})
    for (const char* backend : {"lapack", "reference"}) {
      const Outcome o = run(dir.path(), g_fr1,
                            {"--input", "big.mtx", "--tile", "4", "--tree", tree, "--backend", backend, "--check",
                             "--output-r", "r.mtx"},
                            60);
      EXPECT_TRUE(o.exited && o.code == 0) << tree << " " << backend << ": " << describe(o) << o.out;
      const std::string r = slurp(dir.path() / "r.mtx");
      EXPECT_EQ(r.find("inf"), std::string::npos) << r;
      EXPECT_EQ(r.find("nan"), std::string::npos) << r;
      fs::remove(dir.path() / "r.mtx");
    }
  dir.write_matrix("huge.mtx", 64, 2, std::vector<double>(128, 1e308));
  const Outcome o = run(dir.path(), g_fr1, {"--input", "huge.mtx", "--tile", "8", "--output-r", "r.mtx"}, 60);
  EXPECT_TRUE(o.exited && o.code == 3) << describe(o);
  EXPECT_NE(o.err.find("at (1, 1)"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir.path() / "r.mtx"));
}

// Item 14. Pass rule: with --precision float, an entry 1e-50 (0 in float)
// exits 2 naming the entry and its position (2, 1), and so does 1e39
// (beyond float's range); before, 1e-50 became 0 without a word.
TEST(RobustLimits, FloatUnderflowReported) {
  Scratch dir;
  dir.write_matrix("tiny.mtx", 3, 2, {1, 1e-50, 2, 3, 4, 5});
  Outcome o = run(dir.path(), g_fr1, {"--input", "tiny.mtx", "--precision", "float"}, 30);
  EXPECT_TRUE(o.exited && o.code == 2) << describe(o);
  EXPECT_NE(o.err.find("underflows"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("(2, 1)"), std::string::npos) << o.err;
  dir.write_matrix("large.mtx", 3, 2, {1, 2, 3, 4, 1e39, 5});
  o = run(dir.path(), g_fr1, {"--input", "large.mtx", "--precision", "float"}, 30);
  EXPECT_TRUE(o.exited && o.code == 2) << describe(o);
  EXPECT_NE(o.err.find("(2, 2)"), std::string::npos) << o.err;
  o = run(dir.path(), g_fr1, {"--input", "tiny.mtx"}, 30);  // double keeps it
  EXPECT_TRUE(o.exited && o.code == 0) << describe(o);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FR1_PROGRAM FR2_PROGRAM [gtest options]\n", argv[0]);
    return 2;
  }
  g_fr1 = fs::absolute(argv[1]).string();
  g_fr2 = fs::absolute(argv[2]).string();
  return RUN_ALL_TESTS();
}
