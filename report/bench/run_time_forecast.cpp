#include "run_time_forecast.hpp"

#include "checks.hpp"

namespace tiledqr::bench {

std::string RunTimeForecast::family(const BenchCase& c) {
  const std::string shape = c.m == c.n ? "square" : "m=" + std::to_string(c.m);
  return c.stage + '/' + c.tree + '/' + c.backend + '/' + c.precision + '/' + std::to_string(c.tile) + '/' +
         std::to_string(c.inner_block) + '/' + std::to_string(c.threads) + '/' +
         std::to_string(c.executors_per_sm) + '/' + std::to_string(c.double_task_weight) + '/' + shape;
}

void RunTimeForecast::record(const BenchCase& c, double seconds) {
  last_[family(c)] = {qr_flops(c.m, c.n), seconds};
}

double RunTimeForecast::predict(const BenchCase& c) const {
  const auto found = last_.find(family(c));
  if (found == last_.end() || found->second.first <= 0) return 0;
  return found->second.second * qr_flops(c.m, c.n) / found->second.first;
}

}  // namespace tiledqr::bench
