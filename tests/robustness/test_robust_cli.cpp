// Bad input through the stage programs: fr1_serial and
// fr2_threaded run as child processes on malformed Matrix Market files,
// absurd sizes, non-finite values and unwritable outputs. Every case checks
// the exit code, that stderr names the problem (file and line for Matrix
// Market errors), that no output file appears, and that the program did not
// die of a signal or an uncaught exception.
//
// Arguments: the paths of fr1_serial and fr2_threaded (meson passes them).
// With TILEDQR_ROBUSTNESS_CSV=<path> every case is also written as a row
// `class,stage,input,expected,outcome` of that CSV, holding the real exit
// code and message (scripts/robustness-table writes
// report/data/robustness.csv this way).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace tiledqr {
namespace {

std::string g_fr1_program, g_fr2_program;

struct Stage {
  const char* name;
  const std::string* program;
};
const Stage kStages[] = {{"fr1_serial", &g_fr1_program}, {"fr2_threaded", &g_fr2_program}};

// ---------------------------------------------------------------------------
// One bad-input case and its checks

struct BadInput {
  std::string what;                  // class of input (CSV column 1)
  std::string file;                  // written into the scratch directory, "" for none
  std::string bytes;                 // its contents
  std::string args;                  // command line, "{file}" is the file's name
  std::vector<std::string> needles;  // stderr must contain each
  int exit = 2;
};

// `exit 2, one-line message with "a" and "b", no output file`
std::string expected_text(const BadInput& c) {
  std::string text = "exit " + std::to_string(c.exit);
  text += c.exit == 2 ? ", one-line message with " : ", message with ";
  for (size_t k = 0; k < c.needles.size(); ++k)
    text += (k == 0 ? "\"" : k + 1 == c.needles.size() ? " and \"" : ", \"") + c.needles[k] + "\"";
  return c.exit == 0 ? text : text + ", no output file";
}

std::string replace_file(std::string args, const std::string& file) {
  const std::string key = "{file}";
  for (size_t at; (at = args.find(key)) != std::string::npos;) args.replace(at, key.size(), file);
  return args;
}

// Pass rule: the program exits (no signal) with the expected code; stderr
// contains every needle and no trace of an uncaught exception; for exit 2,
// stderr is one line that starts with the program's name, stdout is empty,
// and neither the requested outputs nor their temporary files exist.
void expect_refused(const Stage& stage, const BadInput& c) {
  ScratchDir dir;
  if (!c.file.empty()) dir.write(c.file, c.bytes);
  std::vector<std::string> args = split_words(replace_file(c.args, c.file));
  for (const char* extra : {"--output-r", "r.mtx", "--output-q", "q.mtx"}) args.push_back(extra);
  const Outcome o = run_in(dir.path(), *stage.program, args);
  const std::string input = c.file.empty() ? c.args : c.file;
  csv_row(c.what, stage.name, input, expected_text(c), o);

  SCOPED_TRACE(std::string(stage.name) + " " + c.what + " (" + input + "); stderr: " + o.err);
  ASSERT_TRUE(o.exited) << "killed by signal " << o.code;
  EXPECT_EQ(o.code, c.exit);
  for (const std::string& needle : c.needles)
    EXPECT_NE(o.err.find(needle), std::string::npos) << "stderr lacks '" << needle << "'";
  for (const char* trace : {"terminate called", "what():", "bad_alloc", "Aborted"})
    EXPECT_EQ(o.err.find(trace), std::string::npos) << "stderr shows '" << trace << "'";
  if (c.exit == 2) {
    EXPECT_EQ(o.err.find(std::string(stage.name) + ": "), 0u);
    const size_t newline = o.err.find('\n');
    const bool cli11_hint = o.err.find("Run with --help") != std::string::npos;
    if (!cli11_hint) {
      EXPECT_EQ(newline + 1, o.err.size()) << "message is not one line";
    }
    EXPECT_TRUE(o.out.empty()) << "stdout: " << o.out;
  }
  if (c.exit != 0) {
    for (const char* output : {"r.mtx", "q.mtx", "r.mtx.tmp", "q.mtx.tmp"})
      EXPECT_FALSE(fs::exists(dir.path() / output)) << output << " was written";
  }
}

void expect_all_refused(const std::vector<BadInput>& cases) {
  for (const Stage& stage : kStages)
    for (const BadInput& c : cases) expect_refused(stage, c);
}

const std::string kArrayBanner = "%%MatrixMarket matrix array real general\n";
const std::string kCoordinateBanner = "%%MatrixMarket matrix coordinate real general\n";

// ---------------------------------------------------------------------------
// Matrix Market files

// Pass rule (every case, both programs): see expect_refused; the message
// names the file and the line ("name.mtx:<line>:") and the problem.
TEST(RobustMatrixMarket, MalformedFilesExit2NamingTheLine) {
  const std::string in = "--input {file}";
  const std::vector<BadInput> cases = {
      {"empty file", "empty.mtx", "", in, {"empty.mtx:1:", "empty"}},
      {"no banner", "no_banner.mtx", "2 2\n1\n2\n3\n4\n", in, {"no_banner.mtx:1:", "%%MatrixMarket"}},
      {"banner missing a word", "short_banner.mtx",
       "%%MatrixMarket matrix array real\n1 1\n1\n", in, {"short_banner.mtx:1:", "banner"}},
      {"object not matrix", "vector.mtx", "%%MatrixMarket vector array real general\n1 1\n1\n", in,
       {"vector.mtx:1:", "'vector'"}},
      {"unknown format", "dense.mtx", "%%MatrixMarket matrix dense real general\n1 1\n1\n", in,
       {"dense.mtx:1:", "'dense'"}},
      {"complex field", "complex.mtx", "%%MatrixMarket matrix array complex general\n1 1\n1 2\n", in,
       {"complex.mtx:1:", "'complex' is not supported"}},
      {"pattern field", "pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1\n",
       in, {"pattern.mtx:1:", "pattern matrices are not supported"}},
      {"hermitian symmetry", "hermitian.mtx",
       "%%MatrixMarket matrix array real hermitian\n1 1\n1\n", in, {"hermitian.mtx:1:", "'hermitian'"}},
      {"size line missing (end of file)", "no_size.mtx", kArrayBanner + "% only a comment\n", in,
       {"no_size.mtx:2:", "before the size line"}},
      {"size line missing (values instead)", "values_first.mtx", kArrayBanner + "1.5\n2.5\n", in,
       {"values_first.mtx:2:", "size line"}},
      {"negative dimension", "negative.mtx", kArrayBanner + "-3 2\n", in,
       {"negative.mtx:2:", "negative number -3"}},
      {"dimension not an integer", "real_size.mtx", kArrayBanner + "2.5 2\n", in,
       {"real_size.mtx:2:", "expected an integer"}},
      {"dimension beyond 64 bits", "huge_number.mtx", kArrayBanner + "99999999999999999999 2\n", in,
       {"huge_number.mtx:2:", "64-bit"}},
      {"zero dimension", "zero_rows.mtx", kArrayBanner + "0 3\n", in, {"zero_rows.mtx", "at least 1x1"}},
      {"absurd size (array)", "absurd.mtx", kArrayBanner + "3000000000 3000000000\n", in,
       {"absurd.mtx:2:", "GiB", "physical memory"}},
      {"absurd size (coordinate)", "absurd_coo.mtx", kCoordinateBanner + "3000000000 3000000000 1\n1 1 1\n",
       in, {"absurd_coo.mtx:2:", "GiB", "physical memory"}},
      {"element count overflows 64 bits", "overflow.mtx", kArrayBanner + "9999999999 9999999999\n", in,
       {"overflow.mtx:2:", "64-bit"}},
      {"more entries declared than positions", "declared.mtx", kCoordinateBanner + "2 2 5\n", in,
       {"declared.mtx:2:", "declares 5 entries"}},
      {"fewer entries than declared (array)", "few_array.mtx", kArrayBanner + "2 2\n1\n2\n3\n", in,
       {"few_array.mtx:5:", "expected 4 entries, found 3"}},
      {"fewer entries than declared (coordinate)", "few_coo.mtx",
       kCoordinateBanner + "2 2 3\n1 1 1\n2 2 2\n", in, {"few_coo.mtx:4:", "expected 3 entries, found 2"}},
      {"more entries than declared (array)", "many_array.mtx", kArrayBanner + "2 2\n1\n2\n3\n4\n5\n",
       in, {"many_array.mtx:7:", "more entries than the 4"}},
      {"more entries than declared (coordinate)", "many_coo.mtx",
       kCoordinateBanner + "2 2 1\n1 1 1\n2 2 2\n", in, {"many_coo.mtx:4:", "more entries than the 1"}},
      {"row index out of range", "row_range.mtx", kCoordinateBanner + "2 2 2\n1 1 1\n3 1 2\n", in,
       {"row_range.mtx:4:", "row index 3 is out of range 1..2"}},
      {"column index zero", "col_zero.mtx", kCoordinateBanner + "2 2 1\n1 0 1\n", in,
       {"col_zero.mtx:3:", "column index 0 is out of range 1..2"}},
      {"duplicate coordinates", "duplicate.mtx", kCoordinateBanner + "2 2 2\n1 2 1\n1 2 5\n", in,
       {"duplicate.mtx:4:", "entry (1, 2) is given twice"}},
      {"non-numeric value", "word.mtx", kArrayBanner + "1 2\n1.0\nthree\n", in,
       {"word.mtx:4:", "expected a number, found 'three'"}},
      {"text after a number", "suffix.mtx", kArrayBanner + "1 1\n1.5x\n", in,
       {"suffix.mtx:3:", "'1.5x'"}},
      {"non-numeric index", "index_word.mtx", kCoordinateBanner + "2 2 1\none 1 1.0\n", in,
       {"index_word.mtx:3:", "row index"}},
      {"value overflows double", "overflow_value.mtx", kArrayBanner + "1 1\n1e999\n", in,
       {"overflow_value.mtx:3:", "overflows double"}},
      {"real value in an integer file", "int_real.mtx",
       "%%MatrixMarket matrix array integer general\n1 1\n1.5\n", in,
       {"int_real.mtx:3:", "expected an integer value"}},
      {"extra field on an entry", "extra.mtx", kCoordinateBanner + "1 1 1\n1 1 1.0 7\n", in,
       {"extra.mtx:3:", "unexpected text '7'"}},
      {"symmetric but not square", "sym_rect.mtx", "%%MatrixMarket matrix array real symmetric\n2 3\n",
       in, {"sym_rect.mtx:2:", "must be square"}},
      {"symmetric entry above the diagonal", "sym_upper.mtx",
       "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1.0\n", in,
       {"sym_upper.mtx:3:", "above the diagonal"}},
      {"skew-symmetric non-zero diagonal", "skew_diag.mtx",
       "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1.0\n", in,
       {"skew_diag.mtx:3:", "must be zero"}},
      {"binary garbage", "garbage.mtx", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\xff\xfe\n\x01", 14), in,
       {"garbage.mtx:1:", "%%MatrixMarket"}},
      {"NUL byte in a value", "nul.mtx", kArrayBanner + "1 1\n1" + std::string(1, '\0') + "5\n", in,
       {"nul.mtx:3:", "expected a number"}},
      {"line longer than 1 MiB", "long_line.mtx", kArrayBanner + "1 1\n" + std::string(3 << 20, '7') + "\n",
       in, {"long_line.mtx:3:", "line is longer than"}},
      {"endless line (/dev/zero)", "", "", "--input /dev/zero", {"/dev/zero:1:", "line is longer than"}},
      {"missing file", "", "", "--input missing.mtx", {"missing.mtx:1:", "cannot open"}},
      {"directory instead of a file", "", "", "--input .", {".:1:", "cannot read"}},
  };
  expect_all_refused(cases);
}

// Pass rule: the integer field is converted to double (README), so an
// integer file and the same values written as reals give byte-identical R;
// a symmetric file gives the R of its expanded general form; CRLF line
// endings and mixed-case keywords are read. Each exits 0 on both programs.
TEST(RobustMatrixMarket, ValidVariantsFactorLikeTheirGeneralForm) {
  struct Pair {
    std::string what, file, bytes, reference_bytes;
  };
  const std::string real_3x2 = kArrayBanner + "3 2\n4\n-7\n2\n12\n5\n-3\n";
  const std::vector<Pair> pairs = {
      {"integer field", "integer.mtx", "%%MatrixMarket matrix array integer general\n3 2\n4\n-7\n2\n12\n5\n-3\n",
       real_3x2},
      {"symmetric coordinate file", "symmetric.mtx",
       "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 4\n3 3 1.5\n",
       kArrayBanner + "3 3\n2\n-1\n0\n-1\n0\n4\n0\n4\n1.5\n"},
      {"CRLF line endings, mixed case", "crlf.mtx",
       "%%MatrixMarket MATRIX Array REAL General\r\n% comment\r\n\r\n3 2\r\n4\r\n-7\r\n2\r\n12\r\n5\r\n-3\r\n",
       real_3x2},
  };
  for (const Stage& stage : kStages) {
    for (const Pair& p : pairs) {
      ScratchDir dir;
      dir.write(p.file, p.bytes);
      dir.write("reference.mtx", p.reference_bytes);
      const Outcome o = run_in(dir.path(), *stage.program, {"--input", p.file, "--output-r", "r.mtx"});
      const Outcome ref =
          run_in(dir.path(), *stage.program, {"--input", "reference.mtx", "--output-r", "r_ref.mtx"});
      const bool same = fs::exists(dir.path() / "r.mtx") &&
                        slurp(dir.path() / "r.mtx") == slurp(dir.path() / "r_ref.mtx");
      Outcome recorded = o;
      if (o.exited && o.code == 0) {
        recorded.err.clear();
        recorded.out = same ? "R identical to that of the general real file" : "R differs";
      }
      csv_row(p.what, stage.name, p.file, "exit 0, R identical to that of the general real file",
              recorded);
      SCOPED_TRACE(std::string(stage.name) + " " + p.what + "; stderr: " + o.err);
      ASSERT_TRUE(o.exited && ref.exited);
      EXPECT_EQ(o.code, 0);
      EXPECT_EQ(ref.code, 0);
      EXPECT_TRUE(same);
    }
  }
}

// ---------------------------------------------------------------------------
// Sizes

// Pass rule: sizes that cannot be stored exit 2 with the bytes needed and
// available (or the overflow named), never a bad_alloc or a signal; integer
// options that are not decimal or do not fit in 64 bits exit 2 naming the
// option (CLI11 would otherwise read 010 as 8 or clamp silently).
TEST(RobustSizes, AbsurdSizesExit2WithBytesNeeded) {
  const std::vector<BadInput> cases = {
      {"absurd size --m/--n", "", "", "--m 3000000000 --n 3000000000",
       {"needs", "GiB", "available"}},
      {"size beyond memory --m/--n", "", "", "--m 100000000 --n 100000", {"needs", "GiB", "available"}},
      {"m*n overflows 64 bits", "", "", "--m 5000000000 --n 5000000000", {"overflows 64-bit"}},
      {"m*n overflows 64 bits (int64 max)", "", "", "--m 9223372036854775807 --n 9223372036854775807",
       {"overflows 64-bit"}},
      {"--m beyond 64 bits", "", "", "--m 99999999999999999999 --n 2", {"--m", "64 bits"}},
      {"--seed beyond 64 bits", "", "", "--m 4 --n 4 --seed 99999999999999999999999",
       {"--seed", "64 bits"}},
      {"negative --seed", "", "", "--m 4 --n 4 --seed -1", {"--seed", "decimal integer >= 0"}},
      {"non-decimal text in --m", "", "", "--m 10x --n 4", {"--m", "not a decimal integer"}},
      {"hexadecimal --tile", "", "", "--m 4 --n 4 --tile 0x10", {"--tile", "not a decimal integer"}},
      {"--tile beyond int", "", "", "--m 4 --n 4 --tile 2147483648", {"--tile"}},
      {"tile storage beyond memory", "", "", "--m 1000000 --n 2 --tile 500000",
       {"tiles", "available"}},
      {"negative --m", "", "", "--m -5 --n 3", {"--m must be >= 1"}},
  };
  expect_all_refused(cases);
}

// Pass rule: a leading zero is decimal, not octal: --m 010 factors a
// 10-row matrix (the first line of stdout says "10 x 3").
TEST(RobustSizes, LeadingZeroIsDecimal) {
  for (const Stage& stage : kStages) {
    ScratchDir dir;
    const Outcome o = run_in(dir.path(), *stage.program, {"--m", "010", "--n", "3"});
    csv_row("leading zero in --m", stage.name, "--m 010 --n 3", "exit 0, a 10 x 3 matrix", o);
    ASSERT_TRUE(o.exited);
    EXPECT_EQ(o.code, 0) << o.err;
    EXPECT_NE(first_line(o.out).find(": 10 x 3 double"), std::string::npos) << o.out;
  }
}

// Pass rule: asking fr2_threaded for more threads than the system can start
// exits 0 (it could) or 2 with one line naming the refusal — never abort.
// Skipped in an AddressSanitizer build (scripts/asan): there ASan's own
// shadow mapping for the thread stacks fails first and aborts by design.
TEST(RobustSizes, TooManyThreadsNeverAborts) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan aborts on its own when 10^5 thread stacks exhaust its mappings";
#endif
  ScratchDir dir;
  const Outcome o = run_in(dir.path(), g_fr2_program, {"--m", "10", "--n", "10", "--threads", "100000"});
  csv_row("--threads beyond the system's limit", "fr2_threaded", "--m 10 --n 10 --threads 100000",
          "exit 0 or exit 2 with the system's message", o);
  ASSERT_TRUE(o.exited) << "killed by signal " << o.code << "; stderr: " << o.err;
  EXPECT_TRUE(o.code == 0 || o.code == 2) << o.code;
  if (o.code == 2) {
    EXPECT_NE(o.err.find("fr2_threaded: error:"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("terminate"), std::string::npos) << o.err;
  }
}

// ---------------------------------------------------------------------------
// NaN and Inf

// Pass rule: NaN or Inf in A or in B exits 2 naming the first non-finite
// entry in column-major order (1-based) and --allow-nonfinite, and writes
// nothing.
TEST(RobustNonFinite, RefusedNamingTheFirstPosition) {
  const std::string in = "--input {file}";
  const std::vector<BadInput> cases = {
      {"NaN entry", "nan.mtx", kArrayBanner + "3 2\n1\n2\n3\n4\nnan\n6\n", in,
       {"nan.mtx", "non-finite", "(2, 2)", "--allow-nonfinite"}},
      {"+Inf entry (coordinate)", "inf.mtx", kCoordinateBanner + "3 3 2\n1 1 1.0\n3 2 inf\n", in,
       {"inf.mtx", "non-finite", "(3, 2)"}},
      {"-Inf entry", "minus_inf.mtx", kArrayBanner + "2 2\n1\n-inf\n3\n4\n", in, {"(2, 1)"}},
      {"NaN and Inf: the first in column order", "first.mtx",
       kCoordinateBanner + "3 3 3\n1 3 nan\n3 1 inf\n2 2 1\n", in, {"(3, 1)"}},
      {"value that overflows float", "float_overflow.mtx", kArrayBanner + "1 2\n1\n1e39\n",
       "--input {file} --precision float", {"non-finite", "(1, 2)"}},
  };
  expect_all_refused(cases);

  // The right-hand side is checked the same way.
  for (const Stage& stage : kStages) {
    ScratchDir dir;
    dir.write("a.mtx", kArrayBanner + "2 2\n1\n2\n3\n5\n");
    dir.write("b.mtx", kArrayBanner + "2 1\n1\nnan\n");
    const Outcome o = run_in(dir.path(), *stage.program,
                             {"--input", "a.mtx", "--rhs", "b.mtx", "--output-x", "x.mtx"});
    csv_row("NaN in the right-hand side", stage.name, "b.mtx",
            "exit 2, message with \"b.mtx\" and \"(2, 1)\", no output file", o);
    ASSERT_TRUE(o.exited);
    EXPECT_EQ(o.code, 2);
    EXPECT_NE(o.err.find("b.mtx"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("(2, 1)"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(dir.path() / "x.mtx"));
  }
}

// Pass rule: with --allow-nonfinite the programs factor NaN/Inf input and
// exit 0 (writing R, which then holds NaN), or 3 with --check (no output);
// never a signal.
TEST(RobustNonFinite, AllowNonfiniteFactorsWithoutCrashing) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"nan.mtx", kArrayBanner + "3 2\n1\n2\n3\n4\nnan\n6\n"},
      {"inf.mtx", kCoordinateBanner + "40 30 3\n1 1 1.0\n3 2 inf\n40 30 -inf\n"},
  };
  for (const Stage& stage : kStages) {
    for (const auto& [file, bytes] : files) {
      ScratchDir dir;
      dir.write(file, bytes);
      const Outcome o = run_in(dir.path(), *stage.program,
                               {"--input", file, "--allow-nonfinite", "--tile", "8", "--output-r", "r.mtx"});
      csv_row("non-finite with --allow-nonfinite", stage.name, file, "exit 0, R written", o);
      SCOPED_TRACE(std::string(stage.name) + " " + file + "; stderr: " + o.err);
      ASSERT_TRUE(o.exited) << "signal " << o.code;
      EXPECT_EQ(o.code, 0);
      EXPECT_TRUE(fs::exists(dir.path() / "r.mtx"));

      const Outcome checked = run_in(
          dir.path(), *stage.program,
          {"--input", file, "--allow-nonfinite", "--check", "--tile", "8", "--output-q", "q.mtx"});
      csv_row("non-finite with --allow-nonfinite --check", stage.name, file,
              "exit 3, no output file", checked);
      ASSERT_TRUE(checked.exited) << "signal " << checked.code;
      EXPECT_EQ(checked.code, 3);
      EXPECT_NE(checked.err.find("check failed"), std::string::npos);
      EXPECT_FALSE(fs::exists(dir.path() / "q.mtx"));
    }
  }
}

// Pass rule: entries within a factor 2 of DBL_MAX whose column norms
// exceed DBL_MAX (3.1e308 for the first) give an R that cannot be
// represented, never silently: the run exits 3 naming R's first non-finite
// entry, (1, 1), with or without --check, and writes no output (it
// printed residual nan with exit 0 before).
TEST(RobustNonFinite, OverflowingFactorisationFailsTheCheck) {
  const std::string bytes = kArrayBanner + "4 3\n1.5e308\n-1.6e308\n1.7e308\n1.4e308\n" +
                            "1e308\n1.2e308\n-1.3e308\n1.1e308\n1.5e308\n1e308\n1e308\n-1e308\n";
  for (const Stage& stage : kStages) {
    ScratchDir dir;
    dir.write("near_max.mtx", bytes);
    const Outcome plain = run_in(dir.path(), *stage.program, {"--input", "near_max.mtx", "--output-r", "r.mtx"});
    csv_row("entries near DBL_MAX (R overflows)", stage.name, "near_max.mtx",
            "exit 3 naming R's first non-finite entry, no output file", plain);
    ASSERT_TRUE(plain.exited);
    EXPECT_EQ(plain.code, 3) << plain.err;
    EXPECT_NE(plain.err.find("non-finite entry -inf at (1, 1)"), std::string::npos) << plain.err;
    EXPECT_FALSE(fs::exists(dir.path() / "r.mtx"));

    const Outcome checked = run_in(dir.path(), *stage.program,
                                   {"--input", "near_max.mtx", "--check", "--output-r", "r.mtx"});
    csv_row("entries near DBL_MAX, --check", stage.name, "near_max.mtx",
            "exit 3 naming R's first non-finite entry, no output file", checked);
    ASSERT_TRUE(checked.exited);
    EXPECT_EQ(checked.code, 3) << checked.err;
    EXPECT_NE(checked.err.find("non-finite entry"), std::string::npos) << checked.err;
    EXPECT_FALSE(fs::exists(dir.path() / "r.mtx"));
  }
}

// ---------------------------------------------------------------------------
// Outputs

// Pass rule: an output that cannot be written exits 2 naming the path, and
// leaves no file or temporary file behind.
TEST(RobustCli, UnwritableOutputsExit2) {
  for (const Stage& stage : kStages) {
    ScratchDir dir;
    const std::vector<std::vector<std::string>> commands = {
        {"--m", "6", "--n", "4", "--output-r", "no_such_dir/r.mtx"},
        {"--m", "6", "--n", "4", "--output-q", "no_such_dir/q.mtx"},
        {"--m", "6", "--n", "4", "--trace", "no_such_dir/t.csv"},
    };
    for (const auto& args : commands) {
      const Outcome o = run_in(dir.path(), *stage.program, args);
      csv_row("output in a missing directory", stage.name, args[4] + " " + args[5],
              "exit 2, message with the path", o);
      SCOPED_TRACE(std::string(stage.name) + " " + args[4] + "; stderr: " + o.err);
      ASSERT_TRUE(o.exited);
      EXPECT_EQ(o.code, 2);
      EXPECT_NE(o.err.find("no_such_dir/"), std::string::npos);
    }
    // The directory is still empty: nothing partial was left.
    EXPECT_TRUE(fs::is_empty(dir.path()));
  }
}

}  // namespace
}  // namespace tiledqr

// The program paths are the two non-GoogleTest arguments.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FR1_SERIAL FR2_THREADED [gtest options]\n", argv[0]);
    return 2;
  }
  tiledqr::g_fr1_program = std::filesystem::absolute(argv[1]).string();
  tiledqr::g_fr2_program = std::filesystem::absolute(argv[2]).string();
  if (!tiledqr::open_robustness_csv()) return 2;
  const int result = RUN_ALL_TESTS();
  if (tiledqr::g_csv != nullptr) std::fclose(tiledqr::g_csv);
  return result;
}
