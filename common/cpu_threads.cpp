// available_cpus and ScopedBlasThreads; see cpu_threads.hpp.
#include "cpu_threads.hpp"

#include <cblas.h>
#include <sched.h>

#include <algorithm>
#include <thread>

namespace tiledqr {

int available_cpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
    const int count = CPU_COUNT(&mask);
    if (count > 0) return count;
  }
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

ScopedBlasThreads::ScopedBlasThreads(int threads) : previous_(openblas_get_num_threads()) {
  if (threads != previous_) openblas_set_num_threads(threads);
}

ScopedBlasThreads::~ScopedBlasThreads() {
  if (openblas_get_num_threads() != previous_) openblas_set_num_threads(previous_);
}

}  // namespace tiledqr
