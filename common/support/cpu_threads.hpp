// CPU threads of the process: how many CPUs it may run on, and OpenBLAS held single-threaded while any
// factorisation runs.
#pragma once

namespace tiledqr {

// The number of CPUs in this process's affinity mask (sched_getaffinity), which is what `taskset`,
// cgroups' cpusets and batch schedulers restrict; at least 1. Falls back to the hardware thread
// count when the mask cannot be read.
int available_cpus();

// OpenBLAS runs single-threaded while at least one of these objects lives anywhere in the process,
// and gets back the count it had before the first of them once the last one ends, so a library
// call leaves the caller's BLAS as it was. The tile kernels call BLAS inside tasks: the executors
// supply the parallelism. OpenBLAS's count is one process-wide setting, so the scopes are counted
// process-wide: two threads that call the library at once (Python threads, a batch's workers)
// neither restore the count under each other's running tasks nor leave it at 1 afterwards.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
};

}  // namespace tiledqr
