// GPU tests of the LCS workload: FR4's tile wavefront and the per-diagonal
// baseline against the CPU two-row DP, FR4's exact boundary rows against
// the CPU's bit-parallel rows, and the traceback against FR4's length.
// Exits 77 without a GPU (gpu_test_main.cpp).
#include <gtest/gtest.h>

#include <random>

#include "errors.hpp"
#include "lcs_cpu.hpp"
#include "lcs_gpu.hpp"
#include "lcs_sequence.hpp"
#include "lcs_test_cases.hpp"

namespace tiledqr::lcs {
namespace {

using testing::random_pair;
using testing::SequencePair;

// Pass rule: FR4's length equals the CPU DP's, exactly; so do its last row
// L(M, ·) and last column L(·, N); a second run gives the same.
void expect_fr4_matches_cpu(const std::string& a, const std::string& b, const TileShape& tile) {
  SCOPED_TRACE("tile " + std::to_string(tile.rows) + " x " + std::to_string(tile.cols));
  const int64_t expected = lcs_length_two_rows(a, b);
  Fr4Lcs fr4(a, b, tile);
  EXPECT_EQ(fr4.run().length, expected);
  EXPECT_EQ(fr4.last_row(), lcs_last_row(a.data(), int64_t(a.size()), b.data(), int64_t(b.size())));
  EXPECT_EQ(fr4.last_column(), lcs_last_row(b.data(), int64_t(b.size()), a.data(), int64_t(a.size())));
  EXPECT_EQ(fr4.run().length, expected);  // no reset between runs is needed
}

// Random sizes 0 … 3000, alphabets 1 … 256, random legal tiles.
TEST(LcsFr4, MatchesCpuOnRandomSizes) {
  std::mt19937_64 engine = tiledqr::testing::make_engine(11);
  const int alphabets[] = {1, 2, 4, 20, 256};
  for (int trial = 0; trial < 40; ++trial) {
    const SequencePair p = random_pair(int64_t(engine() % 3001), int64_t(engine() % 3001),
                                       alphabets[engine() % 5], engine);
    SCOPED_TRACE(p.label);
    const TileShape tile{64 * int64_t(1 + engine() % 32), 32 * int64_t(1 + engine() % 16)};
    expect_fr4_matches_cpu(p.a, p.b, tile);
  }
}

TEST(LcsFr4, EdgeCases) {
  const TileShape tile{2048, 256};
  expect_fr4_matches_cpu("", "", tile);
  expect_fr4_matches_cpu("", "ACGT", tile);
  expect_fr4_matches_cpu("ACGT", "", tile);
  expect_fr4_matches_cpu("A", "A", tile);
  expect_fr4_matches_cpu("A", "C", tile);
  std::mt19937_64 engine = tiledqr::testing::make_engine(12);
  const SequencePair p = random_pair(2500, 1700, 4, engine);
  SCOPED_TRACE(p.label);
  expect_fr4_matches_cpu(p.a, p.a, tile);                            // identical: M
  expect_fr4_matches_cpu(p.a, std::string(1700, 'X'), tile);         // disjoint alphabets: 0
  expect_fr4_matches_cpu(std::string(3000, 'A'), std::string(2000, 'A'), TileShape{64, 32});
  // Lengths one off the tile, word and carry-word boundaries.
  for (const int64_t m : {63, 64, 65, 2047, 2048, 2049})
    for (const int64_t n : {31, 32, 33, 255, 256, 257}) {
      const SequencePair q = random_pair(m, n, 3, engine);
      SCOPED_TRACE(q.label);
      expect_fr4_matches_cpu(q.a, q.b, tile);
      expect_fr4_matches_cpu(q.a, q.b, TileShape{64, 32});
    }
}

// Pass rule: at 20000 × 20000 (a wavefront of 10 × 79 tiles with all the
// lanes busy) FR4 equals the CPU DP.
TEST(LcsFr4, LargerCase) {
  std::mt19937_64 engine = tiledqr::testing::make_engine(13);
  const SequencePair p = random_pair(20000, 20000, 4, engine);
  SCOPED_TRACE(p.label);
  expect_fr4_matches_cpu(p.a, p.b, TileShape{2048, 256});
  expect_fr4_matches_cpu(p.a, p.b, TileShape{512, 32});
}

// Pass rule: the Hirschberg traceback is a common subsequence of a and b
// whose length is the one FR4 reports.
TEST(LcsFr4, TracebackHasFr4Length) {
  std::mt19937_64 engine = tiledqr::testing::make_engine(14);
  for (int trial = 0; trial < 8; ++trial) {
    const SequencePair p = random_pair(int64_t(engine() % 3001), int64_t(engine() % 3001), 4, engine);
    SCOPED_TRACE(p.label);
    Fr4Lcs fr4(p.a, p.b, TileShape{1024, 128});
    const std::string common = lcs_traceback(p.a, p.b);
    EXPECT_EQ(int64_t(common.size()), fr4.run().length);
    EXPECT_TRUE(is_subsequence(common, p.a) && is_subsequence(common, p.b));
  }
}

// Pass rule: tiles the kernel cannot run are InputErrors, before any GPU work.
TEST(LcsFr4, RejectsBadTiles) {
  EXPECT_THROW(Fr4Lcs("ACGT", "ACGT", TileShape{100, 32}), InputError);
  EXPECT_THROW(Fr4Lcs("ACGT", "ACGT", TileShape{4096, 32}), InputError);
  EXPECT_THROW(Fr4Lcs("ACGT", "ACGT", TileShape{64, 48}), InputError);
  EXPECT_THROW(Fr4Lcs("ACGT", "ACGT", TileShape{64, 0}), InputError);
  EXPECT_GT(Fr4Lcs("ACGT", "ACGT", TileShape{64, 32}).workers(), 0);
}

// Pass rule: the per-diagonal baseline equals the CPU DP on random sizes
// 0 … 3000 and the named edge cases.
TEST(LcsDiagonal, MatchesCpu) {
  std::mt19937_64 engine = tiledqr::testing::make_engine(15);
  for (int trial = 0; trial < 20; ++trial) {
    const SequencePair p = random_pair(int64_t(engine() % 3001), int64_t(engine() % 3001),
                                       1 + int(engine() % 6), engine);
    SCOPED_TRACE(p.label);
    DiagonalLcs diagonal(p.a, p.b);
    EXPECT_EQ(diagonal.run().length, lcs_length_two_rows(p.a, p.b));
  }
  EXPECT_EQ(DiagonalLcs("", "ACGT").run().length, 0);
  EXPECT_EQ(DiagonalLcs("ACGT", "").run().length, 0);
  EXPECT_EQ(DiagonalLcs("A", "A").run().length, 1);
  EXPECT_EQ(DiagonalLcs("ACGT", "XYZ").run().length, 0);
  EXPECT_EQ(DiagonalLcs("ACGTACGT", "ACGTACGT").run().length, 8);
  EXPECT_EQ(DiagonalLcs("ABCBDAB", "BDCABA").run().length, 4);
}

}  // namespace
}  // namespace tiledqr::lcs
