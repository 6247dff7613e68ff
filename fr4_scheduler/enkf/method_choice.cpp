#include "method_choice.hpp"

#include <algorithm>
#include <cmath>

#include "errors.hpp"

namespace tiledqr::enkf {

const char* method_name(Method method) {
  switch (method) {
    case Method::automatic: return "auto";
    case Method::tiled: return "tiled";
    case Method::fft: return "fft";
    case Method::dense: return "dense";
    case Method::cpu: return "cpu";
  }
  return "?";
}

Method parse_method(const std::string& name) {
  for (Method m : {Method::automatic, Method::tiled, Method::fft, Method::dense, Method::cpu})
    if (name == method_name(m)) return m;
  throw InputError("--method must be auto, tiled, fft, dense or cpu, got '" + name + "'");
}

int64_t fft_size(int64_t n) {
  for (int64_t size = std::max<int64_t>(2, 2 * n - 1);; ++size) {
    int64_t rest = size;
    for (int64_t p : {2, 3, 5, 7})
      while (rest % p == 0) rest /= p;
    if (rest == 1) return size;
  }
}

Method choose_method(int64_t n, int64_t m, int64_t l, int64_t union_columns) {
  const double tiled = tiled_fixed_s + tiled_unit_s * double(n) * double(union_columns) * double(l + 2);
  const double size = double(fft_size(n));
  const double fft = fft_fixed_s + fft_unit_s * double(l) * double(m) * size * std::max(1.0, std::log2(size));
  return tiled <= fft ? Method::tiled : Method::fft;
}

}  // namespace tiledqr::enkf
