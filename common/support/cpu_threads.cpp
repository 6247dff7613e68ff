// available_cpus, resolve_threads, run_independent and SingleThreadedBlas; see cpu_threads.hpp.
#include "cpu_threads.hpp"

#include <cblas.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "errors.hpp"

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

int resolve_threads(int threads) {
  if (threads < 0) throw InputError("threads must be >= 0, got " + std::to_string(threads));
  if (threads > 0) return threads;
  return available_cpus();
}

void run_independent(int64_t count, int threads, const std::function<void(int64_t)>& body) {
  const int workers = int(std::min<int64_t>(resolve_threads(threads), std::max<int64_t>(count, 1)));
  const SingleThreadedBlas single_threaded_blas;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto loop = [&] {
    for (int64_t i = next++; i < count && !failed.load(std::memory_order_relaxed); i = next++) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(size_t(workers) - 1);
  try {
    for (int w = 1; w < workers; ++w) helpers.emplace_back(loop);
  } catch (...) {
    failed = true;  // could not start a thread: the started ones stop after their current item
    for (std::thread& t : helpers) t.join();
    throw;
  }
  loop();
  for (std::thread& t : helpers) t.join();
  if (error) std::rethrow_exception(error);
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
