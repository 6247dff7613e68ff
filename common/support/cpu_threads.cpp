// available_cpus and SingleThreadedBlas; see cpu_threads.hpp.
#include "cpu_threads.hpp"

#include <cblas.h>
#include <sched.h>

#include <algorithm>
#include <mutex>
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

namespace {

// The scopes alive and the count found when the first of them began.
struct BlasScopes {
  std::mutex mutex;
  int alive = 0;
  int saved = 1;
};

BlasScopes& blas_scopes() {
  static BlasScopes scopes;
  return scopes;
}

}  // namespace

SingleThreadedBlas::SingleThreadedBlas() {
  BlasScopes& s = blas_scopes();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (s.alive++ > 0) return;
  s.saved = openblas_get_num_threads();
  if (s.saved != 1) openblas_set_num_threads(1);
}

SingleThreadedBlas::~SingleThreadedBlas() {
  BlasScopes& s = blas_scopes();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (--s.alive > 0) return;
  if (openblas_get_num_threads() != s.saved) openblas_set_num_threads(s.saved);
}

}  // namespace tiledqr
