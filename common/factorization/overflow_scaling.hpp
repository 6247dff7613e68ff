// Scaling a matrix below the overflow threshold before it is factored: the
// largest entry, the largest entry that needs no scaling, and the power of
// two that brings an entry under it (docs/design.md §6).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace tiledqr {

// max |x_e| over count entries; a NaN is passed over, as std::max does.
template <typename T>
T largest_magnitude(const T* x, size_t count) {
  // Four running maxima (one would chain every comparison on the last).
  T most[4] = {0, 0, 0, 0};
  const size_t quads = count / 4 * 4;
  for (size_t e = 0; e < quads; e += 4)
    for (int l = 0; l < 4; ++l) most[l] = std::max(most[l], std::fabs(x[e + l]));
  for (size_t e = quads; e < count; ++e) most[0] = std::max(most[0], std::fabs(x[e]));
  return std::max(std::max(most[0], most[1]), std::max(most[2], most[3]));
}

// The largest |entry| that needs no scaling when the reflectors are formed
// over `rows` rows and applied in products `width` wide: orthogonal
// transformations keep each column's norm, at most √rows·max|a|; the
// reflectors' application forms τ·vᵀc with ‖v‖ ≤ √2, τ ≤ 2, and the
// compact-WY products Vᵀ C over `width` columns, so 64·√(rows·width)·max|a|
// bounds every intermediate.
template <typename T>
double overflow_limit(double rows, double width) {
  return double(std::numeric_limits<T>::max()) / (64.0 * std::sqrt(rows * width));
}

// The s ≥ 0 with largest·2^−s ≤ limit: 0 when largest is within it or not
// finite (a non-finite input has nothing left to save). A power of two
// changes no digit of the normal entries.
inline int exponent_below(double largest, double limit) {
  if (!std::isfinite(largest) || largest <= limit) return 0;
  return int(std::ceil(std::log2(largest / limit)));
}

}  // namespace tiledqr
