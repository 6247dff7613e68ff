// The Matrix Market reader under hostile input, in process: the
// fuzzer's seed corpus, every input the fuzzer ever found a problem with,
// and a seeded mutation run — a small fuzzer of its own, so that every
// `meson test` (and scripts/asan) shakes the parser even where libFuzzer is
// not installed.
//
// Argument: the fuzz/ folder (meson passes it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "declared_size.hpp"
#include "errors.hpp"
#include "matrix_market.hpp"
#include "test_support.hpp"

namespace tiledqr {
namespace {

namespace fs = std::filesystem;

fs::path g_fuzz_dir;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Corpus {
  std::vector<std::string> names, texts;
};

Corpus load_corpus() {
  Corpus c;
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(g_fuzz_dir / "corpus_matrix_market"))
    paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());  // a fixed order, for reproducible mutations
  for (const fs::path& p : paths) {
    c.names.push_back(p.filename().string());
    c.texts.push_back(slurp(p));
  }
  return c;
}

// What parse_matrix_market made of a text: the shape, or the message.
struct Parsed {
  bool ok = false;
  int64_t rows = 0, cols = 0;
  std::vector<double> values;
  std::string message;
};

Parsed parse(const std::string& text, const std::string& name) {
  Parsed p;
  try {
    DenseMatrix<double> a = parse_matrix_market(text, name);
    p.ok = true;
    p.rows = a.rows;
    p.cols = a.cols;
    p.values = std::move(a.data);
  } catch (const InputError& e) {
    p.message = e.what();
  }
  return p;
}

// Pass rule: every seed-corpus file named valid-* parses into a matrix of
// its declared shape; every file named invalid-* is refused with an
// InputError whose message starts "<name>:<line>: "; there are at least 20
// files and both kinds. read_matrix_market on the file gives the same
// result or message as parse_matrix_market on its bytes (NaN compared as
// NaN).
TEST(RobustParser, SeedCorpusBehavesAsNamed) {
  const Corpus c = load_corpus();
  ASSERT_GE(c.names.size(), 20u);
  int valid = 0, invalid = 0;
  for (size_t f = 0; f < c.names.size(); ++f) {
    const fs::path path = g_fuzz_dir / "corpus_matrix_market" / c.names[f];
    SCOPED_TRACE(c.names[f]);
    const Parsed p = parse(c.texts[f], path.string());
    if (c.names[f].rfind("valid-", 0) == 0) {
      ++valid;
      EXPECT_TRUE(p.ok) << p.message;
      EXPECT_EQ(uint64_t(p.rows * p.cols), fuzzing::declared_elements(c.texts[f]));
    } else {
      ASSERT_EQ(c.names[f].rfind("invalid-", 0), 0u) << "corpus files are named valid-* or invalid-*";
      ++invalid;
      EXPECT_FALSE(p.ok);
      EXPECT_EQ(p.message.rfind(path.string() + ":", 0), 0u) << p.message;
    }
    // The file reader (getline) and the string reader agree.
    Parsed from_file;
    try {
      DenseMatrix<double> a = read_matrix_market(path.string());
      from_file.ok = true;
      from_file.rows = a.rows;
      from_file.cols = a.cols;
      from_file.values = std::move(a.data);
    } catch (const InputError& e) {
      from_file.message = e.what();
    }
    EXPECT_EQ(from_file.ok, p.ok);
    EXPECT_EQ(from_file.message, p.message);
    EXPECT_EQ(from_file.rows, p.rows);
    EXPECT_EQ(from_file.cols, p.cols);
    ASSERT_EQ(from_file.values.size(), p.values.size());
    for (size_t e = 0; e < p.values.size(); ++e) {
      const double x = from_file.values[e], y = p.values[e];
      EXPECT_TRUE(x == y || (x != x && y != y)) << "entry " << e;
    }
  }
  EXPECT_GT(valid, 0);
  EXPECT_GT(invalid, 0);
}

// Pass rule: a line longer than 1 MiB is refused, naming it, by the string
// reader as by the file reader (tested through the programs), and a long
// comment or value just under the limit is read.
TEST(RobustParser, OverlongLineRefused) {
  const std::string banner = "%%MatrixMarket matrix array real general\n";
  const Parsed long_value = parse(banner + "1 1\n" + std::string((1 << 20) + 1, '5') + "\n", "a.mtx");
  EXPECT_FALSE(long_value.ok);
  EXPECT_EQ(long_value.message.rfind("a.mtx:3: line is longer than", 0), 0u) << long_value.message;
  const Parsed long_comment =
      parse(banner + "%" + std::string((1 << 20) - 1, 'c') + "\r\n1 1\n2.5\n", "b.mtx");
  EXPECT_TRUE(long_comment.ok) << long_comment.message;
  EXPECT_EQ(long_comment.values, std::vector<double>{2.5});
}

// Inputs for which libFuzzer (scripts/fuzz-mtx) reported a problem, kept
// forever. Each entry: the bytes, and the start of the message they must now
// produce ("" when they must parse).
struct Regression {
  const char* origin;  // what the fuzzer reported, and when
  std::string bytes;
  std::string message_start;
};

// Pass rule: each regression input is parsed (or refused) as recorded,
// without a crash or a sanitizer report.
TEST(RobustParser, FuzzRegressions) {
  // None yet: scripts/fuzz-mtx has found nothing (600 s runs).
  const std::vector<Regression> regressions = {};
  if (regressions.empty()) GTEST_SKIP() << "no fuzzer finding recorded";
  for (const Regression& r : regressions) {
    SCOPED_TRACE(r.origin);
    const Parsed p = parse(r.bytes, "regression.mtx");
    if (r.message_start.empty()) {
      EXPECT_TRUE(p.ok) << p.message;
    } else {
      EXPECT_EQ(p.message.rfind(r.message_start, 0), 0u) << p.message;
    }
  }
}

// One random edit of `text`: flip a byte, insert or delete a few bytes,
// insert a token the reader treats specially, duplicate or drop a line, or
// splice in the tail of another corpus file.
std::string mutate(std::string text, const Corpus& c, std::mt19937_64& engine) {
  static const char* const tokens[] = {
      "%%MatrixMarket", "matrix", "array", "coordinate", "real", "integer", "pattern",
      "symmetric", "skew-symmetric", "general", "nan", "-inf", "1e308", "1e309", "4.9e-324",
      "0x1p3", "9223372036854775807", "9223372036854775808", "-1", "0", "\n", "\r\n", " ",
      "\t", "%"};
  constexpr size_t token_count = sizeof tokens / sizeof tokens[0];
  auto position = [&](size_t size) { return size_t(engine() % (size + 1)); };
  const unsigned kind = unsigned(engine() % 7);
  switch (kind) {
    case 0:
      if (!text.empty()) text[position(text.size() - 1)] ^= char(1u << (engine() % 8));
      break;
    case 1:
      text.insert(position(text.size()), 1 + engine() % 3, char(engine()));
      break;
    case 2:
      if (!text.empty()) text.erase(position(text.size() - 1), 1 + engine() % 4);
      break;
    case 3: {  // a token, or (one time in token_count + 1) a NUL byte
      const size_t pick = engine() % (token_count + 1);
      text.insert(position(text.size()), pick == token_count ? std::string(1, '\0') : tokens[pick]);
      break;
    }
    case 4:
    case 5: {  // duplicate (4) or drop (5) a line
      const size_t start = text.rfind('\n', position(text.size()));
      const size_t begin = start == std::string::npos ? 0 : start + 1;
      size_t end = text.find('\n', begin);
      end = end == std::string::npos ? text.size() : end + 1;
      if (kind == 4) text.insert(begin, text.substr(begin, end - begin));
      else text.erase(begin, end - begin);
      break;
    }
    default: {
      const std::string& other = c.texts[engine() % c.texts.size()];
      text = text.substr(0, position(text.size())) + other.substr(position(other.size()));
      break;
    }
  }
  return text;
}

// Pass rule: 100 000 seeded mutations of the seed corpus (1–2 edits each)
// either parse into a matrix of exactly the declared rows·cols values or
// throw InputError; nothing else (no other exception, crash or sanitizer
// report). Inputs that declare more than 10⁷ elements are skipped, as the
// fuzzer skips them (they would be allocated in full). At least 2 % of
// the mutants must still parse, or the run only tests the banner check.
TEST(RobustParser, MutatedCorpusNeverCrashes) {
  const Corpus c = load_corpus();
  ASSERT_FALSE(c.texts.empty());
  std::mt19937_64 engine = testing::make_engine(9201);
  int parsed = 0, refused = 0, skipped = 0;
  for (int trial = 0; trial < 100000; ++trial) {
    std::string text = c.texts[engine() % c.texts.size()];
    const int edits = 1 + int(engine() % 2);
    for (int e = 0; e < edits; ++e) text = mutate(text, c, engine);
    const uint64_t declared = fuzzing::declared_elements(text);
    if (declared > 10'000'000) {
      ++skipped;
      continue;
    }
    try {
      const DenseMatrix<double> a = parse_matrix_market(text, "mutant.mtx");
      ++parsed;
      ASSERT_EQ(uint64_t(a.rows * a.cols), declared) << "trial " << trial;
      ASSERT_EQ(a.data.size(), size_t(a.rows * a.cols)) << "trial " << trial;
    } catch (const InputError& e) {
      ++refused;
      ASSERT_EQ(std::string(e.what()).rfind("mutant.mtx:", 0), 0u) << e.what();
    }
  }
  std::printf("[ mutants  ] %d parsed, %d refused, %d skipped (too large)\n", parsed, refused,
              skipped);
  EXPECT_GT(parsed, 2000);
}

}  // namespace
}  // namespace tiledqr

// The fuzz/ folder is the one non-GoogleTest argument.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FUZZ_DIR [gtest options]\n", argv[0]);
    return 2;
  }
  tiledqr::g_fuzz_dir = argv[1];
  return RUN_ALL_TESTS();
}
