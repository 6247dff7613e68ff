// The benchmark driver's CSV writer and resume logic.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "checks.hpp"
#include "csv_log.hpp"
#include "run_time_forecast.hpp"

namespace tiledqr::bench {
namespace {

BenchCase sample_case() {
  BenchCase c;
  c.stage = "fr2";
  c.backend = "lapack";
  c.tree = "binary";
  c.tile = 64;
  c.inner_block = 16;
  c.threads = 4;
  c.m = 262144;
  c.n = 64;
  return c;
}

// Pass rule: a row has one field per documented column, in order, with the
// median/min/max of the sample and GFLOP/s = (2mn² − 2n³/3)/median/1e9.
TEST(BenchCsv, RowHasTheDocumentedColumns) {
  RunContext run{"cpu model x16", "2026-11-21T00:00:00Z", "abc1234"};
  BenchOutcome outcome;
  outcome.seconds = {0.3, 0.1, 0.2};
  outcome.residual = 0.5;
  outcome.orthogonality = 0.25;
  outcome.device = "cpu";
  const std::string row = csv_row(run, sample_case(), outcome);
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t comma; (comma = row.find(',', start)) != std::string::npos; start = comma + 1)
    fields.push_back(row.substr(start, comma - start));
  fields.push_back(row.substr(start));
  ASSERT_EQ(fields.size(), csv_columns().size()) << row;
  auto field = [&](const char* name) {
    for (size_t i = 0; i < csv_columns().size(); ++i)
      if (csv_columns()[i] == name) return fields[i];
    return std::string("missing");
  };
  EXPECT_EQ(field("machine"), "cpu model x16");
  EXPECT_EQ(field("gpu"), "none");
  EXPECT_EQ(field("commit"), "abc1234");
  EXPECT_EQ(field("stage"), "fr2");
  EXPECT_EQ(field("tree"), "binary");
  EXPECT_EQ(field("repeats"), "3");
  EXPECT_EQ(field("seconds_median"), "0.2");
  EXPECT_EQ(field("seconds_min"), "0.1");
  EXPECT_EQ(field("seconds_max"), "0.3");
  const double flops = 2.0 * 262144 * 64 * 64 - 2.0 * 64 * 64 * 64 / 3;
  EXPECT_NEAR(std::stod(field("gflops")), flops / 0.2 * 1e-9, 1e-4);
  EXPECT_EQ(field("residual"), "0.5");
  EXPECT_EQ(field("batch"), "");
  // A stack: its size in the batch column, every matrix's flops in gflops.
  BenchCase stack = sample_case();
  stack.batch = 3;
  const std::string stacked = csv_row(run, stack, outcome);
  EXPECT_EQ(stacked.substr(stacked.rfind(',') + 1), "3");
  stack.mixed = true;
  EXPECT_EQ(batch_text(stack), "3 mixed");
  BenchCase ten = sample_case();
  ten.m = ten.n = 10;
  BenchCase three_tens = ten;
  three_tens.batch = 3;
  EXPECT_NEAR(case_flops(three_tens), 3 * case_flops(ten), 1e-6);
}

// Pass rule: a GPU name containing a comma is quoted, and a NaN residual
// is an empty field (gnuplot's missing value).
TEST(BenchCsv, QuotesAndMissingValues) {
  RunContext run{"cpu", "d", "c"};
  BenchOutcome outcome;
  outcome.seconds = {1.0};
  outcome.device = "GPU, with comma";
  const std::string row = csv_row(run, sample_case(), outcome);
  EXPECT_NE(row.find("\"GPU, with comma\""), std::string::npos) << row;
  EXPECT_EQ(row.substr(row.size() - 2), ",,") << row;
}

// Pass rule: completed_cases reads back exactly the keys of the rows a file
// holds (comments and header skipped), so --resume skips those and only
// those; a missing file gives no keys.
TEST(BenchCsv, ResumeReadsBackCompletedCases) {
  char path[] = "/tmp/tiledqr-csv-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  RunContext run{"cpu", "d", "c"};
  BenchOutcome outcome;
  outcome.seconds = {1.0};
  outcome.device = "cpu";
  BenchCase first = sample_case(), second = sample_case(), third = sample_case(), stack = sample_case(),
            mixed = sample_case();
  second.threads = 8;
  third.precision = "float";
  stack.batch = 100;
  mixed.batch = 100;
  mixed.mixed = true;
  {
    std::ofstream out(path);
    out << "# tiledqr_bench --preset x\n";
    for (size_t i = 0; i < csv_columns().size(); ++i) out << (i ? "," : "") << csv_columns()[i];
    out << "\n" << csv_row(run, first, outcome) << "\n" << csv_row(run, second, outcome) << "\n"
        << csv_row(run, stack, outcome) << "\n" << csv_row(run, mixed, outcome) << "\n";
  }
  const std::set<std::string> keys = completed_cases(path);
  std::remove(path);
  EXPECT_EQ(keys.size(), 4u);
  EXPECT_TRUE(keys.count(case_key(stack)));
  EXPECT_TRUE(keys.count(case_key(mixed)));
  EXPECT_TRUE(keys.count(case_key(first)));
  EXPECT_TRUE(keys.count(case_key(second)));
  EXPECT_FALSE(keys.count(case_key(third)));
  EXPECT_TRUE(completed_cases("/nonexistent/file.csv").empty());
}

// Pass rule: the median of an odd sample is its middle value, of an even
// sample the mean of the middle two.
TEST(BenchCsv, Summary) {
  const Summary odd = summarize({5, 1, 3});
  EXPECT_EQ(odd.median, 3);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 5);
  EXPECT_EQ(summarize({4, 1, 3, 2}).median, 2.5);
}

// Pass rule: a family with no measurement predicts 0; after one, a case of
// the same family is predicted by the flop ratio (2048² after 1024² in 1 s:
// 8 s), and a case differing in any knob, or tall-skinny, is not predicted.
TEST(BenchForecast, ScalesTheLastCaseOfTheFamilyByFlops) {
  RunTimeForecast forecast;
  BenchCase small = sample_case();
  small.stage = "fr3";
  small.m = small.n = 1024;
  EXPECT_EQ(forecast.predict(small), 0);
  forecast.record(small, 1.0);
  BenchCase large = small;
  large.m = large.n = 2048;
  EXPECT_NEAR(forecast.predict(large), 8.0, 1e-9);
  BenchCase other_precision = large;
  other_precision.precision = "float";
  EXPECT_EQ(forecast.predict(other_precision), 0);
  BenchCase other_tree = large;
  other_tree.tree = "greedy";
  EXPECT_EQ(forecast.predict(other_tree), 0);
  BenchCase tall = large;
  tall.m = 262144;
  tall.n = 64;
  EXPECT_EQ(forecast.predict(tall), 0);
  forecast.record(tall, 0.5);
  BenchCase taller = tall;
  taller.n = 128;
  EXPECT_NEAR(forecast.predict(taller), 0.5 * qr_flops(262144, 128) / qr_flops(262144, 64), 1e-12);
}

}  // namespace
}  // namespace tiledqr::bench
