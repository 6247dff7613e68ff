#include "lcs_cpu.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "errors.hpp"

namespace tiledqr::lcs {

int64_t lcs_length_two_rows(const std::string& a, const std::string& b) {
  const size_t n = b.size();
  std::vector<int32_t> row(n + 1, 0);  // L(i, ·), updated in place from L(i−1, ·)
  for (const char ai : a) {
    int32_t diagonal = 0;  // L(i−1, j−1)
    for (size_t j = 1; j <= n; ++j) {
      const int32_t up = row[j];  // L(i−1, j)
      row[j] = ai == b[j - 1] ? diagonal + 1 : std::max(up, row[j - 1]);
      diagonal = up;
    }
  }
  return row[n];
}

std::vector<int32_t> lcs_table(const std::string& a, const std::string& b) {
  const int64_t rows = int64_t(a.size()) + 1, cols = int64_t(b.size()) + 1;
  if (rows * cols > (int64_t(1) << 28))
    throw InputError("lcs_table: " + std::to_string(rows) + " x " + std::to_string(cols) + " is too large");
  std::vector<int32_t> table(size_t(rows * cols), 0);
  for (int64_t i = 1; i < rows; ++i)
    for (int64_t j = 1; j < cols; ++j)
      table[size_t(i * cols + j)] = a[size_t(i - 1)] == b[size_t(j - 1)]
                                        ? table[size_t((i - 1) * cols + j - 1)] + 1
                                        : std::max(table[size_t((i - 1) * cols + j)], table[size_t(i * cols + j - 1)]);
  return table;
}

std::vector<int32_t> lcs_last_row(const char* a, int64_t m, const char* b, int64_t n) {
  const int64_t words = (n + 63) / 64;
  std::array<int, 256> code;
  code.fill(-1);
  int symbols = 0;
  for (int64_t j = 0; j < n; ++j) {
    int& c = code[static_cast<unsigned char>(b[j])];
    if (c < 0) c = symbols++;
  }
  std::vector<uint64_t> match(size_t(symbols * words), 0);  // (symbols, words): bit j set where b[j] has the code
  for (int64_t j = 0; j < n; ++j)
    match[size_t(code[static_cast<unsigned char>(b[j])] * words + j / 64)] |= uint64_t(1) << (j % 64);

  std::vector<uint64_t> v(size_t(words), ~uint64_t(0));  // bits past n stay 1: their match bits are 0
  for (int64_t i = 0; i < m; ++i) {
    const int c = code[static_cast<unsigned char>(a[i])];
    if (c < 0) continue;  // no match: U = 0 and V is unchanged
    const uint64_t* mt = match.data() + size_t(c * words);
    uint64_t carry = 0;  // the addition V + U runs from word 0 up
    for (int64_t w = 0; w < words; ++w) {
      const uint64_t vw = v[size_t(w)], u = vw & mt[w];
      const uint64_t partial = vw + u;
      const uint64_t sum = partial + carry;
      carry = uint64_t(partial < vw) | uint64_t(sum < partial);
      v[size_t(w)] = sum | (vw & ~mt[w]);
    }
  }
  std::vector<int32_t> row(size_t(n + 1), 0);
  for (int64_t j = 0; j < n; ++j) row[size_t(j + 1)] = row[size_t(j)] + int32_t(((v[size_t(j / 64)] >> (j % 64)) & 1) == 0);
  return row;
}

namespace {

// Leaves of the recursion small enough for the full table: trace it back.
void traceback_table(const char* a, int64_t m, const char* b, int64_t n, std::string& out) {
  const std::string as(a, size_t(m)), bs(b, size_t(n));
  const std::vector<int32_t> t = lcs_table(as, bs);
  const int64_t cols = n + 1;
  std::string reversed;
  int64_t i = m, j = n;
  while (i > 0 && j > 0) {
    if (a[i - 1] == b[j - 1]) {
      reversed += a[i - 1];
      --i, --j;
    } else if (t[size_t((i - 1) * cols + j)] >= t[size_t(i * cols + j - 1)]) {
      --i;
    } else {
      --j;
    }
  }
  out.append(reversed.rbegin(), reversed.rend());
}

// Appends one LCS of a[0, m) and b[0, n) to `out` (Hirschberg 1975).
void hirschberg(const char* a, int64_t m, const char* b, int64_t n, std::string& out) {
  if (m == 0 || n == 0) return;
  if (m == 1) {
    if (std::memchr(b, a[0], size_t(n)) != nullptr) out += a[0];
    return;
  }
  if (m * n <= 4096) return traceback_table(a, m, b, n, out);
  const int64_t mid = m / 2;
  int64_t split = 0;  // b[0, split) pairs with a[0, mid), b[split, n) with a[mid, m)
  {
    const std::vector<int32_t> forward = lcs_last_row(a, mid, b, n);  // L(a[0,mid), b[0,k))
    const std::string a_tail(std::make_reverse_iterator(a + m), std::make_reverse_iterator(a + mid));
    const std::string b_reversed(std::make_reverse_iterator(b + n), std::make_reverse_iterator(b));
    // backward[t] = LCS of a[mid, m) and the last t symbols of b
    const std::vector<int32_t> backward = lcs_last_row(a_tail.data(), m - mid, b_reversed.data(), n);
    int32_t best = -1;
    for (int64_t k = 0; k <= n; ++k) {
      const int32_t total = forward[size_t(k)] + backward[size_t(n - k)];
      if (total > best) best = total, split = k;
    }
  }
  hirschberg(a, mid, b, split, out);
  hirschberg(a + mid, m - mid, b + split, n - split, out);
}

}  // namespace

std::string lcs_traceback(const std::string& a, const std::string& b) {
  std::string out;
  hirschberg(a.data(), int64_t(a.size()), b.data(), int64_t(b.size()), out);
  return out;
}

bool is_subsequence(const std::string& s, const std::string& of) {
  size_t next = 0;
  for (const char c : of)
    if (next < s.size() && s[next] == c) ++next;
  return next == s.size();
}

}  // namespace tiledqr::lcs
