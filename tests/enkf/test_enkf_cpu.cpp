// Host-only tests of the enkf workload: the Toeplitz and CSR helpers, the
// Matrix Market reader, the CPU reference against the naive dense formula,
// the tiled method's plan (emulated on the CPU) and the auto rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "cpu_reference.hpp"
#include "enkf_test_cases.hpp"
#include "errors.hpp"
#include "fr4/test_seed.hpp"
#include "method_choice.hpp"
#include "tiled_plan.hpp"

using namespace tiledqr;
using namespace tiledqr::enkf;

namespace {

// Pass rule for sums of the same terms in another order: ≤ 1e-13 relative.
constexpr double sum_order_tolerance = 1e-13;

// P_HT from the plan alone, as the tiled method's tasks compute it: per row
// block and chunk a partial slice, then per m-block the chunks' sum.
std::vector<double> emulate_tiled(const EnkfProblem& p, const TiledPlan& plan) {
  std::vector<double> partial(size_t(plan.partial_doubles), 0.0);
  for (const TiledChunk& chunk : plan.chunks)
    for (int64_t i = 0; i < p.n; ++i)
      for (int32_t u = chunk.u_begin; u < chunk.u_end; ++u) {
        const int64_t j = plan.union_col[size_t(u)];
        double ensemble = 0;
        for (int64_t q = 0; q < p.l; ++q) ensemble += p.e[size_t(i + q * p.n)] * p.e[size_t(j + q * p.n)];
        const double weight = p.c.at(i, j) * ensemble;
        for (int32_t z = plan.union_nz[size_t(u)]; z < plan.union_nz[size_t(u) + 1]; ++z)
          partial[size_t(chunk.partial_offset + i + plan.nz_row[size_t(z)] * p.n)] += weight * plan.nz_value[size_t(z)];
      }
  std::vector<double> out(size_t(p.n * p.m()), 0.0);
  for (int32_t b = 0; b < plan.m_blocks; ++b)
    for (int32_t c = plan.block_chunks[size_t(b)]; c < plan.block_chunks[size_t(b) + 1]; ++c) {
      const TiledChunk& chunk = plan.chunks[size_t(c)];
      for (int32_t mr = 0; mr < chunk.m_rows; ++mr)
        for (int64_t i = 0; i < p.n; ++i)
          out[size_t(i + (int64_t(b) * h_rows_per_block + mr) * p.n)] +=
              partial[size_t(chunk.partial_offset + i + mr * p.n)] / double(p.l - 1);
    }
  return out;
}

}  // namespace

// Toeplitz: C[i][j] = first column[i − j] below the diagonal, first row[j − i] above.
TEST(EnkfToeplitz, GeneralAndSymmetricEntries) {
  const Toeplitz g = general_toeplitz({1, 2, 3}, {1, 5, 6});
  const double expected[3][3] = {{1, 5, 6}, {2, 1, 5}, {3, 2, 1}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(g.at(i, j), expected[i][j]) << i << "," << j;
  const Toeplitz s = symmetric_toeplitz({4, 2, 1});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(s.at(i, j), s.at(j, i));
  EXPECT_EQ(s.at(0, 2), 1);
  EXPECT_THROW(general_toeplitz({1, 2}, {9, 2}), InputError);  // corners differ
  EXPECT_THROW(general_toeplitz({1, 2}, {1}), InputError);
  EXPECT_THROW(symmetric_toeplitz({}), InputError);
}

// CSR: triplets sorted, duplicates summed, dense round trip exact, bad indices rejected.
TEST(EnkfCsr, TripletsDenseAndChecks) {
  const CsrMatrix h = csr_from_triplets(2, 4, {{1, 3, 2.0}, {0, 2, 1.0}, {1, 0, 4.0}, {0, 2, 0.5}});
  EXPECT_EQ(h.nnz(), 3);
  EXPECT_EQ(h.at(0, 2), 1.5);
  EXPECT_EQ(h.at(1, 0), 4.0);
  EXPECT_EQ(h.at(1, 3), 2.0);
  EXPECT_EQ(h.at(1, 1), 0.0);
  const std::vector<double> dense = csr_to_dense(h);
  const CsrMatrix back = csr_from_dense(dense.data(), 2, 4, 2);
  EXPECT_EQ(back.col, h.col);
  EXPECT_EQ(back.value, h.value);
  EXPECT_THROW(csr_from_triplets(2, 4, {{2, 0, 1.0}}), InputError);
  CsrMatrix broken = h;
  broken.col[1] = 7;
  EXPECT_THROW(check_csr(broken), InputError);
}

// random_csr: round(density·N) distinct columns per row, at least one.
TEST(EnkfCsr, RandomRowsHaveTheirCount) {
  std::mt19937_64 rng(taskgraph::testing::test_seed("EnkfCsr.RandomRowsHaveTheirCount"));
  for (double density : {0.001, 0.05, 0.5, 1.0}) {
    const CsrMatrix h = random_csr(7, 301, density, rng);
    const int64_t per_row = std::max<int64_t>(1, std::llround(density * 301));
    for (int64_t r = 0; r < 7; ++r) EXPECT_EQ(h.row_ptr[size_t(r) + 1] - h.row_ptr[size_t(r)], per_row);
    check_csr(h);
  }
}

TEST(EnkfReader, CoordinateFormats) {
  const CsrMatrix g = parse_csr_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n% comment\n2 3 3\n1 1 1.5\n2 3 -2\n1 3 4e-1\n", "g");
  EXPECT_EQ(g.rows, 2);
  EXPECT_EQ(g.cols, 3);
  EXPECT_EQ(g.at(0, 0), 1.5);
  EXPECT_EQ(g.at(1, 2), -2.0);
  EXPECT_EQ(g.at(0, 2), 0.4);
  const CsrMatrix s =
      parse_csr_matrix_market("%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 7\n3 3 1\n", "s");
  EXPECT_EQ(s.at(0, 1), 7.0);
  EXPECT_EQ(s.at(1, 0), 7.0);
  EXPECT_EQ(s.nnz(), 3);
  const CsrMatrix pat = parse_csr_matrix_market("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 2\n", "p");
  EXPECT_EQ(pat.at(1, 1), 1.0);
  const CsrMatrix a = parse_csr_matrix_market("%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n3\n", "a");
  EXPECT_EQ(a.nnz(), 2);
  EXPECT_EQ(a.at(1, 1), 3.0);
}

// Malformed files: an InputError naming the file and line.
TEST(EnkfReader, ErrorsNameTheLine) {
  auto message = [](const std::string& text) {
    try {
      parse_csr_matrix_market(text, "h.mtx");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("hello\n"), "h.mtx:1: not a Matrix Market matrix (banner '%%MatrixMarket matrix ...' expected)");
  EXPECT_EQ(message("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n"),
            "h.mtx:3: entry (3, 1) lies outside the 2 x 2 matrix");
  EXPECT_EQ(message("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n"),
            "h.mtx:3: file ends after 1 of 2 entries");
  EXPECT_EQ(message("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n"), "h.mtx:3: 'x' is not a number");
  EXPECT_EQ(message("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n"),
            "h.mtx:4: more entries than the size line says");
  EXPECT_EQ(message("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n"),
            "h.mtx:1: field 'complex' is not real, integer or pattern");
  EXPECT_THROW(read_csr_matrix_market("/nonexistent/h.mtx"), InputError);
}

// Problem validation: sizes, L < 2, mismatched H.
TEST(EnkfReference, BadProblemsAreRejected) {
  EXPECT_THROW(random_problem(0, 4, 3, 0.5, 1), InputError);
  EXPECT_THROW(random_problem(10, 0, 3, 0.5, 1), InputError);
  EXPECT_THROW(random_problem(10, 4, 1, 0.5, 1), InputError);
  EXPECT_THROW(random_problem(10, 4, 3, 0.0, 1), InputError);
  EXPECT_THROW(random_problem(10, 4, 3, 1.5, 1), InputError);
  EnkfProblem p = random_problem(10, 4, 3, 0.5, 1);
  p.h.cols = 11;
  EXPECT_THROW(validate(p), InputError);
}

// The reference against the naive dense formula: ≤ 1e-13 relative, on
// general Toeplitz C, densities 0.001 … 1, M = 1, L = 2.
TEST(EnkfReference, MatchesNaiveDenseFormula) {
  const uint64_t seed = taskgraph::testing::test_seed("EnkfReference.MatchesNaiveDenseFormula");
  struct Case { int64_t n, m, l; double density; };
  for (const Case c : {Case{1, 1, 2, 1.0}, Case{37, 1, 2, 0.001}, Case{100, 5, 3, 0.05}, Case{129, 33, 10, 0.2},
                       Case{64, 3, 17, 1.0}}) {
    const EnkfProblem p = enkf::testing::general_problem(c.n, c.m, c.l, c.density, seed + uint64_t(c.n));
    const double error = relative_error(enkf_product_cpu(p), enkf::testing::naive_dense_product(p));
    EXPECT_LE(error, sum_order_tolerance) << "n " << c.n << " m " << c.m << " l " << c.l << " density " << c.density;
  }
}

// The plan: each nonzero of H once, in its m-block, under its column;
// chunks tile each block's union columns; slices do not overlap.
TEST(EnkfPlan, CoversEveryNonzeroOnce) {
  std::mt19937_64 rng(taskgraph::testing::test_seed("EnkfPlan.CoversEveryNonzeroOnce"));
  for (int64_t m : {1, 32, 33, 70}) {
    const CsrMatrix h = random_csr(m, 1000, 0.03, rng);
    const TiledPlan plan = make_tiled_plan(h, 64, 16);
    ASSERT_EQ(plan.m_blocks, (m + 31) / 32);
    EXPECT_EQ(plan.union_columns(), union_column_count(h));
    std::set<std::pair<int64_t, int64_t>> seen;
    for (int32_t b = 0; b < plan.m_blocks; ++b) {
      for (int32_t u = plan.block_union[size_t(b)]; u < plan.block_union[size_t(b) + 1]; ++u) {
        if (u > plan.block_union[size_t(b)]) EXPECT_LT(plan.union_col[size_t(u) - 1], plan.union_col[size_t(u)]);
        EXPECT_LT(plan.union_nz[size_t(u)], plan.union_nz[size_t(u) + 1]);  // a union column has a nonzero
        for (int32_t z = plan.union_nz[size_t(u)]; z < plan.union_nz[size_t(u) + 1]; ++z) {
          const int64_t row = int64_t(b) * h_rows_per_block + plan.nz_row[size_t(z)];
          EXPECT_EQ(h.at(row, plan.union_col[size_t(u)]), plan.nz_value[size_t(z)]);
          EXPECT_TRUE(seen.insert({row, plan.union_col[size_t(u)]}).second);
        }
      }
      int32_t next = plan.block_union[size_t(b)];
      for (int32_t c = plan.block_chunks[size_t(b)]; c < plan.block_chunks[size_t(b) + 1]; ++c) {
        EXPECT_EQ(plan.chunks[size_t(c)].u_begin, next);
        EXPECT_EQ(plan.chunks[size_t(c)].m_block, b);
        next = plan.chunks[size_t(c)].u_end;
      }
      EXPECT_EQ(next, plan.block_union[size_t(b) + 1]);
    }
    EXPECT_EQ(int64_t(seen.size()), h.nnz());
    int64_t offset = 0;
    for (const TiledChunk& chunk : plan.chunks) {
      EXPECT_EQ(chunk.partial_offset, offset);
      offset += plan.n * chunk.m_rows;
    }
    EXPECT_EQ(offset, plan.partial_doubles);
  }
}

// The plan's arithmetic, emulated on the CPU, gives the reference's result.
TEST(EnkfPlan, EmulatedTasksMatchReference) {
  const uint64_t seed = taskgraph::testing::test_seed("EnkfPlan.EmulatedTasksMatchReference");
  for (int64_t m : {1, 40}) {
    const EnkfProblem p = enkf::testing::general_problem(150, m, 4, 0.1, seed + uint64_t(m));
    const TiledPlan plan = make_tiled_plan(p.h, 16, 4);
    EXPECT_GT(plan.chunks.size(), size_t(plan.m_blocks));  // several chunks per block
    EXPECT_LE(relative_error(emulate_tiled(p, plan), enkf_product_cpu(p)), sum_order_tolerance);
  }
}

// The workspace cap: one chunk per m-block when even two would not fit.
TEST(EnkfPlan, PartialWorkspaceIsCapped) {
  std::mt19937_64 rng(taskgraph::testing::test_seed("EnkfPlan.PartialWorkspaceIsCapped"));
  const CsrMatrix h = random_csr(32, 5000, 0.5, rng);
  const TiledPlan plan = make_tiled_plan(h, 1 << 20, 1, 5000 * 32);
  EXPECT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.partial_doubles, 5000 * 32);
}

// fft_size: the smallest 2,3,5,7-smooth length ≥ 2n − 1; the auto rule's ends.
TEST(EnkfMethodChoice, FftSizeAndRule) {
  auto smooth = [](int64_t x) {
    for (int64_t p : {2, 3, 5, 7})
      while (x % p == 0) x /= p;
    return x == 1;
  };
  for (int64_t n : {1, 2, 3, 1000, 25000, 1000000, 123457}) {
    const int64_t size = fft_size(n);
    EXPECT_GE(size, 2 * n - 1);
    EXPECT_TRUE(smooth(size));
    for (int64_t s = std::max<int64_t>(2, 2 * n - 1); s < size; ++s) EXPECT_FALSE(smooth(s)) << s;
  }
  EXPECT_EQ(fft_size(1000), 2000);
  // The measured cases (M = 32, L = 10, density 0.05: U ≈ 0.8 N) go to
  // fft, which was faster at each; an H touching 32 columns of 10⁶ goes to
  // tiled (0.4 ms predicted against fft's 38 ms).
  EXPECT_EQ(choose_method(1000, 32, 10, 810), Method::fft);
  EXPECT_EQ(choose_method(1000000, 32, 10, 810000), Method::fft);
  EXPECT_EQ(choose_method(1000000, 32, 10, 32), Method::tiled);
  EXPECT_EQ(parse_method("fft"), Method::fft);
  EXPECT_THROW(parse_method("fast"), InputError);
}
