// The library API under bad arguments: sizes that overflow or do
// not fit in memory, bad leading dimensions and tile sizes, and NaN/Inf
// input, which the library factors without checking (the programs refuse
// it unless --allow-nonfinite).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "errors.hpp"
#include "matrix_market.hpp"
#include "serial_executor.hpp"
#include "size_check.hpp"
#include "test_support.hpp"
#include "threaded_executor.hpp"

namespace tiledqr {
namespace {

using testing::make_engine;
using testing::random_matrix;

// Runs `call`; returns the InputError's message, or a note of what else
// happened.
template <typename Call>
std::string input_error_of(Call&& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::bad_alloc&) {
    return "<bad_alloc>";
  } catch (const std::exception& e) {
    return std::string("<other exception: ") + e.what() + ">";
  }
  return "<no exception>";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Pass rule: checked_elements refuses a product that overflows 64 bits
// (naming the overflow) and one beyond physical memory (naming both
// amounts in GiB), and returns the count otherwise.
TEST(RobustLibrary, CheckedElementsOverflowAndMemory) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(contains(input_error_of([&] { checked_elements({big, 3}, 8, "A"); }),
                       "A: size overflows 64-bit arithmetic"));
  EXPECT_TRUE(contains(input_error_of([&] { checked_elements({1 << 22, 1 << 22, 1 << 22}, 8, "A"); }),
                       "overflows 64-bit"));
  const std::string memory = input_error_of([&] { checked_elements({3000000000, 3000000000}, 8, "A"); });
  EXPECT_TRUE(contains(memory, "A needs") && contains(memory, "GiB") && contains(memory, "available"))
      << memory;
  EXPECT_TRUE(contains(input_error_of([&] { checked_elements({-1, 5}, 8, "A"); }), "negative"));
  EXPECT_EQ(checked_elements({1000, 0, 7}, 8, "A"), 0u);
  EXPECT_EQ(checked_elements({1000, 3}, 8, "A"), 3000u);
}

// Pass rule: factor and factor_threaded refuse absurd shapes and tiles
// with an InputError before reading A (A here is a single element; reading
// more would be a heap overflow that AddressSanitizer reports), never a
// bad_alloc; and refuse lda < m, m or n < 1 and tile < 1.
TEST(RobustLibrary, FactorRefusesBadShapesBeforeReadingA) {
  const std::vector<double> a(1, 1.0);
  struct Shape {
    int64_t m, n, lda;
    int tile;
    const char* needle;
  };
  const Shape shapes[] = {
      {3000000000, 3000000000, 3000000000, 32, "GiB"},
      {100000000, 100000, 100000000, 32, "GiB"},
      {std::numeric_limits<int64_t>::max(), 2, std::numeric_limits<int64_t>::max(), 1, "tiles"},
      // ceil(m / b) once overflowed here (m + b − 1), giving a negative tile count.
      {std::numeric_limits<int64_t>::max(), 2, std::numeric_limits<int64_t>::max(), 32, "too many tiles"},
      {10, 10, 10, 100000, "too large"},  // b² beyond the kernels' 32-bit indices
      {10, 10, 5, 4, "lda"},
      {0, 10, 1, 4, "at least 1x1"},
      {10, -1, 10, 4, "at least 1x1"},
      {10, 10, 10, 0, "tile"},
  };
  for (const Shape& s : shapes) {
    Options options;
    options.tile = s.tile;
    options.threads = 2;
    const std::string what = std::to_string(s.m) + " x " + std::to_string(s.n) + ", lda " +
                             std::to_string(s.lda) + ", tile " + std::to_string(s.tile);
    const std::string serial =
        input_error_of([&] { factor(a.data(), s.m, s.n, s.lda, options); });
    const std::string threaded =
        input_error_of([&] { factor_threaded(a.data(), s.m, s.n, s.lda, options); });
    EXPECT_TRUE(contains(serial, s.needle)) << what << ": " << serial;
    EXPECT_TRUE(contains(threaded, s.needle)) << what << ": " << threaded;
  }
}

// Pass rule: apply_qt, apply_q and solve refuse ldb < m, a negative
// count of right-hand sides, and (solve) a wide matrix, with an InputError;
// solve refuses a rank-deficient one with RankDeficientError.
TEST(RobustLibrary, ApplyAndSolveRefuseBadArguments) {
  std::mt19937_64 engine = make_engine(9301);
  const DenseMatrix<double> a = random_matrix<double>(12, 7, engine);
  Options options;
  options.tile = 4;
  const Factorization<double> f = factor(a.data.data(), 12, 7, 12, options);
  std::vector<double> b(12 * 3, 1.0);
  EXPECT_TRUE(contains(input_error_of([&] { f.apply_qt(b.data(), 11, 3); }), "ldb"));
  EXPECT_TRUE(contains(input_error_of([&] { f.apply_q(b.data(), 12, -1); }), "right-hand sides"));
  EXPECT_TRUE(contains(input_error_of([&] { f.solve(b.data(), 5, 1); }), "ldb"));

  const DenseMatrix<double> w = random_matrix<double>(7, 12, engine);
  const Factorization<double> wide = factor(w.data.data(), 7, 12, 7, options);
  EXPECT_TRUE(contains(input_error_of([&] { wide.solve(b.data(), 7, 1); }), "m >= n"));

  DenseMatrix<double> deficient = a;  // column 3 is zero: R(4, 4) = 0
  for (int64_t i = 0; i < 12; ++i) deficient(i, 3) = 0;
  const Factorization<double> g = factor(deficient.data.data(), 12, 7, 12, options);
  try {
    g.solve(b.data(), 12, 1);
    ADD_FAILURE() << "rank-deficient matrix solved";
  } catch (const RankDeficientError& e) {
    EXPECT_TRUE(contains(e.what(), "rank deficient (numerical rank 6 < 7)")) << e.what();
  }
}

// Pass rule: the writer refuses a negative size and lda < rows with an
// InputError naming the path, and creates no file.
TEST(RobustLibrary, WriterRefusesBadShapes) {
  const std::vector<double> a(4, 1.0);
  const std::string path = "/tmp/tiledqr-robust-writer-" + std::to_string(::getpid()) + ".mtx";
  EXPECT_TRUE(contains(input_error_of([&] { write_matrix_market(path, a.data(), -1, 2, 2); }), path));
  EXPECT_TRUE(contains(input_error_of([&] { write_matrix_market(path, a.data(), 2, 2, 1); }), path));
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
  EXPECT_NE(::access((path + ".tmp").c_str(), F_OK), 0);
}

// Pass rule: NaN, +Inf and −Inf in A, alone or together, go through FR1
// and FR2 (4 workers), both backends and all three trees without a crash,
// a hang or an exception; a column that holds none of them and lies to the
// left of every one that does is factored as if they were not there (its
// part of R is bit-identical to the clean matrix's).
TEST(RobustLibrary, NonFiniteInputFactorsWithoutCrashing) {
  std::mt19937_64 engine = make_engine(9302);
  const DenseMatrix<double> clean = random_matrix<double>(37, 29, engine);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Poison {
    const char* what;
    std::vector<std::pair<int64_t, int64_t>> where;  // (i, j), column j ≥ 8
    std::vector<double> values;
  };
  const Poison poisons[] = {
      {"NaN", {{20, 10}}, {nan}},
      {"+Inf", {{0, 8}}, {inf}},
      {"-Inf", {{36, 28}}, {-inf}},
      {"NaN and Inf", {{5, 12}, {30, 12}, {10, 20}}, {nan, inf, -inf}},
  };
  for (const Poison& p : poisons) {
    DenseMatrix<double> a = clean;
    for (size_t e = 0; e < p.where.size(); ++e) a(p.where[e].first, p.where[e].second) = p.values[e];
    for (const Backend backend : {Backend::reference, Backend::lapack}) {
      for (const Tree tree : {Tree::flat, Tree::binary, Tree::greedy}) {
        for (const bool threaded : {false, true}) {
          SCOPED_TRACE(std::string(p.what) + ", " + backend_name(backend) + " " + tree_name(tree) +
                       (threaded ? " FR2" : " FR1"));
          Options options;
          options.tile = 4;
          options.backend = backend;
          options.tree = tree;
          options.threads = 4;
          auto run = [&](const DenseMatrix<double>& m) {
            return threaded ? factor_threaded(m.data.data(), 37, 29, 37, options)
                            : factor(m.data.data(), 37, 29, 37, options);
          };
          Factorization<double> f, reference;
          ASSERT_NO_THROW(f = run(a));
          reference = run(clean);
          // Columns 0..7 (tile columns 0 and 1) of R see no poisoned value.
          const DenseMatrix<double> r = f.r(), r_clean = reference.r();
          for (int64_t j = 0; j < 8; ++j)
            for (int64_t i = 0; i <= j; ++i) EXPECT_EQ(r(i, j), r_clean(i, j)) << i << ", " << j;
          EXPECT_NO_THROW(f.thin_q());
        }
      }
    }
  }
}

}  // namespace
}  // namespace tiledqr
