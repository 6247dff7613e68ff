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

// The batch column: empty for one matrix, "N" for a stack of N, "N mixed"
// for N of drawn sizes.
std::string batch_text(const BenchCase& c);
// The flops of a case's matrices (the gflops column's numerator).
double case_flops(const BenchCase& c);

struct RunContext {
  std::string machine;  // CPU model and core count
  std::string date;     // UTC, ISO 8601
  std::string commit;   // git short hash of the source
};

// The key that identifies a case for resume: every BenchCase field that
// changes what is measured.
std::string case_key(const BenchCase& c);

// The header line: the columns joined by commas.
std::string csv_header();

// What --resume finds in an existing CSV.
struct ResumeState {
  bool exists = false;         // the file is there (and was read)
  bool has_header = false;     // it holds this driver's header line
  bool needs_newline = false;  // its last line lacks a newline: append one before a row
  std::set<std::string> done;  // keys of the cases it holds
};

// Reads `path` for --resume; an absent file gives exists = false. Throws
// InputError, naming the path and line, for a file that cannot be read, a
// first non-comment line other than this driver's header (a foreign CSV),
// and a row with the wrong number of fields or a malformed number.
ResumeState read_for_resume(const std::string& path);

// Keys of the cases already in `path` (empty if it does not exist); throws
// as read_for_resume.
std::set<std::string> completed_cases(const std::string& path);

// One CSV row for a measured case (fields quoted where needed).
std::string csv_row(const RunContext& run, const BenchCase& c, const BenchOutcome& outcome);

// Median, min and max of a non-empty sample.
struct Summary {
  double median, min, max;
};
Summary summarize(std::vector<double> seconds);

}  // namespace tiledqr::bench
