// The project's random inputs: values uniform in [-1, 1), one draw each of a
// 64-bit Mersenne Twister, the way every stage draws its matrix.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace tiledqr {

// Overwrites each element of `values` (a container of float or double) with
// the next draw of `engine`.
template <typename Container>
void fill_uniform(Container& values, std::mt19937_64& engine) {
  using T = typename Container::value_type;
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (T& x : values) x = T(uniform(engine));
}

// `count` such values.
template <typename T>
std::vector<T> random_values(std::size_t count, std::mt19937_64& engine) {
  std::vector<T> values(count);
  fill_uniform(values, engine);
  return values;
}

}  // namespace tiledqr
