// The benchmark CSV: rows, resume keys and the checks --resume makes.
#include "csv_log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "checks.hpp"
#include "errors.hpp"
#include "strict_numbers.hpp"

namespace tiledqr::bench {
namespace {

std::string number(double x) {
  if (!std::isfinite(x)) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

std::string quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Splits one CSV line, honouring double quotes.
std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> fields(1);
  bool in_quotes = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      in_quotes = !in_quotes;
    } else if (c == ',' && !in_quotes) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace

std::string batch_text(const BenchCase& c) {
  if (c.batch == 0) return "";
  return std::to_string(c.batch) + (c.mixed ? " mixed" : "");
}

double case_flops(const BenchCase& c) {
  double flops = 0;
  for (const auto& [m, n] : batch_shapes(c)) flops += qr_flops(m, n);
  return flops;
}

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = {
      "machine", "gpu", "date", "commit", "stage", "backend", "tree", "tile", "inner_block", "threads",
      "executors_per_sm", "weight", "m", "n", "precision", "repeats", "seconds_median",
      "seconds_min", "seconds_max", "gflops", "residual", "orthogonality", "batch"};
  return columns;
}

std::string case_key(const BenchCase& c) {
  std::ostringstream key;
  key << c.stage << '|' << c.backend << '|' << c.tree << '|' << c.tile << '|' << c.inner_block << '|' << c.threads << '|'
      << c.executors_per_sm << '|' << number(c.double_task_weight) << '|' << c.m << '|' << c.n << '|'
      << batch_text(c)
      << '|' << c.precision;
  return key.str();
}

std::string csv_header() {
  std::string line;
  for (const std::string& column : csv_columns()) line += (line.empty() ? "" : ",") + column;
  return line;
}

ResumeState read_for_resume(const std::string& path) {
  ResumeState state;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (::access(path.c_str(), F_OK) != 0) return state;
    throw InputError(path + ": cannot read for --resume: " + std::strerror(errno));
  }
  std::ostringstream whole;
  whole << in.rdbuf();
  const std::string text = whole.str();
  if (in.bad()) throw InputError(path + ": cannot read for --resume");
  state.exists = true;
  state.needs_newline = !text.empty() && text.back() != '\n';
  const auto& columns = csv_columns();
  auto index = [&](const char* name) {
    return size_t(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = path + ":" + std::to_string(number);
    if (!state.has_header) {
      if (line != csv_header())
        throw InputError(where + ": not a tiledqr_bench CSV (its header is not this driver's); --resume "
                         "appends only to a file this driver wrote: give another --out");
      state.has_header = true;
      continue;
    }
    const std::vector<std::string> f = split_row(line);
    if (f.size() != columns.size())
      throw InputError(where + ": a row has " + std::to_string(f.size()) + " fields, the header " +
                       std::to_string(columns.size()) + "; fix or delete the line, then --resume");
    auto integer = [&](const char* name, int64_t min, int64_t max) {
      return parse_integer(f[index(name)], where + ": column " + name, min, max);
    };
    BenchCase c;
    c.stage = f[index("stage")];
    c.backend = f[index("backend")];
    c.tree = f[index("tree")];
    const int64_t int_max = std::numeric_limits<int>::max();
    c.tile = int(integer("tile", 0, int_max));
    c.inner_block = int(integer("inner_block", 0, int_max));
    c.threads = int(integer("threads", 0, int_max));
    c.executors_per_sm = int(integer("executors_per_sm", 0, int_max));
    c.double_task_weight = parse_real(f[index("weight")], where + ": column weight", 0, false);
    c.m = integer("m", 1, std::numeric_limits<int64_t>::max());
    c.n = integer("n", 1, std::numeric_limits<int64_t>::max());
    c.precision = f[index("precision")];
    const std::string batch = f[index("batch")];
    if (!batch.empty()) {
      c.mixed = batch.size() > 6 && batch.compare(batch.size() - 6, 6, " mixed") == 0;
      c.batch = parse_integer(c.mixed ? batch.substr(0, batch.size() - 6) : batch, where + ": column batch", 1,
                              std::numeric_limits<int64_t>::max());
    }
    state.done.insert(case_key(c));
  }
  return state;
}

std::set<std::string> completed_cases(const std::string& path) { return read_for_resume(path).done; }

Summary summarize(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  const double median = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  return {median, seconds.front(), seconds.back()};
}

std::string csv_row(const RunContext& run, const BenchCase& c, const BenchOutcome& outcome) {
  const Summary s = summarize(outcome.seconds);
  const bool on_gpu = outcome.device != "cpu";
  std::ostringstream row;
  row << quoted(run.machine) << ',' << quoted(on_gpu ? outcome.device : "none") << ',' << run.date
      << ',' << run.commit << ',' << c.stage << ',' << c.backend << ',' << c.tree << ','
      << (outcome.chosen_tile ? outcome.chosen_tile : c.tile) << ','
      << (outcome.chosen_tile ? outcome.chosen_inner_block : c.inner_block) << ',' << c.threads << ',' << c.executors_per_sm << ',' << number(c.double_task_weight)
      << ',' << c.m << ',' << c.n << ',' << c.precision << ',' << outcome.seconds.size() << ','
      << number(s.median) << ',' << number(s.min) << ',' << number(s.max) << ','
      << number(case_flops(c) / s.median * 1e-9) << ',' << number(outcome.residual) << ','
      << number(outcome.orthogonality) << ',' << batch_text(c);
  return row.str();
}

}  // namespace tiledqr::bench
