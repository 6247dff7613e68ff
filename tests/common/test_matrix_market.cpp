// Tests for common/matrix_market.{hpp,cpp}: round trips through the writer and
// the reader, expansion of the symmetric kinds, and one test per class of
// input error (each checks the line number and a key word of the message).

#include "matrix_market.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "errors.hpp"

namespace tiledqr {
namespace {

namespace fs = std::filesystem;

const std::string kArrayReal = "%%MatrixMarket matrix array real general\n";
const std::string kCoordReal = "%%MatrixMarket matrix coordinate real general\n";

// The seed for every random test: fixed so that runs repeat, printed so that a
// failure can be reproduced, and overridable through TILEDQR_TEST_SEED.
uint64_t test_seed() {
  static const uint64_t seed = [] {
    const char* env = std::getenv("TILEDQR_TEST_SEED");
    const uint64_t s = env != nullptr ? std::strtoull(env, nullptr, 10) : 20240611u;
    std::printf("test_matrix_market: seed %llu (set TILEDQR_TEST_SEED to change)\n",
                static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

// Random finite doubles: half are arbitrary bit patterns (subnormals and
// extreme exponents included), half are ordinary numbers of mixed magnitude.
double random_double(std::mt19937_64& rng) {
  if (rng() % 2 == 0) {
    for (;;) {
      const uint64_t bits = rng();
      double v;
      std::memcpy(&v, &bits, sizeof v);
      if (std::isfinite(v)) return v;
    }
  }
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-40, 40);
  return std::ldexp(mantissa(rng), exponent(rng));
}

float random_float(std::mt19937_64& rng) {
  for (;;) {
    const uint32_t bits = static_cast<uint32_t>(rng());
    float v;
    std::memcpy(&v, &bits, sizeof v);
    if (std::isfinite(v)) return v;
  }
}

uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// A fresh directory under /tmp, removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/test_matrix_market.XXXXXX";
    const char* made = ::mkdtemp(pattern);
    if (made == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = made;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  size_t entry_count() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(path_), fs::directory_iterator()));
  }

 private:
  fs::path path_;
};

void write_text(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(std::fwrite(text.data(), 1, text.size(), f), text.size());
  ASSERT_EQ(std::fclose(f), 0);
}

// Passes when parsing `text` throws an InputError whose message starts with
// "t.mtx:<line>:" and contains `word`.
::testing::AssertionResult fails_with(const std::string& text, int line, const std::string& word) {
  std::string message;
  try {
    parse_matrix_market(text, "t.mtx");
    return ::testing::AssertionFailure() << "no InputError for:\n" << text;
  } catch (const InputError& e) {
    message = e.what();
  }
  const std::string where = "t.mtx:" + std::to_string(line) + ":";
  if (message.compare(0, where.size(), where) != 0) {
    return ::testing::AssertionFailure() << "message \"" << message << "\" does not start with \"" << where << "\"";
  }
  if (message.find(word) == std::string::npos) {
    return ::testing::AssertionFailure() << "message \"" << message << "\" lacks \"" << word << "\"";
  }
  return ::testing::AssertionSuccess();
}

// Passes when `run` throws an InputError whose message contains every one of `words`.
template <typename F>
::testing::AssertionResult throws_input_error(F run, const std::vector<std::string>& words) {
  std::string message;
  try {
    run();
    return ::testing::AssertionFailure() << "no InputError";
  } catch (const InputError& e) {
    message = e.what();
  }
  for (const std::string& w : words) {
    if (message.find(w) == std::string::npos) {
      return ::testing::AssertionFailure() << "message \"" << message << "\" lacks \"" << w << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// Round trips

// Pass: for each shape (1x1, 1xn, mx1, 37x5, written with lda > rows) the
// matrix read back has the same shape and bit-identical doubles.
TEST(MatrixMarketRoundTrip, ArrayDoubleIsExact) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {1, 9}, {11, 1}, {37, 5}, {4, 6}};
  for (const auto& [rows, cols] : shapes) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const int64_t lda = rows + 3;  // the padding rows must not be written
    std::vector<double> a(static_cast<size_t>(lda * cols), 12345.0);
    for (int64_t j = 0; j < cols; ++j) {
      for (int64_t i = 0; i < rows; ++i) a[static_cast<size_t>(i + j * lda)] = random_double(rng);
    }
    const std::string path = dir.file("a.mtx");
    write_matrix_market(path, a.data(), rows, cols, lda);
    const DenseMatrix<double> b = read_matrix_market(path);
    ASSERT_EQ(b.rows, rows);
    ASSERT_EQ(b.cols, cols);
    for (int64_t j = 0; j < cols; ++j) {
      for (int64_t i = 0; i < rows; ++i) {
        ASSERT_EQ(bits_of(b(i, j)), bits_of(a[static_cast<size_t>(i + j * lda)])) << "at (" << i << ", " << j << ")";
      }
    }
  }
}

// Pass: extreme and special doubles (signed zero, subnormal, max, lowest,
// +-inf, nan) come back bit-identical, or as a nan for the nan.
TEST(MatrixMarketRoundTrip, ArrayDoubleSpecialValues) {
  const double values[] = {0.0,
                           -0.0,
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::lowest(),
                           std::numeric_limits<double>::epsilon(),
                           0.1,
                           1.0 / 3.0,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  const int64_t n = static_cast<int64_t>(sizeof values / sizeof values[0]);
  TempDir dir;
  write_matrix_market(dir.file("s.mtx"), values, n, 1, n);
  const DenseMatrix<double> b = read_matrix_market(dir.file("s.mtx"));
  ASSERT_EQ(b.rows, n);
  ASSERT_EQ(b.cols, 1);
  for (int64_t i = 0; i < n - 1; ++i) EXPECT_EQ(bits_of(b(i, 0)), bits_of(values[i])) << "index " << i;
  EXPECT_TRUE(std::isnan(b(n - 1, 0)));
}

// Pass: a float matrix written with the float writer reads back to doubles
// that convert to exactly the original floats, for every shape.
TEST(MatrixMarketRoundTrip, FloatWriterRoundTripsToFloat) {
  const uint64_t seed = test_seed() + 1;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {1, 8}, {13, 1}, {37, 5}};
  for (const auto& [rows, cols] : shapes) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    std::vector<float> a(static_cast<size_t>(rows * cols));
    for (float& v : a) v = random_float(rng);
    write_matrix_market(dir.file("f.mtx"), a.data(), rows, cols, rows);
    const DenseMatrix<double> b = read_matrix_market(dir.file("f.mtx"));
    ASSERT_EQ(b.rows, rows);
    ASSERT_EQ(b.cols, cols);
    for (size_t k = 0; k < a.size(); ++k) {
      ASSERT_EQ(bits_of(static_cast<float>(b.data[k])), bits_of(a[k])) << "element " << k;
    }
  }
}

// Pass: the writer prints the shortest text that reads back to the value
// ("0.1", not "0.10000000000000001"; "0.1" for 0.1f as well), and the
// extremes of both types (largest, smallest normal, smallest subnormal) come
// back bit for bit.
TEST(MatrixMarketRoundTrip, ShortestTextAndExtremes) {
  TempDir dir;
  const double d[] = {0.1, -2.5, 1e300, 5e-324, std::numeric_limits<double>::max(),
                      std::numeric_limits<double>::min(), -std::numeric_limits<double>::denorm_min()};
  const float f[] = {0.1f, std::numeric_limits<float>::max(), std::numeric_limits<float>::min(),
                     std::numeric_limits<float>::denorm_min(), -1e-40f};
  write_matrix_market(dir.file("d.mtx"), d, 7, 1, 7);
  write_matrix_market(dir.file("f.mtx"), f, 5, 1, 5);
  std::FILE* in = std::fopen(dir.file("d.mtx").c_str(), "r");
  ASSERT_NE(in, nullptr);
  char text[256] = {};
  const size_t got = std::fread(text, 1, sizeof text - 1, in);
  std::fclose(in);
  EXPECT_EQ(std::string(text, got),
            kArrayReal + "7 1\n0.1\n-2.5\n1e+300\n5e-324\n1.7976931348623157e+308\n"
                         "2.2250738585072014e-308\n-5e-324\n");
  const DenseMatrix<double> db = read_matrix_market(dir.file("d.mtx"));
  const DenseMatrix<double> fb = read_matrix_market(dir.file("f.mtx"));
  for (int64_t i = 0; i < 7; ++i) EXPECT_EQ(bits_of(db(i, 0)), bits_of(d[i])) << i;
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(bits_of(static_cast<float>(fb(i, 0))), bits_of(f[i])) << i;
  EXPECT_EQ(fb(0, 0), 0.1);  // the float's shortest text "0.1" is read as the double 0.1
}

// Pass: a file of several read blocks (over 4 MiB: 300,000 random doubles and
// as many random floats, bit patterns with subnormals and extremes, lines
// that straddle block boundaries) reads back bit for bit, and so does one
// with CRLF line ends.
TEST(MatrixMarketRoundTrip, LargeFilesAcrossReadBlocks) {
  const uint64_t seed = test_seed() + 5;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int64_t rows = 1000, cols = 300;
  std::vector<double> d(static_cast<size_t>(rows * cols));
  std::vector<float> f(d.size());
  for (size_t k = 0; k < d.size(); ++k) {
    d[k] = random_double(rng);
    f[k] = random_float(rng);
  }
  TempDir dir;
  write_matrix_market(dir.file("d.mtx"), d.data(), rows, cols, rows);
  write_matrix_market(dir.file("f.mtx"), f.data(), rows, cols, rows);
  EXPECT_GT(fs::file_size(dir.file("d.mtx")), size_t(4) << 20);
  const DenseMatrix<double> db = read_matrix_market(dir.file("d.mtx"));
  const DenseMatrix<double> fb = read_matrix_market(dir.file("f.mtx"));
  ASSERT_EQ(db.data.size(), d.size());
  ASSERT_EQ(fb.data.size(), f.size());
  size_t differ = 0;
  for (size_t k = 0; k < d.size(); ++k) {
    differ += bits_of(db.data[k]) != bits_of(d[k]);
    differ += bits_of(static_cast<float>(fb.data[k])) != bits_of(f[k]);
  }
  EXPECT_EQ(differ, 0u);

  std::string crlf = kArrayReal + "1000 300\r\n";
  for (size_t k = 0; k < d.size(); ++k) crlf += std::to_string(k) + "\r\n";
  write_text(dir.file("crlf.mtx"), crlf);
  const DenseMatrix<double> c = read_matrix_market(dir.file("crlf.mtx"));
  ASSERT_EQ(c.data.size(), d.size());
  EXPECT_EQ(c.data.back(), double(d.size() - 1));
}

// Pass: a large file (several read blocks, so read by several threads)
// gives what the line-by-line text parser gives: the same values where it
// holds comments, blank lines, CRLF and '+' signs among the values, and the
// same message, line number included, where one value deep inside is bad,
// a line is over the length cap or the count is wrong; a last line without
// its line break is read too.
TEST(MatrixMarketReader, LargeFileReadAsTheTextParserReadsIt) {
  const uint64_t seed = test_seed() + 6;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int64_t rows = 600, cols = 500;
  std::vector<std::string> lines;
  for (int64_t k = 0; k < rows * cols; ++k) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", random_double(rng));
    lines.push_back(text);
  }
  lines[1000] = "+" + lines[1000];
  lines[2000] = "  " + lines[2000] + "\t \r";
  lines[3000] += "\n% a comment\n";
  auto file_text = [&](const std::vector<std::string>& values, int64_t declared_rows) {
    std::string text = kArrayReal + std::to_string(declared_rows) + " " + std::to_string(cols) + "\n";
    for (const std::string& v : values) text += v + "\n";
    return text;
  };
  TempDir dir;
  const std::string good = file_text(lines, rows);
  write_text(dir.file("t.mtx"), good);
  const DenseMatrix<double> from_file = read_matrix_market(dir.file("t.mtx"));
  const DenseMatrix<double> from_text = parse_matrix_market(good, dir.file("t.mtx"));
  ASSERT_EQ(from_file.data.size(), from_text.data.size());
  EXPECT_EQ(std::memcmp(from_file.data.data(), from_text.data.data(), from_text.data.size() * sizeof(double)), 0);
  // Without the last line break: the last value is still read.
  write_text(dir.file("t.mtx"), good.substr(0, good.size() - 1));
  const DenseMatrix<double> unterminated = read_matrix_market(dir.file("t.mtx"));
  ASSERT_EQ(unterminated.data.size(), from_text.data.size());
  EXPECT_EQ(bits_of(unterminated.data.back()), bits_of(from_text.data.back()));

  std::vector<std::string> bad = lines, long_line = lines;
  bad[250000] = "1.5x";
  long_line[200000] = std::string(size_t(1) << 20, ' ') + long_line[200000];  // over the 1 MiB cap
  const std::vector<std::pair<std::string, std::string>> cases = {
      {file_text(bad, rows), "bad value deep inside"}, {file_text(lines, rows + 1), "too few"},
      {file_text(lines, rows - 1), "too many"}, {file_text(long_line, rows), "line too long"}};
  for (const auto& [text, what] : cases) {
    SCOPED_TRACE(what);
    write_text(dir.file("t.mtx"), text);
    std::string file_message, text_message;
    try {
      read_matrix_market(dir.file("t.mtx"));
    } catch (const InputError& e) {
      file_message = e.what();
    }
    try {
      parse_matrix_market(text, dir.file("t.mtx"));
    } catch (const InputError& e) {
      text_message = e.what();
    }
    EXPECT_FALSE(text_message.empty());
    EXPECT_EQ(file_message, text_message);
  }
}

// Pass: a large array file read from a FIFO (which cannot be read twice)
// with a bad value deep inside is refused with the same message, line
// number included, as the text parser gives, and a good one is read whole.
TEST(MatrixMarketReader, LargeFifoReadAsTheTextParserReadsIt) {
  const int64_t rows = 1000, cols = 700;  // about 5 MB of text: more than one read block
  std::string good = kArrayReal + std::to_string(rows) + " " + std::to_string(cols) + "\n";
  for (int64_t k = 0; k < rows * cols; ++k) good += std::to_string(k % 9973) + ".25\n";
  const std::string bad_value = "\n1.5x\n";
  std::string bad = good;
  bad.replace(bad.find('\n', bad.size() - 1000), bad_value.size(), bad_value);
  TempDir dir;
  const std::string fifo = dir.file("in.mtx");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string* text : {&good, &bad}) {
    std::thread writer([&] {
      std::FILE* f = std::fopen(fifo.c_str(), "w");
      if (f == nullptr) return;
      std::fwrite(text->data(), 1, text->size(), f);
      std::fclose(f);
    });
    std::string file_message, text_message;
    DenseMatrix<double> from_file, from_text;
    try {
      from_file = read_matrix_market(fifo);
    } catch (const InputError& e) {
      file_message = e.what();
    }
    writer.join();
    try {
      from_text = parse_matrix_market(*text, fifo);
    } catch (const InputError& e) {
      text_message = e.what();
    }
    EXPECT_EQ(file_message, text_message);
    EXPECT_EQ(from_file.data, from_text.data);
  }
}

// Pass: a random sparse matrix printed as a shuffled coordinate file (with
// comments and blank lines among the entries) parses to exactly that matrix,
// zeros where no entry was given.
TEST(MatrixMarketRoundTrip, CoordinateDoubleIsExact) {
  const uint64_t seed = test_seed() + 2;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {1, 9}, {11, 1}, {37, 5}};
  for (const auto& [rows, cols] : shapes) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    DenseMatrix<double> expected(rows, cols);
    std::vector<std::string> lines;
    for (int64_t j = 0; j < cols; ++j) {
      for (int64_t i = 0; i < rows; ++i) {
        if (rows * cols > 1 && rng() % 3 == 0) continue;  // leave some positions out
        expected(i, j) = random_double(rng);
        char buf[80];
        std::snprintf(buf, sizeof buf, "%lld %lld %.17g\n", static_cast<long long>(i + 1),
                      static_cast<long long>(j + 1), expected(i, j));
        lines.push_back(buf);
      }
    }
    std::shuffle(lines.begin(), lines.end(), rng);
    std::string text = kCoordReal + "% a comment\n" + std::to_string(rows) + " " + std::to_string(cols) + " " +
                       std::to_string(lines.size()) + "\n% between size and entries\n\n";
    for (size_t k = 0; k < lines.size(); ++k) {
      text += lines[k];
      if (k % 4 == 0) text += "% among entries\n";
    }
    const DenseMatrix<double> b = parse_matrix_market(text, "c.mtx");
    ASSERT_EQ(b.rows, rows);
    ASSERT_EQ(b.cols, cols);
    for (size_t k = 0; k < expected.data.size(); ++k) {
      ASSERT_EQ(bits_of(b.data[k]), bits_of(expected.data[k])) << "element " << k;
    }
  }
}

// Pass: a 0x5 matrix is written and read back as 0x5 with no data.
TEST(MatrixMarketRoundTrip, EmptyMatrix) {
  TempDir dir;
  write_matrix_market<double>(dir.file("e.mtx"), nullptr, 0, 5, 1);
  const DenseMatrix<double> b = read_matrix_market(dir.file("e.mtx"));
  EXPECT_EQ(b.rows, 0);
  EXPECT_EQ(b.cols, 5);
  EXPECT_TRUE(b.data.empty());
}

// ---------------------------------------------------------------------------
// Accepted input

// Pass: integer fields (array and coordinate) give the same numbers as doubles.
TEST(MatrixMarketReader, IntegerFieldConvertsToDouble) {
  const DenseMatrix<double> a =
      parse_matrix_market("%%MatrixMarket matrix array integer general\n2 2\n1\n-2\n+3\n1000000007\n", "i");
  EXPECT_EQ(a.data, (std::vector<double>{1.0, -2.0, 3.0, 1000000007.0}));

  const DenseMatrix<double> c = parse_matrix_market(
      "%%MatrixMarket matrix coordinate integer general\n2 3 2\n2 3 -9223372036854775807\n1 1 7\n", "i");
  EXPECT_EQ(c(1, 2), -9223372036854775807.0);  // rounded to the nearest double, as documented
  EXPECT_EQ(c(0, 0), 7.0);
  EXPECT_EQ(c(0, 1), 0.0);
}

// Pass: a symmetric array file (lower triangle by columns) expands to the full
// symmetric matrix.
TEST(MatrixMarketReader, SymmetricArrayExpands) {
  // Lower triangle of [[1 2 3] [2 4 5] [3 5 6]], column by column.
  const DenseMatrix<double> a =
      parse_matrix_market("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", "s");
  const double expected[3][3] = {{1, 2, 3}, {2, 4, 5}, {3, 5, 6}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(a(i, j), expected[i][j]) << i << "," << j;
  }
}

// Pass: a symmetric coordinate file (entries on/below the diagonal) expands to
// the full symmetric matrix, absent entries zero.
TEST(MatrixMarketReader, SymmetricCoordinateExpands) {
  const DenseMatrix<double> a = parse_matrix_market(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1.5\n3 1 -2\n2 2 4\n3 2 7\n", "s");
  const double expected[3][3] = {{1.5, 0, -2}, {0, 4, 7}, {-2, 7, 0}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(a(i, j), expected[i][j]) << i << "," << j;
  }
}

// Pass: a skew-symmetric array file (strictly lower triangle by columns)
// expands to A with A(j,i) = -A(i,j) and a zero diagonal.
TEST(MatrixMarketReader, SkewSymmetricArrayExpands) {
  const DenseMatrix<double> a =
      parse_matrix_market("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", "k");
  const double expected[3][3] = {{0, -1, -2}, {1, 0, -3}, {2, 3, 0}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(a(i, j), expected[i][j]) << i << "," << j;
  }
}

// Pass: a skew-symmetric coordinate file expands likewise; an explicit zero on
// the diagonal is accepted.
TEST(MatrixMarketReader, SkewSymmetricCoordinateExpands) {
  const DenseMatrix<double> a = parse_matrix_market(
      "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 3\n2 1 1\n3 2 3\n2 2 0\n", "k");
  const double expected[3][3] = {{0, -1, 0}, {1, 0, -3}, {0, 3, 0}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(a(i, j), expected[i][j]) << i << "," << j;
  }
}

// Pass: banner keywords in any case are accepted.
TEST(MatrixMarketReader, BannerIsCaseInsensitive) {
  const DenseMatrix<double> a = parse_matrix_market("%%matrixmarket MATRIX Array REAL General\n1 2\n3\n4\n", "b");
  EXPECT_EQ(a.data, (std::vector<double>{3.0, 4.0}));
}

// Pass: comments (also indented), blank lines, tabs, CRLF line endings and a
// missing final newline do not change the result.
TEST(MatrixMarketReader, CommentsBlankLinesAndCrlf) {
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\r\n% comment\r\n\r\n   % indented comment\r\n"
      "  2\t2   2  \r\n% between\r\n\r\n1 1 5\r\n\t \r\n2\t2\t6";
  const DenseMatrix<double> a = parse_matrix_market(text, "c");
  EXPECT_EQ(a.data, (std::vector<double>{5.0, 0.0, 0.0, 6.0}));
}

// Pass: "nan", "inf", "-Infinity" parse as non-finite values (rejected later,
// by the program, not here).
TEST(MatrixMarketReader, NanAndInfAreAccepted) {
  const DenseMatrix<double> a = parse_matrix_market(kArrayReal + "3 1\nnan\ninf\n-Infinity\n", "n");
  EXPECT_TRUE(std::isnan(a(0, 0)));
  EXPECT_EQ(a(1, 0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(a(2, 0), -std::numeric_limits<double>::infinity());
}

// Pass: values that underflow (1e-400) are accepted as zero or a subnormal,
// not reported as overflow.
TEST(MatrixMarketReader, UnderflowIsAccepted) {
  const DenseMatrix<double> a = parse_matrix_market(kArrayReal + "2 1\n1e-400\n4.9e-324\n", "u");
  EXPECT_EQ(a(0, 0), 0.0);
  EXPECT_EQ(a(1, 0), std::numeric_limits<double>::denorm_min());
}

// Pass: zero rows or columns give an empty matrix of that shape.
TEST(MatrixMarketReader, ZeroSizeIsAllowed) {
  const DenseMatrix<double> a = parse_matrix_market(kArrayReal + "0 5\n", "z");
  EXPECT_EQ(a.rows, 0);
  EXPECT_EQ(a.cols, 5);
  const DenseMatrix<double> c = parse_matrix_market(kCoordReal + "3 0 0\n", "z");
  EXPECT_EQ(c.rows, 3);
  EXPECT_EQ(c.cols, 0);
  EXPECT_TRUE(c.data.empty());
}

// ---------------------------------------------------------------------------
// Errors: each must be an InputError naming the line

// Pass: a missing file gives "<path>:1: cannot open" with the strerror text.
TEST(MatrixMarketErrors, MissingFile) {
  const std::string path = "/nonexistent-dir/none.mtx";
  EXPECT_TRUE(throws_input_error([&] { read_matrix_market(path); },
                                 {path + ":1:", "cannot open", std::strerror(ENOENT)}));
}

// Pass: a directory in place of a file gives "cannot read" on line 1.
TEST(MatrixMarketErrors, DirectoryCannotBeRead) {
  TempDir dir;
  const std::string path = dir.file("sub");
  fs::create_directory(path);
  EXPECT_TRUE(throws_input_error([&] { read_matrix_market(path); }, {path + ":1:", "cannot read"}));
}

// Pass: an empty string and an empty file both give ":1:" and "empty".
TEST(MatrixMarketErrors, EmptyFile) {
  EXPECT_TRUE(fails_with("", 1, "empty"));
  TempDir dir;
  write_text(dir.file("empty.mtx"), "");
  EXPECT_TRUE(throws_input_error([&] { read_matrix_market(dir.file("empty.mtx")); },
                                 {dir.file("empty.mtx") + ":1:", "empty"}));
}

// Pass: a first line that is not the banner (numbers, a blank line, a comment
// before the banner, a misspelt banner) is an error on line 1.
TEST(MatrixMarketErrors, FirstLineNotBanner) {
  EXPECT_TRUE(fails_with("2 2\n1\n2\n3\n4\n", 1, "%%MatrixMarket"));
  EXPECT_TRUE(fails_with("\n" + kArrayReal + "1 1\n1\n", 1, "banner"));
  EXPECT_TRUE(fails_with("% comment\n" + kArrayReal + "1 1\n1\n", 1, "banner"));
  EXPECT_TRUE(fails_with("%MatrixMarket matrix array real general\n1 1\n1\n", 1, "banner"));
}

// Pass: a banner with fewer or more than four keywords is an error on line 1.
TEST(MatrixMarketErrors, BannerWordCount) {
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix array real\n1 1\n1\n", 1, "symmetry"));
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix array real general extra\n1 1\n1\n", 1, "found 5 words"));
  EXPECT_TRUE(fails_with("%%MatrixMarket\n", 1, "banner"));
}

// Pass: an object other than matrix is named in the line-1 error.
TEST(MatrixMarketErrors, UnsupportedObject) {
  EXPECT_TRUE(fails_with("%%MatrixMarket vector array real general\n1\n1\n", 1, "object 'vector' is not supported"));
}

// Pass: a format other than array/coordinate is named in the line-1 error.
TEST(MatrixMarketErrors, UnsupportedFormat) {
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix sparse real general\n1 1\n1\n", 1, "format 'sparse' is not supported"));
}

// Pass: complex (and other unknown fields) are named as unsupported on line 1.
TEST(MatrixMarketErrors, UnsupportedField) {
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix array complex general\n1 1\n1 0\n", 1,
                         "field 'complex' is not supported (real or integer only)"));
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix array double general\n1 1\n1\n", 1, "field 'double'"));
}

// Pass: pattern matrices get their own line-1 message.
TEST(MatrixMarketErrors, PatternUnsupported) {
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1\n", 1,
                         "pattern matrices are not supported"));
}

// Pass: hermitian (and unknown symmetries) are named as unsupported on line 1.
TEST(MatrixMarketErrors, UnsupportedSymmetry) {
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix array real hermitian\n1 1\n1\n", 1,
                         "symmetry 'hermitian' is not supported"));
}

// Pass: a file that ends before the size line names its last line and "size line".
TEST(MatrixMarketErrors, MissingSizeLine) {
  EXPECT_TRUE(fails_with(kArrayReal, 1, "size line"));
  EXPECT_TRUE(fails_with(kArrayReal + "% only comments\n\n", 3, "size line"));
}

// Pass: a size line with the wrong number of integers for its format is an
// error on that line saying how many are needed.
TEST(MatrixMarketErrors, SizeLineWrongCount) {
  EXPECT_TRUE(fails_with(kArrayReal + "2 2 4\n", 2, "2 integers"));
  EXPECT_TRUE(fails_with(kArrayReal + "% c\n2\n", 3, "2 integers"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2\n1 1 1\n", 2, "3 integers"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1 1\n1 1 1\n", 2, "3 integers"));
}

// Pass: non-integer text on the size line is quoted in the error for that line.
TEST(MatrixMarketErrors, SizeLineNotInteger) {
  EXPECT_TRUE(fails_with(kArrayReal + "2 x\n", 2, "expected an integer, found 'x'"));
  EXPECT_TRUE(fails_with(kArrayReal + "2 2.0\n", 2, "'2.0'"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1e3\n", 2, "'1e3'"));
}

// Pass: a negative number on the size line is an error for that line.
TEST(MatrixMarketErrors, SizeLineNegative) {
  EXPECT_TRUE(fails_with(kArrayReal + "-1 2\n", 2, "negative"));
  EXPECT_TRUE(fails_with(kCoordReal + "\n2 2 -1\n", 3, "negative"));
}

// Pass: sizes whose element count overflows int64 (or whose numbers do not
// fit in int64 at all) are refused on the size line.
TEST(MatrixMarketErrors, SizeOverflowsInt64) {
  EXPECT_TRUE(fails_with(kArrayReal + "4294967296 4294967296\n", 2, "64-bit"));
  EXPECT_TRUE(fails_with(kArrayReal + "99999999999999999999 1\n", 2, "64-bit"));
}

// Pass: a size needing more bytes than physical memory is refused, with both
// amounts in GiB, without trying to allocate it.
TEST(MatrixMarketErrors, SizeExceedsPhysicalMemory) {
  ASSERT_GT(sysconf(_SC_PHYS_PAGES), 0);
  // 10^15 doubles = 7.3 million GiB, more than any machine this runs on.
  EXPECT_TRUE(fails_with(kArrayReal + "1000000000 1000000\n", 2, "GiB"));
  EXPECT_TRUE(fails_with(kCoordReal + "1000000000 1000000 1\n1 1 1\n", 2, "physical memory"));
  EXPECT_TRUE(fails_with(kArrayReal + "1000000000 1000000\n", 2, "7450580.6 GiB"));
}

// Pass: a symmetric or skew-symmetric size that is not square is refused.
TEST(MatrixMarketErrors, SymmetricNotSquare) {
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix array real symmetric\n2 3\n", 2, "must be square"));
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix coordinate real skew-symmetric\n3 2 0\n", 2, "must be square"));
}

// Pass: a coordinate size line declaring more entries than the matrix has
// positions is refused on that line.
TEST(MatrixMarketErrors, MoreDeclaredEntriesThanPositions) {
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 5\n", 2, "only 4 positions"));
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix coordinate real symmetric\n3 3 7\n", 2, "only 6 positions"));
}

// Pass: too few entries report "expected N entries, found K" on the last line.
TEST(MatrixMarketErrors, FewerEntriesThanDeclared) {
  EXPECT_TRUE(fails_with(kArrayReal + "2 2\n1\n2\n3\n", 5, "expected 4 entries, found 3"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 3\n1 1 1\n2 2 2\n% trailing comment\n", 5, "expected 3 entries, found 2"));
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n", 4, "expected 3 entries, found 2"));
  EXPECT_TRUE(fails_with(kArrayReal + "1 1\n", 2, "expected 1 entries, found 0"));
}

// Pass: the first entry beyond the declared count is an error on its line.
TEST(MatrixMarketErrors, MoreEntriesThanDeclared) {
  EXPECT_TRUE(fails_with(kArrayReal + "1 2\n1\n2\n3\n", 5, "more entries than the 2"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1\n1 1 1\n% c\n2 2 2\n", 5, "more entries than the 1"));
  EXPECT_TRUE(fails_with(kArrayReal + "0 3\n1\n", 3, "more entries than the 0"));
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix array real skew-symmetric\n2 2\n1\n2\n", 4, "more entries than the 1"));
}

// Pass: a coordinate index outside 1..bound names the index and the bound.
TEST(MatrixMarketErrors, IndexOutOfRange) {
  EXPECT_TRUE(fails_with(kCoordReal + "4 3 1\n5 1 1\n", 3, "row index 5 is out of range 1..4"));
  EXPECT_TRUE(fails_with(kCoordReal + "4 3 2\n1 1 1\n2 0 1\n", 4, "column index 0 is out of range 1..3"));
  EXPECT_TRUE(fails_with(kCoordReal + "4 3 1\n1 -2 1\n", 3, "column index -2 is out of range 1..3"));
  EXPECT_TRUE(fails_with(kCoordReal + "4 3 1\n99999999999999999999 1 1\n", 3, "out of range 1..4"));
}

// Pass: an entry given twice names the position and "twice" on the second line.
TEST(MatrixMarketErrors, DuplicateCoordinate) {
  EXPECT_TRUE(fails_with(kCoordReal + "3 3 3\n2 3 1\n1 1 1\n2 3 1\n", 5, "entry (2, 3) is given twice"));
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n2 1 5\n", 4, "twice"));
}

// Pass: a symmetric coordinate entry above the diagonal is an error on its line.
TEST(MatrixMarketErrors, SymmetricEntryAboveDiagonal) {
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 2 1\n", 4,
                         "entry (1, 2) is above the diagonal"));
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n1 3 1\n", 3,
                         "above the diagonal"));
}

// Pass: a nonzero (or nan) diagonal entry in a skew-symmetric coordinate file
// is an error on its line.
TEST(MatrixMarketErrors, SkewDiagonalMustBeZero) {
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", 3, "diagonal"));
  EXPECT_TRUE(fails_with("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 nan\n", 3, "diagonal"));
}

// Pass: non-numeric text where a value is expected is quoted in the error.
TEST(MatrixMarketErrors, NonNumericValue) {
  EXPECT_TRUE(fails_with(kArrayReal + "2 1\n1\nabc\n", 4, "expected a number, found 'abc'"));
  EXPECT_TRUE(fails_with(kArrayReal + "1 1\n1.0abc\n", 3, "'1.0abc'"));
  EXPECT_TRUE(fails_with(kArrayReal + "1 1\n1,5\n", 3, "expected a number"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1\n1 1 x\n", 3, "expected a number, found 'x'"));
}

// Pass: a non-integer coordinate index is quoted in the error.
TEST(MatrixMarketErrors, NonIntegerIndex) {
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1\n1.5 1 1\n", 3, "expected an integer row index, found '1.5'"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1\n1 b 1\n", 3, "column index"));
}

// Pass: extra text after a complete entry is an error naming that text.
TEST(MatrixMarketErrors, TrailingGarbage) {
  EXPECT_TRUE(fails_with(kArrayReal + "2 1\n1 2\n", 3, "unexpected text '2'"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1\n1 1 1.0 junk\n", 3, "unexpected text 'junk'"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1\n1 1 1.0 % comment\n", 3, "unexpected text"));
}

// Pass: a coordinate entry with fewer than three fields is an error on its line.
TEST(MatrixMarketErrors, EntryWithTooFewFields) {
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1\n1 1\n", 3, "found only 2 fields"));
  EXPECT_TRUE(fails_with(kCoordReal + "2 2 1\n1\n", 3, "found only 1 field"));
}

// Pass: a value beyond the double range (either sign) is an overflow error.
TEST(MatrixMarketErrors, ValueOverflowsDouble) {
  EXPECT_TRUE(fails_with(kArrayReal + "2 1\n1\n1e999\n", 4, "'1e999' overflows double"));
  EXPECT_TRUE(fails_with(kCoordReal + "1 1 1\n1 1 -1e400\n", 3, "overflows double"));
}

// Pass: an integer-field value that is fractional or beyond int64 is refused.
TEST(MatrixMarketErrors, IntegerFieldRejectsNonIntegers) {
  const std::string banner = "%%MatrixMarket matrix array integer general\n";
  EXPECT_TRUE(fails_with(banner + "2 1\n1\n1.5\n", 4, "expected an integer value, found '1.5'"));
  EXPECT_TRUE(fails_with(banner + "1 1\nnan\n", 3, "expected an integer value"));
  EXPECT_TRUE(fails_with(banner + "1 1\n99999999999999999999\n", 3, "does not fit in 64 bits"));
}

// Pass: arbitrary bytes (NUL, control characters, very long words) give a
// normal line-numbered error with the text shown safely and cut short.
TEST(MatrixMarketErrors, BinaryGarbageIsReportedSafely) {
  const std::string nul_value = kArrayReal + "1 1\n1" + std::string(1, '\0') + "2\n";
  EXPECT_TRUE(fails_with(nul_value, 3, "expected a number, found '1?2'"));
  const std::string long_word(5000, 'z');
  std::string message;
  try {
    parse_matrix_market(kArrayReal + "1 1\n" + long_word + "\n", "t.mtx");
  } catch (const InputError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("t.mtx:3:"), std::string::npos);
  EXPECT_LT(message.size(), 200u) << message;
  EXPECT_TRUE(fails_with(std::string("\x01\xff\n"), 1, "banner"));
}

// ---------------------------------------------------------------------------
// Writer failures

// Pass: writing under a missing directory throws an InputError naming the path
// and the errno text, and neither the file nor its .tmp exists afterwards.
TEST(MatrixMarketWriter, UnwritablePathThrowsAndLeavesNoFile) {
  const std::string path = "/nonexistent-dir/x.mtx";
  const double a[2] = {1.0, 2.0};
  EXPECT_TRUE(throws_input_error([&] { write_matrix_market(path, a, 2, 1, 2); },
                                 {path, std::strerror(ENOENT)}));
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

// Pass: when the final rename fails (the target is a directory) the writer
// throws and removes its .tmp file.
TEST(MatrixMarketWriter, FailedRenameLeavesNoTempFile) {
  TempDir dir;
  const std::string path = dir.file("out.mtx");
  fs::create_directory(path);
  const float a[1] = {1.0f};
  EXPECT_TRUE(throws_input_error([&] { write_matrix_market(path, a, 1, 1, 1); }, {path, "cannot write"}));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_TRUE(fs::is_directory(path));
}

// Pass: writing over an existing file replaces it whole and leaves no .tmp.
TEST(MatrixMarketWriter, ReplacesExistingFile) {
  TempDir dir;
  const std::string path = dir.file("out.mtx");
  write_text(path, "old contents that are longer than the new file will be\n");
  const double a[1] = {0.5};
  write_matrix_market(path, a, 1, 1, 1);
  const DenseMatrix<double> b = read_matrix_market(path);
  EXPECT_EQ(b.data, std::vector<double>{0.5});
  EXPECT_EQ(dir.entry_count(), 1u);
}

// Pass: negative sizes and lda < rows are refused and write nothing.
TEST(MatrixMarketWriter, RejectsBadShape) {
  TempDir dir;
  const double a[4] = {1, 2, 3, 4};
  EXPECT_TRUE(throws_input_error([&] { write_matrix_market(dir.file("a.mtx"), a, 2, 2, 1); }, {"leading dimension"}));
  EXPECT_TRUE(throws_input_error([&] { write_matrix_market(dir.file("a.mtx"), a, -1, 2, 1); }, {"cannot write"}));
  EXPECT_EQ(dir.entry_count(), 0u);
}

// Pass: when reading a bad input file fails, nothing is written: the output
// path a program would have written does not exist and the directory holds
// only the input.
TEST(MatrixMarketWriter, FailedParseCreatesNoOutput) {
  TempDir dir;
  const std::string in = dir.file("in.mtx");
  const std::string out = dir.file("out.mtx");
  write_text(in, kArrayReal + "2 2\n1\n2\noops\n4\n");
  bool threw = false;
  try {
    const DenseMatrix<double> m = read_matrix_market(in);
    write_matrix_market(out, m.data.data(), m.rows, m.cols, std::max<int64_t>(1, m.ld()));
  } catch (const InputError& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find(in + ":5:"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(threw);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".tmp"));
  EXPECT_EQ(dir.entry_count(), 1u);
}

}  // namespace
}  // namespace tiledqr
