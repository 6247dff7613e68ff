// The methods of fr4_enkf and the rule `--method auto` applies.
#pragma once

#include <cstdint>
#include <string>

namespace tiledqr::enkf {

enum class Method { automatic, tiled, fft, dense, cpu };

const char* method_name(Method method);
// "auto", "tiled", "fft", "dense" or "cpu"; anything else is an InputError.
Method parse_method(const std::string& name);

// The circulant embedding's length: the smallest 2,3,5,7-smooth number
// (cuFFT's fast sizes) at least 2n − 1, so that a Toeplitz product of
// order n is a cyclic convolution without wrap-around.
// (at least 2, a length every cuFFT real transform takes).
//   fft_size(1000) == 2000, fft_size(1) == 2
int64_t fft_size(int64_t n);

// The rule of `--method auto`, an operation count per method:
//   tiled  N · U · (L + 2)             (U = union columns over the m-blocks,
//                                       union_column_count(H); one L-term
//                                       inner product, one Toeplitz entry and
//                                       about one update per (row, column))
//   fft    fft_weight · L · M · n log2 n (2·L·M real transforms of length
//                                       n = fft_size(N) and the pointwise work)
// Tiled when its count is not larger. fft_weight = 24 puts the crossover
// near N = 25000 for M = 32, L = 10, density 0.05, where the two were
// expected to meet on an H100; recalibrate it from report/data/enkf.csv.
constexpr double fft_weight = 24.0;
Method choose_method(int64_t n, int64_t m, int64_t l, int64_t union_columns);

}  // namespace tiledqr::enkf
