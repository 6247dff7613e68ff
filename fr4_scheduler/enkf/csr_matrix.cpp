#include "csr_matrix.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_set>

#include "errors.hpp"
#include "matrix_market.hpp"

namespace tiledqr::enkf {

double CsrMatrix::at(int64_t r, int64_t c) const {
  const auto first = col.begin() + row_ptr[size_t(r)];
  const auto last = col.begin() + row_ptr[size_t(r) + 1];
  const auto hit = std::lower_bound(first, last, static_cast<int32_t>(c));
  return hit != last && *hit == c ? value[size_t(hit - col.begin())] : 0.0;
}

CsrMatrix csr_from_triplets(int64_t rows, int64_t cols, std::vector<Triplet> entries) {
  if (rows < 0 || cols < 0) throw InputError("a sparse matrix cannot have a negative size");
  if (cols > std::numeric_limits<int32_t>::max())
    throw InputError("a sparse matrix may have at most 2^31 - 1 columns");
  for (const Triplet& t : entries)
    if (t.row < 0 || t.row >= rows || t.col < 0 || t.col >= cols)
      throw InputError("entry (" + std::to_string(t.row + 1) + ", " + std::to_string(t.col + 1) +
                       ") lies outside the " + std::to_string(rows) + " x " + std::to_string(cols) +
                       " matrix");
  std::sort(entries.begin(), entries.end(), [](const Triplet& a, const Triplet& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  CsrMatrix h;
  h.rows = rows;
  h.cols = cols;
  h.row_ptr.assign(size_t(rows) + 1, 0);
  for (size_t k = 0; k < entries.size(); ++k) {
    const Triplet& t = entries[k];
    if (k > 0 && entries[k - 1].row == t.row && entries[k - 1].col == t.col) {
      h.value.back() += t.value;  // duplicates are summed
      continue;
    }
    h.col.push_back(static_cast<int32_t>(t.col));
    h.value.push_back(t.value);
    ++h.row_ptr[size_t(t.row) + 1];
  }
  for (int64_t r = 0; r < rows; ++r) h.row_ptr[size_t(r) + 1] += h.row_ptr[size_t(r)];
  check_csr(h);
  return h;
}

CsrMatrix csr_from_dense(const double* a, int64_t rows, int64_t cols, int64_t lda) {
  std::vector<Triplet> entries;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (a[r + c * lda] != 0.0) entries.push_back({r, c, a[r + c * lda]});
  return csr_from_triplets(rows, cols, std::move(entries));
}

std::vector<double> csr_to_dense(const CsrMatrix& h) {
  std::vector<double> dense(size_t(h.rows * h.cols), 0.0);
  for (int64_t r = 0; r < h.rows; ++r)
    for (int64_t k = h.row_ptr[size_t(r)]; k < h.row_ptr[size_t(r) + 1]; ++k)
      dense[size_t(r + int64_t(h.col[size_t(k)]) * h.rows)] = h.value[size_t(k)];
  return dense;
}

void check_csr(const CsrMatrix& h) {
  if (h.rows < 0 || h.cols < 0) throw InputError("a sparse matrix cannot have a negative size");
  if (h.row_ptr.size() != size_t(h.rows) + 1 || h.row_ptr[0] != 0 || h.row_ptr.back() != h.nnz() ||
      h.value.size() != h.col.size())
    throw InputError("malformed CSR matrix: row pointers do not span the nonzeros");
  if (h.nnz() > std::numeric_limits<int32_t>::max())
    throw InputError("a sparse matrix may have at most 2^31 - 1 nonzeros");
  for (int64_t r = 0; r < h.rows; ++r) {
    if (h.row_ptr[size_t(r) + 1] < h.row_ptr[size_t(r)])
      throw InputError("malformed CSR matrix: row pointers decrease at row " + std::to_string(r));
    for (int64_t k = h.row_ptr[size_t(r)]; k < h.row_ptr[size_t(r) + 1]; ++k) {
      const int64_t c = h.col[size_t(k)];
      if (c < 0 || c >= h.cols)
        throw InputError("malformed CSR matrix: column " + std::to_string(c) + " out of range in row " +
                         std::to_string(r));
      if (k > h.row_ptr[size_t(r)] && h.col[size_t(k) - 1] >= c)
        throw InputError("malformed CSR matrix: columns not increasing in row " + std::to_string(r));
    }
  }
}

CsrMatrix random_csr(int64_t rows, int64_t cols, double density, std::mt19937_64& rng) {
  const int64_t per_row =
      std::min<int64_t>(cols, std::max<int64_t>(1, std::llround(density * double(cols))));
  std::uniform_real_distribution<double> weight(0.1, 1.0);
  std::vector<Triplet> entries;
  entries.reserve(size_t(rows * per_row));
  std::vector<int64_t> picked;
  for (int64_t r = 0; r < rows; ++r) {
    // Floyd's sampling: per_row distinct columns in O(per_row) draws.
    std::unordered_set<int64_t> chosen;
    picked.clear();
    for (int64_t top = cols - per_row; top < cols; ++top) {
      const int64_t c = std::uniform_int_distribution<int64_t>(0, top)(rng);
      const int64_t take = chosen.insert(c).second ? c : top;
      if (take == top) chosen.insert(top);
      picked.push_back(take);
    }
    for (int64_t c : picked) entries.push_back({r, c, weight(rng)});
  }
  return csr_from_triplets(rows, cols, std::move(entries));
}

namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

[[noreturn]] void fail(const std::string& name, int64_t line, const std::string& problem) {
  throw InputError(name + ":" + std::to_string(line) + ": " + problem);
}

// A decimal integer that fits in int64, else an error at `line`.
int64_t parse_index(const std::string& word, const std::string& name, int64_t line) {
  if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos)
    fail(name, line, "'" + word + "' is not a non-negative integer");
  errno = 0;
  const long long value = std::strtoll(word.c_str(), nullptr, 10);
  if (errno == ERANGE) fail(name, line, "'" + word + "' is too large");
  return value;
}

double parse_value(const std::string& word, const std::string& name, int64_t line) {
  char* end = nullptr;
  const double value = std::strtod(word.c_str(), &end);
  if (word.empty() || end != word.c_str() + word.size())
    fail(name, line, "'" + word + "' is not a number");
  return value;
}

}  // namespace

CsrMatrix parse_csr_matrix_market(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  int64_t line_no = 1;
  if (!std::getline(in, line)) fail(name, 1, "empty file");
  std::istringstream banner(line);
  std::string tag, object, format, field, symmetry;
  banner >> tag >> object >> format >> field >> symmetry;
  if (tag != "%%MatrixMarket" || lower(object) != "matrix")
    fail(name, 1, "not a Matrix Market matrix (banner '%%MatrixMarket matrix ...' expected)");
  format = lower(format);
  field = lower(field);
  symmetry = lower(symmetry);
  if (format == "array") {
    const DenseMatrix<double> dense = parse_matrix_market(text, name);
    return csr_from_dense(dense.data.data(), dense.rows, dense.cols, std::max<int64_t>(1, dense.rows));
  }
  if (format != "coordinate") fail(name, 1, "format '" + format + "' is neither coordinate nor array");
  if (field != "real" && field != "integer" && field != "pattern")
    fail(name, 1, "field '" + field + "' is not real, integer or pattern");
  if (symmetry != "general" && symmetry != "symmetric")
    fail(name, 1, "symmetry '" + symmetry + "' is not general or symmetric");

  // Size line, after comments and blank lines.
  std::vector<std::string> words;
  auto split = [&words](const std::string& s) {
    words.clear();
    std::istringstream ws(s);
    for (std::string w; ws >> w;) words.push_back(w);
  };
  for (;;) {
    if (!std::getline(in, line)) fail(name, line_no, "missing size line");
    ++line_no;
    split(line);
    if (!words.empty() && words[0][0] != '%') break;
  }
  if (words.size() != 3) fail(name, line_no, "size line must hold rows, columns and entries");
  const int64_t rows = parse_index(words[0], name, line_no);
  const int64_t cols = parse_index(words[1], name, line_no);
  const int64_t count = parse_index(words[2], name, line_no);
  if (symmetry == "symmetric" && rows != cols) fail(name, line_no, "a symmetric matrix must be square");
  if (count > std::numeric_limits<int32_t>::max()) fail(name, line_no, "too many entries");
  if (cols > std::numeric_limits<int32_t>::max()) fail(name, line_no, "too many columns");
  const size_t fields = field == "pattern" ? 2 : 3;
  std::vector<Triplet> entries;
  entries.reserve(size_t(std::min<int64_t>(count, int64_t(1) << 24)));
  for (int64_t read = 0; read < count;) {
    if (!std::getline(in, line))
      fail(name, line_no, "file ends after " + std::to_string(read) + " of " + std::to_string(count) + " entries");
    ++line_no;
    split(line);
    if (words.empty() || words[0][0] == '%') continue;
    if (words.size() != fields)
      fail(name, line_no, "an entry needs " + std::to_string(fields) + " fields, found " +
                              std::to_string(words.size()));
    const int64_t r = parse_index(words[0], name, line_no);
    const int64_t c = parse_index(words[1], name, line_no);
    if (r < 1 || r > rows || c < 1 || c > cols)
      fail(name, line_no, "entry (" + words[0] + ", " + words[1] + ") lies outside the " +
                              std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    const double v = fields == 3 ? parse_value(words[2], name, line_no) : 1.0;
    entries.push_back({r - 1, c - 1, v});
    if (symmetry == "symmetric" && r != c) entries.push_back({c - 1, r - 1, v});
    ++read;
  }
  while (std::getline(in, line)) {  // only blank lines and comments may follow
    ++line_no;
    split(line);
    if (!words.empty() && words[0][0] != '%') fail(name, line_no, "more entries than the size line says");
  }
  return csr_from_triplets(rows, cols, std::move(entries));
}

CsrMatrix read_csr_matrix_market(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path + ": cannot open the file");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw InputError(path + ": cannot read the file");
  return parse_csr_matrix_market(text.str(), path);
}

}  // namespace tiledqr::enkf
