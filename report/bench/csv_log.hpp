// The benchmark CSV: one row per case, with machine, GPU, date and commit
// in every row so a file can be read alone, and resume support (a rerun
// skips the cases a file already holds).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "bench_case.hpp"

namespace tiledqr::bench {

// The documented columns, in order.
const std::vector<std::string>& csv_columns();

struct RunContext {
  std::string machine;  // CPU model and core count
  std::string date;     // UTC, ISO 8601
  std::string commit;   // git short hash of the source
};

// The key that identifies a case for resume: every BenchCase field that
// changes what is measured.
std::string case_key(const BenchCase& c);

// Keys of the cases already in `path` (empty if it does not exist).
std::set<std::string> completed_cases(const std::string& path);

// One CSV row for a measured case (fields quoted where needed).
std::string csv_row(const RunContext& run, const BenchCase& c, const BenchOutcome& outcome);

// Median, min and max of a non-empty sample.
struct Summary {
  double median, min, max;
};
Summary summarize(std::vector<double> seconds);

}  // namespace tiledqr::bench
