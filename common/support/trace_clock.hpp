// Nanoseconds since an executor's start, for TaskRecord times.
#pragma once

#include <chrono>
#include <cstdint>

namespace tiledqr {

class TraceClock {
 public:
  TraceClock() : start_(std::chrono::steady_clock::now()) {}
  int64_t now_ns() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tiledqr
