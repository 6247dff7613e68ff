// tiledqr_mpi under mpirun (-np 1, 2, 4; grids 1x1, 2x1, 1x2, 2x2, 4x1; the
// tsqr tree's row blocks dealt out to the ranks): R and Q
// bit-identical to FR1's, residuals, the block-cyclic message model against
// StarPU-MPI's own counts, and errors on one rank ending every rank. Also
// the plan and model without MPI. Arguments: the paths of tiledqr_mpi and
// fr1_serial (meson passes them).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "block_cyclic.hpp"
#include "elimination_tree.hpp"
#include "errors.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

std::string g_mpi_program, g_fr1_program;

using testing::ScratchDir;
using testing::slurp;

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

RunResult run_command(const ScratchDir& dir, const std::string& command) {
  RunResult r;
  const int status = std::system((command + " > '" + dir.file("stdout") + "' 2> '" + dir.file("stderr") + "'").c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir.file("stdout"));
  r.err = slurp(dir.file("stderr"));
  return r;
}

// tiledqr_mpi on `ranks` ranks; each rank prints "rank-exit=N" after it
// ends, so a test sees every rank's exit code. The timeout turns a hang
// into a failure (exit 124).
RunResult run_mpi(const ScratchDir& dir, int ranks, const std::string& args) {
  return run_command(dir, "timeout 150 mpirun --oversubscribe --allow-run-as-root --bind-to none -np " +
                              std::to_string(ranks) + " sh -c '\"$0\" \"$@\"; echo rank-exit=$?' '" +
                              g_mpi_program + "' " + args);
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

double json_number(const std::string& json, const std::string& key) {
  std::smatch match;
  if (!std::regex_search(json, match, std::regex("\"" + key + "\":([-0-9.eE+]+)"))) return NAN;
  return std::stod(match[1]);
}

struct Case {
  int ranks;
  std::string grid;
  std::string tree;  // flat, or hierarchical (domains = P)
  std::string inner;
  std::string precision;
  int m, n;
};

// Pass rule: for every case, every rank exits 0; rank 0's R is
// byte-identical to fr1_serial's for the same tile, tree and seed;
// ‖A−QR‖_F/(‖A‖_F·n·ε) ≤ 50 and ‖I−QᵀQ‖_F/(n·ε) ≤ 50, computed on the
// ranks, the first within 5% of FR1's check and the second within 2x; the
// bytes StarPU-MPI sent between every pair of ranks equal the block-cyclic
// model's, and the model's tile messages are > 0 on more than one rank.
TEST(DistributedRuns, BitIdenticalToFr1AndModelledMessages) {
  const std::vector<Case> cases = {
      {1, "1x1", "flat", "flat", "double", 100, 70},
      {2, "2x1", "hierarchical", "flat", "double", 100, 70},
      {2, "1x2", "flat", "flat", "float", 70, 100},
      {2, "2x1", "hierarchical", "binary", "float", 100, 70},
      {4, "2x2", "hierarchical", "flat", "double", 70, 100},
      {4, "2x2", "flat", "flat", "float", 100, 70},
  };
  const uint64_t seed = testing::test_seed();
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.ranks) + " ranks, grid " + c.grid + ", " + c.tree + "/" + c.inner + ", " +
                 c.precision + ", " + std::to_string(c.m) + "x" + std::to_string(c.n));
    ScratchDir dir;
    const std::string domains = c.grid.substr(0, c.grid.find('x'));
    const std::string common = "--m " + std::to_string(c.m) + " --n " + std::to_string(c.n) +
                               " --tile 32 --seed " + std::to_string(seed) + " --precision " + c.precision +
                               " --tree " + c.tree + " --inner-tree " + c.inner +
                               (c.tree == "hierarchical" ? " --domains " + domains : "");
    const RunResult mpi = run_mpi(dir, c.ranks, common + " --grid " + c.grid +
                                                    " --check --comm-check --json --output-r " + dir.file("r_mpi.mtx"));
    EXPECT_EQ(count(mpi.out, "rank-exit=0"), c.ranks) << mpi.out << mpi.err;
    const std::string json = mpi.out.substr(0, mpi.out.find('\n'));
    EXPECT_LE(json_number(json, "residual"), 50) << json;
    EXPECT_LE(json_number(json, "orthogonality"), 50) << json;
    EXPECT_NE(json.find("\"comm_model_match\":true"), std::string::npos) << json;
    if (c.ranks > 1) {
      EXPECT_GT(json_number(json, "tile_messages_model"), 0) << json;
    }
    const RunResult fr1 =
        run_command(dir, "'" + g_fr1_program + "' " + common + " --check --json --output-r " + dir.file("r_fr1.mtx"));
    ASSERT_EQ(fr1.exit_code, 0) << fr1.err;
    // The distributed check (Q applied to [R; 0] and [I; 0] tile by tile on
    // the ranks) measures what FR1's does on one process: the same
    // residual up to the order of the sums, an orthogonality within 2x
    // (FR1 forms QᵀQ with one gemm).
    const double residual = json_number(json, "residual"), fr1_residual = json_number(fr1.out, "residual");
    const double orthogonality = json_number(json, "orthogonality");
    const double fr1_orthogonality = json_number(fr1.out, "orthogonality");
    EXPECT_NEAR(residual, fr1_residual, 0.05 * fr1_residual) << json << "\n" << fr1.out;
    EXPECT_GT(orthogonality, 0.5 * fr1_orthogonality) << json << "\n" << fr1.out;
    EXPECT_LT(orthogonality, 2 * fr1_orthogonality) << json << "\n" << fr1.out;
    const std::string r_mpi = slurp(dir.file("r_mpi.mtx")), r_fr1 = slurp(dir.file("r_fr1.mtx"));
    EXPECT_FALSE(r_fr1.empty());
    EXPECT_TRUE(r_mpi == r_fr1) << "R differs from FR1's";
  }
}

struct TsqrCase {
  int ranks, threads;
  std::string domains;  // empty: the default, one row block a worker (ranks · threads)
  int fan_in;
  std::string precision;
  int m, n;
};

// Pass rule: for every case of the tsqr tree (row blocks dealt out to the
// ranks in order), every rank exits 0; rank 0's R and Q are byte-identical
// to fr1_serial's tsqr tree with the same row blocks and fan-in; both
// residuals are ≤ 50 and the first within 5% of FR1's; the bytes StarPU-MPI
// sent equal the model's (a triangle there and back for each merge across
// ranks, > 0 where blocks lie on several ranks). A tall matrix (m ≥ 8n)
// without --tree runs the tsqr tree.
TEST(DistributedRuns, TsqrTreeBitIdenticalToFr1) {
  const std::vector<TsqrCase> cases = {
      {2, 1, "", 4, "double", 1000, 37},  {4, 1, "7", 2, "double", 5003, 64}, {2, 2, "", 3, "float", 777, 20},
      {2, 1, "", 4, "float", 1001, 1},    {4, 1, "", 4, "double", 38, 37},
  };
  const uint64_t seed = testing::test_seed();
  for (const TsqrCase& c : cases) {
    const std::string domains = c.domains.empty() ? std::to_string(c.ranks * c.threads) : c.domains;
    SCOPED_TRACE(std::to_string(c.ranks) + " ranks x " + std::to_string(c.threads) + " threads, " + domains +
                 " blocks, fan-in " + std::to_string(c.fan_in) + ", " + c.precision + ", " + std::to_string(c.m) +
                 "x" + std::to_string(c.n));
    ScratchDir dir;
    const std::string common = "--m " + std::to_string(c.m) + " --n " + std::to_string(c.n) + " --seed " +
                               std::to_string(seed) + " --precision " + c.precision + " --fan-in " +
                               std::to_string(c.fan_in);
    const std::string outputs = " --output-r " + dir.file("r_mpi.mtx") + " --output-q " + dir.file("q_mpi.mtx");
    const RunResult mpi = run_mpi(dir, c.ranks, common + (c.m >= 8 * c.n ? "" : " --tree tsqr") + " --threads " +
                                                    std::to_string(c.threads) +
                                                    (c.domains.empty() ? "" : " --domains " + c.domains) +
                                                    " --check --comm-check --json" + outputs);
    EXPECT_EQ(count(mpi.out, "rank-exit=0"), c.ranks) << mpi.out << mpi.err;
    const std::string json = mpi.out.substr(0, mpi.out.find('\n'));
    EXPECT_NE(json.find("\"tree\":\"tsqr\""), std::string::npos) << json;
    EXPECT_LE(json_number(json, "residual"), 50) << json;
    EXPECT_LE(json_number(json, "orthogonality"), 50) << json;
    EXPECT_NE(json.find("\"comm_model_match\":true"), std::string::npos) << json;
    if (c.m / c.n >= 2 && c.ranks > 1) {
      EXPECT_GT(json_number(json, "tile_messages_model"), 0) << json;
    }
    const RunResult fr1 = run_command(dir, "'" + g_fr1_program + "' " + common + " --tree tsqr --domains " + domains +
                                               " --check --json --output-r " + dir.file("r_fr1.mtx") +
                                               " --output-q " + dir.file("q_fr1.mtx"));
    ASSERT_EQ(fr1.exit_code, 0) << fr1.err;
    const double residual = json_number(json, "residual"), fr1_residual = json_number(fr1.out, "residual");
    EXPECT_NEAR(residual, fr1_residual, 0.05 * fr1_residual) << json << "\n" << fr1.out;
    const std::string r_fr1 = slurp(dir.file("r_fr1.mtx")), q_fr1 = slurp(dir.file("q_fr1.mtx"));
    EXPECT_FALSE(r_fr1.empty());
    EXPECT_FALSE(q_fr1.empty());
    EXPECT_TRUE(slurp(dir.file("r_mpi.mtx")) == r_fr1) << "R differs from FR1's";
    EXPECT_TRUE(slurp(dir.file("q_mpi.mtx")) == q_fr1) << "Q differs from FR1's";
  }
}

// Pass rule: on a column of 4 ranks with the flat tree, where every merge
// writes the step's top tile on another rank and sends it back to its owner
// (tiles of 128 KB, past Open MPI's eager limit), three runs in a row end on
// every rank with exit 0 within the run's timeout and both residuals ≤ 50,
// for the factorisation and its distributed check alike. (Before each
// owner waited for its own data ahead of StarPU-MPI's barrier, every run of
// this hung.)
TEST(DistributedRuns, OwnersReceiveTilesWrittenElsewhereBeforeTheBarrier) {
  const uint64_t seed = testing::test_seed();
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    ScratchDir dir;
    const RunResult r = run_mpi(dir, 4, "--m 512 --n 512 --tile 128 --grid 4x1 --tree flat --threads 1 --seed " +
                                            std::to_string(seed + uint64_t(run)) + " --check --json");
    EXPECT_EQ(count(r.out, "rank-exit=0"), 4) << r.out << r.err;
    const std::string json = r.out.substr(0, r.out.find('\n'));
    EXPECT_LE(json_number(json, "residual"), 50) << json;
    EXPECT_LE(json_number(json, "orthogonality"), 50) << json;
  }
}

// Pass rule: an input file no rank can read, a NaN in the tile of one rank
// (rank 3 of a 2x2 grid) or in its rows (the tsqr tree), a grid that does
// not fit the ranks or the tsqr tree, and --simulate with it each end
// every rank with exit 2 (none hangs: the run's timeout would give 124),
// and exactly one rank prints one message naming the problem.
TEST(DistributedErrors, BadInputOnOneRankEndsEveryRank) {
  ScratchDir dir;
  {
    std::ofstream nan_file(dir.file("nan.mtx"));
    nan_file << "%%MatrixMarket matrix coordinate real general\n64 64 3\n1 1 1.0\n2 2 2.0\n40 40 nan\n";
    std::ofstream tall_nan_file(dir.file("tall_nan.mtx"));  // the tsqr tree: row 600 lies on rank 3
    tall_nan_file << "%%MatrixMarket matrix coordinate real general\n640 8 2\n1 1 1.0\n600 8 nan\n";
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--input " + dir.file("missing.mtx") + " --tile 32 --grid 2x2", "cannot open"},
      {"--input " + dir.file("nan.mtx") + " --tile 32 --grid 2x2", "non-finite entry nan at (40, 40)"},
      {"--m 64 --n 64 --grid 3x1", "--grid 3x1 needs 3 ranks"},
      {"--input " + dir.file("tall_nan.mtx") + " --threads 1", "non-finite entry nan at (600, 8)"},
      {"--m 640 --n 8 --tree tsqr --grid 2x2", "the grid must be Px1"},
      {"--m 640 --n 8 --tree tsqr --simulate 1,1", "does not apply to --tree tsqr"},
  };
  for (const auto& [args, needle] : cases) {
    const RunResult r = run_mpi(dir, 4, args);
    EXPECT_EQ(count(r.out, "rank-exit=2"), 4) << args << "\n" << r.out << r.err;
    EXPECT_EQ(count(r.err, "tiledqr_mpi: error:"), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  }
}

// Pass rule: a check that fails (a tolerance below any rounding error)
// ends every rank with exit 3, one message, and no output file.
TEST(DistributedErrors, FailedCheckExit3) {
  ScratchDir dir;
  const RunResult r =
      run_mpi(dir, 2, "--m 64 --n 48 --tile 16 --check --tolerance 1e-30 --output-r " + dir.file("r.mtx"));
  EXPECT_EQ(count(r.out, "rank-exit=3"), 2) << r.out << r.err;
  EXPECT_EQ(count(r.err, "check failed"), 1) << r.err;
  EXPECT_NE(access(dir.file("r.mtx").c_str(), F_OK), 0);
}

using distributed::DataKind;
using distributed::ProcessGrid;

// Pass rule: the default grid is the most square P×Q with P ≥ Q; --grid
// parses PxQ and rejects other shapes and counts.
TEST(DistributedPlan, Grids) {
  EXPECT_EQ(distributed::default_grid(1).rows, 1);
  EXPECT_EQ(distributed::default_grid(2).rows, 2);
  EXPECT_EQ(distributed::default_grid(4).cols, 2);
  EXPECT_EQ(distributed::default_grid(6).rows, 3);
  EXPECT_EQ(distributed::default_grid(7).rows, 7);
  EXPECT_EQ(distributed::parse_grid("1x4", 4).cols, 4);
  for (const std::string bad : {"4", "2x", "x2", "2x3", "-1x-4", "2*2"})
    EXPECT_THROW(distributed::parse_grid(bad, 4), InputError) << bad;
  const ProcessGrid grid{2, 3};
  EXPECT_EQ(grid.owner(0, 0), 0);
  EXPECT_EQ(grid.owner(1, 2), 5);
  EXPECT_EQ(grid.owner(2, 3), 0);
}

// Pass rule: the hierarchical tree with one domain is the flat or binary
// tree; with D domains it merges the domains' top rows with D − 1 ttqrt and
// every other row inside its own domain (same row mod D).
TEST(DistributedPlan, HierarchicalTree) {
  auto same = [](const std::vector<Elimination>& a, const std::vector<Elimination>& b) {
    if (a.size() != b.size()) return false;
    for (size_t e = 0; e < a.size(); ++e)
      if (a[e].kind != b[e].kind || a[e].i != b[e].i || a[e].piv != b[e].piv) return false;
    return true;
  };
  EXPECT_TRUE(same(panel_eliminations(9, 2, Tree::hierarchical, 1, Tree::flat), panel_eliminations(9, 2, Tree::flat)));
  EXPECT_TRUE(same(panel_eliminations(9, 2, Tree::hierarchical, 1, Tree::binary),
                   panel_eliminations(9, 2, Tree::binary)));
  for (const Tree inner : {Tree::flat, Tree::binary}) {
    const int32_t p = 13, k = 1, domains = 4;
    int across = 0;
    std::vector<int> eliminated(p, 0);
    for (const Elimination& e : panel_eliminations(p, k, Tree::hierarchical, domains, inner)) {
      if (e.kind == TaskKind::geqrt) continue;
      ++eliminated[e.i];
      if (e.i % domains != e.piv % domains) {
        ++across;
        EXPECT_LT(e.piv, k + domains);
        EXPECT_LT(e.i, k + domains);
      }
    }
    EXPECT_EQ(across, domains - 1);
    for (int32_t i = 0; i < p; ++i) EXPECT_EQ(eliminated[i], i > k ? 1 : 0) << i;
  }
}

// Pass rule: one rank sends nothing; on a 4×1 grid, for one tile column of
// 16 tiles, the flat tree sends 2 messages per tile row off rank 0 and the
// hierarchical tree 2 per cross-rank merge (counts derived below).
TEST(DistributedPlan, MessageModel) {
  const int32_t p = 16, q = 1;
  const ProcessGrid one{1, 1}, four{4, 1};
  const auto plan_for = [&](Tree tree, int32_t domains, const ProcessGrid& grid) {
    return distributed::plan_tasks(build_qr_dag(p, q, tree, domains, Tree::flat), q, grid);
  };
  EXPECT_EQ(distributed::count_messages(plan_for(Tree::flat, 1, one), one, 8, 4).messages, 0);
  const int64_t flat = distributed::count_messages(plan_for(Tree::flat, 1, four), four, 8, 4).messages;
  const int64_t hierarchical =
      distributed::count_messages(plan_for(Tree::hierarchical, 4, four), four, 8, 4).messages;
  // Flat: tile (0, 0) travels to the owner of each tile row i > 0 not on
  // rank 0 and back: 2 messages for each of the 12 such rows.
  EXPECT_EQ(flat, 2 * 12);
  // Hierarchical: the 3 cross-rank ttqrt, each bringing the top triangle in
  // and sending it back.
  EXPECT_EQ(hierarchical, 2 * 3);
}

// Pass rule: on one rank with one worker the simulated time is the sum of
// the task times; on a 2×1 grid the flat tree's chain on one tile column
// waits one latency for each trip of tile (0, 0) to the other rank and
// back, 34 time units as counted below.
TEST(DistributedPlan, NetworkSimulation) {
  const Dag dag = build_qr_dag(4, 1, Tree::flat);
  const double unit[7] = {1, 1, 1, 1, 1, 1, 0};
  const ProcessGrid one{1, 1}, two{2, 1};
  const distributed::Network free_network{0, 1e30}, slow{10, 1e30};
  EXPECT_DOUBLE_EQ(distributed::simulate_plan(distributed::plan_tasks(dag, 1, one), one, 1, unit, free_network, 8, 4), 4);
  // geqrt ends at 1; tsqrt(1) on rank 1 gets (0, 0) at 11, ends at 12, and
  // (0, 0) is back on rank 0 at 22; tsqrt(2) ends at 23; tsqrt(3) gets it at
  // 33 and ends at 34.
  EXPECT_DOUBLE_EQ(distributed::simulate_plan(distributed::plan_tasks(dag, 1, two), two, 1, unit, slow, 8, 4), 34);
}

}  // namespace
}  // namespace tiledqr

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: test_distributed TILEDQR_MPI FR1_SERIAL [gtest options]\n");
    return 2;
  }
  tiledqr::g_mpi_program = argv[1];
  tiledqr::g_fr1_program = argv[2];
  return RUN_ALL_TESTS();
}
