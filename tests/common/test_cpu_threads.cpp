// Tests for common/cpu_threads.{hpp,cpp}: the affinity mask's CPU count and OpenBLAS's thread
// count restored after a scope.
#include "cpu_threads.hpp"

#include <cblas.h>
#include <gtest/gtest.h>
#include <sched.h>

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
    const ScopedBlasThreads single(1);
    EXPECT_EQ(openblas_get_num_threads(), 1);
  }
  EXPECT_EQ(openblas_get_num_threads(), before);
}

}  // namespace
}  // namespace tiledqr
