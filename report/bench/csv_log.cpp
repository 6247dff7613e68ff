#include "csv_log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "checks.hpp"

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

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = {
      "machine", "gpu", "date", "commit", "stage", "backend", "tree", "tile", "inner_block", "threads",
      "executors_per_sm", "weight", "m", "n", "precision", "repeats", "seconds_median",
      "seconds_min", "seconds_max", "gflops", "residual", "orthogonality"};
  return columns;
}

std::string case_key(const BenchCase& c) {
  std::ostringstream key;
  key << c.stage << '|' << c.backend << '|' << c.tree << '|' << c.tile << '|' << c.inner_block << '|' << c.threads << '|'
      << c.executors_per_sm << '|' << number(c.double_task_weight) << '|' << c.m << '|' << c.n
      << '|' << c.precision;
  return key.str();
}

std::set<std::string> completed_cases(const std::string& path) {
  std::set<std::string> keys;
  std::ifstream in(path);
  std::string line;
  const auto& columns = csv_columns();
  auto index = [&](const char* name) {
    return size_t(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  bool header_seen = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header_seen) {
      header_seen = true;
      continue;
    }
    const std::vector<std::string> f = split_row(line);
    if (f.size() != columns.size()) continue;
    BenchCase c;
    c.stage = f[index("stage")];
    c.backend = f[index("backend")];
    c.tree = f[index("tree")];
    c.tile = std::stoi(f[index("tile")]);
    c.inner_block = std::stoi(f[index("inner_block")]);
    c.threads = std::stoi(f[index("threads")]);
    c.executors_per_sm = std::stoi(f[index("executors_per_sm")]);
    c.double_task_weight = std::stod(f[index("weight")]);
    c.m = std::stoll(f[index("m")]);
    c.n = std::stoll(f[index("n")]);
    c.precision = f[index("precision")];
    keys.insert(case_key(c));
  }
  return keys;
}

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
      << ',' << run.commit << ',' << c.stage << ',' << c.backend << ',' << c.tree << ',' << c.tile
      << ',' << c.inner_block << ',' << c.threads << ',' << c.executors_per_sm << ',' << number(c.double_task_weight)
      << ',' << c.m << ',' << c.n << ',' << c.precision << ',' << outcome.seconds.size() << ','
      << number(s.median) << ',' << number(s.min) << ',' << number(s.max) << ','
      << number(qr_flops(c.m, c.n) / s.median * 1e-9) << ',' << number(outcome.residual) << ','
      << number(outcome.orthogonality);
  return row.str();
}

}  // namespace tiledqr::bench
