// The main() body of the GPU kernel test programs: exits 77 (meson's
// "skipped") when no GPU can be used, else prints the seed and runs the
// GoogleTest suites.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "test_support.hpp"

namespace tiledqr::testing {

inline int run_gpu_tests(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA-capable GPU: skipped\n");
    return 77;
  }
  test_seed();
  return RUN_ALL_TESTS();
}

}  // namespace tiledqr::testing
