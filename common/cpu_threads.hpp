// CPU threads of the process: how many CPUs it may run on, and OpenBLAS's thread count set for a
// scope and restored after it.
#pragma once

namespace tiledqr {

// The number of CPUs in this process's affinity mask (sched_getaffinity), which is what `taskset`,
// cgroups' cpusets and batch schedulers restrict; at least 1. Falls back to the hardware thread
// count when the mask cannot be read.
int available_cpus();

// Sets OpenBLAS's thread count to `threads` for the lifetime of the object and restores the count
// found on construction afterwards, so a library call leaves the caller's BLAS as it was. Tile
// kernels use it with 1: the executors supply the parallelism.
class ScopedBlasThreads {
 public:
  explicit ScopedBlasThreads(int threads);
  ~ScopedBlasThreads();
  ScopedBlasThreads(const ScopedBlasThreads&) = delete;
  ScopedBlasThreads& operator=(const ScopedBlasThreads&) = delete;

 private:
  int previous_;
};

}  // namespace tiledqr
