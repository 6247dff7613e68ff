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

// The rule of `--method auto`: a predicted time per method, from an
// operation count and a fixed cost,
//   tiled  tiled_fixed_s + tiled_unit_s · N · U · (L + 2)
//          (U = union columns over the m-blocks, union_column_count(H); one
//          L-term inner product, one Toeplitz entry and about one update per
//          (row, column))
//   fft    fft_fixed_s + fft_unit_s · L · M · n log2 n
//          (2·L·M real transforms of length n = fft_size(N) and the
//          pointwise work)
// and the smaller wins. The constants are fitted to report/data/enkf.csv
// (an H200; M = 32, L = 10, density 0.05, N = 10⁴ … 10⁶): the tiled graph
// costs ~0.2 ms to run at all, the transforms ~0.04 ms. With them fft wins
// at every measured size; tiled wins when H touches few columns (very
// sparse H, or M small) and N is large.
constexpr double tiled_fixed_s = 2.0e-4;
constexpr double tiled_unit_s = 5.3e-13;
constexpr double fft_fixed_s = 4.0e-5;
constexpr double fft_unit_s = 2.8e-12;
Method choose_method(int64_t n, int64_t m, int64_t l, int64_t union_columns);

}  // namespace tiledqr::enkf
