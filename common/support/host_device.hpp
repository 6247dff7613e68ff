// One macro lets a function be compiled for the CPU and, under nvcc, for the
// GPU as well, so the reference kernels and the task grid are written once
// (docs/design.md §3). Without nvcc it expands to nothing.
#pragma once

#if defined(__CUDACC__)
#define TILEDQR_HOST_DEVICE __host__ __device__
#else
#define TILEDQR_HOST_DEVICE
#endif
