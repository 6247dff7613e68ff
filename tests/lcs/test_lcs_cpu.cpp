// Tests of the host side of the LCS workload (fr4_scheduler/lcs):
// the two-row DP and the bit-parallel last row against the full-table DP,
// Hirschberg's traceback, the supernode paper's model and its calibration, and input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "errors.hpp"
#include "lcs_cpu.hpp"
#include "lcs_model.hpp"
#include "lcs_sequence.hpp"
#include "lcs_test_cases.hpp"

namespace tiledqr::lcs {
namespace {

using testing::random_pair;
using testing::SequencePair;

int32_t table_length(const std::string& a, const std::string& b) { return lcs_table(a, b).back(); }

// Pass rule: the two-row DP equals L(M, N) of the full table, exactly, on
// random sizes 0 … 200 and alphabets 1 … 5.
TEST(LcsCpu, TwoRowsMatchesFullTable) {
  std::mt19937_64 engine = tiledqr::testing::make_engine(1);
  for (int trial = 0; trial < 200; ++trial) {
    const SequencePair p = random_pair(int64_t(engine() % 201), int64_t(engine() % 201), 1 + int(engine() % 5), engine);
    SCOPED_TRACE(p.label);
    EXPECT_EQ(lcs_length_two_rows(p.a, p.b), table_length(p.a, p.b));
  }
}

// Pass rule: the named cases have their known lengths.
TEST(LcsCpu, EdgeCases) {
  EXPECT_EQ(lcs_length_two_rows("", ""), 0);
  EXPECT_EQ(lcs_length_two_rows("", "ACGT"), 0);
  EXPECT_EQ(lcs_length_two_rows("ACGT", ""), 0);
  EXPECT_EQ(lcs_length_two_rows("A", "A"), 1);
  EXPECT_EQ(lcs_length_two_rows("A", "C"), 0);
  EXPECT_EQ(lcs_length_two_rows("ACGTACGT", "ACGTACGT"), 8);  // identical
  EXPECT_EQ(lcs_length_two_rows("ACGTTGCA", "XYZXYZ"), 0);    // disjoint alphabets
  EXPECT_EQ(lcs_length_two_rows("ABCBDAB", "BDCABA"), 4);     // CLRS's example
  EXPECT_EQ(lcs_length_two_rows(std::string(1000, 'A'), std::string(700, 'A')), 700);
}

// Pass rule: lcs_last_row(a, b) equals row M of the full table entry by entry,
// for widths around the 64-bit word boundaries and random ones.
TEST(LcsCpu, BitParallelLastRowMatchesTable) {
  std::mt19937_64 engine = tiledqr::testing::make_engine(2);
  const int64_t widths[] = {0, 1, 2, 63, 64, 65, 127, 128, 129, 191, 300};
  for (const int64_t n : widths)
    for (int trial = 0; trial < 6; ++trial) {
      const SequencePair p = random_pair(int64_t(engine() % 150), n, 1 + int(engine() % 6), engine);
      SCOPED_TRACE(p.label);
      const std::vector<int32_t> table = lcs_table(p.a, p.b);
      const std::vector<int32_t> expected(table.end() - (n + 1), table.end());
      EXPECT_EQ(lcs_last_row(p.a.data(), int64_t(p.a.size()), p.b.data(), n), expected);
    }
}

// Pass rule: the traceback is a subsequence of a and of b, and as long as
// the two-row DP says, for random sizes up to 3000 and a few larger ones.
TEST(LcsCpu, HirschbergTraceback) {
  std::mt19937_64 engine = tiledqr::testing::make_engine(3);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t limit = trial < 30 ? 300 : 3001;
    const SequencePair p =
        random_pair(int64_t(engine() % limit), int64_t(engine() % limit), 1 + int(engine() % 8), engine);
    SCOPED_TRACE(p.label);
    const std::string common = lcs_traceback(p.a, p.b);
    EXPECT_TRUE(is_subsequence(common, p.a));
    EXPECT_TRUE(is_subsequence(common, p.b));
    EXPECT_EQ(int64_t(common.size()), lcs_length_two_rows(p.a, p.b));
  }
  const SequencePair big = random_pair(20000, 15000, 4, engine);
  SCOPED_TRACE(big.label);
  const std::string common = lcs_traceback(big.a, big.b);
  EXPECT_TRUE(is_subsequence(common, big.a) && is_subsequence(common, big.b));
  EXPECT_EQ(int64_t(common.size()), lcs_length_two_rows(big.a, big.b));
  EXPECT_EQ(lcs_traceback("ACGT", "ACGT"), "ACGT");
  EXPECT_EQ(lcs_traceback("ACGT", "XYZ"), "");
  EXPECT_EQ(lcs_traceback("", "XYZ"), "");
}

TEST(LcsCpu, IsSubsequence) {
  EXPECT_TRUE(is_subsequence("", ""));
  EXPECT_TRUE(is_subsequence("ACE", "ABCDE"));
  EXPECT_FALSE(is_subsequence("AEC", "ABCDE"));
  EXPECT_FALSE(is_subsequence("A", ""));
}

// Pass rule: the rounds of the wavefront are R + C − 1 when P ≥ min(R, C),
// R·C for one worker, and the hand count otherwise.
TEST(LcsModel, WavefrontRounds) {
  EXPECT_EQ(wavefront_rounds(32, 256, 1000), 32 + 256 - 1);
  EXPECT_EQ(wavefront_rounds(32, 256, 32), 32 + 256 - 1);
  EXPECT_EQ(wavefront_rounds(5, 7, 1), 35);
  // 3 × 4 tiles: waves of 1, 2, 3, 3, 2, 1 tiles; two workers: 1+1+2+2+1+1.
  EXPECT_EQ(wavefront_rounds(3, 4, 2), 8);
  EXPECT_EQ(wavefront_rounds(0, 4, 2), 0);
  EXPECT_THROW(wavefront_rounds(3, 4, 0), InputError);
}

// Pass rule: model_seconds is rounds · (w·h·t_cell + t_sync) (relative 1e-12),
// with w and h cut to the table.
TEST(LcsModel, Formula) {
  const MachineConstants c{1e-11, 1e-6};
  // 65536² in 2048 × 256 tiles: R = 32, C = 256, 287 waves of one round.
  EXPECT_NEAR(model_seconds(TileShape{2048, 256}, 65536, 65536, c, 1000), 287 * (2048 * 256 * 1e-11 + 1e-6),
              1e-12 * 287 * 6.3e-6);
  // Partial tiles count as whole ones: 100 × 100 in 64 × 32 → 2 × 4 tiles.
  EXPECT_NEAR(model_seconds(TileShape{64, 32}, 100, 100, c, 1), 8 * (64 * 32 * 1e-11 + 1e-6), 1e-18);
  // A tile larger than the table is the table: one tile of 1000 × 4096 cells.
  EXPECT_NEAR(model_seconds(TileShape{2048, 8192}, 1000, 4096, c, 1), 1000 * 4096 * 1e-11 + 1e-6, 1e-18);
  EXPECT_THROW(model_seconds(TileShape{0, 32}, 100, 100, c, 1), InputError);
}

// Pass rule: times generated by the model with known constants give those
// constants back (relative 1e-9), from two runs and by least squares from
// many; too few or identical tiles are refused.
TEST(LcsModel, CalibrationRecoversConstants) {
  const MachineConstants truth{3.1e-11, 8.5e-7};
  const int64_t m = 65536, n = 65536, workers = 2112;
  std::vector<Measurement> runs;
  for (const int64_t w : {32, 128, 512, 2048, 8192}) {
    const TileShape tile{2048, w};
    runs.push_back(Measurement{tile, model_seconds(tile, m, n, truth, workers)});
  }
  for (const std::vector<Measurement>& fit : {std::vector<Measurement>{runs.front(), runs.back()}, runs}) {
    const MachineConstants c = calibrate(fit, m, n, workers);
    EXPECT_NEAR(c.t_cell, truth.t_cell, 1e-9 * truth.t_cell);
    EXPECT_NEAR(c.t_sync, truth.t_sync, 1e-9 * truth.t_sync);
  }
  EXPECT_THROW(calibrate({runs.front()}, m, n, workers), InputError);
  EXPECT_THROW(calibrate({runs.front(), runs.front()}, m, n, workers), InputError);
}

// Pass rule: with t_sync/t_cell chosen so that the continuous optimum
// w* = √(N·t_sync/((R − 1)·h·t_cell)) is 256, the best power-of-two
// candidate is 256; and a model fitted on noisy times of the sweep's two
// ends still picks it.
TEST(LcsModel, BestTileIsTheOptimum) {
  const int64_t m = 65536, n = 65536, h = 2048, workers = 5000;
  const double t_cell = 1e-11, t_sync = 256.0 * 256.0 * 31 * h / double(n) * t_cell;
  std::vector<TileShape> candidates;
  for (int64_t w = 32; w <= 8192; w *= 2) candidates.push_back(TileShape{h, w});
  EXPECT_EQ(best_tile(candidates, m, n, MachineConstants{t_cell, t_sync}, workers).cols, 256);

  const TileShape first = candidates.front(), last = candidates.back();
  const MachineConstants truth{t_cell, t_sync};
  const MachineConstants fitted = calibrate({Measurement{first, 1.03 * model_seconds(first, m, n, truth, workers)},
                                             Measurement{last, 0.98 * model_seconds(last, m, n, truth, workers)}},
                                            m, n, workers);
  EXPECT_EQ(best_tile(candidates, m, n, fitted, workers).cols, 256);
  EXPECT_THROW(best_tile({}, m, n, truth, workers), InputError);
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Pass rule: whitespace and FASTA header lines are skipped, records joined;
// a missing file is an InputError naming it.
TEST(LcsInput, ReadsPlainTextAndFasta) {
  EXPECT_EQ(read_sequence_file(write_temp("lcs_plain.txt", "ACGT\nAC GT\r\n\tTT")), "ACGTACGTTT");
  EXPECT_EQ(read_sequence_file(write_temp("lcs_records.fa", ">one\nACG\nT\n>two two\nGG\n")), "ACGTGG");
  EXPECT_EQ(read_sequence_file(write_temp("lcs_empty.txt", "")), "");
  try {
    read_sequence_file("/nonexistent/lcs.fa");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/lcs.fa"), std::string::npos) << e.what();
  }
}

// Pass rule: random sequences are reproducible from the seed and use the
// first σ symbols; bad sizes and alphabets are InputErrors.
TEST(LcsInput, RandomSequences) {
  EXPECT_EQ(random_sequence(100, 4, 7), random_sequence(100, 4, 7));
  EXPECT_NE(random_sequence(100, 4, 7), random_sequence(100, 4, 8));
  EXPECT_EQ(random_sequence(0, 4, 7), "");
  EXPECT_EQ(random_sequence(50, 1, 3), std::string(50, 'A'));
  for (const char c : random_sequence(1000, 4, 9)) EXPECT_NE(std::string("ACGT").find(c), std::string::npos);
  EXPECT_EQ(alphabet_symbols(256).size(), 256u);
  EXPECT_THROW(random_sequence(-1, 4, 1), InputError);
  EXPECT_THROW(random_sequence(10, 0, 1), InputError);
  EXPECT_THROW(random_sequence(10, 257, 1), InputError);
}

// Pass rule: a's bytes get dense codes in byte order; b's bytes absent from a
// get the code `symbols`.
TEST(LcsInput, SymbolCodes) {
  const SymbolCodes c = encode_symbols("GATTACA", "TAXI");
  EXPECT_EQ(c.symbols, 4);  // A C G T
  EXPECT_EQ(c.a_codes, (std::vector<uint16_t>{2, 0, 3, 3, 0, 1, 0}));
  EXPECT_EQ(c.b_codes, (std::vector<uint16_t>{3, 0, 4, 4}));
  EXPECT_EQ(encode_symbols("", "AB").b_codes, (std::vector<uint16_t>{0, 0}));
}

}  // namespace
}  // namespace tiledqr::lcs
