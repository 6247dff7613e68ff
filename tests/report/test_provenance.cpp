// The benchmark CSV's provenance: the build-time commit in every row and in a
// '#' line with the library versions, and no CSV overwritten without --resume or --force.
// Argument: the path of tiledqr_bench (meson passes it).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "errors.hpp"
#include "provenance.hpp"
#include "version.hpp"

namespace tiledqr::bench {
namespace {

std::string g_bench;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int run_bench(const std::string& args) {
  const int status = std::system(("'" + g_bench + "' " + args + " 2>/dev/null").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Pass: the line names the build's version and commit, OpenBLAS and the GPU text given.
TEST(BenchProvenance, LineNamesBuildAndLibraries) {
  const std::string line = provenance_line("no GPU");
  EXPECT_EQ(line.rfind("# built from tiledqr ", 0), 0u) << line;
  EXPECT_NE(line.find(std::string(" commit ") + build_commit() + ";"), std::string::npos) << line;
  EXPECT_NE(line.find("OpenBLAS"), std::string::npos) << line;
  EXPECT_EQ(line.substr(line.size() - 6), "no GPU");
  EXPECT_STRNE(build_commit(), "");
}

// Pass: an existing file is refused unless resume or force; a missing one is fine.
TEST(BenchProvenance, ExistingCsvRefused) {
  char dir[] = "/tmp/test_provenance.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/b.csv";
  EXPECT_NO_THROW(refuse_overwrite(path, false, false));
  std::ofstream(path) << "x\n";
  EXPECT_THROW(refuse_overwrite(path, false, false), InputError);
  EXPECT_NO_THROW(refuse_overwrite(path, true, false));
  EXPECT_NO_THROW(refuse_overwrite(path, false, true));
  std::remove(path.c_str());
  rmdir(dir);
}

// Pass: tiledqr_bench run twice on the same --out: the first run writes rows whose commit is the
// build's and a provenance line; the second exits 2 and leaves the file as it was; --force
// replaces it; --resume adds a "(resumed)" provenance line and no row.
TEST(BenchProvenance, DriverKeepsExistingCsv) {
  char dir[] = "/tmp/test_provenance.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string out = std::string(dir) + "/b.csv";
  const std::string args = "--stages fr1 --shapes 64x48 --tiles 16 --repeats 1 --warmup 0 --out '" + out + "'";
  ASSERT_EQ(run_bench(args), 0);
  const std::string first = slurp(out);
  EXPECT_NE(first.find("\n# built from tiledqr "), std::string::npos) << first;
  EXPECT_NE(first.find(std::string(",") + build_commit() + ",fr1,"), std::string::npos) << first;
  EXPECT_EQ(run_bench(args), 2);
  EXPECT_EQ(slurp(out), first);
  EXPECT_EQ(run_bench(args + " --force"), 0);
  EXPECT_EQ(run_bench(args + " --resume"), 0);
  const std::string resumed = slurp(out);
  EXPECT_NE(resumed.find(" (resumed)\n"), std::string::npos) << resumed;
  EXPECT_EQ(resumed.find(",fr1,"), resumed.rfind(",fr1,")) << "one row only: " << resumed;
  std::remove(out.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace tiledqr::bench

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <path to tiledqr_bench>\n", argv[0]);
    return 1;
  }
  tiledqr::bench::g_bench = argv[1];
  return RUN_ALL_TESTS();
}
