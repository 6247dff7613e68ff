// The CPU side of the LCS workload ("Supernode transformation on GPGPUs"): the
// single-thread two-row DP (the peer the GPU methods are measured against), the
// full-table DP that tests check it with, a bit-parallel last-row DP (Hyyrö
// 2004, "Bit-parallel LCS-length computation revisited"), and Hirschberg's
// linear-space traceback (ref. [15] of "Supernode transformation on GPGPUs")
// built on it.
//
// L(i, j) is the LCS length of a[0, i) and b[0, j):
//   L(i, j) = L(i−1, j−1) + 1              if a[i−1] = b[j−1]
//           = max(L(i−1, j), L(i, j−1))    otherwise,   L(0, ·) = L(·, 0) = 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tiledqr::lcs {

// L(|a|, |b|) by rows of L, keeping one row of |b| + 1 values: O(|a|·|b|)
// time, O(|b|) memory.
int64_t lcs_length_two_rows(const std::string& a, const std::string& b);

// The whole table, row-major: entry (i, j) at i·(|b| + 1) + j. For tests and
// small Hirschberg leaves only; throws InputError above 2^28 entries.
std::vector<int32_t> lcs_table(const std::string& a, const std::string& b);

// Row |a| of L: L(|a|, j) for j = 0 … |b|, by the bit-vector recurrence over
// b's positions (one 64-bit word per 64 columns), one step per symbol of a:
//   U = V & Match[a_i];  V ← (V + U) | (V & ~Match[a_i]),  V starts all ones,
// where bit j of V is 0 exactly when L(i, j+1) − L(i, j) = 1.
std::vector<int32_t> lcs_last_row(const char* a, int64_t m, const char* b, int64_t n);

// One longest common subsequence of a and b, by Hirschberg's divide and
// conquer with bit-parallel score rows: O(|a|·|b|/64) word steps, O(|a| + |b|)
// memory.
std::string lcs_traceback(const std::string& a, const std::string& b);

// True when s is a subsequence of `of`.
bool is_subsequence(const std::string& s, const std::string& of);

}  // namespace tiledqr::lcs
