// main() of the FR4 GPU test programs: exits 77 (meson's "skipped") when no
// GPU can be used, else runs the GoogleTest suites.
#include <gtest/gtest.h>

#include <cstdio>

#include "taskgraph/device_graph.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (tiledqr::taskgraph::gpu_count() == 0) {
    std::printf("no CUDA-capable GPU: skipped\n");
    return 77;
  }
  return RUN_ALL_TESTS();
}
