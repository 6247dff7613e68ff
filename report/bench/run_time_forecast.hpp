// The driver's guard against cases that would take too long (--case-limit):
// one run of a case is predicted from the last measured case of its family
// — the same stage, tree, precision, tile and knobs, and either square or
// the same row count — scaled by the QR flop count. The first case of a
// family has no prediction and always runs, so a sweep ordered from small
// to large measures as far as the limit allows and skips the rest.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "bench_case.hpp"

namespace tiledqr::bench {

class RunTimeForecast {
 public:
  // Notes that one run of `c` took `seconds`.
  void record(const BenchCase& c, double seconds);
  // Predicted seconds of one run of `c`; 0 when its family has no measurement yet.
  double predict(const BenchCase& c) const;

 private:
  static std::string family(const BenchCase& c);
  std::map<std::string, std::pair<double, double>> last_;  // family → (flops, seconds)
};

}  // namespace tiledqr::bench
