// Tests for common/cpu_threads.{hpp,cpp}: the affinity mask's CPU count and OpenBLAS's thread
// count restored after the last single-threaded scope.
#include "cpu_threads.hpp"

#include <cblas.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <thread>
#include <vector>

namespace tiledqr {
namespace {

// Pass: available_cpus is the mask's CPU count, and follows the mask when it shrinks to one CPU.
TEST(CpuThreads, CountsTheAffinityMask) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  EXPECT_EQ(available_cpus(), CPU_COUNT(&mask));
  int first = 0;
  while (!CPU_ISSET(first, &mask)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(available_cpus(), 1);
  ASSERT_EQ(sched_setaffinity(0, sizeof mask, &mask), 0);
}

// Pass: inside the scope OpenBLAS runs single-threaded; after it, the caller's count is back.
TEST(CpuThreads, BlasThreadCountRestored) {
  openblas_set_num_threads(2);
  const int before = openblas_get_num_threads();
  {
    const SingleThreadedBlas single;
    EXPECT_EQ(openblas_get_num_threads(), 1);
    {
      const SingleThreadedBlas nested;
      EXPECT_EQ(openblas_get_num_threads(), 1);
    }
    EXPECT_EQ(openblas_get_num_threads(), 1);
  }
  EXPECT_EQ(openblas_get_num_threads(), before);
}

// Pass: scopes opened and closed by several threads at once, overlapping in
// every order, see OpenBLAS single-threaded whenever one of them is open,
// and the count before them is back after the last one.
TEST(CpuThreads, ConcurrentScopesRestoreOnce) {
  openblas_set_num_threads(2);
  const int before = openblas_get_num_threads();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int r = 0; r < 2000; ++r) {
        const SingleThreadedBlas single;
        if (openblas_get_num_threads() != 1) ++wrong;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(openblas_get_num_threads(), before);
}

}  // namespace
}  // namespace tiledqr
